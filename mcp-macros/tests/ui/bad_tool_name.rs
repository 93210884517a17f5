struct Server;

#[mcp_core::handlers]
impl Server {
    /// Spaces are not allowed in tool names.
    #[tool(name = "get weather")]
    fn weather(&self) -> String {
        String::new()
    }
}

fn main() {}
