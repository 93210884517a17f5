//! The server side of the session engine: lifecycle and the exhaustive
//! dispatch of client requests to a [`ServerHandler`].

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use serde_json::value::RawValue;

#[cfg(feature = "http-server")]
use super::session_record;
use super::session_state::{ClientHello, SessionState};
use super::stateless;
use super::{Context, ServerHandler};
use crate::capability::ServerOffers;
use crate::extensions::{ExtensionMethod, RequestMethod};
use crate::jsonrpc::{InboundNotification, InboundRequest, RpcError};
use crate::request_meta;
use crate::schema::{
    ClientNotificationMethod, ClientRequest, ClientRequestMethod, EmptyResult, Implementation,
    InitializeRequestParams, InitializeResult,
};
#[cfg(feature = "http-server")]
use crate::session::{Attached, OutboundSink};
use crate::session::{Peer, RequestContext, RequestFuture, Service, Session, SessionConfig};
use crate::transport::Transport;
use crate::{ProtocolVersion, Result};

/// A running server session with one client.
pub struct ServerSession {
    session: Session,
    state: Arc<SessionState>,
}

impl fmt::Debug for ServerSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSession")
            .field("session", &self.session)
            .finish_non_exhaustive()
    }
}

impl ServerSession {
    /// The client.
    pub fn peer(&self) -> &Peer {
        self.session.peer()
    }

    /// The client's name and version, once it has initialized.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.state.client.get().map(|c| &*c.info)
    }

    /// The negotiated protocol revision, once initialized.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.state.client.get().map(|c| c.version)
    }

    /// A handler context not tied to any request (for logging or asking the
    /// client things outside a request).
    pub fn context(&self) -> Context {
        Context::for_session(self.state.clone())
    }

    /// Waits until the session ends and returns why.
    pub async fn closed(&self) -> String {
        self.session.closed().await
    }

    /// Ends the session and closes its transport.
    pub async fn close(&self) {
        self.session.close().await;
    }

    pub(crate) fn state(&self) -> &Arc<SessionState> {
        &self.state
    }
}

/// Serves one client over `transport` with a [`ServerHandler`]. Call inside
/// a Tokio runtime.
pub fn serve(
    handler: Arc<dyn ServerHandler>,
    transport: impl Transport,
    config: SessionConfig,
) -> Result<ServerSession> {
    serve_with(handler, transport, config, None)
}

#[cfg(feature = "http-server")]
/// The hello of a session that skips the handshake, as if a client without
/// capabilities had initialized at `version` (legacy stateless Streamable
/// HTTP, where every POST is a session of its own).
fn preset_hello(handler: &dyn ServerHandler, version: ProtocolVersion) -> ClientHello {
    ClientHello {
        info: Arc::new(Implementation::new("stateless-client", "0")),
        capabilities: ClientHello::capabilities(crate::schema::ClientCapabilities::default()),
        version,
        offers: ServerOffers::new(&handler.info().capabilities),
    }
}

fn serve_with(
    handler: Arc<dyn ServerHandler>,
    transport: impl Transport,
    config: SessionConfig,
    preset: Option<ClientHello>,
) -> Result<ServerSession> {
    let service = Arc::new(ServerService {
        handler,
        state: OnceLock::new(),
        preset: preset.map(Box::new),
    });
    let session = Session::start(transport, service.clone(), config)?;
    let state = service.state(session.peer()).clone();
    Ok(ServerSession { session, state })
}

#[cfg(feature = "http-server")]
/// Opens a session of `handler` on a transport that routes its messages
/// itself (Streamable HTTP); `preset` skips the handshake (see
/// [`preset_hello`]). Returns the session and its state.
pub(crate) fn attach(
    handler: Arc<dyn ServerHandler>,
    sink: Arc<dyn OutboundSink>,
    config: SessionConfig,
    preset: Option<ProtocolVersion>,
) -> (Attached, Arc<SessionState>) {
    let preset = preset.map(|version| Box::new(preset_hello(&*handler, version)));
    let service = Arc::new(ServerService {
        handler,
        state: OnceLock::new(),
        preset,
    });
    let attached = Attached::new(service.clone(), sink, config);
    let state = service.state(&attached.peer()).clone();
    (attached, state)
}

struct ServerService {
    handler: Arc<dyn ServerHandler>,
    // Set from the first peer handle seen; every handle is the same session.
    state: OnceLock<Arc<SessionState>>,
    // Boxed: most sessions have none, and a hello is large (it is part of
    // the memory every session costs).
    preset: Option<Box<ClientHello>>,
}

