//! Decoding a typical `tools/call` request and encoding its result, on one
//! core: ours (the engine's one-pass decode into the generated types, and
//! the encode of a `CallToolResult` around the id) against serde_json into
//! and out of `serde_json::Value`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use mcp_bench::call_request;
use mcp_core::jsonrpc::{Inbound, decode, encode_result};
use mcp_core::schema::{CallToolResult, ClientRequest, ClientRequestMethod};
use serde_json::{Value, json};

use super::Error;

/// What the server does with one `tools/call` of the echo tool, minus the
/// transport: decode, then encode the result. Returns the encoded length.
pub(crate) fn ours_once(text: &str) -> Result<usize, Error> {
    let Ok(Inbound::Request(request)) = decode(text) else {
        return Err("not a request".into());
    };
    let method = ClientRequestMethod::from_name(&request.method).ok_or("unknown method")?;
    let ClientRequest::CallTool(call) =
        ClientRequest::from_parts(method, request.id, request.params)?
    else {
        return Err("not tools/call".into());
    };
    let echo = call
        .params
        .arguments
        .as_ref()
        .and_then(|a| a.get("text"))
        .and_then(Value::as_str)
        .ok_or("no text")?;
    let result = serde_json::value::to_raw_value(&CallToolResult::text(echo))?;
    Ok(encode_result(&call.id, &result).len())
}

/// The floor: serde_json into `Value`, and a `Value` response out.
pub(crate) fn floor_once(text: &str) -> Result<usize, Error> {
    let request: Value = serde_json::from_str(text)?;
    let echo = request["params"]["arguments"]["text"]
        .as_str()
        .ok_or("no text")?;
    let response = json!({
        "jsonrpc": "2.0",
        "id": request["id"],
        "result": {"content": [{"type": "text", "text": echo}]},
    });
    Ok(serde_json::to_string(&response)?.len())
}

/// Runs `f` for about `duration`; returns operations per second.
pub(crate) fn rate(f: fn(&str) -> Result<usize, Error>, duration: Duration) -> Result<f64, Error> {
    let text = call_request(42);
    let start = Instant::now();
    let mut count: u64 = 0;
    loop {
        for _ in 0..256 {
            black_box(f(black_box(&text))?);
        }
        count += 256;
        let elapsed = start.elapsed();
        if elapsed >= duration {
            return Ok(count as f64 / elapsed.as_secs_f64());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_encode_the_same_response() {
        let text = call_request(42);
        assert_eq!(ours_once(&text).unwrap(), floor_once(&text).unwrap());
    }
}
