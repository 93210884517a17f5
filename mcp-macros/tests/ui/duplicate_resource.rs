struct Server;

#[mcp_core::handlers]
impl Server {
    /// The configuration.
    #[resource(uri = "config://app")]
    fn config(&self) -> String {
        "{}".to_string()
    }

    /// The configuration again.
    #[resource(uri = "config://app", mime_type = "application/json")]
    fn config_json(&self) -> String {
        "{}".to_string()
    }
}

fn main() {}