impl ServerService {
    fn state(&self, peer: &Peer) -> &Arc<SessionState> {
        self.state.get_or_init(|| {
            let state = SessionState::new(peer.unrelated());
            if let Some(hello) = self.preset.as_deref() {
                let _ = state.client.set(hello.clone());
                state.initialized.store(true, Ordering::Release);
            }
            Arc::new(state)
        })
    }
}

/// `request` as `method`'s request, its params decoded from their raw JSON
/// or from the text a transport read them at once from (not from its
/// `decoded`, which the caller checks first if it may use it).
pub(super) fn decode_params(
    method: ClientRequestMethod,
    request: InboundRequest<'_>,
) -> Result<Box<ClientRequest>, serde_json::Error> {
    match request.params_read {
        Some(text) => ClientRequest::from_params_text(method, request.id, text).map(|(r, _)| r),
        None => ClientRequest::from_parts(method, request.id, request.params).map(Box::new),
    }
}

fn encode<T: Serialize>(result: Result<T, RpcError>) -> Result<Box<RawValue>, RpcError> {
    let value = result?;
    serde_json::value::to_raw_value(&value)
        .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
}

impl ServerService {
    /// A method of an extension in an initialized session: answered when
    /// the server declares the extension and the method does not need the
    /// client to declare it per request (the skills extension's; the tasks
    /// extension's exist only without a session).
    fn session_extension_request(
        &self,
        method: ExtensionMethod,
        request: InboundRequest<'_>,
        ctx: RequestContext,
        state: Arc<SessionState>,
    ) -> Result<RequestFuture, RpcError> {
        let spec = method.spec();
        let offered = self
            .handler
            .info()
            .capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(spec.extension));
        if spec.client_declares || !offered {
            return Err(RpcError::method_not_found(method.as_str()));
        }
        let params = stateless::extension_params(method, request.params)?;
        let cx = Context::for_request(ctx, state);
        let handler = self.handler.clone();
        Ok(Box::pin(async move {
            let result = handler.extension_request(method, params, cx).await?;
            serde_json::value::to_raw_value(&result)
                .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
        }))
    }
}

impl Service for ServerService {
    fn request(
        &self,
        request: InboundRequest<'_>,
        ctx: RequestContext,
    ) -> Result<RequestFuture, RpcError> {
        // A name of the core method table, or of the extension method table
        // (only in a request that stands alone); anything else is unknown.
        let core = ClientRequestMethod::from_name(&request.method);
        if core.is_none() && ExtensionMethod::from_name(&request.method).is_none() {
            return Err(RpcError::method_not_found(&request.method));
        }
        let state = self.state(ctx.peer()).clone();
        if state.client.get().is_none() {
            // Outside a session, a request that names a revision without a
            // handshake in its `_meta` stands alone (2026-07-28).
            if let Some(meta) = request_meta::read(request.params_text())? {
                let method = RequestMethod::resolve(&request.method, Some(meta.version))
                    .ok_or_else(|| RpcError::method_not_found(&request.method))?;
                let answer =
                    stateless::serve(&self.handler, None, method, meta, None, request, ctx)?;
                return Ok(Box::pin(async move {
                    RawValue::from_string(answer.await?).map_err(|e| {
                        RpcError::internal(format!("could not encode the result: {e}"))
                    })
                }));
            }
        }
        if core.is_none()
            && state.client.get().is_some()
            && let Some(method) = ExtensionMethod::from_name(&request.method)
        {
            return self.session_extension_request(method, request, ctx, state);
        }
        let method = core.ok_or_else(|| RpcError::method_not_found(&request.method))?;
        if state.client.get().is_none()
            && !method
                .spec()
                .revisions
                .iter()
                .any(ProtocolVersion::has_initialize)
        {
            return Err(request_meta::missing_meta());
        }
        // Which methods exist is the method table's to say: one absent from
        // the negotiated revision (or, before `initialize`, from every
        // revision that has sessions) is unknown here; so is one the
        // server's declared capabilities do not offer, so that handlers never
        // check capabilities.
        let known = match state.client.get() {
            Some(hello) => method.in_revision(hello.version) && hello.offers.allows(method),
            None => method
                .spec()
                .revisions
                .iter()
                .any(ProtocolVersion::has_initialize),
        };
        if !known {
            return Err(RpcError::method_not_found(method.as_str()));
        }
        // The lifecycle, in one place: initialize exactly once, first.
        let initialized = state.client.get().is_some();
        match (method, initialized) {
            (ClientRequestMethod::Initialize, true) => {
                return Err(RpcError::invalid_request(
                    "the session is already initialized",
                ));
            }
            (ClientRequestMethod::Initialize, false) => {}
            (_, false) => {
                return Err(RpcError::invalid_request(format!(
                    "`{method}` before `initialize`: initialize the session first"
                )));
            }
            (_, true) => {}
        }
        // A transport that decoded the request while reading the message
        // hands it on, in its box; it leaves the box (some 650 bytes) only
        // for the dispatch.
        let decoded = match request.decoded {
            Some(decoded) => Ok(decoded),
            None => decode_params(method, request),
        };
        match decoded {
            Ok(request) => {
                let cx = Context::for_request(ctx, state.clone());
                dispatch(&self.handler, state, cx, *request)
            }
            Err(e) => Err(RpcError::invalid_params(e)),
        }
    }

