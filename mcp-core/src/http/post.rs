//! POST: a message decoded once, then served in its session, standing
//! alone (2026-07-28), or in a session of its own (legacy stateless mode).
//! An answer ready at once is the response body straight away; one that
//! takes longer reaches the response through the session's outlet.

use std::future::{Future, ready};
use std::sync::Arc;

use axum::response::{IntoResponse, Response};
use futures::future::Either;
use http::request::Parts;
use http::{HeaderValue, StatusCode};
use tokio::sync::mpsc;

use super::State;
use super::alone::{ALONE_STREAM, Alone, Attach};
use super::extract::{Accepts, McpHeads, PostBody, Rejection, claimed_version};
use super::modern::{self, Decoded, Route};
use super::reply::{
    DisconnectGuard, EngineRef, Owner, SESSION_HEADER, complete_sse, json_body, rpc_error,
    sse_response,
};
use super::session::{self, HttpSession, lock};
use super::streams::LiveItem;
use crate::ProtocolVersion;
use crate::auth::AuthInfo;
use crate::jsonrpc::{ErrorCode, Inbound, RpcError, decode};
use crate::request_meta::RequestMeta;
use crate::schema::{RequestId, methods};
use crate::session::{Attached, Reply};

/// Events buffered for one HTTP response before its reader counts as slow.
pub(super) const LIVE_CAPACITY: usize = 64;

/// What a POST's serving needs of its HTTP head: what the client accepts,
/// and the head itself for the handler (`Context::http_parts`).
struct Head {
    accepts: Accepts,
    parts: Arc<Parts>,
}

// The functions below return `async move` blocks rather than being `async
// fn`s: an `async fn` keeps its arguments and its locals apart, so its
// future holds each argument twice (the decoded message, 128 bytes, in
// every one of them), and these futures are nested in the one axum boxes
// per request.
#[allow(
    clippy::manual_async_fn,
    reason = "an async fn would hold its arguments twice (see above)"
)]
pub(super) fn serve<'a>(
    state: &'a Arc<State>,
    identity: Option<Arc<AuthInfo>>,
    mcp: &'a McpHeads,
    body: PostBody,
) -> impl Future<Output = Result<Response, Rejection>> + 'a {
    async move {
        // Only the future `plan` picks is held across the await, not what
        // it decided on (the decoded message, its route): this future is
        // nested in the one axum boxes per request. (The body's fields are
        // used where they are: bound to locals, they would be held twice.)
        let text = PostBody::text(&body.body)?;
        plan(state, identity, mcp, body.parts, body.accepts, text).await
    }
}

/// Decodes the message `text`, once, and picks how it is served: standing
/// alone (2026-07-28), in a session of its own (legacy stateless mode), or
/// in its session; returns that serving, or the answer when one is due at
/// once.
fn plan<'a>(
    state: &'a Arc<State>,
    identity: Option<Arc<AuthInfo>>,
    mcp: &'a McpHeads,
    parts: Arc<Parts>,
    accepts: Accepts,
    text: &'a str,
) -> impl Future<Output = Result<Response, Rejection>> + 'a {
    let done = |outcome| Either::Left(ready(outcome));
    // Decoded once; a request of a revision without sessions (2026-07-28)
    // is checked against its headers here and served alone.
    let (decoded, route) = modern::route(&parts.headers, mcp, text);
    let meta = match route {
        Route::Sessions => None,
        Route::Stateless(meta) => Some(meta),
        Route::Answered(response) => return done(Ok(response)),
    };
    let version = match meta {
        Some(_) => None,
        None => match claimed_version(mcp.version.as_ref()) {
            Ok(version) => version,
            Err(rejection) => return done(Err(rejection)),
        },
    };
    let (request_id, is_initialize) = match &decoded {
        // A well-formed message with bad params goes to its session like any
        // other: a request is answered -32602, a notification dropped.
        Err(e) if e.method.is_some() => (
            e.id.clone(),
            e.method.as_deref() == Some(methods::INITIALIZE),
        ),
        Err(e) => {
            let response = rpc_error(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
            return done(Ok(response));
        }
        Ok(Inbound::Request(r)) => {
            // Scopes of the method (and of the tool, for tools/call).
            #[cfg(feature = "auth")]
            if let (Some(resource), Some(info)) = (&state.config.protected_resource, &identity) {
                if resource.has_operation_scopes() {
                    let tool = (r.method == methods::TOOLS_CALL)
                        .then(|| tool_name(r.params_text()))
                        .flatten();
                    if let Err(rejection) = resource.authorize(info, &r.method, tool.as_deref()) {
                        return done(Ok(rejection.into_response()));
                    }
                }
            }
            (Some(r.id.clone()), r.method == methods::INITIALIZE)
        }
        Ok(_) => (None, false),
    };
    let head = Head { accepts, parts };
    if let Some(meta) = meta {
        let alone = serve_alone(state, identity, head, decoded, meta);
        return Either::Right(Either::Left(alone));
    }
    if state.config.stateless {
        // Every POST is a session of its own; initialize itself is answered
        // for clients that send it.
        let preset = (!is_initialize).then(|| version.unwrap_or(ProtocolVersion::LATEST));
        let one_shot = serve_one_shot(state, identity, head, decoded, request_id, preset, version);
        return Either::Right(Either::Right(Either::Left(one_shot)));
    }
    let session = SessionPost {
        identity,
        text,
        decoded,
        request_id,
        created: is_initialize && mcp.session.is_none(),
        head,
        version,
    };
    // Boxed: it is the largest of the three by far (a session is looked up,
    // served, persisted), and inline it would make the endpoint future of
    // every POST too large for the allocator's per-thread cache (glibc's
    // takes blocks up to 1,032 bytes: a larger one costs a slower path and
    // a cold block each request). Two cached blocks cost less than one
    // uncached.
    let in_session = Box::pin(session.serve(state, mcp));
    Either::Right(Either::Right(Either::Right(in_session)))
}

