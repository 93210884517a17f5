//! Streamable HTTP for revisions without sessions (2026-07-28) on the same
//! endpoint as sessions: which POSTs are such requests, and the header
//! rules checked before one is served (SEP-2243): `MCP-Protocol-Version`,
//! `Mcp-Method` and `Mcp-Name` must agree with the body; an error found here
//! is answered at once with its status (400, or 404 for an unknown method).
//! It also decodes every POST's body, once, for either kind of request.

use std::borrow::Cow;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::extract::McpHeads;
use super::reply::{VERSION_HEADER, header, rpc_error};
use crate::ProtocolVersion;
use crate::extensions::{NameParam, RequestMethod};
use crate::jsonrpc::{
    DecodeError, ErrorCode, Inbound, InboundRequest, RequestAtOnce, RpcError, decode,
    decode_request_at_once,
};
use crate::param_headers;
use crate::request_meta::{self, RequestMeta};
use crate::schema::{
    ClientRequest, ClientRequestMethod, RequestId, RequestMetaTaken, with_request_meta_taken,
};

/// The header naming the method of a request.
pub(super) static METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// The header naming the tool, prompt or resource a request is about.
pub(super) static NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");
/// The headers mirroring tool arguments (`Mcp-Param-{Name}`), lower case as
/// header names are stored.
pub(super) const PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// Where a POST goes.
#[derive(Debug)]
pub(super) enum Route {
    /// To a session (or the legacy stateless mode): revisions with
    /// `initialize`.
    Sessions,
    /// Served alone, as its `_meta` (read here, once) says.
    Stateless(Box<RequestMeta>),
    /// Already answered (a rule was broken, or a notification).
    Answered(Response),
}

/// A POST's body, decoded.
pub(super) type Decoded<'a> = Result<Inbound<'a>, Box<DecodeError>>;

/// Decodes a POST's body `text`, once, and decides where it goes, checking
/// a stateless request's headers (`heads`, found when the head was checked;
/// `headers` for the `Mcp-Param-*` fields) against its body.
pub(super) fn route<'a>(
    headers: &HeaderMap,
    heads: &McpHeads,
    text: &'a str,
) -> (Decoded<'a>, Route) {
    let header_version = heads.version.as_ref().and_then(text_of);
    let stateless = match header_version {
        Some(value) => match ProtocolVersion::parse(value) {
            Some(v) => !v.has_initialize(),
            // An unknown revision is this path's to answer only when the body
            // claims a revision too (-32020 or -32022); otherwise the session
            // path refuses the header as before.
            None => claims_a_revision(text),
        },
        None => heads.session().is_none() && claims_a_revision(text),
    };
    if !stateless {
        let decoded = read_for_session(text).map_or_else(|| decode(text), Ok);
        return (decoded, Route::Sessions);
    }
    if let Some(read) = read_at_once(heads, text) {
        // The decoded request goes on in the meta, with what its `_meta` says.
        let (request, (mut decoded, claimed, meta)) = read.into_request();
        *decoded.id_mut() = request.id.clone();
        let read = (Read::Decoded(decoded), claimed, Ok(Some(meta)));
        let route = match check(headers, heads, header_version, &request, read) {
            Ok(meta) => Route::Stateless(meta),
            Err(response) => Route::Answered(*response),
        };
        return (Ok(Inbound::Request(request)), route);
    }
    let decoded = decode(text);
    let route = match &decoded {
        Ok(Inbound::Request(request)) => {
            match check(headers, heads, header_version, request, Read::of(request)) {
                Ok(meta) => Route::Stateless(meta),
                Err(response) => Route::Answered(*response),
            }
        }
        // No notification of these revisions needs an answer or headers:
        // cancellation is closing the request's stream.
        Ok(Inbound::Notification(_)) => Route::Answered(StatusCode::ACCEPTED.into_response()),
        Ok(Inbound::Response(_)) => Route::Answered(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            &RpcError::invalid_request("a stateless server sends no requests to answer"),
        )),
        Err(e) if e.notification => Route::Answered(StatusCode::ACCEPTED.into_response()),
        Err(e) => Route::Answered(rpc_error(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error)),
    };
    (decoded, route)
}

