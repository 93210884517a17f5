//! Serving a request that stands alone (2026-07-28): its client is what its
//! `_meta` says, the method table says whether its revision has the method,
//! and the answer is written the way that revision wants it — the
//! per-revision codec on the way out (see `ARCHITECTURE.md`, "Neutral types
//! and the revisions").

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, LazyLock};
use std::task::{Context as TaskContext, Poll};

use indexmap::IndexMap;
use memchr::memmem::Finder;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::input::{self, InputRound};
use super::request_state::RequestStateKey;
use super::service::{decode_params, dispatch};
use super::session_state::{ClientHello, SessionState};
use super::{Context, ServerHandler, ServerInfo};
use crate::auth::AuthInfo;
use crate::capability::ServerOffers;
use crate::extensions::{self, ExtensionMethod, RequestMethod};
use crate::jsonrpc::{ErrorCode, InboundRequest, RpcError};
use crate::param_headers;
use crate::request_meta::{self, RequestMeta, SERVER_INFO};
use crate::schema::{
    ClientRequest, DiscoverResult, DiscoverResultCacheScope, JsonObject, ServerCapabilities,
    with_request_meta_taken,
};
use crate::session::{AloneFuture, RequestContext, RequestFuture};
use crate::tasks::TasksRequest;

/// How long a client may reuse a cacheable result when the handler said
/// nothing: not at all, and only for itself (the safe default).
const DEFAULT_TTL_MS: u64 = 0;
const DEFAULT_CACHE_SCOPE: &str = "private";

/// What answering a request that stands alone needs of the server's info,
/// worked out once: per change of a [`super::Server`] (kept in its
/// catalog), else per request.
#[derive(Debug)]
pub(crate) struct Profile {
    info: ServerInfo,
    offers: ServerOffers,
    /// `implementation` as JSON, for `_meta` serverInfo.
    server_info: Box<RawValue>,
}

impl Profile {
    /// `handler`'s profile as it is now.
    pub(super) fn of(handler: &dyn ServerHandler) -> Result<Arc<Self>, RpcError> {
        Self::from_info(handler.info())
    }

    /// The profile of a server with `info`.
    pub(super) fn from_info(info: ServerInfo) -> Result<Arc<Self>, RpcError> {
        let offers = ServerOffers::new(&info.capabilities);
        let server_info = serde_json::value::to_raw_value(&info.implementation)
            .map_err(|e| RpcError::internal(format!("could not encode serverInfo: {e}")))?;
        Ok(Arc::new(Self {
            info,
            offers,
            server_info,
        }))
    }
}

/// Serves `request` under its own metadata; `profile` is the server's if
/// it was worked out once.
pub(crate) fn serve(
    handler: &Arc<dyn ServerHandler>,
    profile: Option<&Arc<Profile>>,
    method: RequestMethod,
    mut meta: Box<RequestMeta>,
    identity: Option<Arc<AuthInfo>>,
    request: InboundRequest<'_>,
    ctx: RequestContext,
) -> Result<AloneFuture, RpcError> {
    let profile = match profile {
        Some(profile) => profile.clone(),
        None => Profile::of(handler.as_ref())?,
    };
    let method = match method {
        RequestMethod::Core(method) => method,
        RequestMethod::Extension(method) => {
            return serve_extension(handler, profile, method, meta, identity, request, ctx);
        }
    };
    let version = meta.version;
    if !ctx.span.is_disabled() {
        ctx.span.record("mcp.protocol.version", version.as_str());
        if let Some(info) = &meta.info {
            ctx.span.record("mcp.client.name", info.name.as_str());
        }
    }
    let offers = profile.offers;
    if !method.in_revision(version) || !offers.allows(method) {
        return Err(RpcError::method_not_found(method.as_str()));
    }
    if let Some(sent) = &meta.sent_params {
        check_param_headers(handler.as_ref(), meta.request.as_deref(), &request, sent)?;
    }
    // Requests the table says an input-required result may answer run in a
    // round: their requestState is checked before anything else.
    let round = if method.spec().input_required.contains(version) {
        let key = match handler.request_state_key() {
            Some(key) => key,
            None => RequestStateKey::process()?.clone(),
        };
        Some(Arc::new(InputRound::start(
            method.as_str(),
            request.params_text(),
            meta.round_fields,
            key,
        )?))
    } else {
        None
    };
    // The `_meta` keys read into `meta` are not kept again in the params; a
    // transport that decoded them in the pass that read `meta` hands the
    // request on.
    let request = match meta.request.take() {
        Some(decoded) => *decoded,
        None => {
            // Decoded again if need be: a request decoded for a session
            // kept these `_meta` keys in its params.
            let (decoded, _) = with_request_meta_taken(|| decode_params(method, request));
            match decoded {
                Ok(request) => *request,
                Err(e) => return Err(RpcError::invalid_params(e)),
            }
        }
    };
    let state = request_state(meta, identity, offers, &ctx, round.clone());
    let cx = Context::for_request(ctx, state.clone());
    let answer = dispatch(handler, state, cx, request)?;
    let cacheable = method.spec().cacheable.contains(version);
    Ok(Box::pin(Answer {
        handler: answer,
        round,
        cacheable,
        profile,
    }))
}