/// A POST to serve in its session (a revision with sessions).
struct SessionPost<'a> {
    identity: Option<Arc<AuthInfo>>,
    text: &'a str,
    decoded: Decoded<'a>,
    request_id: Option<RequestId>,
    /// An `initialize` without a session id: it opens one.
    created: bool,
    head: Head,
    version: Option<ProtocolVersion>,
}

impl<'a> SessionPost<'a> {
    #[allow(
        clippy::manual_async_fn,
        reason = "an async fn would hold its arguments twice (see above)"
    )]
    fn serve(
        self,
        state: &'a Arc<State>,
        mcp: &'a McpHeads,
    ) -> impl Future<Output = Result<Response, Rejection>> + 'a {
        async move {
            // Fields used where they are, not bound to locals first: the
            // future would hold them twice.
            let created = self.created;
            let session = if created {
                session::create(state)?
            } else {
                session::existing(state, mcp.session()).await?
            };
            session::bind_identity(&session.engine, self.identity.as_ref())?;
            let Some(id) = self.request_id else {
                // Notifications and responses: hand over and acknowledge.
                if session.closed().is_cancelled() {
                    return Err(Rejection::SessionNotFound("Session not found"));
                }
                if let Ok(Inbound::Response(response)) = &self.decoded {
                    // An answer to a request another replica sent goes there.
                    session::route_answer(state, &session, response.id.as_ref(), self.text).await;
                }
                let _ = session.engine.handle(self.decoded, None);
                // `notifications/initialized` changes what other replicas must know.
                session::persist(state, &session, session::Reach::Hint).await?;
                return Ok(StatusCode::ACCEPTED.into_response());
            };
            let (mut response, failed_initialize) = serve_in_session(
                state,
                &session,
                id,
                self.decoded,
                self.head,
                self.version,
                created,
            )
            .await?;
            if failed_initialize {
                // An initialize that failed (bad params) leaves no session behind:
                // the client gets the error and no session id to use.
                lock(&state.sessions).remove(&session.id);
                session.terminate();
                return Ok(response);
            }
            let reach = if created {
                session::Reach::Created
            } else {
                session::Reach::Everywhere
            };
            if let Err(rejection) = session::persist(state, &session, reach).await {
                if created {
                    // A session other replicas cannot find is no session.
                    lock(&state.sessions).remove(&session.id);
                    session.terminate();
                }
                return Err(rejection);
            }
            // The id goes out with the answer that creates the session (spec:
            // "on the HTTP response containing the InitializeResult"); a client
            // has it from then on, so later answers need not repeat it.
            if created && let Ok(value) = HeaderValue::from_str(&session.id) {
                response.headers_mut().insert(SESSION_HEADER, value);
            }
            Ok(response)
        }
    }
}

/// The tool a `tools/call` names.
#[cfg(feature = "auth")]
fn tool_name(params: Option<&str>) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    serde_json::from_str::<Named>(params?).ok().map(|n| n.name)
}

/// Whether `text` is a successful response.
fn is_result(text: &str) -> bool {
    matches!(decode(text), Ok(Inbound::Response(r)) if r.outcome.is_ok())
}

