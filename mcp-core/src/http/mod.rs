//! The Streamable HTTP server (spec 2025-11-25, "Transports"): a layer
//! above the roles, which serves a [`Server`](crate::server::Server) (or any
//! [`ServerHandler`](crate::server::ServerHandler)) and, with a shared
//! [`store`](crate::store), runs it as one of several replicas (session
//! leases, resuming another replica's streams, forwarding between them).
//!
//! [`StreamableHttpServer`] is itself a `tower::Service<http::Request<B>>`
//! for any tower-compatible server (hyper directly, or another framework);
//! [`StreamableHttpServer::router`] is the same endpoint as an axum `Router`
//! to mount at any path of an axum application;
//! [`StreamableHttpServer::serve`] runs it standalone with the endpoint at
//! `/mcp`. Handlers see the HTTP request's head (headers, extensions the
//! host's layers inserted, peer address) through
//! [`Context::http_parts`](crate::server::Context::http_parts).
//!
//! Creating a server needs no Tokio runtime: its background work (the idle
//! session reaper, the followers of a shared store) starts at once inside a
//! runtime, or else with the first request it serves.

mod alone;
mod connection;
mod delete;
mod extract;
mod get;
mod guard;
mod lease;
mod modern;
mod post;
mod remote;
mod replicas;
mod reply;
mod server_acceptor;
mod service;
mod session;
mod streams;

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
#[cfg(feature = "auth")]
use axum::routing::get;
use axum::serve::ListenerExt;
use http::Method;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

#[cfg(feature = "auth")]
use crate::auth::ProtectedResource;
use crate::fast_map::FastMap;
use crate::session::Acceptor;
use crate::store::{Bus, SessionStore, Stores, TaskStore};
pub use crate::store::{EventStore, InMemoryEventStore, SharedEvents, StreamKey};

use extract::{Guarded, PostBody, Rejection};
pub use guard::HostPolicy;
pub use service::{BoxError, ResponseBody, peer_addr};
use session::{HttpSession, lock};

/// Messages for GET streams held by other replicas waiting to go on the
/// bus; more are dropped (they stay resumable here).
const FORWARD_BACKLOG: usize = 4096;

/// Default [`HttpServerConfig::max_header_size`]: 32 KiB, room for large
/// bearer tokens and cookies.
pub const DEFAULT_MAX_HEADER_SIZE: usize = 32 * 1024;

/// Settings of a Streamable HTTP server. The defaults are safe for a server
/// bound to loopback.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct HttpServerConfig {
    /// Which `Host` and `Origin` headers are accepted (DNS-rebinding
    /// protection); default [`HostPolicy::Loopback`].
    pub host_policy: HostPolicy,
    /// No sessions: every POST stands alone (default false).
    pub stateless: bool,
    /// Answer every request with `application/json`, never SSE (default
    /// false). Messages a handler sends before its result then go to the
    /// GET stream.
    pub json_response: bool,
    /// Largest request body (default 4 MiB); larger gets 413.
    pub max_body_size: usize,
    /// Largest total size of a request's header fields, counted as on the
    /// wire (name, value and 4 bytes of `: ` and CRLF each); default
    /// [`DEFAULT_MAX_HEADER_SIZE`]. Larger gets 431 (Request Header Fields
    /// Too Large). Under [`StreamableHttpServer::serve`], hyper's own HTTP/1
    /// limits apply first whatever this says: a request head over about
    /// 400 KiB, or with over 100 header fields, gets 431 from hyper, which
    /// then closes the connection.
    pub max_header_size: usize,
    /// Most sessions at once (default 10,000); more gets 503.
    pub max_sessions: usize,
    /// Sessions idle this long are ended (default 30 min).
    pub idle_timeout: Duration,
    /// Where stream events are kept for `Last-Event-ID` resumption
    /// (default: in memory, the last 256 events of each stream).
    pub event_store: Arc<dyn EventStore>,
    /// The `retry` hint sent to clients with the priming event (default 1 s).
    pub sse_retry: Duration,
    /// OAuth protection (default none): every request needs a valid bearer
    /// token for this resource, and the Protected Resource Metadata is
    /// served (by [`StreamableHttpServer::serve`], or mount
    /// [`StreamableHttpServer::metadata_router`]).
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    pub protected_resource: Option<ProtectedResource>,
    /// When the client of a POST goes away before its request is answered
    /// (the connection closes, or the client drops the response), cancel
    /// the request as if the client had sent `notifications/cancelled`
    /// (default false: the handler runs to the end, and its answer stays
    /// resumable with `Last-Event-ID` when the POST was an event stream).
    pub cancel_on_disconnect: bool,
    /// Where sessions are kept so that every replica behind a load balancer
    /// serves them (default none: sessions live in this process only). With
    /// one, every request of a session reads its record (a deleted or
    /// expired session is 404 on every replica), a replica that has not
    /// seen the session re-creates it, and a store that fails is HTTP 503.
    pub session_store: Option<Arc<dyn SessionStore>>,
    /// How changes (resource updated, list changed) reach the sessions held
    /// by other replicas (default none); the server role uses it.
    pub bus: Option<Arc<dyn Bus>>,
    /// Where the served [`Server`](crate::server::Server)'s tasks are kept
    /// instead of its [`TaskConfig::store`](crate::tasks::TaskConfig), so
    /// that every replica reads them (default none); with a
    /// [`bus`](Self::bus), `tasks/cancel` on any replica stops the work on
    /// the one running it.
    pub task_store: Option<Arc<dyn TaskStore>>,
    /// The `requestState` key replicas share, used by a served
    /// [`Server`](crate::server::Server) built without one of its own
    /// (default none).
    pub request_state_key: Option<crate::store::RequestStateKey>,
}

