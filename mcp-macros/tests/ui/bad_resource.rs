struct Server;

#[mcp_core::handlers]
impl Server {
    /// A relative URI.
    #[resource(uri = "notes/all")]
    fn all(&self) -> String {
        String::new()
    }

    /// A template that does not parse.
    #[resource(uri = "notes://{id")]
    fn one(&self, id: String) -> String {
        id
    }

    /// A parameter the template does not name.
    #[resource(uri = "notes://{id}")]
    fn other(&self, key: String) -> String {
        key
    }

    /// No URI.
    #[resource]
    fn nowhere(&self) -> String {
        String::new()
    }
}

fn main() {}