/// Serves request `id` in `session`; returns the response and whether it
/// was an `initialize` that opened the session and failed.
#[allow(
    clippy::manual_async_fn,
    reason = "an async fn would hold its arguments twice (see above)"
)]
fn serve_in_session(
    state: &State,
    session: &Arc<HttpSession>,
    id: RequestId,
    decoded: Decoded<'_>,
    head: Head,
    version: Option<ProtocolVersion>,
    created: bool,
) -> impl Future<Output = Result<(Response, bool), Rejection>> {
    async move {
        let Head { accepts, parts } = head;
        let Some(stream_id) = session
            .streams()
            .open_request(id.clone(), None, accepts.json)
        else {
            let error = RpcError::invalid_request(format!(
                "request id {id} is already in progress in this session"
            ));
            return Ok((rpc_error(StatusCode::CONFLICT, Some(&id), &error), false));
        };
        let reply = session.engine.handle(decoded, Some(parts));
        let priming = || {
            let version = session
                .engine
                .service()
                .and_then(|s| s.protocol_version())
                .or(version);
            version
                .filter(|v| v.has_sse_priming())
                .map(|_| state.config.sse_retry)
        };
        if let Some(Reply { text, .. }) = reply {
            // Answered at once, in this task.
            let failed = created && !is_result(&text);
            if session.streams().answer_as_json(&id, stream_id) {
                return Ok((json_body(StatusCode::OK, text), failed));
            }
            let answer: Arc<str> = Arc::from(text);
            // When the answer is all the stream carried, it is the one event to
            // send: nothing to read back from the store.
            if session.outlet.deliver_answer(id, answer.clone(), stream_id) {
                let only = [(1, answer)];
                return Ok((complete_sse(stream_id, priming(), &only), failed));
            }
            let mut replay = session
                .streams()
                .attach_post(stream_id, None)
                .map(|(replay, _)| replay)
                .unwrap_or_default();
            // Other requests finishing between the two locks may have pruned
            // this finished stream (only so many are kept for resumption): the
            // answer in hand is sent all the same.
            if replay.last().is_none_or(|(_, t)| *t != answer) {
                let seq = replay.last().map_or(1, |(seq, _)| seq + 1);
                replay.push((seq, answer));
            }
            return Ok((complete_sse(stream_id, priming(), &replay), failed));
        }
        let (live_tx, mut live_rx) = mpsc::channel(LIVE_CAPACITY);
        let attached = session.streams().attach_post(stream_id, Some(live_tx));
        let Some((replay, complete)) = attached else {
            return Err(Rejection::SessionNotFound("Session ended before answering"));
        };
        if complete {
            let failed = created && !replay.last().is_some_and(|(_, t)| is_result(t));
            return Ok((complete_sse(stream_id, priming(), &replay), failed));
        }
        // Armed from here until the request is answered: if this handler or
        // its event stream is dropped first, the client went away.
        let mut disconnect = DisconnectGuard {
            engine: Some(Arc::new(EngineRef::Session(session.clone()))),
            request: state.config.cancel_on_disconnect.then(|| id.clone()),
            end_session: false,
        };
        let mut first = None;
        if replay.is_empty() {
            let item = tokio::select! {
                item = live_rx.recv() => item,
                () = session.closed().cancelled() => None,
            };
            match item {
                None => {
                    disconnect.disarm();
                    return Err(Rejection::SessionNotFound("Session ended before answering"));
                }
                Some(LiveItem::Event {
                    text, last: true, ..
                }) if accepts.json => {
                    disconnect.disarm();
                    let failed = created && !is_result(&text);
                    return Ok((json_body(StatusCode::OK, text.to_string()), failed));
                }
                Some(item) => {
                    if matches!(item, LiveItem::Close | LiveItem::Event { last: true, .. }) {
                        disconnect.disarm();
                    }
                    first = Some(item);
                }
            }
        }
        let failed = created
            && match &first {
                Some(LiveItem::Event {
                    text, last: true, ..
                }) => !is_result(text),
                _ => false,
            };
        let response = sse_response(
            Owner::Session(session.clone()),
            stream_id,
            priming(),
            replay,
            first,
            live_rx,
            disconnect,
        );
        Ok((response, failed))
    }
}

/// Serves a request that stands alone (2026-07-28): the service is called
/// directly, with the `_meta` read when the headers were checked.
#[allow(
    clippy::manual_async_fn,
    reason = "an async fn would hold its arguments twice (see above)"
)]
fn serve_alone(
    state: &State,
    identity: Option<Arc<AuthInfo>>,
    head: Head,
    decoded: Decoded<'_>,
    meta: Box<RequestMeta>,
) -> impl Future<Output = Result<Response, Rejection>> {
    async move {
        let Head { accepts, parts } = head;
        let Ok(Inbound::Request(request)) = decoded else {
            // `modern::route` serves only requests this way.
            return Err(Rejection::Internal("not a request".into()));
        };
        let id = request.id.clone();
        let sink = Alone::new(Some(id.clone()));
        let acceptor = &state.acceptor;
        let engine = Attached::alone(sink.clone(), acceptor.config().clone());
        let token = meta.progress_token.clone();
        let reply = engine.handle_alone(request, token, Some(parts), |request, ctx| {
            acceptor.serve_alone(request, meta, identity, ctx)
        });
        let lone = Lone {
            engine,
            sink,
            id,
            modern: true,
            // Closing the response stream is how a client cancels a request
            // that stands alone, e.g. ends a subscriptions/listen.
            cancel: true,
            end_session: false,
            priming: None,
        };
        Ok(lone.finish(reply, accepts).await)
    }
}

