//! Decoding one incoming message in a single pass. Params, results and error
//! data stay borrowed raw JSON until the receiver knows what type they are.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::RpcError;
use crate::schema::{ClientRequest, RequestId};

/// One decoded message, borrowing from the text it was read from.
#[derive(Debug)]
pub enum Inbound<'a> {
    /// A request: it must be answered.
    Request(InboundRequest<'a>),
    /// A notification: it must not be answered.
    Notification(InboundNotification<'a>),
    /// A response to one of our requests.
    Response(InboundResponse<'a>),
}

/// An incoming request.
#[derive(Debug)]
pub struct InboundRequest<'a> {
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params, undecoded.
    pub params: Option<&'a RawValue>,
    /// The params' text when they were decoded in the pass that read the
    /// message (`params` is then `None`): see
    /// `decode_request_at_once` (Streamable HTTP server).
    #[cfg_attr(
        not(any(feature = "server", feature = "client")),
        allow(dead_code, reason = "read by the session engine of either role")
    )]
    pub(crate) params_read: Option<&'a str>,
    /// The request decoded whole in that pass, by a server transport that
    /// knew its type from the method: the receiver need not decode it.
    #[cfg_attr(
        not(any(feature = "server", feature = "client")),
        allow(dead_code, reason = "read by the session engine of either role")
    )]
    pub(crate) decoded: Option<Box<ClientRequest>>,
}

impl<'a> InboundRequest<'a> {
    /// The params' text, whether left raw or decoded at once.
    #[cfg_attr(
        not(any(feature = "server", feature = "client")),
        allow(dead_code, reason = "read by the session engine of either role")
    )]
    pub(crate) fn params_text(&self) -> Option<&'a str> {
        self.params.map(RawValue::get).or(self.params_read)
    }
}

/// An incoming notification.
#[derive(Debug)]
pub struct InboundNotification<'a> {
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params, undecoded.
    pub params: Option<&'a RawValue>,
}

/// An incoming response.
#[derive(Debug)]
pub struct InboundResponse<'a> {
    /// The id of the request it answers (`None` for an error about an
    /// unreadable request).
    pub id: Option<RequestId>,
    /// The result or the error.
    pub outcome: Result<&'a RawValue, RpcError>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<Cow<'a, str>>,
    // `"id": null` must be told apart from no id at all.
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    // `"params": null` is present (and refused), not absent.
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    error: Option<RpcError>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// Why a message could not be decoded, with the id when it was readable so
/// that the error response can name it.
#[derive(Debug)]
pub struct DecodeError {
    /// The id of the offending request, if it could be read.
    pub id: Option<RequestId>,
    /// The error to answer with (-32700, -32600 or -32602).
    pub error: RpcError,
    /// The message is a well-formed notification (with bad `params`): it
    /// must not be answered (JSON-RPC 2.0 §4.1), only dropped.
    pub notification: bool,
    /// The method of a well-formed request or notification whose `params`
    /// are bad (-32602), so that a transport can route it like any other.
    pub method: Option<String>,
}

/// Reads a request id: an integer (the usual kind) directly, anything else
/// through serde (an untagged enum, which buffers what it reads).
fn parse_id(text: &str) -> Result<RequestId, serde_json::Error> {
    // `text` is valid JSON, so `+` or leading zeros cannot occur here.
    match text.parse::<i64>() {
        Ok(n) => Ok(RequestId::Integer(n)),
        Err(_) => serde_json::from_str::<RequestId>(text),
    }
}

/// MCP's params are always named: an object, or absent. JSON-RPC also
/// allows an array, which serde would line up with a struct's fields
/// (`["file:///x"]` read as `{uri}`), so it is refused here, once for every
/// method.
fn params_problem(params: Option<&RawValue>) -> Option<&'static str> {
    let raw = params?.get();
    match raw.as_bytes().first() {
        Some(b'{') => None,
        Some(b'[') => Some("`params` must be an object: MCP params are named, not positional"),
        _ => Some("`params` must be an object"),
    }
}

