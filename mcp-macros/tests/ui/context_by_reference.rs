use mcp_core::server::Context;

struct Server;

#[mcp_core::handlers]
impl Server {
    /// Logs and answers.
    #[tool]
    async fn work(&self, cx: &Context) -> String {
        let _ = cx;
        "done".to_string()
    }
}

fn main() {}
