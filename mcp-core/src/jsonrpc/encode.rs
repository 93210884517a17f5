//! Encoding of outgoing messages straight to text, without building a
//! `serde_json::Value` first.

use serde::Serialize;
use serde_json::value::RawValue;

use super::RpcError;
use crate::schema::RequestId;

#[derive(Serialize)]
struct Request<'a, P: Serialize> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

#[derive(Serialize)]
struct Notification<'a, P: Serialize> {
    jsonrpc: &'static str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    // Left out when the request's id could not be read: MCP's schema makes
    // the id of an error response optional, not nullable (JSON-RPC 2.0 §5
    // would write `null`).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a RequestId>,
    error: &'a RpcError,
}

/// Encodes a request.
pub fn encode_request<P: Serialize>(
    id: &RequestId,
    method: &str,
    params: Option<&P>,
) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Request {
        jsonrpc: "2.0",
        id,
        method,
        params,
    })
}

/// Encodes a notification.
pub fn encode_notification<P: Serialize>(
    method: &str,
    params: Option<&P>,
) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Notification {
        jsonrpc: "2.0",
        method,
        params,
    })
}

/// Encodes a successful response around an already encoded result.
pub fn encode_result(id: &RequestId, result: &RawValue) -> String {
    encode_result_json(id, result.get())
}

/// [`encode_result`] of a result that is valid JSON text already (written
/// whole by a serializer, or joined from valid pieces).
pub(crate) fn encode_result_json(id: &RequestId, result: &str) -> String {
    // Written straight into one allocation of the right size: the result is
    // JSON text already, and only the id needs encoding.
    const HEAD: &str = r#"{"jsonrpc":"2.0","id":"#;
    const RESULT: &str = r#","result":"#;
    let mut out = String::with_capacity(HEAD.len() + 24 + RESULT.len() + result.len() + 1);
    out.push_str(HEAD);
    match id {
        // `itoa`, not `fmt`'s machinery: this runs for every answer.
        RequestId::Integer(n) => out.push_str(itoa::Buffer::new().format(*n)),
        // Serializing a string cannot fail.
        RequestId::String(_) => out.push_str(&serde_json::to_string(id).unwrap_or_default()),
    }
    out.push_str(RESULT);
    out.push_str(result);
    out.push('}');
    out
}

#[derive(Serialize)]
struct EmptyObject {}

#[derive(Serialize)]
struct EmptyResponse<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: EmptyObject,
}

/// Encodes a successful response whose result is `{}` (ping and friends).
pub fn encode_empty_result(id: &RequestId) -> String {
    serde_json::to_string(&EmptyResponse {
        jsonrpc: "2.0",
        id,
        result: EmptyObject {},
    })
    .unwrap_or_default()
}

/// Encodes an error response; `id` is `None` when the request's id is unknown.
pub fn encode_error(id: Option<&RequestId>, error: &RpcError) -> String {
    serde_json::to_string(&ErrorResponse {
        jsonrpc: "2.0",
        id,
        error,
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_without_a_readable_id_has_no_id() {
        let error = RpcError::invalid_request("x");
        let value: serde_json::Value = serde_json::from_str(&encode_error(None, &error)).unwrap();
        assert!(value.get("id").is_none(), "{value}");
        let id = RequestId::Integer(4);
        let value: serde_json::Value =
            serde_json::from_str(&encode_error(Some(&id), &error)).unwrap();
        assert_eq!(value["id"], 4);
    }

    #[test]
    fn error_data_null_survives_a_round_trip() {
        for text in [
            r#"{"code":-32000,"message":"m","data":null}"#,
            r#"{"code":-32000,"message":"m"}"#,
            r#"{"code":-32000,"message":"m","data":{"k":[1]}}"#,
        ] {
            let error: RpcError = serde_json::from_str(text).unwrap();
            let back: serde_json::Value = serde_json::to_value(&error).unwrap();
            let original: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(back, original);
        }
    }

    #[test]
    fn results_encode_like_serde() {
        let result = RawValue::from_string(r#"{"a":[1,"x"]}"#.into()).unwrap();
        for id in [
            RequestId::Integer(-7),
            RequestId::Integer(i64::MAX),
            RequestId::String("a \"quoted\" \\ id\n".into()),
        ] {
            let expected =
                serde_json::json!({"jsonrpc": "2.0", "id": id, "result": {"a": [1, "x"]}});
            let text = encode_result(&id, &result);
            assert_eq!(
                serde_json::from_str::<serde_json::Value>(&text).unwrap(),
                expected
            );
            assert!(text.starts_with(r#"{"jsonrpc":"2.0","id":"#), "{text}");
        }
    }
}
