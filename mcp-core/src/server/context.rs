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
}

/// What a handler running as a task knows about its task.
#[derive(Clone)]
pub(crate) struct TaskLink {
    pub(crate) id: String,
    pub(crate) owner: String,
    pub(crate) manager: Arc<TaskManager>,
    pub(crate) progress_token: Option<ProgressToken>,
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
    ) -> Self {
        Self {
            peer: session.peer.clone(),
            cancel,
            request: None,
            session,
            task: Some(task),
        }
    }

    /// The id of the task this handler runs as, if it runs as one.
    pub fn task_id(&self) -> Option<&str> {
        self.task.as_ref().map(|t| t.id.as_str())
    }

    pub(crate) fn for_session(session: Arc<SessionState>) -> Self {
        Self {
            peer: session.peer.clone(),
            cancel: session.peer.shared.closed.child_token(),
            request: None,
            session,
            task: None,
        }
    }

    /// The id of the request being handled (`None` in notification hooks).
    pub fn request_id(&self) -> Option<&RequestId> {
        self.request.as_ref().map(RequestContext::id)
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
        self.session.client.get().map(|c| &c.info)
    }

    /// What the client declared it supports.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.session.client.get().map(|c| &c.capabilities)
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
                        progress_token: token,
                        progress: crate::session::number(progress)?,
                        total: total.map(crate::session::number).transpose()?,
                        message,
                        meta: None,
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

    /// Tells the client that the out-of-band step of URL-mode elicitation
    /// `elicitation_id` is finished (`notifications/elicitation/complete`).
    pub async fn notify_elicitation_complete(&self, elicitation_id: &str) -> Result<()> {
        let params = crate::schema::ElicitationCompleteNotificationParams {
            elicitation_id: elicitation_id.to_string(),
        };
        self.peer
            .notify::<crate::schema::ElicitationCompleteNotification>(params)
            .await
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
            level,
            logger: logger.map(str::to_string),
            data,
            meta: None,
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
        let caps = self.client_capabilities();
        let sampling = caps.and_then(|c| c.sampling.as_ref());
        let Some(sampling) = sampling else {
            return Err(missing("sampling/createMessage", "sampling"));
        };
        if (params.tools.is_some() || params.tool_choice.is_some()) && sampling.tools.is_none() {
            return Err(missing("sampling/createMessage", "sampling.tools"));
        }
        self.peer()
            .request_for_task::<CreateMessageRequest>(params, self.task.as_ref())
            .await
    }

    /// Asks the client for its roots (`roots/list`). Fails without sending if
    /// the client did not declare `roots`.
    pub async fn list_roots(&self) -> Result<ListRootsResult> {
        if self
            .client_capabilities()
            .and_then(|c| c.roots.as_ref())
            .is_none()
        {
            return Err(missing("roots/list", "roots"));
        }
        self.peer()
            .request::<ListRootsRequest>(None, RequestOptions::default())
            .await
    }

    /// Asks the user for input through the client (`elicitation/create`), in
    /// form or URL mode. Fails without sending if the client did not declare
    /// the `elicitation` capability for that mode.
    pub async fn elicit(&self, params: ElicitRequestParams) -> Result<ElicitResult> {
        let elicitation = self
            .client_capabilities()
            .and_then(|c| c.elicitation.as_ref());
        let Some(elicitation) = elicitation else {
            return Err(missing("elicitation/create", "elicitation"));
        };
        // An empty `elicitation: {}` means form mode only (spec 2025-11-25).
        let url_ok = elicitation.url.is_some();
        if matches!(params, ElicitRequestParams::Url(_)) && !url_ok {
            return Err(missing("elicitation/create", "elicitation.url"));
        }
        self.peer()
            .request_for_task::<ElicitRequest>(params, self.task.as_ref())
            .await
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
        if let Some(moved) =
            task.manager
                .transition(owner, &task.id, TaskStatus::InputRequired, None)
        {
            super::tasks::notify(&task.manager, self, moved).await;
        }
        let answer = self
            .request_raw(R::METHOD, &value, RequestOptions::default())
            .await;
        if let Some(moved) = task
            .manager
            .transition(owner, &task.id, TaskStatus::Working, None)
        {
            super::tasks::notify(&task.manager, self, moved).await;
        }
        Ok(serde_json::from_str(answer?.get())?)
    }
}

fn missing(method: &str, capability: &str) -> Error {
    Error::CapabilityNotSupported {
        method: method.to_string(),
        capability: capability.to_string(),
    }
}