/// Decodes one message.
pub fn decode(text: &str) -> Result<Inbound<'_>, Box<DecodeError>> {
    let fail = |id, error| {
        Box::new(DecodeError {
            id,
            error,
            notification: false,
            method: None,
        })
    };
    let first = text.trim_start().as_bytes().first().copied();
    match first {
        Some(b'{') => {}
        Some(b'[') => {
            return Err(fail(
                None,
                RpcError::invalid_request("JSON-RPC batches are not supported by MCP 2025-11-25"),
            ));
        }
        _ => {
            // Distinguish "not JSON" from "JSON but not an object".
            return Err(match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Ok(_) => fail(
                    None,
                    RpcError::invalid_request("a message must be a JSON object"),
                ),
                Err(e) => fail(None, RpcError::parse_error(e)),
            });
        }
    }
    let envelope: Envelope<'_> = serde_json::from_str(text).map_err(|e| {
        if e.is_syntax() || e.is_eof() {
            fail(None, RpcError::parse_error(e))
        } else {
            fail(None, RpcError::invalid_request(e))
        }
    })?;
    let id = match envelope.id {
        None => None,
        Some(raw) => match parse_id(raw.get()) {
            Ok(id) => Some(id),
            Err(_) if raw.get() == "null" && envelope.method.is_none() => None,
            Err(_) => {
                return Err(fail(
                    None,
                    RpcError::invalid_request(format!(
                        "`id` must be a string or an integer, found {}",
                        raw.get()
                    )),
                ));
            }
        },
    };
    if envelope.jsonrpc.as_deref() != Some("2.0") {
        let found = envelope
            .jsonrpc
            .as_deref()
            .map_or("nothing".to_string(), |v| format!("\"{v}\""));
        return Err(fail(
            id,
            RpcError::invalid_request(format!("`jsonrpc` must be \"2.0\", found {found}")),
        ));
    }
    match (envelope.method, id, envelope.result, envelope.error) {
        (Some(method), Some(id), None, None) => match params_problem(envelope.params) {
            Some(problem) => Err(Box::new(DecodeError {
                id: Some(id),
                error: RpcError::invalid_params(problem),
                notification: false,
                method: Some(method.into_owned()),
            })),
            None => Ok(Inbound::Request(InboundRequest {
                id,
                method,
                params: envelope.params,
                params_read: None,
                decoded: None,
            })),
        },
        (Some(method), None, None, None) => match params_problem(envelope.params) {
            Some(problem) => Err(Box::new(DecodeError {
                id: None,
                error: RpcError::invalid_params(format!("`{method}`: {problem}")),
                notification: true,
                method: Some(method.into_owned()),
            })),
            None => Ok(Inbound::Notification(InboundNotification {
                method,
                params: envelope.params,
            })),
        },
        (None, id, Some(result), None) if id.is_some() => Ok(Inbound::Response(InboundResponse {
            id,
            outcome: Ok(result),
        })),
        (None, id, None, Some(error)) => Ok(Inbound::Response(InboundResponse {
            id,
            outcome: Err(error),
        })),
        (_, id, _, _) => Err(fail(
            id,
            RpcError::invalid_request(
                "a message needs `method` (request, notification) or exactly one of `result` \
                 and `error` with an `id` (response)",
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::ErrorCode;

    fn code(text: &str) -> ErrorCode {
        decode(text)
            .err()
            .map(|e| e.error.code)
            .unwrap_or(ErrorCode(0))
    }

    #[test]
    fn classifies_messages() {
        let r = decode(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).unwrap();
        assert!(matches!(
            r,
            Inbound::Request(InboundRequest {
                id: RequestId::Integer(7),
                ..
            })
        ));
        let n = decode(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(n, Inbound::Notification(_)));
        let ok = decode(r#"{"jsonrpc":"2.0","id":"a","result":{}}"#).unwrap();
        assert!(matches!(
            ok,
            Inbound::Response(InboundResponse { outcome: Ok(_), .. })
        ));
        let err =
            decode(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}"#).unwrap();
        assert!(matches!(
            err,
            Inbound::Response(InboundResponse {
                id: None,
                outcome: Err(_)
            })
        ));
    }

    #[test]
    fn params_stay_raw_and_exact() {
        let Inbound::Request(r) =
            decode(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"b":1.50,"a":2}}"#)
                .unwrap()
        else {
            panic!("not a request")
        };
        assert_eq!(r.params.unwrap().get(), r#"{"b":1.50,"a":2}"#);
    }

    #[test]
    fn rejects_bad_messages_with_the_right_code() {
        assert_eq!(code("{not json"), ErrorCode::PARSE_ERROR);
        assert_eq!(code(""), ErrorCode::PARSE_ERROR);
        assert_eq!(code("\u{0}"), ErrorCode::PARSE_ERROR);
        assert_eq!(code("42"), ErrorCode::INVALID_REQUEST);
        assert_eq!(code("[]"), ErrorCode::INVALID_REQUEST);
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"id":1,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","method":7}"#),
            ErrorCode::INVALID_REQUEST
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}"#),
            ErrorCode::INVALID_REQUEST
        );
    }

    #[test]
    fn params_must_be_an_object_on_every_method() {
        for params in [r#"[null,"file:///x"]"#, "[]", r#""x""#, "7", "true", "null"] {
            for method in ["ping", "resources/read", "tools/call"] {
                let text =
                    format!(r#"{{"jsonrpc":"2.0","id":3,"method":"{method}","params":{params}}}"#);
                let e = decode(&text).unwrap_err();
                assert_eq!(e.error.code, ErrorCode::INVALID_PARAMS, "{text}");
                assert_eq!(e.id, Some(RequestId::Integer(3)), "{text}");
                assert!(!e.notification);
            }
            // A notification with such params is dropped, never answered.
            let text = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{params}}}"#
            );
            let e = decode(&text).unwrap_err();
            assert!(e.notification && e.id.is_none(), "{text}");
        }
        assert!(decode(r#"{"jsonrpc":"2.0","id":3,"method":"ping","params":{}}"#).is_ok());
        assert!(decode(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#).is_ok());
    }

    #[test]
    fn keeps_the_id_of_a_bad_request() {
        let e = decode(r#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#).unwrap_err();
        assert_eq!(e.id, Some(RequestId::String("x".into())));
    }
}
