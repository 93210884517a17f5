struct Server;

#[mcp_core::handlers]
impl Server {
    /// `readonly` is not a key (`read_only` is).
    #[tool(readonly)]
    fn look(&self) -> String {
        String::new()
    }
}

fn main() {}
