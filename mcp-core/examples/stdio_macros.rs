//! Hello world with the attribute macros: a calculator server over stdio
//! whose tool and resource are methods of a struct holding its state.
//!
//! ```sh
//! cargo build --example stdio_macros
//! mcp tools call add --args '{"a":2,"b":3}' -- target/debug/examples/stdio_macros
//! ```

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_core::server::{Json, Server};
use mcp_core::transport::Stdio;
use schemars::JsonSchema;
use serde::Serialize;

/// The server's state, shared by its tools and resources.
#[derive(Default)]
struct Calculator {
    additions: AtomicU64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[mcp_core::handlers]
impl Calculator {
    /// Adds two integers.
    #[tool(read_only)]
    async fn add(&self, a: i64, b: i64) -> Json<Sum> {
        self.additions.fetch_add(1, Ordering::Relaxed);
        Json(Sum { sum: a + b })
    }

    /// How many additions this server has done.
    #[resource(uri = "calculator://additions", mime_type = "text/plain")]
    fn additions(&self) -> String {
        self.additions.load(Ordering::Relaxed).to_string()
    }
}

#[tokio::main]
async fn main() -> mcp_core::Result<()> {
    let server = Server::builder("calculator", "1.0.0")
        .handlers(Calculator::default())
        .build();
    // Arguments are validated against the schema derived from `add`'s
    // parameters before it runs; `Json<Sum>` gives the tool an outputSchema
    // and structuredContent.
    server.serve(Stdio::new())?.closed().await;
    Ok(())
}
