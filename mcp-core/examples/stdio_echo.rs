//! A stdio MCP server with one tool, `echo`: the smallest useful server,
//! built with only the `server` and `stdio` features (no HTTP stack).
//!
//! ```sh
//! cargo build -p mcp-core --example stdio_echo --no-default-features --features server,stdio
//! cargo run -p mcp-core --example client -- target/debug/examples/stdio_echo
//! ```

use mcp_core::server::{Server, ToolDef};
use mcp_core::transport::Stdio;
use schemars::JsonSchema;
use serde::Deserialize;

/// The arguments of `echo`; the tool's input schema is derived from them.
#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> mcp_core::Result<()> {
    let echo = ToolDef::new(
        "echo",
        "Returns its text unchanged",
        |args: EchoArgs, _cx| async move { Ok::<_, String>(args.text) },
    )?;
    let server = Server::builder("stdio-echo", env!("CARGO_PKG_VERSION"))
        .tool(echo)
        .build();
    // Serves until the client closes stdin (or the process is signalled).
    server.serve(Stdio::new())?.closed().await;
    Ok(())
}
