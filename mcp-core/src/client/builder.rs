use std::fmt;
use std::future::Future;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Map;

use super::Client;
use super::modern::DEFAULT_MAX_INPUT_ROUNDS;
use super::negotiation::Negotiation;
use crate::jsonrpc::RpcError;
use crate::schema::{
    ClientCapabilities, ClientCapabilitiesElicitation, ClientCapabilitiesRoots,
    ClientCapabilitiesSampling, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitRequestUrlParams, ElicitResult, Implementation, LoggingLevel, Root,
    ServerNotification,
};
use crate::session::{RequestContext, SessionConfig};
use crate::transport::Transport;
use crate::{ProtocolVersion, Result};
use std::time::Duration;

/// How long waiting for a task's result may take by default.
const DEFAULT_TASK_WAIT_LIMIT: Duration = Duration::from_secs(24 * 3600);

/// How long the version probe waits by default.
const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// Answers `sampling/createMessage`.
pub type SamplingFn = Arc<
    dyn Fn(
            CreateMessageRequestParams,
            RequestContext,
        ) -> BoxFuture<'static, Result<CreateMessageResult, RpcError>>
        + Send
        + Sync,
>;
/// Asked, when a request fails with -32042, to have the user complete one
/// URL-mode elicitation (e.g. open the URL); `true` means the user agreed.
pub type UrlElicitationFn =
    Arc<dyn Fn(ElicitRequestUrlParams) -> BoxFuture<'static, bool> + Send + Sync>;
/// Answers `elicitation/create`.
pub type ElicitationFn = Arc<
    dyn Fn(
            ElicitRequestParams,
            RequestContext,
        ) -> BoxFuture<'static, Result<ElicitResult, RpcError>>
        + Send
        + Sync,
>;
pub(crate) type NotificationFn = Arc<dyn Fn(ServerNotification) + Send + Sync>;