/// Serves a POST of the legacy stateless mode: a session of its own.
async fn serve_one_shot(
    state: &State,
    identity: Option<Arc<AuthInfo>>,
    head: Head,
    decoded: Decoded<'_>,
    request_id: Option<RequestId>,
    preset: Option<ProtocolVersion>,
    version: Option<ProtocolVersion>,
) -> Result<Response, Rejection> {
    let Head { accepts, parts } = head;
    let sink = Alone::new(request_id.clone());
    let engine = state
        .acceptor
        .open(sink.clone(), preset)
        .map_err(|e| Rejection::Internal(e.to_string()))?;
    if let Err(rejection) = session::bind_identity(&engine, identity.as_ref()) {
        engine.close("refused");
        return Err(rejection);
    }
    let reply = engine.handle(decoded, Some(parts));
    let Some(id) = request_id else {
        engine.close("the POST of a stateless session ended");
        return Ok(StatusCode::ACCEPTED.into_response());
    };
    let priming = engine
        .service()
        .and_then(|s| s.protocol_version())
        .or(version)
        .filter(|v| v.has_sse_priming())
        .map(|_| state.config.sse_retry);
    let lone = Lone {
        engine,
        sink,
        id,
        modern: false,
        cancel: state.config.cancel_on_disconnect,
        end_session: true,
        priming,
    };
    Ok(lone.finish(reply, accepts).await)
}

/// A POST whose request has no session to resume from.
struct Lone {
    engine: Attached,
    sink: Arc<Alone>,
    id: RequestId,
    /// A 2026-07-28 request: its JSON answer's status follows its error.
    modern: bool,
    /// Cancel the request when the client goes away.
    cancel: bool,
    /// The engine is this POST's own session: ended with it.
    end_session: bool,
    /// The retry hint of the priming event, when the revision has one.
    priming: Option<std::time::Duration>,
}

impl Lone {
    fn status(&self, error: Option<ErrorCode>) -> StatusCode {
        match error {
            Some(code) if self.modern => modern::status_of_error(code),
            _ => StatusCode::OK,
        }
    }

    fn end(&self) {
        if self.end_session {
            self.engine.close("the POST of a stateless session ended");
        }
    }

    #[allow(
        clippy::manual_async_fn,
        reason = "an async fn would hold its arguments twice (see above)"
    )]
    fn finish(self, reply: Option<Reply>, accepts: Accepts) -> impl Future<Output = Response> {
        async move {
            if let Some(Reply { text, error, .. }) = reply {
                self.end();
                if accepts.json && self.sink.is_empty() {
                    return json_body(self.status(error), text);
                }
                self.sink.answer(text);
            }
            let (replay, mut live) = match self.sink.attach(LIVE_CAPACITY) {
                Attach::Complete(replay) => {
                    self.end();
                    return complete_sse(ALONE_STREAM, self.priming, &replay);
                }
                Attach::Live(replay, live) => (replay, live),
            };
            let status = (self.modern, accepts.json);
            let Self {
                engine,
                id,
                cancel,
                end_session,
                priming,
                ..
            } = self;
            let mut disconnect = DisconnectGuard {
                engine: Some(Arc::new(EngineRef::Own(engine))),
                request: cancel.then_some(id),
                end_session,
            };
            let mut first = None;
            if replay.is_empty() {
                match live.recv().await {
                    None => {
                        disconnect.disarm();
                        return Rejection::SessionNotFound("Session ended before answering")
                            .into_response();
                    }
                    Some(LiveItem::Event {
                        text, last: true, ..
                    }) if status.1 => {
                        disconnect.disarm();
                        let code = if status.0 {
                            modern::status_of(&text)
                        } else {
                            StatusCode::OK
                        };
                        return json_body(code, text.to_string());
                    }
                    Some(item) => {
                        if matches!(item, LiveItem::Close | LiveItem::Event { last: true, .. }) {
                            disconnect.disarm();
                        }
                        first = Some(item);
                    }
                }
            }
            sse_response(
                Owner::Alone,
                ALONE_STREAM,
                priming,
                replay,
                first,
                live,
                disconnect,
            )
        }
    }
}
