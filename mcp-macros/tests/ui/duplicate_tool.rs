struct Server;

#[mcp_core::handlers]
impl Server {
    /// Adds.
    #[tool]
    fn add(&self, a: i64) -> String {
        a.to_string()
    }

    /// Also adds.
    #[tool(name = "add")]
    fn add_again(&self, a: i64) -> String {
        a.to_string()
    }
}

fn main() {}
