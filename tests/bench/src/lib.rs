//! What the benchmark's programs share: the messages the drivers send, the
//! canned answer of the floor programs, and the client side of both
//! drivers (`mcp-bench` and `mcp-soak`): a raw HTTP/1.1 client, a stdio
//! peer, process handling and statistics.
//!
//! The drivers speak raw JSON-RPC, so the same code drives our server
//! (`bench-server`) and the floors (`bench-floor-stdio`, `bench-floor-http`).

pub mod http;
pub mod machine;
pub mod procs;
pub mod stats;
pub mod stdio;

use std::io::Write;

/// The drivers' error: a message for the table or the log.
pub type Error = Box<dyn std::error::Error + Send + Sync>;

/// The text every `tools/call` sends to the `echo` tool.
pub const ECHO_TEXT: &str = "hello from mcp-bench";

/// The protocol revision the driver asks for.
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The floors' canned `result`: byte for byte what our `echo` tool answers.
pub const CANNED_RESULT: &str = r#"{"content":[{"text":"hello from mcp-bench","type":"text"}]}"#;

/// `notifications/initialized`.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// An `initialize` request with id `id`.
pub fn initialize_request(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"0.1.0"}}}}}}"#
    )
}

/// Appends a typical `tools/call` request with id `id` (no newline).
pub fn write_call_request(out: &mut Vec<u8>, id: u64) {
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
    );
}

/// The revision without sessions the stateless row speaks.
pub const STATELESS_VERSION: &str = "2026-07-28";

/// Appends a 2026-07-28 `tools/call` with id `id` (no newline): the same
/// call standing alone, its revision and client capabilities in `_meta`.
pub fn write_stateless_call_request(out: &mut Vec<u8>, id: u64) {
    // Writing to a Vec cannot fail.
    let _ = write!(
        out,
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{STATELESS_VERSION}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
}

/// A typical `tools/call` request with id `id`.
pub fn call_request(id: u64) -> String {
    let mut out = Vec::with_capacity(128);
    write_call_request(&mut out, id);
    String::from_utf8_lossy(&out).into_owned()
}

/// Appends the floors' canned response for a request whose `id` is the JSON
/// text `id` (no newline).
pub fn write_canned_response(out: &mut Vec<u8>, id: &str) {
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(br#","result":"#);
    out.extend_from_slice(CANNED_RESULT.as_bytes());
    out.push(b'}');
}

/// Ends this process when its stdin reaches end of input: the driver's
/// backstop for server processes, so that none outlives a driver that died.
pub fn exit_when_stdin_closes() {
    std::thread::spawn(|| {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin().lock();
        loop {
            match std::io::Read::read(&mut stdin, &mut sink) {
                Ok(0) | Err(_) => std::process::exit(0),
                Ok(_) => {}
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_json() {
        let call: serde_json::Value = serde_json::from_str(&call_request(7)).unwrap();
        assert_eq!(call["params"]["arguments"]["text"], ECHO_TEXT);
        let mut stateless = Vec::new();
        write_stateless_call_request(&mut stateless, 7);
        let stateless: serde_json::Value = serde_json::from_slice(&stateless).unwrap();
        assert_eq!(stateless["params"]["arguments"]["text"], ECHO_TEXT);
        assert_eq!(
            stateless["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            STATELESS_VERSION
        );
        let init: serde_json::Value = serde_json::from_str(&initialize_request(0)).unwrap();
        assert_eq!(init["params"]["protocolVersion"], PROTOCOL_VERSION);
        let mut out = Vec::new();
        write_canned_response(&mut out, "\"x\"");
        let response: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(response["result"]["content"][0]["text"], ECHO_TEXT);
    }
}
