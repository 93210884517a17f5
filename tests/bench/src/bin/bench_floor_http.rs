//! The HTTP floor: a bare axum handler that parses the JSON body with
//! serde_json and answers a canned JSON-RPC response, on 127.0.0.1 with
//! TCP_NODELAY. The driver sends it the very bytes it sends our server for
//! the row it stands beside (headers and body), and it answers in the same
//! form: a JSON body, or, to a client that accepts only event streams, the
//! same two events our server writes (a priming event and the message).
//! Prints `listening on ADDR` on stdout once bound; exits when its stdin
//! closes.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "a benchmark helper: stdout tells the driver the address"
)]

use axum::Router;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use axum::http::header::{ACCEPT, CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use mcp_bench::{exit_when_stdin_closes, write_canned_response};
use serde_json::Value;

/// What our server writes before the message of a one-event stream.
const PRIMING: &[u8] = b"retry: 1000\nid: 1/0\ndata:\n\nid: 1/1\nevent: message\ndata: ";

async fn endpoint(request: Request) -> Response {
    // Taken apart by hand: axum's `HeaderMap` extractor would copy the map.
    let (parts, body) = request.into_parts();
    let sse = parts
        .headers
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| !v.contains("application/json"));
    let Ok(body) = Bytes::from_request(Request::from_parts(parts, body), &()).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    match serde_json::from_slice::<Value>(&body) {
        Ok(Value::Object(message)) => match message.get("id") {
            Some(id) => {
                let mut out = Vec::with_capacity(256);
                if sse {
                    out.extend_from_slice(PRIMING);
                }
                write_canned_response(&mut out, &id.to_string());
                if sse {
                    out.extend_from_slice(b"\n\n");
                    (
                        [
                            (CONTENT_TYPE, "text/event-stream"),
                            (CACHE_CONTROL, "no-cache"),
                        ],
                        out,
                    )
                        .into_response()
                } else {
                    ([(CONTENT_TYPE, "application/json")], out).into_response()
                }
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