/// A request of a session read in one pass (see
/// [`decode_request_at_once`]): a core method whose params decode into
/// their type. `None` for anything else, which [`decode`] reads.
fn read_for_session(text: &str) -> Option<Inbound<'_>> {
    let read = decode_request_at_once(text, |method, rest| {
        let method = ClientRequestMethod::from_name(method)?;
        // The id is set once read (it may follow the params).
        ClientRequest::from_params_text(method, RequestId::Integer(0), rest).ok()
    })?;
    let (mut request, mut decoded) = read.into_request();
    *decoded.id_mut() = request.id.clone();
    request.decoded = Some(decoded);
    Some(Inbound::Request(request))
}

/// The common stateless request read in one pass (see
/// [`decode_request_at_once`]): a core method, named by `Mcp-Method` and
/// by the body alike, whose params decode into their type with a `_meta`
/// that says what the checks need. `None` for anything else, which is
/// read the way that finds out what is wrong, with the errors that gives.
fn read_at_once<'a>(heads: &McpHeads, text: &'a str) -> Option<RequestAtOnce<'a, Typed>> {
    let named = heads.method.as_ref().and_then(text_of)?;
    let method = ClientRequestMethod::from_name(named)?;
    decode_request_at_once(text, |body_method, rest| {
        if body_method != named {
            return None;
        }
        // The id is set once read (it may follow the params).
        let (decoded, taken) = with_request_meta_taken(|| {
            ClientRequest::from_params_text(method, RequestId::Integer(0), rest)
        });
        let (decoded, used) = decoded.ok()?;
        let read = typed_meta(decoded, &taken, rest.get(..used))?;
        Some((read, used))
    })
}

/// A header's value as text, as [`header`] reads it.
fn text_of(value: &HeaderValue) -> Option<&str> {
    value.to_str().ok()
}

/// Cheap test on the raw text; [`check`] reads the claim properly.
fn claims_a_revision(text: &str) -> bool {
    text.contains(request_meta::PROTOCOL_VERSION)
}

/// What the checks read of a request's params, in one pass: the names,
/// the `_meta` (as `M`: raw, or read in the same pass), and whether the
/// fields of an input round are there.
#[derive(Deserialize)]
struct Params<'a, M> {
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    uri: Option<&'a RawValue>,
    #[serde(rename = "taskId", borrow)]
    task_id: Option<&'a RawValue>,
    #[serde(rename = "_meta")]
    meta: Option<M>,
    /// Noted so that the input round need not search the text for them.
    #[serde(rename = "inputResponses", borrow)]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", borrow)]
    request_state: Option<&'a RawValue>,
}

/// The params with their `_meta` left raw.
type Head<'a> = Params<'a, &'a RawValue>;

/// The params with their `_meta` read in the same pass: the common case,
/// where the `_meta` is an object of the expected types. When this does
/// not read, [`Head`] and [`request_meta::read_meta`] find out why, as
/// before.
type HeadAndMeta<'a> = Params<'a, request_meta::Meta<'a>>;

impl<M> Params<'_, M> {
    /// Params that are not an object: no names, no `_meta`.
    fn empty() -> Self {
        Self {
            name: None,
            uri: None,
            task_id: None,
            meta: None,
            input_responses: None,
            request_state: None,
        }
    }
}

