//! The HTTP floor: a bare axum handler that parses the JSON body with
//! serde_json and answers a canned JSON-RPC response, on 127.0.0.1 with
//! TCP_NODELAY. Prints `listening on ADDR` on stdout once bound; exits when
//! its stdin closes.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark helper: stdout tells the driver the address"
)]

use axum::Router;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use mcp_bench::{exit_when_stdin_closes, write_canned_response};
use serde_json::Value;

async fn endpoint(body: Bytes) -> Response {
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(message)) => match message.get("id") {
            Some(id) => {
                let mut out = Vec::with_capacity(160);
                write_canned_response(&mut out, &id.to_string());
                ([(CONTENT_TYPE, "application/json")], out).into_response()
            }
            None => StatusCode::ACCEPTED.into_response(),
        },
        _ => StatusCode::BAD_REQUEST.into_response(),
    }
}

#[tokio::main]
async fn main() {
    exit_when_stdin_closes();
    let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("bench-floor-http: cannot bind: {e}");
            std::process::exit(1);
        }
    };
    match listener.local_addr() {
        Ok(addr) => println!("listening on {addr}"),
        Err(e) => {
            eprintln!("bench-floor-http: {e}");
            std::process::exit(1);
        }
    }
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let app = Router::new().route("/mcp", post(endpoint));
    if let Err(e) = axum::serve(listener, app).await {
        eprintln!("bench-floor-http: {e}");
        std::process::exit(1);
    }
}
