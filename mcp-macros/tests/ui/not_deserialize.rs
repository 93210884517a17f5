use schemars::JsonSchema;

#[derive(JsonSchema)]
struct Point {
    x: f64,
}

struct Server;

#[mcp_core::handlers]
impl Server {
    /// Takes a point that cannot be read from JSON.
    #[tool]
    fn plot(&self, point: Point) -> String {
        point.x.to_string()
    }
}

fn main() {}
