use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::value::RawValue;
use tokio::sync::broadcast;

use super::builder::{ElicitationFn, NotificationFn, SamplingFn};
use crate::jsonrpc::{InboundNotification, InboundRequest, RpcError};
use crate::schema::{
    ElicitRequestParams, ElicitResult, ElicitResultAction, InputRequest, InputResponse,
    ListRootsResult, Root, ServerNotification, ServerNotificationMethod, ServerRequest,
    ServerRequestMethod,
};
use crate::session::{Peer, RequestContext, RequestFuture, Service};
use crate::tasks::TaskManager;

/// The client side of the session engine: answers server requests with the
/// registered handlers and fans notifications out.
pub(crate) struct ClientService {
    pub(crate) sampling: Option<SamplingFn>,
    pub(crate) elicitation: Option<ElicitationFn>,
    pub(crate) url_elicitation: Option<super::builder::UrlElicitationFn>,
    pub(crate) roots: Option<Arc<Mutex<Vec<Root>>>>,
    pub(crate) on_notification: Option<NotificationFn>,
    pub(crate) notifications: broadcast::Sender<ServerNotification>,
    /// Runs task-augmented sampling and elicitation, when configured.
    pub(crate) tasks: Option<Arc<TaskManager>>,
    /// The open `subscriptions/listen` streams.
    pub(crate) listens: super::subscription::Listens,
    /// List results kept as their `ttlMs` allows, when asked for.
    pub(crate) list_cache: Option<super::list_cache::ListCache>,
}

/// The client's tasks all belong to its one server.
const OWNER: &str = "server";

fn encode<T: Serialize>(value: Result<T, RpcError>) -> Result<Box<RawValue>, RpcError> {
    serde_json::value::to_raw_value(&value?)
        .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
}

impl ClientService {
    /// Answers one request embedded in a 2026-07-28 input-required result
    /// with the same handlers that answer a 2025-11-25 server's requests.
    pub(crate) async fn answer_input(
        &self,
        request: InputRequest,
        ctx: RequestContext,
    ) -> Result<InputResponse, RpcError> {
        let not_offered =
            |what: &str| RpcError::method_not_found(&format!("{what} (this client offers none)"));
        match request {
            InputRequest::CreateMessage(r) => {
                let handler = self
                    .sampling
                    .clone()
                    .ok_or_else(|| not_offered(&r.method.to_string()))?;
                handler(r.params, ctx).await.map(InputResponse::from)
            }
            InputRequest::Elicit(r) => {
                let method = r.method.to_string();
                match (
                    self.elicitation.clone(),
                    self.url_elicitation.clone(),
                    r.params,
                ) {
                    (Some(handler), _, params) => {
                        handler(params, ctx).await.map(InputResponse::from)
                    }
                    (None, Some(url), ElicitRequestParams::Url(params)) => {
                        let action = if url(params).await {
                            ElicitResultAction::Accept
                        } else {
                            ElicitResultAction::Decline
                        };
                        Ok(ElicitResult::new(action).into())
                    }
                    _ => Err(not_offered(&method)),
                }
            }
            InputRequest::ListRoots(r) => {
                let roots = self
                    .roots
                    .as_ref()
                    .ok_or_else(|| not_offered(&r.method.to_string()))?;
                let roots = roots
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                Ok(ListRootsResult::new(roots).into())
            }
        }
    }

    /// Runs `work` as a task when the request asked for one and the client
    /// offers tasks (answering `CreateTaskResult` at once); otherwise as is.
    fn maybe_as_task(
        &self,
        ttl: Option<Option<i64>>,
        work: RequestFuture,
        peer: &Peer,
    ) -> Result<RequestFuture, RpcError> {
        let (Some(ttl), Some(manager)) = (ttl, self.tasks.clone()) else {
            // No task asked for, or none offered: a receiver without the
            // capability processes the request normally (spec).
            return Ok(work);
        };
        let cancel = peer.shared.closed().child_token();
        let peer = peer.clone();
        Ok(Box::pin(async move {
            let task = manager.create(OWNER, ttl, cancel.clone()).await?;
            crate::tasks::run_in_background(
                manager.clone(),
                OWNER.into(),
                task.task_id.clone(),
                cancel,
                peer.clone(),
                work,
            );
            crate::tasks::notify(&manager, &peer, task.clone()).await;
            encode(Ok(crate::schema::CreateTaskResult::new(task)))
        }))
    }
}

