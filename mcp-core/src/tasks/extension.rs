//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the
//! receiver's bookkeeping: the wire shapes of its tasks (`ttlMs`,
//! `pollIntervalMs`, the result, error or open input requests inlined) and
//! input requests a running task waits on until `tasks/update` answers them.
//!
//! Tasks of both flavours live in one [`TaskManager`] and store; what differs
//! is how they are shown and who owns them: a 2025-11-25 task belongs to its
//! session, an extension task to the caller's identity (the task id itself
//! is the unguessable handle when there is none), since requests of
//! 2026-07-28 have no session.
//!
//! Only the server role runs extension tasks; a client-only build keeps
//! the shapes the manager stores.
#![cfg_attr(not(feature = "server"), allow(dead_code))]

use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::{TaskManager, TaskRecord, is_terminal};
use crate::jsonrpc::RpcError;
use crate::schema::{Task, TaskStatus};

/// A request of the tasks extension, decoded.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TasksRequest {
    /// `tasks/get`.
    Get {
        /// The task.
        task_id: String,
    },
    /// `tasks/update`: answers keyed like the task's `inputRequests`.
    Update {
        /// The task.
        task_id: String,
        /// The answers, as sent.
        input_responses: Map<String, Value>,
    },
    /// `tasks/cancel`.
    Cancel {
        /// The task.
        task_id: String,
    },
}

#[derive(Deserialize)]
struct TaskIdParams {
    #[serde(rename = "taskId")]
    task_id: String,
}

#[derive(Deserialize)]
struct UpdateParams {
    #[serde(rename = "taskId")]
    task_id: String,
    #[serde(rename = "inputResponses")]
    input_responses: Value,
}

impl TasksRequest {
    /// Decodes the params of `method`; -32602 when they do not fit.
    pub(crate) fn decode(
        method: crate::extensions::ExtensionMethod,
        params: Option<&serde_json::value::RawValue>,
    ) -> Result<Self, RpcError> {
        use crate::extensions::ExtensionMethod;
        let text = params.map_or("null", |p| p.get());
        let bad = |e: serde_json::Error| {
            RpcError::invalid_params(format!("invalid `{}` params: {e}", method.as_str()))
        };
        match method {
            ExtensionMethod::TasksGet => {
                let p: TaskIdParams = serde_json::from_str(text).map_err(bad)?;
                Ok(Self::Get { task_id: p.task_id })
            }
            ExtensionMethod::TasksCancel => {
                let p: TaskIdParams = serde_json::from_str(text).map_err(bad)?;
                Ok(Self::Cancel { task_id: p.task_id })
            }
            ExtensionMethod::TasksUpdate => {
                let p: UpdateParams = serde_json::from_str(text).map_err(bad)?;
                match p.input_responses {
                    Value::Object(input_responses) => Ok(Self::Update {
                        task_id: p.task_id,
                        input_responses,
                    }),
                    _ => Err(RpcError::invalid_params(
                        "`inputResponses` must be an object keyed by input request",
                    )),
                }
            }
            other => Err(RpcError::method_not_found(other.as_str())),
        }
    }
}

/// An input request a running task waits on here (the question itself is
/// in the task's record).
#[derive(Debug)]
pub(crate) struct PendingInput {
    key: String,
    answer: oneshot::Sender<Value>,
}

/// The owner of extension tasks created by a caller with this identity
/// (the bearer token's subject; none without protection). Never a session
/// id, so no 2025 session sees them.
pub(crate) fn owner(subject: Option<&str>) -> String {
    format!("ext:{}", subject.unwrap_or_default())
}

/// A task as the extension shows it: the 2025 fields renamed (`ttlMs`,
/// `pollIntervalMs`) and nothing else of the record.
fn wire(task: &Task) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("taskId".into(), json!(task.task_id));
    out.insert("status".into(), json!(task.status));
    if let Some(message) = &task.status_message {
        out.insert("statusMessage".into(), json!(message));
    }
    out.insert("createdAt".into(), json!(task.created_at));
    out.insert("lastUpdatedAt".into(), json!(task.last_updated_at));
    out.insert("ttlMs".into(), json!(task.ttl));
    if let Some(interval) = task.poll_interval {
        out.insert("pollIntervalMs".into(), json!(interval));
    }
    out
}

