//! Decoding one JSON-RPC message into the generated types, as both roles
//! do: the envelope (`jsonrpc::decode`), then the params or result into the
//! type its method names. Whatever decodes must encode and decode again to
//! the same value (numbers compared with a little tolerance: serde_json's
//! default float parser is best-effort).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mcp_core::jsonrpc::{Inbound, decode};
use mcp_core::schema::{
    ClientNotification, ClientNotificationMethod, ClientRequest, ClientRequestMethod, ClientResult,
    JsonrpcMessage, ServerNotification, ServerNotificationMethod, ServerRequest,
    ServerRequestMethod, ServerResult,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // The generic envelope, from bytes (invalid UTF-8 included).
    if let Ok(message) = serde_json::from_slice::<JsonrpcMessage>(data) {
        round_trip(&message);
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match decode(text) {
        Err(e) => {
            // Refusals carry the codes JSON-RPC defines for them: -32602
            // for `params` that is neither an object nor an array (or not
            // the one a known method takes), which the envelope refuses on
            // every method.
            assert!(matches!(e.error.code.0, -32700 | -32600 | -32602), "{e:?}");
        }
        Ok(Inbound::Request(r)) => {
            if let Some(method) = ClientRequestMethod::from_name(&r.method)
                && let Ok(request) = ClientRequest::from_parts(method, r.id.clone(), r.params)
            {
                assert_eq!(request.method(), method);
                round_trip(&request);
            }
            if let Some(method) = ServerRequestMethod::from_name(&r.method)
                && let Ok(request) = ServerRequest::from_parts(method, r.id, r.params)
            {
                round_trip(&request);
            }
        }
        Ok(Inbound::Notification(n)) => {
            if let Some(method) = ClientNotificationMethod::from_name(&n.method)
                && let Ok(notification) = ClientNotification::from_parts(method, n.params)
            {
                round_trip(&notification);
            }
            if let Some(method) = ServerNotificationMethod::from_name(&n.method)
                && let Ok(notification) = ServerNotification::from_parts(method, n.params)
            {
                round_trip(&notification);
            }
        }
        Ok(Inbound::Response(r)) => {
            let Ok(raw) = r.outcome else { return };
            // The envelope keeps results as raw text and checks only their
            // syntax: a string with a lone surrogate escape (`"\uDBFF"`)
            // gets this far, and fails when the caller decodes the result.
            let Ok(value) = serde_json::from_str::<Value>(raw.get()) else {
                return;
            };
            // Which request it answers is not in the message: try the
            // method the first byte picks, in both directions.
            let pick = usize::from(data.first().copied().unwrap_or(0));
            let client = ClientRequestMethod::ALL[pick % ClientRequestMethod::ALL.len()];
            if let Ok(result) = ServerResult::from_value(client, value.clone()) {
                let again = serde_json::to_value(&result).unwrap();
                let back = ServerResult::from_value(client, again.clone()).unwrap();
                assert!(same(&again, &serde_json::to_value(&back).unwrap()));
            }
            let server = ServerRequestMethod::ALL[pick % ServerRequestMethod::ALL.len()];
            if let Ok(result) = ClientResult::from_value(server, value) {
                let again = serde_json::to_value(&result).unwrap();
                let back = ClientResult::from_value(server, again.clone()).unwrap();
                assert!(same(&again, &serde_json::to_value(&back).unwrap()));
            }
        }
    }
});

/// Encodes `value`, decodes the text, and checks that nothing changed.
fn round_trip<T: Serialize + DeserializeOwned>(value: &T) {
    let text = serde_json::to_string(value).unwrap();
    let back: T = match serde_json::from_str(&text) {
        Ok(back) => back,
        Err(e) => panic!("what we encode we must decode: {e}: {text}"),
    };
    let (a, b) = (
        serde_json::to_value(value).unwrap(),
        serde_json::to_value(&back).unwrap(),
    );
    assert!(same(&a, &b), "changed in a round trip:\n{a}\n{b}");
}

/// Equal values, floats within a relative 1e-12.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            match (x.as_f64(), y.as_f64()) {
                (Some(x), Some(y)) => x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => false,
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}
