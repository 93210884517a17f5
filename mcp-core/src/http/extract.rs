//! The checks every request of the endpoint passes, with typed rejections:
//! header size, Host/Origin, bearer token ([`Guarded::check`], which reads
//! the head in one pass); and for a POST, media types and body size
//! ([`PostBody::read`]), and UTF-8 ([`PostBody::text`]). A rejection is an HTTP error with a
//! JSON-RPC error body.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::response::{IntoResponse, Response};
use http::header::{ACCEPT, ALLOW, CONTENT_TYPE, HOST, ORIGIN};
use http::request::Parts;
use http::{HeaderMap, HeaderValue, StatusCode};

use super::State;
use super::modern::{METHOD_HEADER, NAME_HEADER, PARAM_HEADER_PREFIX};
use super::reply::{SESSION_HEADER, VERSION_HEADER, http_error, rpc_error};
use crate::auth::AuthInfo;
use crate::jsonrpc::{ErrorCode, RpcError};

/// Why the endpoint refuses a request before serving it.
#[derive(Debug)]
pub(super) enum Rejection {
    /// 431: the header fields exceed the limit.
    HeadersTooLarge { limit: usize },
    /// 403: Host or Origin not allowed, or a session of another subject.
    Forbidden(String),
    /// 401/403 from the protected resource, as it wrote them.
    #[cfg(feature = "auth")]
    Auth(Box<Response>),
    /// 405: not POST, GET or DELETE.
    MethodNotAllowed,
    /// 405: GET or DELETE where there are no sessions: the server is
    /// stateless, or the request names a revision whose requests stand alone.
    /// Says which.
    Stateless(&'static str),
    /// 415: the body is not JSON.
    UnsupportedMediaType,
    /// 406: the client accepts neither answer (or no event stream for GET).
    NotAcceptable(&'static str),
    /// 413: the body exceeds the limit.
    PayloadTooLarge { limit: usize },
    /// 400 with -32700: the body is not UTF-8.
    NotUtf8,
    /// 400 with -32600.
    BadRequest(String),
    /// 404: no such session.
    SessionNotFound(&'static str),
    /// 503: the server holds its maximum of sessions.
    TooManySessions { max: usize },
    /// 409 (and its JSON-RPC error).
    Conflict(String),
    /// 500.
    Internal(String),
    /// 503: the shared store failed (it is named in the message).
    StoreUnavailable(String),
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        use ErrorCode as C;
        use StatusCode as S;
        match self {
            Self::HeadersTooLarge { limit } => http_error(
                S::REQUEST_HEADER_FIELDS_TOO_LARGE,
                C::INVALID_REQUEST,
                format!("Request Header Fields Too Large: the limit is {limit} bytes"),
            ),
            Self::Forbidden(why) => {
                http_error(S::FORBIDDEN, C::SERVER_ERROR, format!("Forbidden: {why}"))
            }
            #[cfg(feature = "auth")]
            Self::Auth(response) => *response,
            Self::MethodNotAllowed => {
                let mut response = http_error(
                    S::METHOD_NOT_ALLOWED,
                    C::SERVER_ERROR,
                    "Method not allowed: use POST, GET or DELETE",
                );
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                response
            }
            Self::Stateless(why) => {
                let mut response = http_error(
                    S::METHOD_NOT_ALLOWED,
                    C::SERVER_ERROR,
                    format!("Method not allowed: {why}"),
                );
                // RFC 9110: a 405 lists the methods the resource has.
                response
                    .headers_mut()
                    .insert(ALLOW, HeaderValue::from_static("POST"));
                response
            }
            Self::UnsupportedMediaType => http_error(
                S::UNSUPPORTED_MEDIA_TYPE,
                C::INVALID_REQUEST,
                "Unsupported Media Type: the body must be application/json",
            ),
            Self::NotAcceptable(why) => http_error(
                S::NOT_ACCEPTABLE,
                C::INVALID_REQUEST,
                format!("Not Acceptable: {why}"),
            ),
            Self::PayloadTooLarge { limit } => http_error(
                S::PAYLOAD_TOO_LARGE,
                C::INVALID_REQUEST,
                format!("Payload Too Large: the limit is {limit} bytes"),
            ),
            Self::NotUtf8 => rpc_error(
                S::BAD_REQUEST,
                None,
                &RpcError::parse_error("the body is not valid UTF-8"),
            ),
            Self::BadRequest(why) => http_error(
                S::BAD_REQUEST,
                C::INVALID_REQUEST,
                format!("Bad Request: {why}"),
            ),
            Self::SessionNotFound(message) => http_error(S::NOT_FOUND, C::SERVER_ERROR, message),
            Self::TooManySessions { max } => http_error(
                S::SERVICE_UNAVAILABLE,
                C::SERVER_ERROR,
                format!("Service Unavailable: the server holds its maximum of {max} sessions"),
            ),
            Self::Conflict(why) => http_error(S::CONFLICT, C::SERVER_ERROR, why),
            Self::Internal(why) => http_error(S::INTERNAL_SERVER_ERROR, C::INTERNAL_ERROR, why),
            Self::StoreUnavailable(why) => http_error(
                S::SERVICE_UNAVAILABLE,
                C::INTERNAL_ERROR,
                format!("Service Unavailable: {why}"),
            ),
        }
    }
}

/// A request that passed the checks every method shares; `identity` is the
/// bearer token's subject on a protected resource.
pub(super) struct Guarded {
    pub(super) identity: Option<Arc<AuthInfo>>,
    /// What a POST's body checks need of the head, found in the same pass.
    pub(super) body: BodyHeads,
    /// The session and revision the request names, found in the same pass.
    pub(super) mcp: McpHeads,
}

/// The MCP header fields of a request (each its first value).
#[derive(Debug, Default)]
pub(super) struct McpHeads {
    /// `Mcp-Session-Id`.
    pub(super) session: Option<HeaderValue>,
    /// `MCP-Protocol-Version`.
    pub(super) version: Option<HeaderValue>,
    /// `Mcp-Method` (2026-07-28).
    pub(super) method: Option<HeaderValue>,
    /// `Mcp-Name` (2026-07-28).
    pub(super) name: Option<HeaderValue>,
    /// Whether any `Mcp-Param-*` field came (they are collected only then).
    pub(super) params: bool,
}

impl McpHeads {
    /// The session id, if present and visible ASCII.
    pub(super) fn session(&self) -> Option<&str> {
        self.session.as_ref().and_then(|v| v.to_str().ok())
    }
}

/// The head fields a POST's body is checked against.
#[derive(Clone, Copy, Debug)]
pub(super) struct BodyHeads {
    /// `Content-Type` is `application/json`.
    json: bool,
    accepts: Accepts,
}

/// The header fields the shared checks read, found in one pass over the
/// map: every `HeaderMap::get` hashes its name, and the pass that adds up
/// the size visits each field anyway.
struct Scanned<'a> {
    size: usize,
    host: Option<&'a HeaderValue>,
    origin: Option<&'a HeaderValue>,
    content_type: Option<&'a HeaderValue>,
    accept: Option<&'a HeaderValue>,
    session: Option<&'a HeaderValue>,
    version: Option<&'a HeaderValue>,
    method: Option<&'a HeaderValue>,
    name: Option<&'a HeaderValue>,
    params: bool,
}

/// Reads `headers` once. Each field is its first value, as `get` gives it;
/// the size counts every field as sent (`name: value` and CRLF).
fn scan(headers: &HeaderMap) -> Scanned<'_> {
    let mut found = Scanned {
        size: 0,
        host: None,
        origin: None,
        content_type: None,
        accept: None,
        session: None,
        version: None,
        method: None,
        name: None,
        params: false,
    };
    for (name, value) in headers {
        found.size += name.as_str().len() + value.len() + 4;
        let slot = if *name == HOST {
            &mut found.host
        } else if *name == ORIGIN {
            &mut found.origin
        } else if *name == CONTENT_TYPE {
            &mut found.content_type
        } else if *name == ACCEPT {
            &mut found.accept
        } else if name == SESSION_HEADER {
            &mut found.session
        } else if name == VERSION_HEADER {
            &mut found.version
        } else if *name == METHOD_HEADER {
            &mut found.method
        } else if *name == NAME_HEADER {
            &mut found.name
        } else {
            found.params |= name.as_str().starts_with(PARAM_HEADER_PREFIX);
            continue;
        };
        slot.get_or_insert(value);
    }
    found
}