/// The `CreateTaskResult` of the extension: the task, flat, with
/// `resultType: "task"`.
pub(crate) fn created(task: &Task) -> Map<String, Value> {
    let mut out = wire(task);
    out.insert("resultType".into(), json!("task"));
    out
}

impl TaskManager {
    /// The task as `tasks/get` of the extension answers it: its open input
    /// requests while `input_required`, its result once `completed`, its
    /// error once `failed`.
    pub(crate) async fn detailed(
        &self,
        owner: &str,
        task_id: &str,
    ) -> Result<Map<String, Value>, RpcError> {
        let record = self.record(owner, task_id).await?;
        let mut out = wire(&record.task);
        match (record.task.status, record.outcome) {
            (TaskStatus::InputRequired, _) => {
                out.insert("inputRequests".into(), Value::Object(record.input_requests));
            }
            (TaskStatus::Completed, Some(Ok(raw))) => {
                let result: Value = serde_json::from_str(raw.get()).map_err(RpcError::internal)?;
                out.insert("result".into(), result);
            }
            (TaskStatus::Failed, Some(Err(error))) => {
                let error = serde_json::to_value(&error).map_err(RpcError::internal)?;
                out.insert("error".into(), error);
            }
            _ => {}
        }
        Ok(out)
    }

    /// Waits for the client's answer to `request` (`{method, params}`)
    /// under `key`: the task is `input_required` until every open request
    /// is answered (`tasks/update`). Ends with an error if the task ends
    /// meanwhile (`cancel` fires).
    pub(crate) async fn ask(
        &self,
        owner: &str,
        task_id: &str,
        key: String,
        request: Value,
        cancel: &CancellationToken,
    ) -> Result<Value, RpcError> {
        let (tx, rx) = oneshot::channel();
        self.inputs()
            .entry(task_id.to_string())
            .or_default()
            .push(PendingInput {
                key: key.clone(),
                answer: tx,
            });
        // The question goes into the record, so `tasks/get` shows it on
        // every replica, and the task is `input_required` with it.
        let change = move |r: &mut TaskRecord| {
            if is_terminal(r.task.status) {
                return false;
            }
            r.input_requests.insert(key.clone(), request.clone());
            if r.task.status != TaskStatus::InputRequired {
                r.task.status = TaskStatus::InputRequired;
                r.task.status_message = None;
                r.task.last_updated_at = super::time::rfc3339(std::time::SystemTime::now());
            }
            true
        };
        match self.store().update(owner, task_id, &change).await {
            Ok(Some((_, true))) => self.announce(task_id).await,
            Ok(_) => {}
            Err(e) => return Err(super::store_failed(e)),
        }
        tokio::select! {
            answer = rx => answer.map_err(|_| RpcError::internal("the task ended while waiting for input")),
            () = cancel.cancelled() => Err(RpcError::internal("the task was cancelled while waiting for input")),
        }
    }

    /// `tasks/update`: hands each answer to the request open under its key;
    /// keys not open (never asked, already answered) are ignored. Once none
    /// is open, the task is `working` again. A task running on another
    /// replica gets the answers there (bus).
    pub(crate) async fn answer(
        &self,
        owner: &str,
        task_id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), RpcError> {
        self.get(owner, task_id).await?;
        if self.inputs().contains_key(task_id) {
            return self.answer_here(owner, task_id, responses).await;
        }
        if let Some(bus) = self.bus() {
            let message = super::replicas::Message::Answer {
                task: task_id.to_string(),
                owner: owner.to_string(),
                responses: responses.clone(),
            };
            super::replicas::publish(bus.as_ref(), &message).await;
        }
        Ok(())
    }

