//! Changes between replicas: a change this process announces (a resource
//! updated, a list changed) goes on the shared [`Bus`]; one another replica
//! announced reaches this process's sessions (those subscribed, for a
//! resource) and its `subscriptions/listen` streams. Each replica tells its
//! own sessions, so a session hears of a change on the replica that holds
//! its stream.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::server::{Change, Server};
use crate::store::Bus;

/// The bus topic of changes.
const TOPIC: &str = "changes";

/// Starts carrying `server`'s changes to and from the other replicas.
pub(super) fn bridge(server: &Server, bus: Arc<dyn Bus>) {
    // Names this bridge's messages, so that it skips its own echo.
    let origin = {
        let mut bytes = [0u8; 8];
        let _ = getrandom::fill(&mut bytes);
        u64::from_le_bytes(bytes)
    };
    let mut local = server.change_bus().subscribe();
    let outgoing = bus.clone();
    tokio::spawn(async move {
        loop {
            match local.recv().await {
                Ok(announced) if !announced.remote => {
                    let payload = encode(origin, &announced.change).to_string();
                    if let Err(e) = outgoing.publish(TOPIC, payload).await {
                        tracing::warn!("a change did not reach the other replicas: {e}");
                    }
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    let mut remote = bus.subscribe(TOPIC);
    let bus = server.change_bus().clone();
    tokio::spawn(async move {
        while let Some(heard) = remote.recv().await {
            // A gap loses changes: the bus carries hints, and a client
            // that missed one sees it on its next list or read.
            let Some(payload) = heard.message() else {
                continue;
            };
            match decode(&payload) {
                Some((from, change)) if from != origin => {
                    bus.notify_remote_change(change).await;
                }
                Some(_) => {}
                None => tracing::debug!("ignoring a change this version cannot read: {payload}"),
            }
        }
    });
}

fn encode(origin: u64, change: &Change) -> Value {
    let change = match change {
        Change::ToolsListChanged => json!("toolsListChanged"),
        Change::PromptsListChanged => json!("promptsListChanged"),
        Change::ResourcesListChanged => json!("resourcesListChanged"),
        Change::ResourceUpdated(uri) => json!({ "resourceUpdated": uri }),
    };
    json!({ "origin": origin, "change": change })
}

fn decode(payload: &str) -> Option<(u64, Change)> {
    let value: Value = serde_json::from_str(payload).ok()?;
    let origin = value.get("origin")?.as_u64()?;
    let change = match value.get("change")? {
        Value::String(kind) => match kind.as_str() {
            "toolsListChanged" => Change::ToolsListChanged,
            "promptsListChanged" => Change::PromptsListChanged,
            "resourcesListChanged" => Change::ResourcesListChanged,
            _ => return None,
        },
        Value::Object(o) => Change::ResourceUpdated(o.get("resourceUpdated")?.as_str()?.into()),
        _ => return None,
    };
    Some((origin, change))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_round_trip() {
        for change in [
            Change::ToolsListChanged,
            Change::PromptsListChanged,
            Change::ResourcesListChanged,
            Change::ResourceUpdated("test://x".into()),
        ] {
            let (origin, back) = decode(&encode(7, &change).to_string()).unwrap();
            assert_eq!(origin, 7);
            assert_eq!(back, change);
        }
        assert!(decode("{}").is_none());
    }
}