/// What the checks read of a request's params: the names, and the
/// revision its `_meta` claims with what that `_meta` says.
fn read_params<'a>(params: Option<&'a RawValue>) -> (Head<'a>, Option<String>, MetaRead) {
    if let Some(read) = params.and_then(|p| serde_json::from_str::<HeadAndMeta<'_>>(p.get()).ok()) {
        let (claimed, mut meta) = match read.meta {
            Some(meta) => request_meta::read_fields(meta),
            None => (None, Ok(None)),
        };
        // Params are an object (the decoder refuses others), so fields
        // this pass did not see are not there: a `null` one reads as absent
        // there too.
        if let Ok(Some(meta)) = &mut meta {
            meta.round_fields =
                Some(read.input_responses.is_some() || read.request_state.is_some());
        }
        let head = Head {
            name: read.name,
            uri: read.uri,
            task_id: read.task_id,
            meta: None,
            input_responses: read.input_responses,
            request_state: read.request_state,
        };
        return (head, claimed, meta);
    }
    // Params that are not an object have no `_meta` (and no name).
    let head: Head<'_> = params
        .and_then(|p| serde_json::from_str(p.get()).ok())
        .unwrap_or_else(Params::empty);
    let (claimed, meta) = match head.meta {
        Some(meta) => request_meta::read_meta(meta),
        None => (None, Ok(None)),
    };
    (head, claimed, meta)
}

type MetaRead = Result<Option<Box<RequestMeta>>, RpcError>;

/// What the checks read of a request's params, and how: in one pass with
/// the params decoded, or with the names left raw.
enum Read<'a> {
    /// The common case: a core method's params decoded into their type,
    /// with the `_meta` keys of the revision taken aside as they went by
    /// (the params are not read again).
    Decoded(Box<ClientRequest>),
    /// Anything else, read as before.
    Raw(Head<'a>),
}

impl<'a> Read<'a> {
    /// Reads `request`'s params: the revision their `_meta` claims, and
    /// what that `_meta` says.
    fn of(request: &InboundRequest<'a>) -> (Self, Option<String>, MetaRead) {
        if let Some((decoded, claimed, meta)) = decode_at_once(request) {
            return (Self::Decoded(decoded), claimed, Ok(Some(meta)));
        }
        let (head, claimed, meta) = read_params(request.params);
        (Self::Raw(head), claimed, meta)
    }

    /// What `Mcp-Name` must repeat: the tool or prompt name, or the
    /// resource URI, of the requests that have one; for an extension
    /// method, the param the extension method table names (`taskId`).
    fn named(&self, method: RequestMethod) -> Option<Cow<'_, str>> {
        let head = match self {
            Self::Decoded(request) => {
                return match request.as_ref() {
                    ClientRequest::CallTool(r) => Some(Cow::Borrowed(&r.params.name)),
                    ClientRequest::GetPrompt(r) => Some(Cow::Borrowed(&r.params.name)),
                    ClientRequest::ReadResource(r) => Some(Cow::Borrowed(&r.params.uri)),
                    _ => None,
                };
            }
            Self::Raw(head) => head,
        };
        let field = match method {
            RequestMethod::Core(ClientRequestMethod::CallTool | ClientRequestMethod::GetPrompt) => {
                head.name
            }
            RequestMethod::Core(ClientRequestMethod::ReadResource) => head.uri,
            RequestMethod::Core(_) => None,
            RequestMethod::Extension(m) => match m.spec().name_param? {
                NameParam::TaskId => head.task_id,
            },
        };
        serde_json::from_str(field?.get()).ok().map(Cow::Owned)
    }
}

/// The params of a core method decoded at once, with what their `_meta`
/// says; `None` when anything is not as expected (they are then read the
/// way that finds out what, with the errors it gives).
fn decode_at_once(request: &InboundRequest<'_>) -> Option<Typed> {
    let method = ClientRequestMethod::from_name(&request.method)?;
    let (decoded, taken) = with_request_meta_taken(|| {
        // Boxed at once: the request is large, and moved several times.
        ClientRequest::from_parts(method, request.id.clone(), request.params).map(Box::new)
    });
    typed_meta(decoded.ok()?, &taken, request.params_text())
}

/// A request decoded in the pass that read its `_meta`, with the revision
/// that `_meta` claims and what it says.
type Typed = (Box<ClientRequest>, Option<String>, Box<RequestMeta>);