impl Default for HttpServerConfig {
    fn default() -> Self {
        Self {
            host_policy: HostPolicy::Loopback,
            stateless: false,
            json_response: false,
            max_body_size: crate::transport::DEFAULT_MAX_MESSAGE_SIZE,
            max_header_size: DEFAULT_MAX_HEADER_SIZE,
            max_sessions: 10_000,
            idle_timeout: Duration::from_secs(30 * 60),
            event_store: Arc::new(InMemoryEventStore::default()),
            sse_retry: Duration::from_secs(1),
            #[cfg(feature = "auth")]
            protected_resource: None,
            cancel_on_disconnect: false,
            session_store: None,
            bus: None,
            task_store: None,
            request_state_key: None,
        }
    }
}

impl HttpServerConfig {
    /// Sets [`host_policy`](Self::host_policy).
    #[must_use]
    pub fn host_policy(mut self, policy: HostPolicy) -> Self {
        self.host_policy = policy;
        self
    }

    /// Sets [`stateless`](Self::stateless).
    #[must_use]
    pub fn stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// Sets [`json_response`](Self::json_response).
    #[must_use]
    pub fn json_response(mut self, json: bool) -> Self {
        self.json_response = json;
        self
    }

    /// Sets [`max_body_size`](Self::max_body_size).
    #[must_use]
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = bytes;
        self
    }

    /// Sets [`max_header_size`](Self::max_header_size).
    #[must_use]
    pub fn max_header_size(mut self, bytes: usize) -> Self {
        self.max_header_size = bytes;
        self
    }

    /// Sets [`max_sessions`](Self::max_sessions).
    #[must_use]
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions;
        self
    }

    /// Sets [`idle_timeout`](Self::idle_timeout).
    #[must_use]
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// Sets [`event_store`](Self::event_store).
    #[must_use]
    pub fn event_store(mut self, store: Arc<dyn EventStore>) -> Self {
        self.event_store = store;
        self
    }

    /// Sets [`sse_retry`](Self::sse_retry).
    #[must_use]
    pub fn sse_retry(mut self, retry: Duration) -> Self {
        self.sse_retry = retry;
        self
    }

    /// Sets [`cancel_on_disconnect`](Self::cancel_on_disconnect).
    #[must_use]
    pub fn cancel_on_disconnect(mut self, cancel: bool) -> Self {
        self.cancel_on_disconnect = cancel;
        self
    }

    /// Shares sessions, stream events, changes and tasks with the other
    /// replicas using `stores` (e.g. [`RedisStore::stores`](crate::store)):
    /// sets [`session_store`](Self::session_store),
    /// [`event_store`](Self::event_store), [`bus`](Self::bus) and
    /// [`task_store`](Self::task_store).
    #[must_use]
    pub fn stores(mut self, stores: Stores) -> Self {
        self.session_store = Some(stores.sessions);
        self.event_store = stores.events;
        self.bus = Some(stores.bus);
        self.task_store = stores.tasks;
        self.request_state_key = stores.request_state_key;
        self
    }

    /// Sets [`task_store`](Self::task_store).
    #[must_use]
    pub fn task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.task_store = Some(store);
        self
    }

    /// Sets [`session_store`](Self::session_store).
    #[must_use]
    pub fn session_store(mut self, store: Arc<dyn SessionStore>) -> Self {
        self.session_store = Some(store);
        self
    }

    /// Sets [`bus`](Self::bus).
    #[must_use]
    pub fn bus(mut self, bus: Arc<dyn Bus>) -> Self {
        self.bus = Some(bus);
        self
    }

    /// Sets [`protected_resource`](Self::protected_resource).
    #[cfg(feature = "auth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
    #[must_use]
    pub fn protected_resource(mut self, resource: ProtectedResource) -> Self {
        self.protected_resource = Some(resource);
        self
    }
}