impl Service for ClientService {
    fn request(
        &self,
        request: InboundRequest<'_>,
        ctx: RequestContext,
    ) -> Result<RequestFuture, RpcError> {
        let method = ServerRequestMethod::from_name(&request.method)
            .ok_or_else(|| RpcError::method_not_found(&request.method))?;
        let request = ServerRequest::from_parts(method, request.id, request.params)
            .map_err(RpcError::invalid_params)?;
        let not_offered = || RpcError::method_not_found(method.as_str());
        let peer = ctx.peer().unrelated();
        Ok(match request {
            ServerRequest::Ping(_) => {
                Box::pin(async { encode(Ok(crate::schema::EmptyResult::new())) })
            }
            ServerRequest::CreateMessage(r) => {
                let handler = self.sampling.clone().ok_or_else(not_offered)?;
                let ttl = r.params.task.as_ref().map(|t| t.ttl);
                let work = Box::pin(async move { encode(handler(r.params, ctx).await) });
                self.maybe_as_task(ttl, work, &peer)?
            }
            ServerRequest::Elicit(r) => {
                let ttl = match &r.params {
                    crate::schema::ElicitRequestParams::Form(f) => f.task.as_ref().map(|t| t.ttl),
                    crate::schema::ElicitRequestParams::Url(u) => u.task.as_ref().map(|t| t.ttl),
                };
                let work: RequestFuture = match (
                    self.elicitation.clone(),
                    self.url_elicitation.clone(),
                    r.params,
                ) {
                    (Some(handler), _, params) => {
                        Box::pin(async move { encode(handler(params, ctx).await) })
                    }
                    // URL mode without a general handler: the URL handler decides.
                    (None, Some(url), crate::schema::ElicitRequestParams::Url(params)) => {
                        Box::pin(async move {
                            let action = if url(params).await {
                                crate::schema::ElicitResultAction::Accept
                            } else {
                                crate::schema::ElicitResultAction::Decline
                            };
                            encode(Ok(crate::schema::ElicitResult::new(action)))
                        })
                    }
                    _ => return Err(not_offered()),
                };
                self.maybe_as_task(ttl, work, &peer)?
            }
            ServerRequest::ListRoots(_) => {
                let roots = self.roots.as_ref().ok_or_else(not_offered)?;
                let roots = roots
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                Box::pin(async move { encode(Ok(ListRootsResult::new(roots))) })
            }
            ServerRequest::GetTask(r) => {
                let manager = self.tasks.clone().ok_or_else(not_offered)?;
                Box::pin(async move {
                    let task = manager.get(OWNER, &r.params.task_id).await?;
                    encode(Ok(crate::schema::GetTaskResult::from(task)))
                })
            }
            ServerRequest::GetTaskPayload(r) => {
                let manager = self.tasks.clone().ok_or_else(not_offered)?;
                let cancel = ctx.cancellation().clone();
                Box::pin(async move { manager.result(OWNER, &r.params.task_id, &cancel).await })
            }
            ServerRequest::CancelTask(r) => {
                let manager = self.tasks.clone().ok_or_else(not_offered)?;
                Box::pin(async move {
                    let task = manager.cancel(OWNER, &r.params.task_id).await?;
                    crate::tasks::notify(&manager, &peer, task.clone()).await;
                    encode(Ok(crate::schema::CancelTaskResult::from(task)))
                })
            }
            ServerRequest::ListTasks(r) => {
                let manager = self.tasks.clone().ok_or_else(not_offered)?;
                let cursor = r.params.and_then(|p| p.cursor);
                Box::pin(async move {
                    let (tasks, next_cursor) = manager.list(OWNER, cursor.as_deref(), 100).await?;
                    encode(Ok(crate::schema::ListTasksResult {
                        next_cursor,
                        ..crate::schema::ListTasksResult::new(tasks)
                    }))
                })
            }
        })
    }

    fn notification(&self, notification: InboundNotification<'_>, _peer: &Peer) {
        let Some(method) = ServerNotificationMethod::from_name(&notification.method) else {
            tracing::debug!("ignoring unknown notification `{}`", notification.method);
            return;
        };
        let decoded = match ServerNotification::from_parts(method, notification.params) {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!("ignoring malformed `{method}` notification: {e}");
                return;
            }
        };
        self.listens.route(notification.params, &decoded);
        if let Some(cache) = &self.list_cache {
            cache.invalidate(&decoded);
        }
        if let Some(callback) = &self.on_notification {
            callback(decoded.clone());
        }
        // No subscriber is fine: notifications are then only for the callback.
        let _ = self.notifications.send(decoded);
    }
}