/// A request decoded with its `_meta` keys `taken` aside: the revision
/// they claim, and what they say with what the params (`params`, their
/// text) add; `None` when the keys are not what the checks expect.
fn typed_meta(
    decoded: Box<ClientRequest>,
    taken: &RequestMetaTaken,
    params: Option<&str>,
) -> Option<Typed> {
    let (claimed, meta) = request_meta::from_taken(taken);
    let mut meta = meta.ok()??;
    meta.progress_token = match decoded.progress_token() {
        Some(token) => token.cloned(),
        None => request_meta::progress_token(params),
    };
    meta.round_fields = round_fields(&decoded);
    Some((decoded, claimed, meta))
}

/// Whether decoded params hold the fields of an input round
/// (`inputResponses`, `requestState`; `null` reads as absent), for the
/// requests an input-required result may answer; `None`: not known here.
fn round_fields(request: &ClientRequest) -> Option<bool> {
    let (responses, state) = match request {
        ClientRequest::CallTool(r) => (r.params.input_responses.is_some(), &r.params.request_state),
        ClientRequest::GetPrompt(r) => {
            (r.params.input_responses.is_some(), &r.params.request_state)
        }
        ClientRequest::ReadResource(r) => {
            (r.params.input_responses.is_some(), &r.params.request_state)
        }
        _ => return None,
    };
    Some(responses || state.is_some())
}

fn check(
    headers: &HeaderMap,
    heads: &McpHeads,
    header_version: Option<&str>,
    request: &InboundRequest<'_>,
    (read, claimed, meta): (Read<'_>, Option<String>, MetaRead),
) -> Result<Box<RequestMeta>, Box<Response>> {
    let id = &request.id;
    let fail = |status: StatusCode, error: RpcError| Box::new(rpc_error(status, Some(id), &error));
    let mismatch = |detail: String| {
        fail(
            StatusCode::BAD_REQUEST,
            RpcError::new(
                ErrorCode::HEADER_MISMATCH,
                format!("Header mismatch: {detail}"),
            ),
        )
    };
    // The header and the body must name the same revision; checked before
    // whether that revision is supported.
    match (header_version, claimed.as_deref()) {
        (Some(h), Some(c)) if h != c => {
            return Err(mismatch(format!(
                "MCP-Protocol-Version is `{h}` but `_meta` names `{c}`"
            )));
        }
        (None, Some(_)) => {
            return Err(mismatch(
                "the MCP-Protocol-Version header is missing".into(),
            ));
        }
        _ => {}
    }
    let mut meta = match meta {
        Ok(Some(meta)) => meta,
        Ok(None) => return Err(fail(StatusCode::BAD_REQUEST, request_meta::missing_meta())),
        Err(e) => return Err(fail(StatusCode::BAD_REQUEST, e)),
    };
    match heads.method.as_ref().and_then(text_of) {
        Some(m) if m == request.method => {}
        Some(m) => {
            return Err(mismatch(format!(
                "Mcp-Method is `{m}` but the body's method is `{}`",
                request.method
            )));
        }
        None => return Err(mismatch("the Mcp-Method header is missing".into())),
    }
    // A core method of the revision, or an extension method (whether the
    // server offers the extension is the service's to say).
    let method = RequestMethod::resolve(&request.method, Some(meta.version))
        .filter(|m| match m {
            RequestMethod::Core(m) => m.in_revision(meta.version),
            RequestMethod::Extension(_) => true,
        })
        .ok_or_else(|| {
            fail(
                StatusCode::NOT_FOUND,
                RpcError::method_not_found(&request.method),
            )
        })?;
    if let Some(name) = read.named(method) {
        match heads
            .name
            .as_ref()
            .and_then(text_of)
            .map(|h| (h, param_headers::decode_value(h)))
        {
            Some((_, Ok(decoded))) if decoded == *name => {}
            Some((_, Err(e))) => return Err(mismatch(format!("Mcp-Name: {e}"))),
            Some((h, _)) => {
                return Err(mismatch(format!(
                    "Mcp-Name is `{h}` but the body names `{name}`"
                )));
            }
            None => return Err(mismatch("the Mcp-Name header is missing".into())),
        }
        if method == RequestMethod::Core(ClientRequestMethod::CallTool) {
            let sent = if heads.params {
                sent_params(headers)
            } else {
                Vec::new()
            };
            meta.sent_params = Some(sent);
        }
    }
    if let Read::Decoded(decoded) = read {
        meta.request = Some(decoded);
    }
    Ok(meta)
}

/// The `Mcp-Param-*` headers of a request, by lower-case name part (the
/// service knows which the tool declares).
fn sent_params(headers: &HeaderMap) -> param_headers::SentParams {
    headers
        .iter()
        .filter_map(|(name, value)| {
            let part = name.as_str().strip_prefix(PARAM_HEADER_PREFIX)?;
            Some((part.to_string(), value.to_str().ok().map(str::to_string)))
        })
        .collect()
}

/// The status of a stateless request's JSON answer: errors that mean the
/// request was not acceptable as sent are 400, an unknown method 404.
pub(super) fn status_of(answer: &str) -> StatusCode {
    #[derive(Deserialize)]
    struct Answer {
        error: Option<Code>,
    }
    #[derive(Deserialize)]
    struct Code {
        code: i64,
    }
    serde_json::from_str::<Answer>(answer)
        .ok()
        .and_then(|a| a.error)
        .map_or(StatusCode::OK, |e| status_of_error(ErrorCode(e.code)))
}

/// The status of a stateless request's JSON answer that is the error `code`.
pub(super) fn status_of_error(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        ErrorCode::HEADER_MISMATCH
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    }
}