    #[cfg(feature = "http-server")]
    fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.state.get()?.client.get().map(|c| c.version)
    }

    #[cfg(feature = "http-server")]
    fn record(&self) -> Option<(u64, String)> {
        let state = self.state.get()?;
        let changes = state.changes();
        Some((changes, session_record::record(state)?))
    }

    #[cfg(feature = "http-server")]
    fn changes(&self) -> u64 {
        self.state.get().map_or(0, |state| state.changes())
    }

    #[cfg(feature = "http-server")]
    fn restore(&self, record: &str) -> std::result::Result<(), String> {
        let state = self.state.get().ok_or("the session has no state yet")?;
        let offers = ServerOffers::new(&self.handler.info().capabilities);
        session_record::restore(state, record, offers)?;
        record_client(state);
        Ok(())
    }

    #[cfg(feature = "http-server")]
    fn bind_identity(&self, identity: &Arc<crate::auth::AuthInfo>) -> bool {
        self.state
            .get()
            .is_none_or(|state| state.set_auth(identity.clone()))
    }

    fn notification(&self, notification: InboundNotification<'_>, peer: &Peer) {
        let Some(method) = ClientNotificationMethod::from_name(&notification.method) else {
            tracing::debug!("ignoring unknown notification `{}`", notification.method);
            return;
        };
        let state = self.state(peer).clone();
        match method {
            ClientNotificationMethod::Initialized => {
                if state.client.get().is_none() {
                    tracing::warn!("`notifications/initialized` before `initialize`: ignored");
                    return;
                }
                if !state.initialized.swap(true, Ordering::AcqRel) {
                    state.changed();
                    let handler = self.handler.clone();
                    tokio::spawn(
                        async move { handler.initialized(Context::for_session(state)).await },
                    );
                }
            }
            ClientNotificationMethod::RootsListChanged => {
                let handler = self.handler.clone();
                tokio::spawn(async move {
                    handler
                        .roots_list_changed(Context::for_session(state))
                        .await
                });
            }
            // Routed by the engine.
            ClientNotificationMethod::Cancelled | ClientNotificationMethod::Progress => {}
            ClientNotificationMethod::TaskStatus => {
                tracing::debug!(
                    "task status notification ignored: tasks are not requested by this server"
                );
            }
        }
    }
}

/// Runs one request of a session or of a stateless request: an exhaustive
/// `match` on the method, each arm calling its handler method.
pub(super) fn dispatch(
    handler: &Arc<dyn ServerHandler>,
    state: Arc<SessionState>,
    cx: Context,
    request: ClientRequest,
) -> Result<RequestFuture, RpcError> {
    let handler = handler.clone();
    // Each arm boxes only what it uses: boxing the whole request (the
    // enum is as large as its largest variant, some 650 bytes) would copy
    // and allocate that much for every request.
    macro_rules! run {
        ($body:expr) => {
            Ok(Box::pin(async move { $body }) as RequestFuture)
        };
    }
    if let Some(span) = cx.request.as_ref().map(|r| &r.span) {
        record_target(span, &request);
    }
    match request {
        ClientRequest::Initialize(r) => run!(encode(initialize(&*handler, &state, r.params))),
        ClientRequest::Ping(_) => run!(encode(Ok(EmptyResult::new()))),
        // 2026-07-28 methods (never in a session's revision: the method
        // table gates them before this).
        ClientRequest::Discover(_) => run!(encode(Ok(stateless::discover(&*handler)))),
        ClientRequest::SubscriptionsListen(r) => {
            run!(encode(handler.subscriptions_listen(r.params, cx).await))
        }
        ClientRequest::ListResources(r) => {
            run!(encode(handler.list_resources(r.params, cx).await))
        }
        ClientRequest::ListResourceTemplates(r) => {
            run!(encode(handler.list_resource_templates(r.params, cx).await))
        }
        ClientRequest::ReadResource(r) => {
            run!(encode(handler.read_resource(r.params, cx).await))
        }
        ClientRequest::Subscribe(r) => run!(encode(handler.subscribe(r.params, cx).await)),
        ClientRequest::Unsubscribe(r) => run!(encode(handler.unsubscribe(r.params, cx).await)),
        ClientRequest::ListPrompts(r) => run!(encode(handler.list_prompts(r.params, cx).await)),
        ClientRequest::GetPrompt(r) => run!(encode(handler.get_prompt(r.params, cx).await)),
        ClientRequest::ListTools(r) => run!(encode(handler.list_tools(r.params, cx).await)),
        ClientRequest::CallTool(r) => match tool_call_mode(&*handler, &state, &r.params) {
            ToolCallMode::Direct => run!(encode(handler.call_tool(r.params, cx).await)),
            ToolCallMode::Task => run!(encode(handler.call_tool_as_task(r.params, cx).await)),
            // The extension's task is flat, with `resultType: "task"`.
            ToolCallMode::ExtensionTask => run!({
                let created = handler.call_tool_as_task(r.params, cx).await?;
                encode(Ok(crate::tasks::created(&created.task)))
            }),
        },
        ClientRequest::SetLevel(r) => run!({
            state.set_log_level(r.params.level);
            encode(Ok(EmptyResult::new()))
        }),
        ClientRequest::Complete(r) => run!(encode(handler.complete(r.params, cx).await)),
        ClientRequest::GetTask(r) => run!(encode(handler.get_task(r.params, cx).await)),
        ClientRequest::GetTaskPayload(r) => run!(handler.get_task_payload(r.params, cx).await),
        ClientRequest::CancelTask(r) => run!(encode(handler.cancel_task(r.params, cx).await)),
        ClientRequest::ListTasks(r) => run!(encode(handler.list_tasks(r.params, cx).await)),
    }
}

