//! The per-request metadata of revisions without a handshake (2026-07-28):
//! every request names its protocol revision and the client's capabilities
//! in `params._meta`, and the server serves it alone, as if a session of
//! that one request.
//!
//! The reading half serves the server role and the HTTP server; a client
//! without them uses only the key names.
#![cfg_attr(not(feature = "server"), allow(dead_code))]

use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use crate::ProtocolVersion;
use crate::jsonrpc::{ErrorCode, RpcError};
use crate::schema::{
    ClientCapabilities, ClientRequest, Implementation, LoggingLevel, ProgressToken,
    RequestMetaTaken,
};

/// `_meta` key: the revision a request is made under.
pub(crate) const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities.
pub(crate) const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version (optional).
pub(crate) const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the lowest log level the client wants (none: no logs).
pub(crate) const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of a result: the server's name and version.
pub(crate) const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// What one stateless request says about its client.
#[derive(Clone, Debug)]
pub(crate) struct RequestMeta {
    pub(crate) version: ProtocolVersion,
    /// Shared (see [`shared_capabilities`]): moved around cheaply.
    pub(crate) capabilities: Arc<ClientCapabilities>,
    pub(crate) info: Option<Implementation>,
    pub(crate) log_level: Option<LoggingLevel>,
    /// The request's `progressToken`, read in the same pass.
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) progress_token: Option<ProgressToken>,
    /// Over Streamable HTTP, a `tools/call`'s `Mcp-Param-*` headers, to
    /// check against its tool's declarations.
    pub(crate) sent_params: Option<crate::param_headers::SentParams>,
    /// Whether the params hold `inputResponses` or `requestState`, when a
    /// transport's pass over them found out; `None`: search their text.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) round_fields: Option<bool>,
    /// The request, when a transport decoded its params in the pass that
    /// read this (see [`from_taken`]): they are not read again.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    pub(crate) request: Option<Box<ClientRequest>>,
}

/// Only the `_meta` of the params is read here; the rest is skipped.
#[derive(Deserialize)]
struct Params<'a> {
    #[serde(rename = "_meta", borrow)]
    meta: Option<&'a RawValue>,
}

/// The keys read, as written: the small ones as `Value`s, the capabilities
/// and client info as raw text, read straight into their types (see
/// [`typed`]). A transport that reads the params itself may read this in
/// the same pass (then [`read_fields`]).
#[derive(Deserialize)]
pub(crate) struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<Value>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", borrow)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", borrow)]
    info: Option<&'a RawValue>,
    #[serde(rename = "io.modelcontextprotocol/logLevel")]
    log_level: Option<Value>,
    #[serde(rename = "progressToken")]
    progress_token: Option<Value>,
}

/// The revision a request claims in its `_meta`, if any (`Ok(None)`: no
/// claim, a request of a revision with sessions). A claim that is not a
/// usable per-request revision, or metadata that is incomplete, is an
/// error with the spec's code: -32022 for a revision this server does not
/// serve per request (`data.supported`, `data.requested`), -32602 for
/// missing or malformed metadata.
pub(crate) fn read(params: Option<&str>) -> Result<Option<Box<RequestMeta>>, RpcError> {
    let Some(params) = params else {
        return Ok(None);
    };
    let Ok(Params { meta: Some(meta) }) = serde_json::from_str::<Params<'_>>(params) else {
        return Ok(None);
    };
    read_meta(meta).1
}

/// Like [`read`], given the params' `_meta` already found (a transport
/// that read the params once); also returns the revision the `_meta`
/// names, as written with no checks (for comparing with a transport's
/// header before anything else).
pub(crate) fn read_meta(
    meta: &RawValue,
) -> (Option<String>, Result<Option<Box<RequestMeta>>, RpcError>) {
    match serde_json::from_str(meta.get()) {
        Ok(meta) => read_fields(meta),
        Err(e) => {
            let error = RpcError::invalid_params(format!("`_meta` must be an object: {e}"));
            (None, Err(error))
        }
    }
}

/// [`read_meta`] of a `_meta` read already.
pub(crate) fn read_fields(
    mut meta: Meta<'_>,
) -> (Option<String>, Result<Option<Box<RequestMeta>>, RpcError>) {
    match meta.version.take() {
        Some(Value::String(requested)) => {
            let checked = checked(meta, Some(Ok(&requested)));
            (Some(requested), checked)
        }
        Some(_) => (None, checked(meta, Some(Err(())))),
        None => (None, checked(meta, None)),
    }
}

