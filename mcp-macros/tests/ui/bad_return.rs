struct Server;

#[mcp_core::handlers]
impl Server {
    /// Returns a number, which is no tool result (use `String` or `Json<T>`).
    #[tool]
    fn answer(&self) -> i64 {
        42
    }

    /// Returns a number, which is no prompt.
    #[prompt]
    fn ask(&self) -> i64 {
        42
    }
}

fn main() {}