/// The answer of a core request standing alone: its handler, run in its
/// input round if it has one, and its result stamped.
struct Answer {
    handler: RequestFuture,
    round: Option<Arc<InputRound>>,
    cacheable: bool,
    profile: Arc<Profile>,
}

impl Future for Answer {
    type Output = Result<String, RpcError>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let answer = match &this.round {
            Some(round) => input::poll(&mut this.handler, round, cx),
            None => this.handler.as_mut().poll(cx),
        };
        answer.map(|answer| stamp(this.cacheable, answer, &this.profile.server_info))
    }
}

/// SEP-2243 on the server: the `Mcp-Param-*` headers of a `tools/call`
/// must repeat the arguments its tool marks `x-mcp-header` (-32020). The
/// call is read from `decoded` when the transport decoded it, else from
/// the params' text.
fn check_param_headers(
    handler: &dyn ServerHandler,
    decoded: Option<&ClientRequest>,
    request: &InboundRequest<'_>,
    sent: &param_headers::SentParams,
) -> Result<(), RpcError> {
    /// The call as text: the arguments are parsed only for a tool that
    /// marks any.
    #[derive(serde::Deserialize)]
    struct Call<'a> {
        name: String,
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
    }
    let read;
    let (tool, typed, raw) = match decoded {
        Some(ClientRequest::CallTool(call)) => {
            (&call.params.name, Some(&call.params.arguments), None)
        }
        _ => {
            // Params that do not read are the dispatch's to refuse (-32602).
            let Some(call) = request
                .params_text()
                .and_then(|p| serde_json::from_str::<Call<'_>>(p).ok())
            else {
                return Ok(());
            };
            read = call;
            (&read.name, None, read.arguments)
        }
    };
    let Some(declared) = handler.header_params(tool).filter(|d| !d.is_empty()) else {
        return Ok(());
    };
    let parsed;
    let arguments = match typed {
        Some(arguments) => arguments.as_ref(),
        None => {
            let raw = raw.map(|raw| serde_json::from_str(raw.get()));
            let Ok(arguments) = raw.transpose() else {
                return Ok(());
            };
            parsed = arguments;
            parsed.as_ref()
        }
    };
    param_headers::check_sent(&declared.0, arguments, sent)
        .map_err(|e| RpcError::new(ErrorCode::HEADER_MISMATCH, format!("Header mismatch: {e}")))
}

/// The per-request state of a request that stands alone: its client is
/// what its `_meta` says.
fn request_state(
    meta: Box<RequestMeta>,
    identity: Option<Arc<AuthInfo>>,
    offers: ServerOffers,
    ctx: &RequestContext,
    round: Option<Arc<InputRound>>,
) -> Arc<SessionState> {
    let hello = ClientHello {
        info: meta.info.map_or_else(ClientHello::unnamed, Arc::new),
        capabilities: meta.capabilities,
        version: meta.version,
        offers,
    };
    let state = Arc::new(SessionState::for_request(
        ctx.peer().unrelated(),
        hello,
        meta.log_level,
        round,
    ));
    if let Some(identity) = identity {
        state.set_auth(identity);
    }
    state
}

