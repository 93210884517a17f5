//! `mcp resources subscribe URI`: prints each `notifications/resources/updated`
//! of one resource until Ctrl-C or until the server goes away. In a
//! 2025-11-25 session through `resources/subscribe` and the session's
//! notifications; under 2026-07-28 through a `subscriptions/listen` stream.

use mcp_core::client::Client;
use mcp_core::schema::{
    ResourceUpdatedNotification, ServerNotification, SubscriptionFilter,
    methods::NOTIFICATIONS_RESOURCES_UPDATED,
};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use crate::commands::Printing;
use crate::error::CliError;
use crate::output;

/// Subscribes to `uri` and prints its updates until Ctrl-C.
pub(crate) async fn run(client: &Client, uri: &str, printing: Printing) -> Result<(), CliError> {
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    if client.discover_result().is_some() {
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec![uri.to_string()]),
            ..SubscriptionFilter::new()
        };
        let mut subscription = client.listen(filter).await.map_err(CliError::request)?;
        let honoured = subscription
            .honoured()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == uri));
        if !honoured {
            return Err(CliError::Failed(format!(
                "the server does not offer updates of {uri}"
            )));
        }
        started(uri, printing);
        loop {
            let next = tokio::select! {
                next = subscription.next() => next,
                _ = &mut ctrl_c => return Ok(()),
            };
            match next.map_err(CliError::request)? {
                Some(ServerNotification::ResourceUpdated(n)) => print(&n, printing),
                Some(_) => {}
                None => return Err(CliError::Failed("the server ended the subscription".into())),
            }
        }
    }
    // Subscribe first to the notifications, so no update is missed.
    let mut notifications = client.notifications();
    client.subscribe(uri).await.map_err(CliError::request)?;
    started(uri, printing);
    loop {
        let next = tokio::select! {
            next = notifications.recv() => next,
            why = client.closed() => {
                return Err(CliError::Failed(format!("the session ended: {why}")));
            }
            _ = &mut ctrl_c => break,
        };
        match next {
            Ok(ServerNotification::ResourceUpdated(n)) if n.params.uri == uri => {
                print(&n, printing)
            }
            Ok(_) => {}
            Err(RecvError::Lagged(missed)) => {
                output::stderr(&format!("warning: missed {missed} notifications"));
            }
            Err(RecvError::Closed) => break,
        }
    }
    // Best effort: the session ends right after.
    let _ = client.unsubscribe(uri).await;
    Ok(())
}

fn started(uri: &str, printing: Printing) {
    if !printing.quiet {
        output::stderr(&format!(
            "subscribed to {uri}; waiting for updates (Ctrl-C to stop)"
        ));
    }
}

/// One line per update: the notification as JSON, or the URI for people.
fn print(notification: &ResourceUpdatedNotification, printing: Printing) {
    if printing.json {
        let line = json!({
            "method": NOTIFICATIONS_RESOURCES_UPDATED,
            "params": notification.params,
        });
        output::stdout(&line.to_string());
    } else {
        output::stdout(&format!("updated: {}", notification.params.uri));
    }
}
