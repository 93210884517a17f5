//! `subscriptions/listen` (2026-07-28): a request whose answer is a stream
//! of change notifications, and the bus that carries changes to it.
//!
//! Changes go on a [`ChangeBus`] rather than to a list of sessions because a
//! listen is not tied to the server instance that announces a change: over
//! Streamable HTTP each stateless request may be served by its own instance,
//! so every instance of one process shares one bus.

use std::sync::{Arc, Mutex, MutexGuard, Weak};

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::Context;
use super::session_state::SessionState;
use crate::jsonrpc::RpcError;
use crate::schema::{
    McpNotification, NotificationMetaObject, NotificationParams, PromptListChangedNotification,
    RequestId, ResourceListChangedNotification, ResourceUpdatedNotification,
    ResourceUpdatedNotificationParams, SubscriptionFilter, SubscriptionsAcknowledgedNotification,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams,
    SubscriptionsListenResult, SubscriptionsListenResultMetaObject, ToolListChangedNotification,
};

/// `_meta` key naming the subscription a notification belongs to.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// A change a server announces to its listeners.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// The tool list changed.
    ToolsListChanged,
    /// The prompt list changed.
    PromptsListChanged,
    /// The resource list changed.
    ResourcesListChanged,
    /// The resource with this URI changed.
    ResourceUpdated(String),
}

/// Where changes are announced: to `subscriptions/listen` streams
/// (2026-07-28), and to the sessions (2025-11-25) of every server built with
/// it. Clone it to share it: servers built with the same bus reach each
/// other's listeners and sessions.
#[derive(Clone, Debug)]
pub struct ChangeBus {
    changes: broadcast::Sender<Announced>,
    sessions: Arc<Mutex<Vec<Weak<SessionState>>>>,
}

/// A change on the bus, and whether another replica announced it (then it
/// is not sent on to the replicas again).
#[derive(Clone, Debug)]
pub(crate) struct Announced {
    pub(crate) change: Change,
    #[cfg_attr(not(feature = "http-server"), allow(dead_code))]
    pub(crate) remote: bool,
}

impl ChangeBus {
    /// A new bus. A listener that falls more than 256 changes behind skips
    /// the oldest (list changes say only "refetch", so nothing is lost that
    /// the next one does not repeat).
    pub fn new() -> Self {
        Self {
            changes: broadcast::channel(256).0,
            sessions: Arc::default(),
        }
    }

    /// Announces `change` to every `subscriptions/listen` stream (none
    /// listening is fine). Sessions are told by the server's methods
    /// ([`Server::notify_resource_updated`](super::Server::notify_resource_updated),
    /// [`Server::add_tool`](super::Server::add_tool), …) or
    /// [`notify_resource_updated`](Self::notify_resource_updated).
    pub fn publish(&self, change: Change) {
        let _ = self.changes.send(Announced {
            change,
            remote: false,
        });
    }

    #[cfg(feature = "http-server")]
    /// Tells this process's sessions and listens of a change another
    /// replica made (that replica told its own).
    pub(crate) async fn notify_remote_change(&self, change: Change) {
        for session in self.ready_sessions() {
            let _ = match &change {
                Change::ResourceUpdated(uri) if session.is_subscribed(uri) => {
                    let params = ResourceUpdatedNotificationParams::new(uri.as_str());
                    session
                        .peer
                        .notify::<ResourceUpdatedNotification>(params)
                        .await
                }
                Change::ResourceUpdated(_) => continue,
                Change::ToolsListChanged => {
                    session
                        .peer
                        .notify::<ToolListChangedNotification>(None)
                        .await
                }
                Change::PromptsListChanged => {
                    session
                        .peer
                        .notify::<PromptListChangedNotification>(None)
                        .await
                }
                Change::ResourcesListChanged => {
                    session
                        .peer
                        .notify::<ResourceListChangedNotification>(None)
                        .await
                }
            };
        }
        let _ = self.changes.send(Announced {
            change,
            remote: true,
        });
    }