/// Configures and connects a [`Client`]. Cloning it shares its handlers
/// (a [`ClientGroup`](super::ClientGroup) connects every member with a clone).
#[derive(Clone)]
pub struct ClientBuilder {
    pub(crate) info: Implementation,
    pub(crate) negotiation: Negotiation,
    pub(crate) config: SessionConfig,
    pub(crate) log_level: Option<LoggingLevel>,
    pub(crate) max_input_rounds: usize,
    pub(crate) probe_timeout: Duration,
    pub(crate) sampling: Option<(SamplingFn, bool)>,
    pub(crate) elicitation: Option<(ElicitationFn, bool)>,
    pub(crate) roots: Option<Arc<Mutex<Vec<Root>>>>,
    pub(crate) on_notification: Option<NotificationFn>,
    pub(crate) url_elicitation: Option<UrlElicitationFn>,
    pub(crate) tasks: Option<crate::tasks::TaskConfig>,
    pub(crate) cache_lists: bool,
    pub(crate) tasks_extension: bool,
    pub(crate) task_wait_limit: Duration,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("info", &self.info)
            .field("negotiation", &self.negotiation)
            .field("sampling", &self.sampling.is_some())
            .field("elicitation", &self.elicitation.is_some())
            .field("roots", &self.roots.is_some())
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    pub(crate) fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            info: Implementation::new(name, version),
            negotiation: Negotiation::Auto,
            config: SessionConfig::default(),
            log_level: None,
            max_input_rounds: DEFAULT_MAX_INPUT_ROUNDS,
            probe_timeout: DEFAULT_PROBE_TIMEOUT,
            sampling: None,
            elicitation: None,
            roots: None,
            on_notification: None,
            url_elicitation: None,
            tasks: None,
            cache_lists: false,
            tasks_extension: false,
            task_wait_limit: DEFAULT_TASK_WAIT_LIMIT,
        }
    }

    /// Speaks this protocol revision only (the same as
    /// `negotiation(Negotiation::Pinned(version))`; default: [`Negotiation::Auto`]).
    #[must_use]
    pub fn protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.negotiation = Negotiation::Pinned(version);
        self
    }

    /// How the revision is chosen (default [`Negotiation::Auto`]: the newest
    /// both sides speak, probed with `server/discover`).
    #[must_use]
    pub fn negotiation(mut self, negotiation: Negotiation) -> Self {
        self.negotiation = negotiation;
        self
    }

    /// How long the version probe waits for an answer before taking the
    /// server for an older one (default 5 s).
    #[must_use]
    pub fn probe_timeout(mut self, timeout: Duration) -> Self {
        self.probe_timeout = timeout;
        self
    }

    /// Asks for log messages of `level` and above from the start (revisions
    /// without a handshake send `logLevel` with every request; in a session
    /// use [`Client::set_logging_level`]).
    #[must_use]
    pub fn log_level(mut self, level: LoggingLevel) -> Self {
        self.log_level = Some(level);
        self
    }

    /// Most input-required rounds one request may take before it fails
    /// (default 16); each round answers the server's questions with the
    /// sampling, elicitation and roots handlers.
    #[must_use]
    pub fn max_input_rounds(mut self, rounds: usize) -> Self {
        self.max_input_rounds = rounds;
        self
    }

    /// Keeps list results (`tools/list`, `resources/list`,
    /// `resources/templates/list`, `prompts/list`, page by page) for as long
    /// as the server's `ttlMs` hint allows, reusing them within this client
    /// (one authorization context, so `cacheScope` `private` and `public`
    /// alike); a list-changed notification drops that list. Off by default;
    /// servers of 2025-11-25 give no hints, so nothing is kept for them.
    #[must_use]
    pub fn cache_lists(mut self) -> Self {
        self.cache_lists = true;
        self
    }

    /// Session limits and timeouts.
    #[must_use]
    pub fn session_config(mut self, config: SessionConfig) -> Self {
        self.config = config;
        self
    }

    /// Answers the server's `sampling/createMessage` (declares `sampling`;
    /// with `tools: true` also `sampling.tools`).
    #[must_use]
    pub fn on_sampling<F, Fut>(mut self, tools: bool, handler: F) -> Self
    where
        F: Fn(CreateMessageRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CreateMessageResult, RpcError>> + Send + 'static,
    {
        self.sampling = Some((Arc::new(move |p, cx| Box::pin(handler(p, cx))), tools));
        self
    }

    /// Answers the server's `elicitation/create` (declares `elicitation`
    /// with form mode; with `url: true` also URL mode).
    #[must_use]
    pub fn on_elicitation<F, Fut>(mut self, url: bool, handler: F) -> Self
    where
        F: Fn(ElicitRequestParams, RequestContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ElicitResult, RpcError>> + Send + 'static,
    {
        self.elicitation = Some((Arc::new(move |p, cx| Box::pin(handler(p, cx))), url));
        self
    }

    /// Handles -32042 (URL elicitation required): `handler` presents each
    /// URL to the user; when all are accepted, the client waits for the
    /// server's `notifications/elicitation/complete` for each and retries the
    /// request once. Declares URL-mode elicitation.
    #[must_use]
    pub fn on_url_elicitation<F, Fut>(mut self, handler: F) -> Self
    where
        F: Fn(ElicitRequestUrlParams) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = bool> + Send + 'static,
    {
        self.url_elicitation = Some(Arc::new(move |p| Box::pin(handler(p))));
        self
    }

    /// Lets the server run sampling and elicitation requests as tasks
    /// (declares `tasks` for the handlers that are set).
    #[must_use]
    pub fn tasks(mut self, config: crate::tasks::TaskConfig) -> Self {
        self.tasks = Some(config);
        self
    }

    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`,
    /// 2026-07-28) on every request, so the server may run any tool call
    /// that supports it as a task; [`Client::call_tool`] then waits for the
    /// task (answering its input requests with the sampling, elicitation
    /// and roots handlers) and returns the final result. Without it, only
    /// the task API ([`Client::start_tool_task`] and the `*_task` methods)
    /// declares it, on its own requests. No effect in a 2025-11-25 session,
    /// where a call becomes a task only when asked
    /// ([`Client::call_tool_as_task`]).
    #[must_use]
    pub fn tasks_extension(mut self, on: bool) -> Self {
        self.tasks_extension = on;
        self
    }

    /// The longest [`Client::await_tool_task`] (and a tool call the server
    /// turned into a task) waits for the task to end, polling at the
    /// server's interval (default 24 h).
    #[must_use]
    pub fn task_wait_limit(mut self, limit: Duration) -> Self {
        self.task_wait_limit = limit;
        self
    }

    /// Offers these roots (declares `roots` with `listChanged`); change them
    /// later with [`Client::set_roots`].
    #[must_use]
    pub fn roots(mut self, roots: Vec<Root>) -> Self {
        self.roots = Some(Arc::new(Mutex::new(roots)));
        self
    }

    /// Called with every notification from the server (besides the
    /// [`Client::notifications`] stream).
    #[must_use]
    pub fn on_notification(
        mut self,
        handler: impl Fn(ServerNotification) + Send + Sync + 'static,
    ) -> Self {
        self.on_notification = Some(Arc::new(handler));
        self
    }

    pub(crate) fn capabilities(&self) -> ClientCapabilities {
        ClientCapabilities {
            sampling: self
                .sampling
                .as_ref()
                .map(|(_, tools)| ClientCapabilitiesSampling {
                    context: None,
                    tools: tools.then(Map::new),
                    ..ClientCapabilitiesSampling::new()
                }),
            elicitation: (self.elicitation.is_some() || self.url_elicitation.is_some()).then(
                || {
                    let url = self.elicitation.as_ref().is_some_and(|(_, url)| *url)
                        || self.url_elicitation.is_some();
                    ClientCapabilitiesElicitation {
                        form: self.elicitation.as_ref().map(|_| Map::new()),
                        url: url.then(Map::new),
                        ..ClientCapabilitiesElicitation::new()
                    }
                },
            ),
            roots: self.roots.as_ref().map(|_| ClientCapabilitiesRoots {
                list_changed: Some(true),
                ..ClientCapabilitiesRoots::new()
            }),
            experimental: None,
            extensions: None,
            tasks: self
                .tasks
                .as_ref()
                .map(|_| crate::schema::ClientCapabilitiesTasks {
                    list: Some(Map::new()),
                    cancel: Some(Map::new()),
                    requests: Some(crate::schema::ClientCapabilitiesTasksRequests {
                        sampling: self.sampling.as_ref().map(|_| {
                            crate::schema::ClientCapabilitiesTasksRequestsSampling {
                                create_message: Some(Map::new()),
                                ..crate::schema::ClientCapabilitiesTasksRequestsSampling::new()
                            }
                        }),
                        elicitation: (self.elicitation.is_some() || self.url_elicitation.is_some())
                            .then(
                                || crate::schema::ClientCapabilitiesTasksRequestsElicitation {
                                    create: Some(Map::new()),
                                    ..crate::schema::ClientCapabilitiesTasksRequestsElicitation::new()
                                },
                            ),
                        ..crate::schema::ClientCapabilitiesTasksRequests::new()
                    }),
                    ..crate::schema::ClientCapabilitiesTasks::new()
                }),
            ..ClientCapabilities::new()
        }
    }

    /// Connects over `transport` and initializes the session.
    pub async fn connect(self, transport: impl Transport) -> Result<Client> {
        Client::connect(self, transport).await
    }
}
