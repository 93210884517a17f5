struct Server;

#[mcp_core::handlers]
impl Server {
    /// Greets.
    #[prompt]
    fn greet(&self, name: String) -> String {
        format!("Please greet {name}.")
    }

    /// Greets formally.
    #[prompt(name = "greet")]
    fn greet_formally(&self, name: String) -> String {
        format!("Please greet {name} formally.")
    }
}

fn main() {}
