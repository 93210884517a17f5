//! A client: starts a stdio server as a child process, lists its tools and
//! calls one.
//!
//! ```sh
//! # against the stdio_echo example (build it first):
//! cargo build -p mcp-core --example stdio_echo
//! cargo run -p mcp-core --example client -- target/debug/examples/stdio_echo
//! # against any stdio server, calling a tool of your choice:
//! cargo run -p mcp-core --example client -- --tool add_numbers --args '{"a":2,"b":3}' -- mcp serve everything
//! ```
//!
//! Without `--tool`, it calls `echo` with `{"text": "hello"}`.

#![allow(clippy::print_stdout, reason = "an example program reports on stdout")]

use mcp_core::client::Client;
use mcp_core::schema::ContentBlock;
use mcp_core::transport::ChildProcess;
use serde_json::{Map, Value, json};

/// What to start and what to call, from the command line.
struct Args {
    tool: String,
    arguments: Map<String, Value>,
    command: Vec<String>,
}

fn parse_args() -> Result<Args, String> {
    let mut tool = "echo".to_string();
    let mut arguments = json!({ "text": "hello" });
    let mut rest = std::env::args().skip(1);
    let mut command = Vec::new();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "--tool" => tool = rest.next().ok_or("--tool needs a name")?,
            "--args" => {
                let text = rest.next().ok_or("--args needs a JSON object")?;
                arguments = serde_json::from_str(&text).map_err(|e| format!("--args: {e}"))?;
            }
            "--" => {
                command.extend(rest.by_ref());
            }
            _ => command.push(arg),
        }
    }
    let Value::Object(arguments) = arguments else {
        return Err("--args must be a JSON object".into());
    };
    if command.is_empty() {
        return Err("usage: client [--tool NAME] [--args JSON] [--] COMMAND [ARGS…]".into());
    }
    Ok(Args {
        tool,
        arguments,
        command,
    })
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = parse_args()?;
    let server = ChildProcess::new(&args.command[0]).args(&args.command[1..]);
    // Negotiates the newest revision both sides speak (2026-07-28 or an
    // older one, with `initialize`).
    let client = Client::builder("example-client", env!("CARGO_PKG_VERSION"))
        .connect(server)
        .await?;
    let info = client.server_info();
    println!(
        "connected to {} {} ({})",
        info.name,
        info.version,
        client.protocol_version()
    );

    for tool in client.list_all_tools().await? {
        let about = tool.description.as_deref().unwrap_or("");
        println!("tool {}: {about}", tool.name);
    }

    let result = client.call_tool(&args.tool, Some(args.arguments)).await?;
    for block in &result.content {
        match block {
            ContentBlock::Text(text) => println!("{}: {}", args.tool, text.text),
            other => println!("{}: {}", args.tool, serde_json::to_string(other)?),
        }
    }
    client.close().await;
    if result.is_error == Some(true) {
        return Err(format!("the tool `{}` failed", args.tool).into());
    }
    Ok(())
}