/// Names on the request's span what the request is about: its tool,
/// prompt or resource.
fn record_target(span: &tracing::Span, request: &ClientRequest) {
    use crate::session::trace::{Target, record_target};
    if span.is_disabled() {
        return;
    }
    let target = match request {
        ClientRequest::CallTool(r) => Target::Tool(&r.params.name),
        ClientRequest::GetPrompt(r) => Target::Prompt(&r.params.name),
        ClientRequest::ReadResource(r) => Target::Resource(&r.params.uri),
        ClientRequest::Subscribe(r) => Target::Resource(&r.params.uri),
        ClientRequest::Unsubscribe(r) => Target::Resource(&r.params.uri),
        _ => return,
    };
    record_target(span, &target);
}

/// How a `tools/call` runs.
enum ToolCallMode {
    /// Answered with the tool's result.
    Direct,
    /// A 2025-11-25 task: the client asked with `task`.
    Task,
    /// A task of the tasks extension: the client allows it, the server
    /// decides (2026-07-28).
    ExtensionTask,
}

fn tool_call_mode(
    handler: &dyn ServerHandler,
    state: &SessionState,
    params: &crate::schema::CallToolRequestParams,
) -> ToolCallMode {
    let Some(hello) = state.client.get() else {
        return ToolCallMode::Direct;
    };
    if !hello.offers.tool_tasks() {
        // A receiver without the capability ignores the task field (spec).
        return ToolCallMode::Direct;
    }
    if hello.version.has_extensions() {
        // The legacy `task` field means nothing here (SEP-2663).
        let allowed = crate::extensions::declared(&hello.capabilities, crate::extensions::TASKS);
        if allowed && handler.runs_as_task(&params.name) {
            return ToolCallMode::ExtensionTask;
        }
        return ToolCallMode::Direct;
    }
    if params.task.is_some() {
        ToolCallMode::Task
    } else {
        ToolCallMode::Direct
    }
}

/// Names the session's revision and client on its span.
fn record_client(state: &SessionState) {
    let span = &state.peer.shared.span;
    if let Some(hello) = state.client.get() {
        state
            .peer
            .shared
            .set_protocol_version(hello.version.as_str());
    }
    if let (false, Some(hello)) = (span.is_disabled(), state.client.get()) {
        span.record("mcp.client.name", hello.info.name.as_str());
    }
}

fn initialize(
    handler: &dyn ServerHandler,
    state: &SessionState,
    params: InitializeRequestParams,
) -> Result<InitializeResult, RpcError> {
    let version = ProtocolVersion::negotiate(&params.protocol_version);
    let info = handler.info();
    let hello = ClientHello {
        info: Arc::new(params.client_info),
        capabilities: ClientHello::capabilities(params.capabilities),
        version,
        offers: ServerOffers::new(&info.capabilities),
    };
    if state.client.set(hello).is_err() {
        // Two `initialize` requests raced; the first one won.
        return Err(RpcError::invalid_request(
            "the session is already initialized",
        ));
    }
    state.changed();
    record_client(state);
    Ok(InitializeResult {
        instructions: info.instructions,
        ..InitializeResult::new(info.capabilities, version.as_str(), info.implementation)
    })
}