/// Why a GET or DELETE has nothing to act on (405), if it has not: the
/// server keeps no sessions, or the request names a revision without them
/// (no GET stream, nothing to delete).
pub(super) fn why_no_sessions(stateless: bool, headers: &HeaderMap) -> Option<&'static str> {
    if stateless {
        return Some("this server is stateless: it answers POSTs only");
    }
    header(headers, VERSION_HEADER)
        .and_then(ProtocolVersion::parse)
        .is_some_and(|v| !v.has_initialize())
        .then_some(
            "requests of this protocol revision stand alone and are POSTs \
             (GET and DELETE are for sessions, up to 2025-11-25)",
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::decode;

    fn read(text: &str) -> (bool, Option<String>, MetaRead) {
        let Ok(Inbound::Request(request)) = decode(text) else {
            panic!("not a request: {text}");
        };
        let (read, claimed, meta) = Read::of(&request);
        (matches!(read, Read::Decoded(_)), claimed, meta)
    }

    /// A well-formed request is decoded in the pass that reads its `_meta`;
    /// what is not as expected is read the way that says what is wrong,
    /// with the same outcome as before.
    #[test]
    fn params_are_decoded_once_when_all_is_well() {
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/logLevel":"info"}}}"#;
        let (decoded, claimed, meta) = read(call);
        assert!(decoded);
        assert_eq!(claimed.as_deref(), Some("2026-07-28"));
        let meta = meta.unwrap().unwrap();
        assert_eq!(meta.log_level, Some(crate::schema::LoggingLevel::Info));
        assert!(meta.capabilities.elicitation.is_some());
        assert_eq!(
            meta.progress_token,
            Some(crate::schema::ProgressToken::String("p".into()))
        );
        assert_eq!(meta.round_fields, Some(false));
        let Ok(Inbound::Request(request)) = decode(call) else {
            unreachable!()
        };
        assert_eq!(
            Read::of(&request)
                .0
                .named(RequestMethod::Core(ClientRequestMethod::CallTool)),
            Some(Cow::Borrowed("echo"))
        );

        // Bad params, a bad `_meta`, a key written twice, no claim at all:
        // read the slower way, with its errors.
        let bad = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":7,"io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}"#,
        ];
        let outcomes: Vec<(bool, bool)> = bad
            .iter()
            .map(|text| {
                let (decoded, _, meta) = read(text);
                (decoded, matches!(meta, Ok(Some(_))))
            })
            .collect();
        // The first reads fine as `_meta` (the params' error is the
        // dispatch's to give); the others have no usable `_meta`.
        assert_eq!(
            outcomes,
            [
                (false, true),
                (false, false),
                (false, false),
                (false, false)
            ]
        );
    }
}