impl Guarded {
    /// Checks the head `headers` (the endpoint shares the head in an `Arc`
    /// with the handler, so this takes it by reference rather than as an
    /// axum extractor that would need it mutably).
    pub(super) async fn check(headers: &HeaderMap, state: &State) -> Result<Self, Rejection> {
        let limit = state.config.max_header_size;
        let scanned = scan(headers);
        if scanned.size > limit {
            return Err(Rejection::HeadersTooLarge { limit });
        }
        state
            .config
            .host_policy
            .check(scanned.host, scanned.origin)
            .map_err(|why| Rejection::Forbidden(why.to_string()))?;
        let content_type = scanned
            .content_type
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let body = BodyHeads {
            json: content_type
                .get(..16)
                .is_some_and(|t| t.eq_ignore_ascii_case("application/json")),
            accepts: Accepts::of(scanned.accept),
        };
        let mcp = McpHeads {
            session: scanned.session.cloned(),
            version: scanned.version.cloned(),
            method: scanned.method.cloned(),
            name: scanned.name.cloned(),
            params: scanned.params,
        };
        // A protected resource validates the token before anything else.
        #[cfg(not(feature = "auth"))]
        let identity = None;
        #[cfg(feature = "auth")]
        let identity = match &state.config.protected_resource {
            None => None,
            Some(resource) => Some(
                resource
                    .authenticate(headers)
                    .await
                    .map_err(|rejection| Rejection::Auth(Box::new(rejection.into_response())))?,
            ),
        };
        Ok(Self {
            identity,
            body,
            mcp,
        })
    }
}