/// An MCP server reachable over Streamable HTTP.
#[derive(Clone)]
pub struct StreamableHttpServer {
    state: Arc<State>,
}

pub(crate) struct State {
    pub(crate) config: HttpServerConfig,
    /// What the endpoint serves (the server role, seen only through this).
    pub(crate) acceptor: Arc<dyn Acceptor>,
    pub(crate) sessions: Mutex<FastMap<String, Arc<HttpSession>>>,
    /// Whether the background tasks run (they start inside a runtime).
    started: AtomicBool,
    /// More background work to start with them (the server role's).
    deferred: Mutex<Vec<Deferred>>,
    /// With replicas: messages for GET streams held by another replica.
    pub(crate) forward: Option<tokio::sync::mpsc::Sender<session::Forwarded>>,
    /// Names this server's forwarded messages, so that it skips its own.
    origin: u64,
    /// With replicas: the sessions this one may serve without reading the
    /// store.
    pub(crate) leases: Option<Arc<lease::Leases>>,
}

/// Background work that needs a Tokio runtime to start.
pub(crate) type Deferred = Box<dyn FnOnce() + Send>;

impl State {
    /// Starts the background tasks, once; from inside a Tokio runtime.
    fn start(self: &Arc<Self>) {
        if self.started.load(Ordering::Acquire) || self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        tokio::spawn(reap_idle(Arc::downgrade(self)));
        if let Some(leases) = &self.leases {
            lease::follow(self, leases.clone());
        }
        if let (Some(_), Some(bus)) = (&self.config.session_store, &self.config.bus) {
            tokio::spawn(session::follow_answers(Arc::downgrade(self), bus.clone()));
            tokio::spawn(session::follow_forwarded(
                self.origin,
                Arc::downgrade(self),
                bus.clone(),
            ));
        }
        let deferred = std::mem::take(&mut *lock(&self.deferred));
        for work in deferred {
            work();
        }
    }
}

impl fmt::Debug for StreamableHttpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamableHttpServer")
            .field("config", &self.state.config)
            .field("sessions", &lock(&self.state.sessions).len())
            .finish()
    }
}

impl StreamableHttpServer {
    /// Serves what `acceptor` accepts (the server role provides the public
    /// constructors, `new` and `with_handler`); `deferred` starts with the
    /// background tasks: at once inside a Tokio runtime, or else with the
    /// first request served (so that no constructor needs a runtime).
    pub(crate) fn with_acceptor(
        acceptor: Arc<dyn Acceptor>,
        config: HttpServerConfig,
        mut deferred: Vec<Deferred>,
    ) -> Self {
        let origin = {
            let mut bytes = [0u8; 8];
            let _ = getrandom::fill(&mut bytes);
            u64::from_le_bytes(bytes)
        };
        let replicated = config.session_store.is_some().then_some(config.bus.clone());
        let forward = match replicated.flatten() {
            Some(bus) => {
                let (tx, rx) = tokio::sync::mpsc::channel(FORWARD_BACKLOG);
                deferred.push(Box::new(move || {
                    tokio::spawn(session::forward_to_bus(origin, rx, bus));
                }));
                Some(tx)
            }
            None => None,
        };
        let leases = match (&config.session_store, &config.bus) {
            (Some(_), Some(bus)) => Some(Arc::new(lease::Leases::new(
                origin,
                bus.clone(),
                config.idle_timeout,
            ))),
            _ => None,
        };
        let state = Arc::new(State {
            leases,
            config,
            acceptor,
            sessions: Mutex::new(FastMap::default()),
            started: AtomicBool::new(false),
            deferred: Mutex::new(deferred),
            forward,
            origin,
        });
        if tokio::runtime::Handle::try_current().is_ok() {
            state.start();
        }
        Self { state }
    }

    /// The MCP endpoint as an axum `Router` answering at its root; mount it
    /// with `Router::nest_service("/mcp", server.router())` or merge it.
    /// (The server is itself a `tower::Service` answering at every path,
    /// for servers other than axum.)
    pub fn router(&self) -> Router {
        Router::new().route_service("/", endpoint(self.state.clone()))
    }

    /// The Protected Resource Metadata route (at its well-known path, e.g.
    /// `/.well-known/oauth-protected-resource/mcp`), to merge at the root of
    /// an application that mounts [`router`](Self::router) itself; empty
    /// without `HttpServerConfig::protected_resource` (feature `auth`).
    pub fn metadata_router(&self) -> Router {
        #[cfg(not(feature = "auth"))]
        return Router::new();
        #[cfg(feature = "auth")]
        match &self.state.config.protected_resource {
            Some(resource) => {
                let path = resource.metadata_path().to_string();
                let resource = resource.clone();
                Router::new().route(
                    &path,
                    get(move || async move { resource.metadata_response() }),
                )
            }
            None => Router::new(),
        }
    }

