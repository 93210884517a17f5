use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A JSON-RPC error code. The named constants are the ones MCP uses; any
/// other integer is carried as is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ErrorCode(pub i64);

impl ErrorCode {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: Self = Self(-32700);
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: Self = Self(-32600);
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: Self = Self(-32601);
    /// Invalid method parameters.
    pub const INVALID_PARAMS: Self = Self(-32602);
    /// Internal error while handling the request.
    pub const INTERNAL_ERROR: Self = Self(-32603);
    /// Resource not found (`resources/read`, 2025-11-25 and earlier; from
    /// 2026-07-28 a missing resource is -32602, translated on the way out).
    pub const RESOURCE_NOT_FOUND: Self = Self(-32002);
    /// 2026-07-28: an HTTP header disagrees with the body.
    pub const HEADER_MISMATCH: Self = Self(-32020);
    /// 2026-07-28: the request needs a client capability it did not declare
    /// (`data.requiredCapabilities`).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: Self = Self(-32021);
    /// 2026-07-28: the request's protocol revision is not supported
    /// (`data.supported`, `data.requested`).
    pub const UNSUPPORTED_PROTOCOL_VERSION: Self = Self(-32022);
    /// The server requires the client to complete URL-mode elicitations first.
    pub const URL_ELICITATION_REQUIRED: Self = Self(-32042);
    /// Generic server error used for limits and timeouts of this implementation.
    pub const SERVER_ERROR: Self = Self(-32000);
    /// The request was cancelled or timed out (also used by other SDKs).
    pub const REQUEST_TIMEOUT: Self = Self(-32001);
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The `error` member of a JSON-RPC error response: what crosses the wire.
///
/// Kept apart from [`crate::Error`], which is what a Rust caller sees; an
/// `RpcError` from the peer arrives inside `Error::Rpc`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// The error code.
    pub code: ErrorCode,
    /// A short description of the error.
    pub message: Cow<'static, str>,
    /// Additional information, defined by the sender. `Some(Value::Null)`
    /// is a `"data": null` that was sent, kept apart from no `data` at all.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub data: Option<Value>,
}

/// A `data` member that is present, even as `null`.
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl RpcError {
    /// An error with a code and message.
    pub fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// Attaches `data`.
    #[must_use]
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32700: the bytes were not JSON.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(ErrorCode::PARSE_ERROR, format!("Parse error: {detail}"))
    }

    /// -32600: valid JSON that is not a valid JSON-RPC message.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::INVALID_REQUEST,
            format!("Invalid request: {detail}"),
        )
    }

    /// -32601 for `method`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
        )
    }

    /// -32602: the params do not fit the method.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::INVALID_PARAMS,
            format!("Invalid params: {detail}"),
        )
    }

    /// -32042: the request needs the user to complete these URL-mode
    /// elicitations first; the client may retry once they are done.
    pub fn url_elicitation_required(
        message: impl Into<Cow<'static, str>>,
        elicitations: &[crate::schema::ElicitRequestUrlParams],
    ) -> Self {
        let data = serde_json::json!({ "elicitations": elicitations });
        Self::new(ErrorCode::URL_ELICITATION_REQUIRED, message).with_data(data)
    }

    /// -32603: the handler failed.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(
            ErrorCode::INTERNAL_ERROR,
            format!("Internal error: {detail}"),
        )
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}