/// What the client of a POST accepts.
#[derive(Clone, Copy, Debug)]
pub(super) struct Accepts {
    pub(super) json: bool,
    pub(super) sse: bool,
}

impl Accepts {
    /// Whether `Accept` holds `*/*`, `application/json`, `application/*`
    /// or `text/event-stream` anywhere, in any case: read around each `/`,
    /// in one pass.
    pub(super) fn of(accept: Option<&HeaderValue>) -> Self {
        let accept = accept.map_or(&b""[..], HeaderValue::as_bytes);
        // What the spec tells clients to send (and what the SDKs send, byte
        // for byte), and a client that takes only streams: known at once.
        match accept {
            b"application/json, text/event-stream" => {
                return Self {
                    json: true,
                    sse: true,
                };
            }
            b"text/event-stream" => {
                return Self {
                    json: false,
                    sse: true,
                };
            }
            _ => {}
        }
        let mut found = Self {
            json: false,
            sse: false,
        };
        for slash in memchr::memchr_iter(b'/', accept) {
            let (before, after) = (&accept[..slash], &accept[slash + 1..]);
            let ends = |type_: &str| {
                before.len() >= type_.len()
                    && before[before.len() - type_.len()..].eq_ignore_ascii_case(type_.as_bytes())
            };
            let starts = |sub: &str| {
                after.len() >= sub.len() && after[..sub.len()].eq_ignore_ascii_case(sub.as_bytes())
            };
            if starts("*") && ends("*") {
                return Self {
                    json: true,
                    sse: true,
                };
            }
            if ends("application") && (starts("json") || starts("*")) {
                found.json = true;
            } else if ends("text") && starts("event-stream") {
                found.sse = true;
            }
        }
        found
    }
}

/// A POST's head (which handlers may read) and its body, within the size
/// limit. The body stays the buffer it was read into: its text is checked
/// as UTF-8 where it is read ([`PostBody::text`]), not copied out.
pub(super) struct PostBody {
    pub(super) parts: Arc<Parts>,
    pub(super) accepts: Accepts,
    pub(super) body: Bytes,
}

impl PostBody {
    /// Checks the media types (as [`Guarded`] found them) and reads the
    /// body, within the size limit.
    pub(super) async fn read(
        parts: Arc<Parts>,
        body: Body,
        state: &State,
        heads: BodyHeads,
    ) -> Result<Self, Rejection> {
        if !heads.json {
            return Err(Rejection::UnsupportedMediaType);
        }
        let accepts = heads.accepts;
        if !accepts.json && !accepts.sse {
            return Err(Rejection::NotAcceptable(
                "accept application/json and text/event-stream",
            ));
        }
        let limit = state.config.max_body_size;
        let body = axum::body::to_bytes(body, limit)
            .await
            .map_err(|_| Rejection::PayloadTooLarge { limit })?;
        Ok(Self {
            parts,
            accepts,
            body,
        })
    }

    /// The body as text: it must be UTF-8. (A function of the body alone,
    /// so that the other fields can be moved out while it is borrowed.)
    pub(super) fn text(body: &Bytes) -> Result<&str, Rejection> {
        std::str::from_utf8(body).map_err(|_| Rejection::NotUtf8)
    }
}

/// The protocol revision a request claims in its header (`value`), if
/// any; an unsupported one is an error (400).
pub(super) fn claimed_version(
    value: Option<&HeaderValue>,
) -> Result<Option<crate::ProtocolVersion>, Rejection> {
    let Some(value) = value else {
        return Ok(None);
    };
    // A value that is not visible ASCII is present but invalid, not absent.
    let parsed = value.to_str().ok().and_then(crate::ProtocolVersion::parse);
    parsed.map(Some).ok_or_else(|| {
        let v = String::from_utf8_lossy(value.as_bytes());
        Rejection::BadRequest(format!("unsupported MCP-Protocol-Version `{v}`"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts(value: &str) -> Accepts {
        Accepts::of(Some(&value.parse().unwrap()))
    }

    #[test]
    fn accept_is_read_without_regard_to_case() {
        let both = accepts("Application/JSON, Text/Event-Stream");
        assert!(both.json && both.sse);
        let usual = accepts("application/json, text/event-stream");
        assert!(usual.json && usual.sse);
        let stream = accepts("text/event-stream");
        assert!(!stream.json && stream.sse);
        let any = accepts("*/*");
        assert!(any.json && any.sse);
        let json = accepts("application/*;q=0.5");
        assert!(json.json && !json.sse);
        let neither = accepts("text/html");
        assert!(!neither.json && !neither.sse);
        let sse = accepts("text/html, TEXT/EVENT-STREAM;q=0.9");
        assert!(!sse.json && sse.sse);
        let inside = accepts("xapplication/jsonx, xtext/event-streamx");
        assert!(inside.json && inside.sse);
        assert!(!accepts("application/").json && !accepts("/json").json);
        assert!(!Accepts::of(None).json);
    }
}