    /// Sends `notifications/resources/updated` for `uri` to every session
    /// on this bus that subscribed to it (`resources/subscribe`) and to every
    /// listen that asked for it; returns how many sessions were told.
    pub async fn notify_resource_updated(&self, uri: &str) -> usize {
        self.publish(Change::ResourceUpdated(uri.to_string()));
        let mut told = 0;
        for session in self.ready_sessions() {
            if !session.is_subscribed(uri) {
                continue;
            }
            let params = ResourceUpdatedNotificationParams::new(uri);
            if session
                .peer
                .notify::<ResourceUpdatedNotification>(params)
                .await
                .is_ok()
            {
                told += 1;
            }
        }
        told
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Announced> {
        self.changes.subscribe()
    }

    /// Keeps a session so that changes reach it.
    pub(crate) fn register(&self, session: &Arc<SessionState>) {
        let mut sessions = lock(&self.sessions);
        // Ended sessions are pruned only when the list is full (about to
        // grow): pruning on every registration made opening n sessions
        // quadratic. Growth doubles the capacity, so this is amortised O(1).
        if sessions.len() == sessions.capacity() {
            sessions.retain(|s| s.upgrade().is_some_and(|s| !s.peer.is_closed()));
        }
        sessions.push(Arc::downgrade(session));
    }

    /// Live sessions that finished initializing.
    pub(crate) fn ready_sessions(&self) -> Vec<Arc<SessionState>> {
        lock(&self.sessions)
            .iter()
            .filter_map(Weak::upgrade)
            .filter(|s| s.is_ready() && !s.peer.is_closed())
            .collect()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Default for ChangeBus {
    fn default() -> Self {
        Self::new()
    }
}

/// Serves one `subscriptions/listen`: acknowledges with the part of the
/// filter this server honours (`offered` says what it can send), then
/// forwards each matching change, tagged with the subscription's id, until
/// the client ends the stream (the request is cancelled) or the bus closes.
pub(crate) async fn listen(
    bus: &ChangeBus,
    offered: &SubscriptionFilter,
    params: SubscriptionsListenRequestParams,
    cx: &Context,
) -> Result<SubscriptionsListenResult, RpcError> {
    let id = cx
        .request_id()
        .cloned()
        .ok_or_else(|| RpcError::internal("a listen outside a request"))?;
    let filter = honoured(&params.notifications, offered);
    // Subscribed before acknowledging, so nothing announced after the
    // acknowledgement is missed.
    let mut changes = bus.subscribe();
    let ack = SubscriptionsAcknowledgedNotificationParams {
        meta: Some(NotificationMetaObject {
            io_modelcontextprotocol_subscription_id: Some(id.clone()),
            ..NotificationMetaObject::new()
        }),
        ..SubscriptionsAcknowledgedNotificationParams::new(filter.clone())
    };
    send::<SubscriptionsAcknowledgedNotification>(cx, ack).await?;
    loop {
        let change = tokio::select! {
            change = changes.recv() => change,
            () = cx.cancellation().cancelled() => break,
        };
        match change {
            Ok(Announced { change, .. }) => forward(cx, &filter, &id, change).await?,
            Err(broadcast::error::RecvError::Lagged(_)) => continue,
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
    Ok(SubscriptionsListenResult::new(
        SubscriptionsListenResultMetaObject::new(id),
    ))
}

/// What a listen gets: what it asked for and the server can send. A kind it
/// did not ask for is never sent.
fn honoured(asked: &SubscriptionFilter, offered: &SubscriptionFilter) -> SubscriptionFilter {
    let both =
        |a: Option<bool>, b: Option<bool>| (a == Some(true) && b == Some(true)).then_some(true);
    SubscriptionFilter {
        tools_list_changed: both(asked.tools_list_changed, offered.tools_list_changed),
        prompts_list_changed: both(asked.prompts_list_changed, offered.prompts_list_changed),
        resources_list_changed: both(asked.resources_list_changed, offered.resources_list_changed),
        resource_subscriptions: match (
            &asked.resource_subscriptions,
            &offered.resource_subscriptions,
        ) {
            (Some(uris), Some(_)) => Some(uris.clone()),
            _ => None,
        },
        ..SubscriptionFilter::new()
    }
}

async fn forward(
    cx: &Context,
    filter: &SubscriptionFilter,
    id: &RequestId,
    change: Change,
) -> Result<(), RpcError> {
    let params = || NotificationParams {
        meta: Some(meta(id)),
        ..NotificationParams::new()
    };
    match change {
        Change::ToolsListChanged if filter.tools_list_changed == Some(true) => {
            send::<ToolListChangedNotification>(cx, Some(params())).await
        }
        Change::PromptsListChanged if filter.prompts_list_changed == Some(true) => {
            send::<PromptListChangedNotification>(cx, Some(params())).await
        }
        Change::ResourcesListChanged if filter.resources_list_changed == Some(true) => {
            send::<ResourceListChangedNotification>(cx, Some(params())).await
        }
        Change::ResourceUpdated(uri)
            if filter
                .resource_subscriptions
                .as_ref()
                .is_some_and(|uris| uris.contains(&uri)) =>
        {
            let params = ResourceUpdatedNotificationParams {
                meta: Some(meta(id)),
                ..ResourceUpdatedNotificationParams::new(uri)
            };
            send::<ResourceUpdatedNotification>(cx, params).await
        }
        _ => Ok(()),
    }
}

fn meta(id: &RequestId) -> Map<String, Value> {
    let mut meta = Map::new();
    meta.insert(
        SUBSCRIPTION_ID.into(),
        serde_json::to_value(id).unwrap_or(Value::Null),
    );
    meta
}

/// Sends on the listen's own stream; a closed stream ends the listen.
async fn send<N: McpNotification>(cx: &Context, params: N::Params) -> Result<(), RpcError> {
    cx.peer()
        .notify::<N>(params)
        .await
        .map_err(|e| RpcError::internal(format!("the subscription stream is gone: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_was_asked_and_offered_is_honoured() {
        let asked = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(true),
            resource_subscriptions: Some(vec!["test://a".into()]),
            ..SubscriptionFilter::default()
        };
        let offered = SubscriptionFilter {
            tools_list_changed: Some(true),
            resources_list_changed: Some(true),
            ..SubscriptionFilter::default()
        };
        let got = honoured(&asked, &offered);
        assert_eq!(got.tools_list_changed, Some(true));
        assert_eq!(got.prompts_list_changed, None);
        assert_eq!(got.resources_list_changed, None);
        assert_eq!(got.resource_subscriptions, None);
    }
}
