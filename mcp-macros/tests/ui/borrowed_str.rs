struct Server;

#[mcp_core::handlers]
impl Server {
    /// Says hello.
    #[tool]
    fn hello(&self, name: &str) -> String {
        format!("hello, {name}")
    }
}

fn main() {}