/// Serves a method of an extension (the tasks extension's `tasks/get`,
/// `tasks/update`, `tasks/cancel`; the skills extension's): -32601 if the
/// server does not offer the extension, -32021 if the method needs the
/// client to declare it and it did not on this request.
fn serve_extension(
    handler: &Arc<dyn ServerHandler>,
    profile: Arc<Profile>,
    method: ExtensionMethod,
    meta: Box<RequestMeta>,
    identity: Option<Arc<AuthInfo>>,
    request: InboundRequest<'_>,
    ctx: RequestContext,
) -> Result<AloneFuture, RpcError> {
    let spec = method.spec();
    if !offered_extensions(&profile.info.capabilities).contains_key(spec.extension) {
        return Err(RpcError::method_not_found(method.as_str()));
    }
    if spec.client_declares && !extensions::declared(&meta.capabilities, spec.extension) {
        return Err(extensions::missing(spec.extension));
    }
    let offers = profile.offers;
    let answer = match method {
        ExtensionMethod::SkillsList
        | ExtensionMethod::SkillsGet
        | ExtensionMethod::DirectoryRead => {
            let params = extension_params(method, request.params)?;
            let state = request_state(meta, identity, offers, &ctx, None);
            let cx = Context::for_request(ctx, state);
            let handler = handler.clone();
            Box::pin(async move {
                let result = handler.extension_request(method, params, cx).await?;
                serde_json::value::to_raw_value(&result)
                    .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
            }) as RequestFuture
        }
        ExtensionMethod::TasksGet | ExtensionMethod::TasksUpdate | ExtensionMethod::TasksCancel => {
            let tasks_request = TasksRequest::decode(method, request.params)?;
            let state = request_state(meta, identity, offers, &ctx, None);
            let cx = Context::for_request(ctx, state);
            let handler = handler.clone();
            Box::pin(async move {
                let result = handler.tasks_extension(tasks_request, cx).await?;
                serde_json::value::to_raw_value(&result)
                    .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
            }) as RequestFuture
        }
    };
    let cacheable = spec.cacheable;
    Ok(Box::pin(async move {
        stamp(cacheable, answer.await, &profile.server_info)
    }))
}

/// The params of an extension request as an object, `_meta` taken out
/// (-32602 when they are not an object).
pub(super) fn extension_params(
    method: ExtensionMethod,
    params: Option<&RawValue>,
) -> Result<Map<String, Value>, RpcError> {
    let Some(params) = params else {
        return Ok(Map::new());
    };
    let mut params: Map<String, Value> = serde_json::from_str(params.get()).map_err(|e| {
        RpcError::invalid_params(format!("invalid `{}` params: {e}", method.as_str()))
    })?;
    params.remove("_meta");
    Ok(params)
}

/// The extensions a server offers, by identifier: those its capabilities
/// declare, plus the tasks extension when it runs tool calls as tasks.
fn offered_extensions(capabilities: &ServerCapabilities) -> IndexMap<String, JsonObject> {
    let mut offered = capabilities.extensions.clone().unwrap_or_default();
    let tool_tasks = capabilities
        .tasks
        .as_ref()
        .and_then(|t| t.requests.as_ref())
        .and_then(|r| r.tools.as_ref())
        .and_then(|t| t.call.as_ref())
        .is_some();
    if tool_tasks {
        offered
            .entry(extensions::TASKS.to_string())
            .or_insert_with(|| JsonObject(IndexMap::new()));
    }
    offered
}

/// What a stateless revision's answer carries that a neutral value may
/// leave out: `resultType`, caching hints on cacheable results, the
/// server's name in `_meta`; and its error codes (a missing resource is
/// -32602 from 2026-07-28 on). The text returned is valid JSON (valid
/// pieces joined, or written by serde), so it is not parsed again.
fn stamp(
    cacheable: bool,
    answer: Result<Box<RawValue>, RpcError>,
    server_info: &RawValue,
) -> Result<String, RpcError> {
    let raw = answer.map_err(|mut e| {
        if e.code == ErrorCode::RESOURCE_NOT_FOUND {
            e.code = ErrorCode::INVALID_PARAMS;
        }
        e
    })?;
    if let Some(stamped) = stamp_text(cacheable, raw.get(), server_info) {
        return Ok(stamped);
    }
    let mut result: Map<String, Value> = serde_json::from_str(raw.get())
        .map_err(|e| RpcError::internal(format!("a result must be a JSON object: {e}")))?;
    result
        .entry("resultType")
        .or_insert_with(|| Value::String("complete".into()));
    if cacheable {
        result.entry("ttlMs").or_insert(Value::from(DEFAULT_TTL_MS));
        result
            .entry("cacheScope")
            .or_insert_with(|| Value::String(DEFAULT_CACHE_SCOPE.into()));
    }
    let meta = result
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        if !meta.contains_key(SERVER_INFO) {
            let info = serde_json::from_str(server_info.get())
                .map_err(|e| RpcError::internal(format!("could not encode serverInfo: {e}")))?;
            meta.insert(SERVER_INFO.into(), info);
        }
    }
    serde_json::to_string(&result)
        .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
}

