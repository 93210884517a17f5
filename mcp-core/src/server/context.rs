use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::session_state::SessionState;
use crate::schema::{
    ClientCapabilities, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, Implementation, ListRootsRequest,
    ListRootsResult, LoggingLevel, LoggingMessageNotification, LoggingMessageNotificationParams,
    McpRequest, ProgressToken, RequestId, TaskStatus,
};
use crate::session::{Peer, RequestContext, RequestOptions};
use crate::tasks::TaskManager;
use crate::{Error, ProtocolVersion, Result};

/// What a server handler gets besides its params: the request, the client,
/// and a way to talk back to it.
#[derive(Clone, Debug)]
pub struct Context {
    pub(crate) request: Option<RequestContext>,
    pub(crate) peer: Peer,
    pub(crate) cancel: CancellationToken,
    pub(crate) session: Arc<SessionState>,
    /// Set while the handler runs as a task.
    pub(crate) task: Option<TaskLink>,
    /// The HTTP request that carried the request (kept by a task it
    /// started).
    pub(crate) http: Option<Arc<http::request::Parts>>,
}

/// What a handler running as a task knows about its task.
#[derive(Clone)]
pub(crate) struct TaskLink {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) manager: Arc<TaskManager>,
    pub(crate) progress_token: Option<ProgressToken>,
    /// For a task of the tasks extension (2026-07-28): how many questions it
    /// asked without a key, which numbers the next (keys are unique over a
    /// task's life). Its questions wait in `inputRequests`.
    pub(crate) input_keys: Option<Arc<std::sync::atomic::AtomicUsize>>,
    /// Fires when the task is cancelled.
    pub(crate) cancel: CancellationToken,
}

