use serde::Deserialize;

#[derive(Deserialize)]
struct Point {
    x: f64,
    y: f64,
}

struct Server;

#[mcp_core::handlers]
impl Server {
    /// Takes a point whose type has no JSON Schema.
    #[tool]
    fn plot(&self, point: Point) -> String {
        format!("{} {}", point.x, point.y)
    }
}

fn main() {}
