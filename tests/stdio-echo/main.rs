//! A stdio-only echo server as a user writes it: mcp-core with
//! `default-features = false, features = ["server", "stdio", "macros"]`.
//! Built outside the workspace by `tests/features.sh` (which drives it) and
//! by `tests/bench/build_size.sh` (which measures its clean build and size).

use mcp_core::server::Server;
use mcp_core::transport::Stdio;

struct Echo;

#[mcp_core::handlers]
impl Echo {
    /// Returns its text unchanged.
    #[tool(read_only)]
    fn echo(&self, text: String) -> String {
        text
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> mcp_core::Result<()> {
    let server = Server::builder("echo", "0.1.0").handlers(Echo).build();
    server.serve(Stdio::new())?.closed().await;
    Ok(())
}
