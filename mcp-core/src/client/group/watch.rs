//! One task per connection of a member: notices the server going away, and
//! turns its notifications into the group's events, refreshing the merged
//! lists on list changes.

use std::sync::{Arc, Weak};

use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use super::shared::Shared;
use super::status::GroupEvent;
use crate::client::{Client, Subscription};
use crate::schema::{ServerNotification, SubscriptionFilter};

pub(super) async fn watch(
    shared: Weak<Shared>,
    i: usize,
    client: Arc<Client>,
    stop: CancellationToken,
) {
    let mut notifications = client.notifications();
    // Revisions without sessions announce changes only to a listen.
    let listen = async {
        let filter = wanted(&client)?;
        match client.listen(filter).await {
            Ok(subscription) => Some(subscription),
            Err(e) => {
                tracing::debug!("no list-change notifications from this server: {e}");
                None
            }
        }
    };
    tokio::pin!(listen);
    let mut listening = true;
    // Kept open (and read, so its backlog never fills) for as long as the
    // connection lasts; its notifications also reach `notifications`.
    let mut subscription: Option<Subscription> = None;
    loop {
        tokio::select! {
            () = stop.cancelled() => return,
            reason = client.closed() => {
                if let Some(shared) = shared.upgrade() {
                    shared.went_away(i, &client, reason).await;
                }
                return;
            }
            opened = &mut listen, if listening => {
                listening = false;
                subscription = opened;
            }
            next = drain(&mut subscription) => {
                if !matches!(next, Ok(Some(_))) {
                    subscription = None;
                }
            }
            next = notifications.recv() => {
                let notification = match next {
                    Ok(notification) => notification,
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!("the group missed {missed} notifications of a server");
                        continue;
                    }
                    Err(RecvError::Closed) => return,
                };
                let Some(shared) = shared.upgrade() else { return };
                handle(&shared, i, &client, notification).await;
            }
        }
    }
}

/// The list changes to listen for: those the server's capabilities name.
/// `None` in a session, where they come unasked.
fn wanted(client: &Client) -> Option<SubscriptionFilter> {
    client.discover_result()?;
    let capabilities = client.server_capabilities();
    let tools = capabilities.tools.is_some();
    let prompts = capabilities.prompts.is_some();
    let resources = capabilities.resources.is_some();
    (tools || prompts || resources).then(|| SubscriptionFilter {
        tools_list_changed: tools.then_some(true),
        prompts_list_changed: prompts.then_some(true),
        resources_list_changed: resources.then_some(true),
        ..SubscriptionFilter::new()
    })
}

/// The next item of an open listen; never, without one.
async fn drain(
    subscription: &mut Option<Subscription>,
) -> crate::Result<Option<ServerNotification>> {
    match subscription {
        Some(subscription) => subscription.next().await,
        None => std::future::pending().await,
    }
}

async fn handle(shared: &Shared, i: usize, client: &Client, notification: ServerNotification) {
    let server = shared.members[i].name.clone();
    let refreshed = match &notification {
        ServerNotification::ToolListChanged(_) => shared.refresh_tools(i, client).await,
        ServerNotification::PromptListChanged(_) => shared.refresh_prompts(i, client).await,
        ServerNotification::ResourceListChanged(_) => {
            shared.emit(GroupEvent::ResourcesChanged {
                server: server.clone(),
            });
            Ok(())
        }
        _ => Ok(()),
    };
    if let Err(e) = refreshed {
        tracing::warn!(server = %server, "cannot list again after a change: {e}");
    }
    shared.emit(GroupEvent::Notification {
        server,
        notification,
    });
}
