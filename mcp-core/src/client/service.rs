use std::sync::{Arc, Mutex};

use serde::Serialize;
use serde_json::value::RawValue;
use tokio::sync::broadcast;

use super::builder::{ElicitationFn, NotificationFn, SamplingFn};
use crate::jsonrpc::{InboundNotification, InboundRequest, RpcError};
use crate::schema::{
    ListRootsResult, Root, ServerNotification, ServerNotificationMethod, ServerRequest,
    ServerRequestMethod,
};
use crate::session::{Peer, RequestContext, RequestFuture, Service};

/// The client side of the session engine: answers server requests with the
/// registered handlers and fans notifications out.
pub(crate) struct ClientService {
    pub(crate) sampling: Option<SamplingFn>,
    pub(crate) elicitation: Option<ElicitationFn>,
    pub(crate) url_elicitation: Option<super::builder::UrlElicitationFn>,
    pub(crate) roots: Option<Arc<Mutex<Vec<Root>>>>,
    pub(crate) on_notification: Option<NotificationFn>,
    pub(crate) notifications: broadcast::Sender<ServerNotification>,
}

fn encode<T: Serialize>(value: Result<T, RpcError>) -> Result<Box<RawValue>, RpcError> {
    serde_json::value::to_raw_value(&value?)
        .map_err(|e| RpcError::internal(format!("could not encode the result: {e}")))
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
        Ok(match request {
            ServerRequest::Ping(_) => {
                Box::pin(async { encode(Ok(crate::schema::EmptyResult::new())) })
            }
            ServerRequest::CreateMessage(r) => {
                let handler = self.sampling.clone().ok_or_else(not_offered)?;
                Box::pin(async move { encode(handler(r.params, ctx).await) })
            }
            ServerRequest::Elicit(r) => match (
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
                        encode(Ok(crate::schema::ElicitResult {
                            action,
                            content: None,
                            meta: None,
                        }))
                    })
                }
                _ => return Err(not_offered()),
            },
            ServerRequest::ListRoots(_) => {
                let roots = self.roots.as_ref().ok_or_else(not_offered)?;
                let roots = roots
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                Box::pin(async move { encode(Ok(ListRootsResult { roots, meta: None })) })
            }
            // Tasks are not offered yet: the capability is not declared.
            ServerRequest::GetTask(_)
            | ServerRequest::GetTaskPayload(_)
            | ServerRequest::CancelTask(_)
            | ServerRequest::ListTasks(_) => return Err(not_offered()),
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
        if let Some(callback) = &self.on_notification {
            callback(decoded.clone());
        }
        // No subscriber is fine: notifications are then only for the callback.
        let _ = self.notifications.send(decoded);
    }
}
