//! Serving a request that stands alone (2026-07-28): its client is what its
//! `_meta` says, the method table says whether its revision has the method,
//! and the answer is written the way that revision wants it — the
//! per-revision codec on the way out (see `ARCHITECTURE.md`, "Neutral types
//! and the revisions").

use std::sync::Arc;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::input::{self, InputRound};
use super::request_state::RequestStateKey;
use super::service::dispatch;
use super::session_state::{ClientHello, SessionState};
use super::{Context, ServerHandler};
use crate::ProtocolVersion;
use crate::auth::AuthInfo;
use crate::capability::ServerOffers;
use crate::jsonrpc::{ErrorCode, InboundRequest, RpcError};
use crate::request_meta::{self, RequestMeta, SERVER_INFO};
use crate::schema::{
    ClientRequest, ClientRequestMethod, DiscoverResult, DiscoverResultCacheScope, Implementation,
};
use crate::session::{RequestContext, RequestFuture};

/// How long a client may reuse a cacheable result when the handler said
/// nothing: not at all, and only for itself (the safe default).
const DEFAULT_TTL_MS: u64 = 0;
const DEFAULT_CACHE_SCOPE: &str = "private";

/// Serves `request` under its own metadata.
pub(super) fn serve(
    handler: &Arc<dyn ServerHandler>,
    method: ClientRequestMethod,
    meta: RequestMeta,
    identity: Option<Arc<AuthInfo>>,
    request: InboundRequest<'_>,
    ctx: RequestContext,
) -> Result<RequestFuture, RpcError> {
    let version = meta.version;
    let info = handler.info();
    let offers = ServerOffers::new(&info.capabilities);
    if !method.in_revision(version) || !offers.allows(method) {
        return Err(RpcError::method_not_found(method.as_str()));
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
            request.params,
            key,
        )?))
    } else {
        None
    };
    let request = ClientRequest::from_parts(method, request.id, request.params)
        .map_err(RpcError::invalid_params)?;
    let hello = ClientHello {
        info: meta
            .info
            .unwrap_or_else(|| Implementation::new("unnamed-client", "")),
        capabilities: ClientHello::capabilities(meta.capabilities),
        version,
        offers,
    };
    let state = Arc::new(SessionState::for_request(
        ctx.peer().unrelated(),
        hello,
        meta.log_level,
        round.clone(),
    ));
    if let Some(identity) = identity {
        state.set_auth(identity);
    }
    let cx = Context::for_request(ctx, state.clone());
    let mut answer = dispatch(handler, state, cx, request)?;
    if let Some(round) = round {
        answer = input::run(answer, round);
    }
    let server = info.implementation;
    Ok(Box::pin(async move {
        stamp(method, version, answer.await, &server)
    }))
}

/// What a stateless revision's answer carries that a neutral value may
/// leave out: `resultType`, caching hints on cacheable results, the
/// server's name in `_meta`; and its error codes (a missing resource is
/// -32602 from 2026-07-28 on).
fn stamp(
    method: ClientRequestMethod,
    version: ProtocolVersion,
    answer: Result<Box<RawValue>, RpcError>,
    server: &Implementation,
) -> Result<Box<RawValue>, RpcError> {
    let raw = answer.map_err(|mut e| {
        if e.code == ErrorCode::RESOURCE_NOT_FOUND {
            e.code = ErrorCode::INVALID_PARAMS;
        }
        e
    })?;
    let mut result: Map<String, Value> = serde_json::from_str(raw.get())
        .map_err(|e| RpcError::internal(format!("a result must be a JSON object: {e}")))?;
    result
        .entry("resultType")
        .or_insert_with(|| Value::String("complete".into()));
    if method.spec().cacheable.contains(version) {
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
            let info = serde_json::to_value(server)
                .map_err(|e| RpcError::internal(format!("could not encode serverInfo: {e}")))?;
            meta.insert(SERVER_INFO.into(), info);
        }
    }
    serde_json::value::to_raw_value(&result)
        .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
}

/// `server/discover`: the revisions this server speaks, its capabilities
/// and instructions.
pub(super) fn discover(handler: &dyn ServerHandler) -> DiscoverResult {
    let info = handler.info();
    let mut capabilities = info.capabilities;
    // Tasks left the core protocol in 2026-07-28 (an extension now).
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
