//! The MCP server under test: `mcp_core::server::Server` with one `echo`
//! tool (returns its `text` argument as text content), written the way the
//! README shows a user to.
//!
//! ```text
//! bench-server stdio          serve on stdin/stdout
//! bench-server http [--json]  Streamable HTTP on 127.0.0.1 (a free port), SSE
//!                             answers, or JSON answers with --json; prints
//!                             `listening on ADDR` and exits when stdin closes
//! ```

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark helper: stdout tells the driver the address"
)]

use mcp_bench::exit_when_stdin_closes;
use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::Stdio;
use mcp_core::transport::http::{HttpServerConfig, StreamableHttpServer};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Echo {
    /// The text to send back.
    text: String,
}

fn server() -> mcp_core::Result<Server> {
    let echo = ToolDef::new(
        "echo",
        "Returns its text argument",
        |args: Echo, _cx| async move { Ok::<_, String>(args.text) },
    )?;
    Ok(Server::builder("bench-server", "0.1.0").tool(echo).build())
}

async fn run(mode: &str, json: bool) -> Result<(), String> {
    let server = server().map_err(|e| e.to_string())?;
    match mode {
        "stdio" => {
            let session = server.serve(Stdio::new()).map_err(|e| e.to_string())?;
            session.closed().await;
            session.close().await;
            Ok(())
        }
        "http" => {
            exit_when_stdin_closes();
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .map_err(|e| format!("cannot bind: {e}"))?;
            let addr = listener.local_addr().map_err(|e| e.to_string())?;
            println!("listening on {addr}");
            let config = HttpServerConfig::default().json_response(json);
            StreamableHttpServer::new(server, config)
                .serve(listener)
                .await
                .map_err(|e| e.to_string())
        }
        other => Err(format!(
            "unknown mode `{other}`: use stdio or http [--json]"
        )),
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = args.first().map_or("stdio", String::as_str);
    let json = args.iter().any(|a| a == "--json");
    if let Err(e) = run(mode, json).await {
        eprintln!("bench-server: {e}");
        std::process::exit(1);
    }
}