    /// [`answer`](Self::answer) for a task whose questions wait here.
    pub(crate) async fn answer_here(
        &self,
        owner: &str,
        task_id: &str,
        responses: &Map<String, Value>,
    ) -> Result<(), RpcError> {
        let (answered, open) = {
            let mut inputs = self.inputs();
            let Some(pending) = inputs.get_mut(task_id) else {
                return Ok(());
            };
            let mut answered = Vec::new();
            let mut kept = Vec::with_capacity(pending.len());
            for input in pending.drain(..) {
                match responses.get(&input.key) {
                    // Only an object answers a request; anything else leaves
                    // it open.
                    Some(answer) if answer.is_object() => {
                        // The task may have stopped waiting meanwhile.
                        let _ = input.answer.send(answer.clone());
                        answered.push(input.key);
                    }
                    _ => kept.push(input),
                }
            }
            let open = kept.len();
            *pending = kept;
            if open == 0 {
                inputs.remove(task_id);
            }
            (answered, open)
        };
        if answered.is_empty() {
            return Ok(());
        }
        let change = move |r: &mut TaskRecord| {
            for key in &answered {
                r.input_requests.remove(key);
            }
            if open == 0 && r.task.status == TaskStatus::InputRequired {
                r.task.status = TaskStatus::Working;
                r.task.status_message = None;
                r.task.last_updated_at = super::time::rfc3339(std::time::SystemTime::now());
            }
            true
        };
        self.store()
            .update(owner, task_id, &change)
            .await
            .map_err(super::store_failed)?;
        self.announce(task_id).await;
        Ok(())
    }

    /// `tasks/cancel` of the extension: an acknowledgement for any known
    /// task (a terminal one stays as it is); the work of a running one is
    /// told to stop, wherever it runs, and the task becomes `cancelled`.
    pub(crate) async fn request_cancel(&self, owner: &str, task_id: &str) -> Result<(), RpcError> {
        let task = self.get(owner, task_id).await?;
        if is_terminal(task.status) {
            return Ok(());
        }
        self.transition(
            owner,
            task_id,
            TaskStatus::Cancelled,
            Some("The task was cancelled by request.".into()),
        )
        .await;
        self.stop(task_id).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::TaskConfig;

    #[tokio::test]
    async fn input_requests_wait_for_updates() {
        let manager = std::sync::Arc::new(TaskManager::new(TaskConfig::default()));
        let owner = owner(None);
        let task = manager
            .create(&owner, None, CancellationToken::new())
            .await
            .unwrap();
        let id = task.task_id.clone();
        let cancel = CancellationToken::new();
        let asking = {
            let (manager, owner, id, cancel) =
                (manager.clone(), owner.clone(), id.clone(), cancel.clone());
            tokio::spawn(async move {
                let a = manager.ask(&owner, &id, "a".into(), json!({"method": "m"}), &cancel);
                let b = manager.ask(&owner, &id, "b".into(), json!({"method": "m"}), &cancel);
                tokio::join!(a, b)
            })
        };
        let open = async |m: &TaskManager| {
            m.detailed(&owner, &id)
                .await
                .unwrap()
                .get("inputRequests")
                .and_then(Value::as_object)
                .map(|o| o.keys().cloned().collect::<Vec<_>>())
        };
        for _ in 0..100 {
            if open(&manager).await.is_some_and(|k| k.len() == 2) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        assert_eq!(
            open(&manager).await,
            Some(vec!["a".to_string(), "b".to_string()])
        );
        let mut answers = Map::new();
        answers.insert("a".into(), json!({"action": "accept"}));
        answers.insert("zzz".into(), json!({"ignored": true}));
        manager.answer(&owner, &id, &answers).await.unwrap();
        assert_eq!(
            open(&manager).await,
            Some(vec!["b".to_string()]),
            "only b is open"
        );
        let mut answers = Map::new();
        answers.insert("b".into(), json!({"action": "decline"}));
        manager.answer(&owner, &id, &answers).await.unwrap();
        let (a, b) = asking.await.unwrap();
        assert_eq!(a.unwrap()["action"], "accept");
        assert_eq!(b.unwrap()["action"], "decline");
        assert_eq!(
            manager.get(&owner, &id).await.unwrap().status,
            TaskStatus::Working
        );
        assert!(manager.answer("other", &id, &Map::new()).await.is_err());
    }

    #[test]
    fn created_is_flat_with_renamed_fields() {
        let task = Task {
            ttl: Some(5),
            poll_interval: Some(7),
            ..Task::new("c", "u", TaskStatus::Working, "t")
        };
        let out = Value::Object(created(&task));
        assert_eq!(out["resultType"], "task");
        assert_eq!(
            (out["ttlMs"].clone(), out["pollIntervalMs"].clone()),
            (json!(5), json!(7))
        );
        assert!(out.get("ttl").is_none() && out.get("task").is_none());
    }
}