    /// Serves standalone on `listener`, endpoint `/mcp` (and the Protected
    /// Resource Metadata when protected), with TCP_NODELAY on every
    /// connection, until the listener fails.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        self.serve_until(listener, CancellationToken::new()).await
    }

    /// Like [`serve`](Self::serve), until `shutdown` fires: then every
    /// session ends (its streams close), no new connection is accepted, and
    /// the call returns once requests in progress are answered.
    pub async fn serve_until(
        self,
        listener: TcpListener,
        shutdown: CancellationToken,
    ) -> std::io::Result<()> {
        self.state.start();
        let state = self.state.clone();
        let stop = async move {
            shutdown.cancelled().await;
            let sessions: Vec<_> = lock(&state.sessions).drain().map(|(_, s)| s).collect();
            for session in sessions {
                session.terminate();
            }
        };
        // The client's address goes into each request's extensions, for
        // `Context::peer_addr`.
        let app = connection::Connections {
            endpoint: endpoint(self.state.clone()),
            others: self.metadata_router(),
        };
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::warn!("could not set TCP_NODELAY: {e}");
            }
        });
        axum::serve(listener, app)
            .with_graceful_shutdown(stop)
            .await
    }

    /// Binds `addr` and serves standalone (see [`serve`](Self::serve)).
    pub async fn bind(self, addr: SocketAddr) -> std::io::Result<()> {
        self.serve(TcpListener::bind(addr).await?).await
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        lock(&self.state.sessions).len()
    }
}

/// Ends sessions idle longer than the configured timeout.
async fn reap_idle(state: std::sync::Weak<State>) {
    loop {
        let period = match state.upgrade() {
            Some(state) => (state.config.idle_timeout / 4)
                .clamp(Duration::from_millis(50), Duration::from_secs(30)),
            None => return,
        };
        tokio::time::sleep(period).await;
        let Some(state) = state.upgrade() else { return };
        let expired: Vec<Arc<HttpSession>> = {
            let mut sessions = lock(&state.sessions);
            let ids: Vec<String> = sessions
                .values()
                .filter(|s| {
                    s.closed().is_cancelled()
                        || (s.idle_for() > state.config.idle_timeout && !s.streams().has_live())
                })
                .map(|s| s.id.clone())
                .collect();
            ids.iter().filter_map(|id| sessions.remove(id)).collect()
        };
        for session in expired {
            tracing::debug!("ending idle session {}", session.id);
            session.terminate();
        }
    }
}

/// The endpoint serving with `state`, as the service a `Router` routes
/// to. A service, not a handler: axum boxes a handler's future with its
/// extractors and the request moved through them, and then boxes that once
/// more; a service's future (here `handle`'s own) is boxed once.
fn endpoint(
    state: Arc<State>,
) -> impl tower::Service<
    Request,
    Response = Response,
    Error = Infallible,
    Future = impl Future<Output = Result<Response, Infallible>> + Send + 'static,
> + Clone
+ Send
+ Sync
+ 'static {
    tower::service_fn(move |request: Request| {
        let (parts, body) = request.into_parts();
        // Shared from here: the future holds a pointer, not the 224-byte
        // head.
        handle(state.clone(), Arc::new(parts), body)
    })
}

/// The endpoint: the shared checks, then the method's handler.
// Not an `async fn`: one copies its arguments into locals, and this future
// (boxed by axum per request) would hold them twice.
#[allow(
    clippy::manual_async_fn,
    reason = "an async fn would hold its arguments twice"
)]
fn handle(
    state: Arc<State>,
    parts: Arc<http::request::Parts>,
    body: axum::body::Body,
) -> impl Future<Output = Result<Response, Infallible>> {
    async move {
        state.start();
        let guard = match Guarded::check(&parts.headers, &state).await {
            Ok(guard) => guard,
            Err(rejection) => return Ok(rejection.into_response()),
        };
        let outcome = match parts.method {
            Method::POST => match PostBody::read(parts, body, &state, guard.body).await {
                // Awaited here, not in a future of its own that would hold
                // the guard again.
                Ok(body) => post::serve(&state, guard.identity, &guard.mcp, body).await,
                Err(rejection) => Err(rejection),
            },
            Method::GET => {
                get::get(&state, &parts.headers, &guard.mcp, guard.identity.as_ref()).await
            }
            Method::DELETE => delete::delete(&state, &parts.headers, guard.identity.as_ref()).await,
            _ => Err(Rejection::MethodNotAllowed),
        };
        Ok(outcome.unwrap_or_else(IntoResponse::into_response))
    }
}
