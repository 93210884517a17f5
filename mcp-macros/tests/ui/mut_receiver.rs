struct Server {
    count: i64,
}

#[mcp_core::handlers]
impl Server {
    /// Counts.
    #[tool]
    fn count(&mut self) -> String {
        self.count += 1;
        self.count.to_string()
    }

    /// No receiver at all.
    #[tool]
    fn constant() -> String {
        String::new()
    }
}

fn main() {}
