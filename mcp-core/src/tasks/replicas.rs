//! Tasks across replicas: the store holds every task where each replica
//! reads it; what only the replica running a task can do (stop its work,
//! hand an answer to the question it waits on) travels on the bus, and so
//! does "a task changed" for the `tasks/result` waiters of other replicas.

#[cfg(feature = "server")]
use std::sync::Weak;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

#[cfg(feature = "server")]
use super::TaskManager;
use crate::store::Bus;

/// The bus topic of tasks.
const TOPIC: &str = "tasks";

/// What one replica tells the others about a task.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) enum Message {
    /// Stop the task's work (it is already `cancelled` in the store).
    Cancel { task: String },
    /// The task's record changed: wake whoever waits on it.
    Changed { task: String },
    /// `tasks/update` answers, for the replica whose task asked.
    Answer {
        task: String,
        owner: String,
        responses: Map<String, Value>,
    },
}

impl Message {
    pub(super) fn cancel(task: &str) -> Self {
        Self::Cancel { task: task.into() }
    }

    pub(super) fn changed(task: &str) -> Self {
        Self::Changed { task: task.into() }
    }
}

/// Sends `message` to every replica. Lost if the bus is away: a waiter
/// rechecks the store anyway, a cancelled task is `cancelled` in the store
/// whatever its work does, and an answer is sent again by a client that
/// still sees the question.
pub(super) async fn publish(bus: &dyn Bus, message: &Message) {
    let Ok(payload) = serde_json::to_string(message) else {
        return;
    };
    if let Err(e) = bus.publish(TOPIC, payload).await {
        tracing::warn!("other replicas did not hear of a task: {e}");
    }
}

/// Acts on what other replicas say about the tasks running here, for as
/// long as `manager` lives.
#[cfg(feature = "server")]
pub(super) fn follow(manager: Weak<TaskManager>, bus: &dyn Bus) {
    let mut messages = bus.subscribe(TOPIC);
    tokio::spawn(async move {
        while let Some(heard) = messages.recv().await {
            let Some(manager) = manager.upgrade() else {
                return;
            };
            // A gap: waiters recheck the store on their own schedule.
            let Some(payload) = heard.message() else {
                continue;
            };
            let Ok(message) = serde_json::from_str::<Message>(&payload) else {
                tracing::debug!("ignoring a task message this version cannot read: {payload}");
                continue;
            };
            match message {
                Message::Cancel { task } => {
                    manager.inputs().remove(&task);
                    let token = manager.running().remove(&task);
                    if let Some(token) = token {
                        token.cancel();
                    }
                }
                Message::Changed { .. } => manager.changed.notify_waiters(),
                Message::Answer {
                    task,
                    owner,
                    responses,
                } => {
                    if manager.inputs().contains_key(&task) {
                        if let Err(e) = manager.answer_here(&owner, &task, &responses).await {
                            tracing::debug!("answers for task {task} not taken: {}", e.message);
                        }
                    }
                }
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let text = serde_json::to_string(&Message::cancel("t")).unwrap_or_default();
        assert_eq!(text, r#"{"cancel":{"task":"t"}}"#);
        assert!(matches!(
            serde_json::from_str::<Message>(&text),
            Ok(Message::Cancel { task }) if task == "t"
        ));
    }
}
