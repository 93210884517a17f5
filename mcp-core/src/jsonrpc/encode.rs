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
struct ResultResponse<'a> {
    jsonrpc: &'static str,
    id: &'a RequestId,
    result: &'a RawValue,
}

#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    // `null` when the request's id could not be read (JSON-RPC 2.0 §5).
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
    // Serializing borrowed strings and a RawValue cannot fail.
    serde_json::to_string(&ResultResponse {
        jsonrpc: "2.0",
        id,
        result,
    })
    .unwrap_or_default()
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