impl std::fmt::Debug for TaskLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskLink")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Context {
    pub(crate) fn for_request(request: RequestContext, session: Arc<SessionState>) -> Self {
        Self {
            peer: request.peer().clone(),
            cancel: request.cancellation().clone(),
            http: request.http.clone(),
            request: Some(request),
            session,
            task: None,
        }
    }

    /// The context of a tool call running as task `task`: its messages are
    /// not tied to the (already answered) request.
    pub(crate) fn for_task(
        session: Arc<SessionState>,
        cancel: CancellationToken,
        task: TaskLink,
        http: Option<Arc<http::request::Parts>>,
    ) -> Self {
        Self {
            peer: session.peer.clone(),
            cancel,
            request: None,
            session,
            task: Some(task),
            http,
        }
    }

    /// The id of the task this handler runs as, if it runs as one.
    pub fn task_id(&self) -> Option<&str> {
        self.task.as_ref().map(|t| t.id.as_str())
    }

    pub(crate) fn for_session(session: Arc<SessionState>) -> Self {
        Self {
            peer: session.peer.clone(),
            cancel: session.peer.shared.closed().child_token(),
            request: None,
            session,
            task: None,
            http: None,
        }
    }

    /// The id of the request being handled (`None` in notification hooks).
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request.as_ref().map(RequestContext::id)
    }

    /// The head of the HTTP request that carried this request over
    /// Streamable HTTP: method, URI, headers, and the extensions the host
    /// application's tower layers inserted (an authentication layer hands
    /// an identity to tools this way). Each POST of a session carries its
    /// own; a tool running as a task keeps the one that started it. `None`
    /// on other transports and in notification hooks.
    ///
    /// ```
    /// # use mcp_core::server::Context;
    /// #[derive(Clone)]
    /// struct User(String);
    ///
    /// fn who(cx: &Context) -> Option<&str> {
    ///     let user = cx.http_parts()?.extensions.get::<User>()?;
    ///     Some(user.0.as_str())
    /// }
    /// ```
    pub fn http_parts(&self) -> Option<&http::request::Parts> {
        self.http.as_deref()
    }

    /// The address of the HTTP client, when the server that accepted the
    /// connection recorded it in the request's extensions (as axum's
    /// `ConnectInfo<SocketAddr>`, which
    /// [`StreamableHttpServer::serve`](crate::http::StreamableHttpServer::serve)
    /// does, or as a plain `SocketAddr`).
    #[cfg(feature = "http-server")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http-server")))]
    pub fn peer_addr(&self) -> Option<std::net::SocketAddr> {
        peer_addr_of(self.http_parts()?)
    }

    /// Fires when the client cancels the request or the session ends.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Whether the request was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    /// The client's name and version.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.session.client.get().map(|c| &*c.info)
    }

    /// What the client declared it supports.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.session.client.get().map(|c| &*c.capabilities)
    }

    /// The negotiated protocol revision.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.session.client.get().map(|c| c.version)
    }

    /// The client, for sending other requests and notifications.
    pub fn peer(&self) -> &Peer {
        &self.peer
    }

    /// Reports progress if the client asked for it (does nothing otherwise).
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    ) -> Result<()> {
        match &self.request {
            Some(request) => request.progress(progress, total, message).await,
            None => match self.task.as_ref().and_then(|t| t.progress_token.clone()) {
                // The progress token stays valid for the task's lifetime.
                Some(token) => {
                    let params = crate::schema::ProgressNotificationParams {
                        total: total.map(crate::session::number).transpose()?,
                        message,
                        ..crate::schema::ProgressNotificationParams::new(
                            crate::session::number(progress)?,
                            token,
                        )
                    };
                    self.peer
                        .notify::<crate::schema::ProgressNotification>(params)
                        .await
                }
                None => Ok(()),
            },
        }
    }

    /// Ends the response stream of this request now (Streamable HTTP only);
    /// the client reconnects and still receives the result.
    pub async fn close_stream(&self) -> Result<()> {
        match &self.request {
            Some(request) => request.close_stream().await,
            None => Ok(()),
        }
    }

    /// The progress token the client sent with this request, if any.
    pub fn progress_token(&self) -> Option<&crate::schema::ProgressToken> {
        self.request
            .as_ref()
            .and_then(RequestContext::progress_token)
    }

    fn client_task_requests(&self) -> Option<&crate::schema::ClientCapabilitiesTasksRequests> {
        self.client_capabilities()?
            .tasks
            .as_ref()?
            .requests
            .as_ref()
    }

    /// Asks the client to run `sampling/createMessage` as a task (it must
    /// declare `tasks.requests.sampling.createMessage`); returns the task at
    /// once. Follow it with [`client_task`](Self::client_task) and
    /// [`client_task_result`](Self::client_task_result).
    pub async fn create_message_as_task(
        &self,
        mut params: CreateMessageRequestParams,
        ttl: Option<std::time::Duration>,
    ) -> Result<crate::schema::CreateTaskResult> {
        let declared = self
            .client_task_requests()
            .and_then(|r| r.sampling.as_ref())
            .and_then(|s| s.create_message.as_ref());
        if declared.is_none() {
            return Err(missing(
                <CreateMessageRequest as McpRequest>::METHOD,
                "tasks.requests.sampling.createMessage",
            ));
        }
        params.task = Some(crate::schema::TaskMetadata {
            ttl: ttl.map(millis),
            ..crate::schema::TaskMetadata::new()
        });
        let raw = self
            .peer
            .request_raw(
                <CreateMessageRequest as McpRequest>::METHOD,
                &params,
                RequestOptions::default(),
            )
            .await?;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// Asks the client to run `elicitation/create` as a task (it must
    /// declare `tasks.requests.elicitation.create`); returns the task at once.
    pub async fn elicit_as_task(
        &self,
        mut params: ElicitRequestParams,
        ttl: Option<std::time::Duration>,
    ) -> Result<crate::schema::CreateTaskResult> {
        let declared = self
            .client_task_requests()
            .and_then(|r| r.elicitation.as_ref())
            .and_then(|e| e.create.as_ref());
        if declared.is_none() {
            return Err(missing(
                <ElicitRequest as McpRequest>::METHOD,
                "tasks.requests.elicitation.create",
            ));
        }
        let task = Some(crate::schema::TaskMetadata {
            ttl: ttl.map(millis),
            ..crate::schema::TaskMetadata::new()
        });
        match &mut params {
            ElicitRequestParams::Form(f) => f.task = task,
            ElicitRequestParams::Url(u) => u.task = task,
        }
        let raw = self
            .peer
            .request_raw(
                <ElicitRequest as McpRequest>::METHOD,
                &params,
                RequestOptions::default(),
            )
            .await?;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// `tasks/get` on the client.
    pub async fn client_task(&self, task_id: &str) -> Result<crate::schema::GetTaskResult> {
        let params = crate::schema::GetTaskRequestParams::new(task_id);
        self.peer
            .request::<crate::schema::GetTaskRequest>(params, RequestOptions::default())
            .await
    }

    /// `tasks/result` on the client: waits for the task to end and decodes
    /// its result as `T` (e.g. `CreateMessageResult`, `ElicitResult`).
    pub async fn client_task_result<T: serde::de::DeserializeOwned>(
        &self,
        task_id: &str,
    ) -> Result<T> {
        let params = crate::schema::GetTaskPayloadRequestParams::new(task_id);
        let method = <crate::schema::GetTaskPayloadRequest as McpRequest>::METHOD;
        let raw = self
            .peer
            .request_raw(method, &params, RequestOptions::default())
            .await?;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// `tasks/list` on the client (one page).
    pub async fn list_client_tasks(
        &self,
        cursor: Option<String>,
    ) -> Result<crate::schema::ListTasksResult> {
        let params = cursor.map(|cursor| crate::schema::PaginatedRequestParams {
            cursor: Some(cursor),
            meta: None,
            ..crate::schema::PaginatedRequestParams::new()
        });
        self.peer
            .request::<crate::schema::ListTasksRequest>(params, RequestOptions::default())
            .await
    }

    /// `tasks/cancel` on the client.
    pub async fn cancel_client_task(
        &self,
        task_id: &str,
    ) -> Result<crate::schema::CancelTaskResult> {
        let params = crate::schema::CancelTaskRequestParams::new(task_id);
        self.peer
            .request::<crate::schema::CancelTaskRequest>(params, RequestOptions::default())
            .await
    }

    /// Tells the client that the out-of-band step of URL-mode elicitation
    /// `elicitation_id` is finished (`notifications/elicitation/complete`).
    pub async fn notify_elicitation_complete(&self, elicitation_id: &str) -> Result<()> {
        let params = crate::schema::ElicitationCompleteNotificationParams::new(elicitation_id);
        self.peer
            .notify::<crate::schema::ElicitationCompleteNotification>(params)
            .await
    }

    /// Who the client is, when the server is a protected resource: the
    /// identity of the bearer token validated for the latest HTTP request of
    /// this session (a session keeps one subject).
    pub fn auth(&self) -> Option<Arc<crate::auth::AuthInfo>> {
        self.session.auth()
    }

    /// Whether the client subscribed to `uri` in this session.
    pub fn is_subscribed(&self, uri: &str) -> bool {
        self.session.is_subscribed(uri)
    }

    /// Sends a log message if `level` passes the level the client set with
    /// `logging/setLevel`.
    pub async fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value) -> Result<()> {
        if !self.session.logs(level) {
            return Ok(());
        }
        let params = LoggingMessageNotificationParams {
            logger: logger.map(str::to_string),
            ..LoggingMessageNotificationParams::new(data, level)
        };
        self.peer()
            .notify::<LoggingMessageNotification>(params)
            .await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    /// Fails without sending if the client did not declare `sampling` (or
    /// `sampling.tools` when `tools` are given).
    pub async fn create_message(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult> {
        if let Some(task) = self.extension_task() {
            let params = serde_json::to_value(&params)?;
            return self
                .ask_in_task::<CreateMessageRequest>(task, None, "sampling", Some(params))
                .await;
        }
        if let Some(round) = &self.session.input {
            let key = round.auto_key("sampling");
            let params = serde_json::to_value(&params)?;
            return self
                .ask::<CreateMessageRequest>(round, &key, "sampling", Some(params))
                .await;
        }
        no_requests_without_a_session(self, <CreateMessageRequest as McpRequest>::METHOD)?;
        let caps = self.client_capabilities();
        let sampling = caps.and_then(|c| c.sampling.as_ref());
        let Some(sampling) = sampling else {
            return Err(missing(
                <CreateMessageRequest as McpRequest>::METHOD,
                "sampling",
            ));
        };
        if (params.tools.is_some() || params.tool_choice.is_some()) && sampling.tools.is_none() {
            return Err(missing(
                <CreateMessageRequest as McpRequest>::METHOD,
                "sampling.tools",
            ));
        }
        self.peer()
            .request_for_task::<CreateMessageRequest>(params, self.task.as_ref())
            .await
    }

    /// Asks the client for its roots (`roots/list`). Fails without sending if
    /// the client did not declare `roots`.
    pub async fn list_roots(&self) -> Result<ListRootsResult> {
        if let Some(task) = self.extension_task() {
            return self
                .ask_in_task::<ListRootsRequest>(task, None, "roots", None)
                .await;
        }
        if let Some(round) = &self.session.input {
            let key = round.auto_key("roots");
            return self
                .ask::<ListRootsRequest>(round, &key, "roots", None)
                .await;
        }
        no_requests_without_a_session(self, <ListRootsRequest as McpRequest>::METHOD)?;
        if self
            .client_capabilities()
            .and_then(|c| c.roots.as_ref())
            .is_none()
        {
            return Err(missing(<ListRootsRequest as McpRequest>::METHOD, "roots"));
        }
        self.peer()
            .request::<ListRootsRequest>(None, RequestOptions::default())
            .await
    }

    /// Asks the user for input through the client (`elicitation/create`), in
    /// form or URL mode. Fails without sending if the client did not declare
    /// the `elicitation` capability for that mode.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult> {
        if let Some(task) = self.extension_task() {
            let params = serde_json::to_value(&params)?;
            return self
                .ask_in_task::<ElicitRequest>(task, None, "elicitation", Some(params))
                .await;
        }
        if let Some(round) = &self.session.input {
            let key = round.auto_key("elicitation");
            let params = serde_json::to_value(&params)?;
            return self
                .ask::<ElicitRequest>(round, &key, "elicitation", Some(params))
                .await;
        }
        no_requests_without_a_session(self, <ElicitRequest as McpRequest>::METHOD)?;
        let elicitation = self
            .client_capabilities()
            .and_then(|c| c.elicitation.as_ref());
        let Some(elicitation) = elicitation else {
            return Err(missing(
                <ElicitRequest as McpRequest>::METHOD,
                "elicitation",
            ));
        };
        // An empty `elicitation: {}` means form mode only (spec 2025-11-25).
        let url_ok = elicitation.url.is_some();
        if matches!(params, ElicitRequestParams::Url(_)) && !url_ok {
            return Err(missing(
                <ElicitRequest as McpRequest>::METHOD,
                "elicitation.url",
            ));
        }
        self.peer()
            .request_for_task::<ElicitRequest>(params, self.task.as_ref())
            .await
    }
}

impl Context {
    /// [`elicit`](Self::elicit) with the key this question has in an
    /// input-required result (2026-07-28); under a session the key is not
    /// used and the client is asked directly.
    pub async fn elicit_keyed(
        &self,
        key: &str,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult> {
        match self
            .ask_keyed::<ElicitRequest>(key, "elicitation", &params)
            .await
        {
            Some(answer) => answer,
            None => self.elicit(params).await,
        }
    }

    /// [`create_message`](Self::create_message) with the key this question
    /// has in an input-required result (see [`elicit_keyed`](Self::elicit_keyed)).
    pub async fn create_message_keyed(
        &self,
        key: &str,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult> {
        match self
            .ask_keyed::<CreateMessageRequest>(key, "sampling", &params)
            .await
        {
            Some(answer) => answer,
            None => self.create_message(params).await,
        }
    }

    /// [`list_roots`](Self::list_roots) with the key this question has in
    /// an input-required result (see [`elicit_keyed`](Self::elicit_keyed)).
    pub async fn list_roots_keyed(&self, key: &str) -> Result<ListRootsResult> {
        match self
            .ask_keyed::<ListRootsRequest>(key, "roots", &None)
            .await
        {
            Some(answer) => answer,
            None => self.list_roots().await,
        }
    }

    /// Asks `R` under `key` where a 2026-07-28 request keeps its questions:
    /// the extension task it became, or else its input-required round.
    /// `None` in a session, where the client is asked directly.
    async fn ask_keyed<R: McpRequest>(
        &self,
        key: &str,
        capability: &str,
        params: &R::Params,
    ) -> Option<Result<R::Result>> {
        let task = self.extension_task();
        if task.is_none() && self.session.input.is_none() {
            return None;
        }
        // Absent params (roots) are sent as none, not as `null`.
        let params = match serde_json::to_value(params) {
            Ok(Value::Null) => None,
            Ok(params) => Some(params),
            Err(e) => return Some(Err(e.into())),
        };
        if let Some(task) = task {
            return Some(
                self.ask_in_task::<R>(task, Some(key), capability, params)
                    .await,
            );
        }
        let round = self.session.input.as_ref()?;
        Some(self.ask::<R>(round, key, capability, params).await)
    }

    /// The `inputResponses` of this retry of an input-required request, as
    /// the client sent them (2026-07-28; `None` otherwise).
    pub fn input_responses(&self) -> Option<&serde_json::Map<String, Value>> {
        self.session.input.as_ref()?.responses()
    }

    /// What this handler carried over from its previous round with
    /// [`set_request_state`](Self::set_request_state); it comes back only
    /// from a `requestState` this server sealed for this request.
    pub fn request_state(&self) -> Option<&Value> {
        self.session.input.as_ref()?.carried()
    }

    /// Carries `value` to this handler's next round, sealed in the
    /// `requestState` (ignored outside input-required rounds).
    pub fn set_request_state(&self, value: Value) {
        if let Some(round) = &self.session.input {
            round.carry(value);
        }
    }

    /// Answers a question from the round, or leaves it unanswered: it is
    /// recorded, and this call never returns (the round ends with it
    /// asked). A client without the capability ends the request with
    /// -32021 instead.
    async fn ask<R: McpRequest>(
        &self,
        round: &super::input::InputRound,
        key: &str,
        capability: &str,
        params: Option<Value>,
    ) -> Result<R::Result> {
        let declared = self
            .client_capabilities()
            .and_then(|c| serde_json::to_value(c).ok())
            .is_some_and(|caps| crate::capability::declares(&caps, capability));
        if !declared {
            round.require(capability);
            return std::future::pending().await;
        }
        if let Some(answer) = round.answer(key) {
            if let Ok(result) = serde_json::from_value::<R::Result>(answer.clone()) {
                return Ok(result);
            }
        }
        let mut request = serde_json::Map::new();
        request.insert("method".into(), Value::String(R::METHOD.into()));
        if let Some(params) = params {
            request.insert("params".into(), params);
        }
        round.ask(key.to_string(), Value::Object(request));
        std::future::pending().await
    }
}

impl Context {
    /// The task of the tasks extension this handler runs as, if any.
    fn extension_task(&self) -> Option<&TaskLink> {
        self.task
            .as_ref()
            .filter(|t| t.input_keys.is_some())
            .or_else(|| self.session.input.as_ref()?.task())
    }

    /// Asks the client through the task's `inputRequests` (the tasks
    /// extension) and waits for the answer `tasks/update` brings. A client
    /// that did not declare `capability` is not asked.
    async fn ask_in_task<R: McpRequest>(
        &self,
        task: &TaskLink,
        key: Option<&str>,
        capability: &str,
        params: Option<Value>,
    ) -> Result<R::Result> {
        let declared = self
            .client_capabilities()
            .and_then(|c| serde_json::to_value(c).ok())
            .is_some_and(|caps| crate::capability::declares(&caps, capability));
        if !declared {
            return Err(missing(R::METHOD, capability));
        }
        let key = match (key, &task.input_keys) {
            (Some(key), _) => key.to_string(),
            (None, Some(n)) => format!(
                "{capability}-{}",
                n.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            ),
            (None, None) => capability.to_string(),
        };
        let mut request = serde_json::Map::new();
        request.insert("method".into(), Value::String(R::METHOD.into()));
        if let Some(params) = params {
            request.insert("params".into(), params);
        }
        let answer = task
            .manager
            .ask(
                &task.owner,
                &task.id,
                key,
                Value::Object(request),
                &task.cancel,
            )
            .await?;
        Ok(serde_json::from_value(answer)?)
    }
}

/// Sends a request for a handler; inside a task, the request carries the
/// related-task `_meta` and the task is `input_required` while it waits.
trait RequestForTask {
    async fn request_for_task<R: McpRequest>(
        &self,
        params: R::Params,
        task: Option<&TaskLink>,
    ) -> Result<R::Result>;
}

impl RequestForTask for Peer {
    async fn request_for_task<R: McpRequest>(
        &self,
        params: R::Params,
        task: Option<&TaskLink>,
    ) -> Result<R::Result> {
        let Some(task) = task else {
            return self.request::<R>(params, RequestOptions::default()).await;
        };
        let mut value = serde_json::to_value(&params)?;
        if let Some(object) = value.as_object_mut() {
            crate::tasks::insert_related_task(object, &task.id);
        }
        let owner = &task.owner;
        if let Some(moved) = task
            .manager
            .transition(owner, &task.id, TaskStatus::InputRequired, None)
            .await
        {
            super::tasks::notify(&task.manager, self, moved).await;
        }
        let answer = self
            .request_raw(R::METHOD, &value, RequestOptions::default())
            .await;
        if let Some(moved) = task
            .manager
            .transition(owner, &task.id, TaskStatus::Working, None)
            .await
        {
            super::tasks::notify(&task.manager, self, moved).await;
        }
        Ok(serde_json::from_str(answer?.get())?)
    }
}

fn millis(d: std::time::Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// A request that stands alone (2026-07-28) cannot send the client requests
/// of its own: it must answer with an input-required result instead, which
/// this server does not do yet.
fn no_requests_without_a_session(cx: &Context, method: &str) -> Result<()> {
    match cx.protocol_version() {
        Some(v) if !v.has_initialize() => Err(Error::Protocol(format!(
            "`{method}` cannot be sent during a {v} request: that revision asks the client \
             for input with an input-required result, which this server does not support yet"
        ))),
        _ => Ok(()),
    }
}

fn missing(method: &str, capability: &str) -> Error {
    Error::CapabilityNotSupported {
        method: method.to_string(),
        capability: capability.to_string(),
    }
}

/// The address of the HTTP client in a request's extensions: axum's
/// `ConnectInfo<SocketAddr>`, or a plain `SocketAddr` (for hyper used
/// directly). Here, below the HTTP server, so that the role needs nothing
/// of the layer above it.
#[cfg(feature = "http-server")]
pub(crate) fn peer_addr_of(parts: &http::request::Parts) -> Option<std::net::SocketAddr> {
    parts
        .extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map(|info| info.0)
        .or_else(|| parts.extensions.get::<std::net::SocketAddr>().copied())
}