/// The common case of [`stamp`] without parsing the result: an object whose
/// text names none of the keys to add (nor `_meta`) gets them appended
/// before its closing brace. `None` when the text may hold one of them
/// (anywhere, even inside a string: the map path then decides).
fn stamp_text(cacheable: bool, text: &str, server_info: &RawValue) -> Option<String> {
    /// The texts searched for, with their searchers built once
    /// (`str::contains` sets one up on every call).
    static KEYS: LazyLock<[Finder<'static>; 5]> = LazyLock::new(|| {
        [
            // A \\u escape could spell a key differently: leave those to the map.
            "\\u",
            "\"resultType\"",
            "\"_meta\"",
            "\"ttlMs\"",
            "\"cacheScope\"",
        ]
        .map(Finder::new)
    });
    let body = text.trim();
    let inner = body.strip_prefix('{')?.strip_suffix('}')?;
    // The last two are added only to cacheable results.
    let searched = if cacheable { &KEYS[..] } else { &KEYS[..3] };
    if searched
        .iter()
        .any(|key| key.find(inner.as_bytes()).is_some())
    {
        return None;
    }
    let mut out = String::with_capacity(body.len() + server_info.get().len() + 128);
    out.push('{');
    let fields = inner.trim_end();
    out.push_str(fields);
    if !fields.trim_start().is_empty() {
        out.push(',');
    }
    out.push_str(r#""resultType":"complete""#);
    if cacheable {
        out.push_str(r#","ttlMs":"#);
        out.push_str(&DEFAULT_TTL_MS.to_string());
        out.push_str(r#","cacheScope":""#);
        out.push_str(DEFAULT_CACHE_SCOPE);
        out.push('"');
    }
    out.push_str(r#","_meta":{""#);
    out.push_str(SERVER_INFO);
    out.push_str(r#"":"#);
    out.push_str(server_info.get());
    out.push_str("}}");
    Some(out)
}

/// `server/discover`: the revisions this server speaks, its capabilities
/// and instructions.
pub(super) fn discover(handler: &dyn ServerHandler) -> DiscoverResult {
    let info = handler.info();
    let mut capabilities = info.capabilities;
    // Tasks left the core protocol in 2026-07-28: an extension now.
    let offered = offered_extensions(&capabilities);
    capabilities.extensions = (!offered.is_empty()).then_some(offered);
    capabilities.tasks = None;
    DiscoverResult {
        instructions: info.instructions,
        ..DiscoverResult::new(
            DiscoverResultCacheScope::Private,
            capabilities,
            request_meta::supported_versions(),
            DEFAULT_TTL_MS,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamped(cacheable: bool, result: &str) -> Value {
        let info =
            serde_json::value::to_raw_value(&serde_json::json!({"name": "s", "version": "1"}))
                .unwrap();
        let raw = RawValue::from_string(result.to_owned()).unwrap();
        serde_json::from_str(&stamp(cacheable, Ok(raw), &info).unwrap()).unwrap()
    }

    /// Appended to the text, or through the map when the text may name a
    /// key already: the same answer either way, and what the handler set
    /// is kept.
    #[test]
    fn results_are_stamped_once_with_what_they_lack() {
        let info = serde_json::json!({"name": "s", "version": "1"});
        let plain = stamped(false, r#"{"content":[]}"#);
        assert_eq!(
            plain,
            serde_json::json!({"content": [], "resultType": "complete",
                "_meta": {SERVER_INFO: info}})
        );
        assert_eq!(
            stamped(false, "{ }"),
            serde_json::json!({"resultType": "complete", "_meta": {SERVER_INFO: info}})
        );
        let cached = stamped(true, r#"{"tools":[]}"#);
        assert_eq!(cached["ttlMs"], 0);
        assert_eq!(cached["cacheScope"], "private");
        // Set by the handler: kept.
        let own = stamped(true, r#"{"tools":[],"ttlMs":5,"_meta":{"k":1}}"#);
        assert_eq!(own["ttlMs"], 5);
        assert_eq!(own["cacheScope"], "private");
        assert_eq!(own["_meta"]["k"], 1);
        assert_eq!(own["_meta"][SERVER_INFO], info);
        // A key spelled with an escape is still the key.
        let escaped = stamped(false, r#"{"result\u0054ype":"task"}"#);
        assert_eq!(escaped["resultType"], "task");
        // A mere mention inside a string takes the map path, same answer.
        let mention = stamped(false, r#"{"content":[{"type":"text","text":"\"_meta\""}]}"#);
        assert_eq!(mention["_meta"][SERVER_INFO], info);
        assert_eq!(mention["content"][0]["text"], "\"_meta\"");
    }
}