/// `claim`: the revision the `_meta` names (`Err`: not as a string).
fn checked(
    meta: Meta<'_>,
    claim: Option<Result<&str, ()>>,
) -> Result<Option<Box<RequestMeta>>, RpcError> {
    let Some(claim) = claim else {
        // Metadata without a revision: a 2026-07-28 client that forgot it,
        // or an older client's own `_meta` (progress tokens); only the
        // former has the other per-request keys.
        if meta.capabilities.is_some() || meta.info.is_some() || meta.log_level.is_some() {
            return Err(invalid_meta(&format!(
                "`_meta` has no `{PROTOCOL_VERSION}`"
            )));
        }
        return Ok(None);
    };
    let Ok(requested) = claim else {
        return Err(invalid_meta(&format!(
            "`{PROTOCOL_VERSION}` must be a string"
        )));
    };
    let version = match ProtocolVersion::parse(requested) {
        Some(v) if !v.has_initialize() => v,
        _ => return Err(unsupported_version(requested)),
    };
    let capabilities = match meta.capabilities {
        // No capabilities, the common case, without running the parser.
        Some(caps) if caps.get() == "{}" => no_capabilities(),
        Some(caps) if caps.get().trim_start().starts_with('{') => typed(caps)
            .map(shared_capabilities)
            .map_err(|e| invalid_meta(&format!("`{CLIENT_CAPABILITIES}` is not valid: {e}")))?,
        Some(_) => {
            return Err(invalid_meta(&format!(
                "`{CLIENT_CAPABILITIES}` must be an object"
            )));
        }
        None => {
            return Err(invalid_meta(&format!(
                "`_meta` has no `{CLIENT_CAPABILITIES}`"
            )));
        }
    };
    let info = match meta.info {
        None => None,
        Some(info) => Some(
            typed(info).map_err(|e| invalid_meta(&format!("`{CLIENT_INFO}` is not valid: {e}")))?,
        ),
    };
    let log_level = match meta.log_level {
        None => None,
        Some(level) => Some(
            serde_json::from_value(level)
                .map_err(|e| invalid_meta(&format!("`{LOG_LEVEL}` is not valid: {e}")))?,
        ),
    };
    // A malformed token is no token (as for requests of other revisions).
    let progress_token = meta
        .progress_token
        .and_then(|token| serde_json::from_value(token).ok());
    Ok(Some(Box::new(RequestMeta {
        version,
        capabilities,
        info,
        log_level,
        progress_token,
        sent_params: None,
        round_fields: None,
        request: None,
    })))
}

/// [`read_fields`] of the keys a decode of the params took aside (see
/// [`with_request_meta_taken`](crate::schema::with_request_meta_taken)); the progress token is not among them.
#[cfg_attr(not(feature = "http-server"), allow(dead_code))]
pub(crate) fn from_taken(
    taken: &RequestMetaTaken,
) -> (Option<String>, Result<Option<Box<RequestMeta>>, RpcError>) {
    // Raw text is valid JSON: it reads as a `Value`.
    let value = |raw: &Option<Box<RawValue>>| {
        raw.as_deref()
            .and_then(|raw| serde_json::from_str(raw.get()).ok())
    };
    read_fields(Meta {
        version: value(&taken.protocol_version),
        capabilities: taken.client_capabilities.as_deref(),
        info: taken.client_info.as_deref(),
        log_level: value(&taken.log_level),
        progress_token: None,
    })
}

/// The `progressToken` in a request's params `_meta`. Most params have
/// none: their text is searched first (a key written with escapes could
/// still spell it, so text with a backslash is parsed).
pub(crate) fn progress_token(params: Option<&str>) -> Option<ProgressToken> {
    #[derive(Deserialize)]
    struct Params {
        #[serde(rename = "_meta")]
        meta: Option<TokenMeta>,
    }
    #[derive(Deserialize)]
    struct TokenMeta {
        #[serde(rename = "progressToken")]
        progress_token: Option<ProgressToken>,
    }
    let text = params?;
    // `str::contains` has a vectorised path for short needles: cheaper here
    // than a prebuilt `memmem` finder on params of a few hundred bytes.
    if !text.contains("progressToken") && memchr::memchr(b'\\', text.as_bytes()).is_none() {
        return None;
    }
    let params: Params = serde_json::from_str(text).ok()?;
    params.meta?.progress_token
}

/// Capabilities as a session or a request keeps them. The type is large
/// (hundreds of bytes, mostly empty options); a client declaring none
/// shares one empty set instead of costing each a copy.
pub(crate) fn shared_capabilities(capabilities: ClientCapabilities) -> Arc<ClientCapabilities> {
    if capabilities == ClientCapabilities::default() {
        no_capabilities()
    } else {
        Arc::new(capabilities)
    }
}

fn no_capabilities() -> Arc<ClientCapabilities> {
    static EMPTY: OnceLock<Arc<ClientCapabilities>> = OnceLock::new();
    EMPTY.get_or_init(Default::default).clone()
}

/// `raw` read as a `T`: straight from the text, in one pass; when that
/// fails, through a `Value` as before, so that what is refused, and the
/// error that says why, stay what they were.
fn typed<T: serde::de::DeserializeOwned>(raw: &RawValue) -> Result<T, serde_json::Error> {
    serde_json::from_str(raw.get())
        .or_else(|_| serde_json::from_str::<Value>(raw.get()).and_then(serde_json::from_value))
}

fn invalid_meta(detail: &str) -> RpcError {
    RpcError::invalid_params(detail)
}

