struct Server;

#[mcp_core::handlers]
impl Server {
    /// Asks for a number of haikus.
    #[prompt]
    fn haikus(&self, count: u32) -> String {
        format!("Write {count} haikus.")
    }
}

fn main() {}