/// The revisions served per request, newest first.
pub(crate) fn stateless_versions() -> impl Iterator<Item = ProtocolVersion> {
    ProtocolVersion::ALL
        .iter()
        .copied()
        .filter(|v| !v.has_initialize())
}

/// Every revision this server speaks, newest first (what `server/discover`
/// lists and -32022 names).
pub(crate) fn supported_versions() -> Vec<String> {
    ProtocolVersion::ALL
        .iter()
        .map(|v| v.as_str().to_string())
        .collect()
}

/// -32022: the request's revision is not one this server serves.
pub(crate) fn unsupported_version(requested: &str) -> RpcError {
    RpcError::new(
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
        format!("Unsupported protocol version `{requested}`"),
    )
    .with_data(json!({ "supported": supported_versions(), "requested": requested }))
}

/// A request without per-request metadata where one is required.
pub(crate) fn missing_meta() -> RpcError {
    invalid_meta(&format!(
        "the request has no `_meta` with `{PROTOCOL_VERSION}` and `{CLIENT_CAPABILITIES}` \
         (required by revision {})",
        stateless_versions()
            .map(ProtocolVersion::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(v: Value) -> Box<RawValue> {
        serde_json::value::to_raw_value(&v).unwrap()
    }

    fn code(v: Value) -> ErrorCode {
        read(Some(raw(v).get())).unwrap_err().code
    }

    #[test]
    fn reads_a_complete_claim() {
        let params = raw(json!({"name": "x", "_meta": {
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_CAPABILITIES: {"sampling": {}},
            CLIENT_INFO: {"name": "c", "version": "1"},
            LOG_LEVEL: "info",
        }}));
        let meta = read(Some(params.get())).unwrap().unwrap();
        assert_eq!(meta.version, ProtocolVersion::V2026_07_28);
        assert!(meta.capabilities.sampling.is_some());
        assert_eq!(meta.info.unwrap().name, "c");
        assert_eq!(meta.log_level, Some(LoggingLevel::Info));
    }

    #[test]
    fn no_claim_is_an_older_request() {
        assert!(read(None).unwrap().is_none());
        assert!(read(Some(raw(json!({})).get())).unwrap().is_none());
        assert!(
            read(Some(raw(json!({"_meta": {"progressToken": 1}})).get()))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn bad_claims_get_the_spec_codes() {
        let caps = json!({});
        assert_eq!(
            code(json!({"_meta": {PROTOCOL_VERSION: "v999.0.0", CLIENT_CAPABILITIES: caps}})),
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        );
        // A revision with sessions is not served per request.
        assert_eq!(
            code(json!({"_meta": {PROTOCOL_VERSION: "2025-11-25", CLIENT_CAPABILITIES: caps}})),
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        );
        assert_eq!(
            code(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}})),
            ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            code(
                json!({"_meta": {CLIENT_CAPABILITIES: caps, CLIENT_INFO: {"name": "c", "version": "1"}}})
            ),
            ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            code(json!({"_meta": {PROTOCOL_VERSION: 7, CLIENT_CAPABILITIES: caps}})),
            ErrorCode::INVALID_PARAMS
        );
        assert_eq!(
            code(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: [], }})),
            ErrorCode::INVALID_PARAMS
        );
        let params = raw(json!({"_meta": {PROTOCOL_VERSION: "v9", CLIENT_CAPABILITIES: caps}}));
        let e = read(Some(params.get())).unwrap_err();
        let data = e.data.unwrap();
        assert_eq!(data["requested"], "v9");
        assert!(
            data["supported"]
                .as_array()
                .unwrap()
                .iter()
                .any(|v| v == "2026-07-28")
        );
    }

    #[test]
    fn no_capabilities_read_as_the_default() {
        let caps: Box<RawValue> = serde_json::from_str("{}").unwrap();
        assert_eq!(
            typed::<ClientCapabilities>(&caps).unwrap(),
            ClientCapabilities::default()
        );
    }

    #[test]
    fn typed_reads_as_a_value_would() {
        let read_both = |text: &str| {
            let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
            let direct = typed::<Implementation>(&raw).map_err(|e| e.to_string());
            let value = serde_json::from_str::<Value>(text)
                .and_then(serde_json::from_value::<Implementation>)
                .map_err(|e| e.to_string());
            assert_eq!(direct, value, "{text}");
        };
        read_both(r#"{"name": "c", "version": "1", "x-vendor": {"a": [1, 2.5]}}"#);
        read_both(r#"{"name": 5, "version": "1"}"#);
        read_both(r#"{"version": "1"}"#);
        let caps: Box<RawValue> = serde_json::from_str(r#"{"sampling": 5}"#).unwrap();
        let via_value = serde_json::from_str::<Value>(caps.get())
            .and_then(serde_json::from_value::<ClientCapabilities>)
            .map_err(|e| e.to_string());
        assert_eq!(
            typed::<ClientCapabilities>(&caps).map_err(|e| e.to_string()),
            via_value
        );
    }
}
