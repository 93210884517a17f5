//! Where tasks are kept: the [`TaskStore`] trait, the record it keeps, and
//! the bounded in-memory default. Expiry is wall-clock time
//! ([`SystemTime`]), so a record means the same on every replica.

use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{StoreError, StoreResult};
use crate::jsonrpc::RpcError;
use crate::schema::Task;

/// A task with what only the receiver knows about it.
#[derive(Clone)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task as the requestor sees it.
    pub task: Task,
    /// Who may see the task (a session's task owner or an authorization
    /// identity).
    pub owner: String,
    /// The underlying request's outcome once the task is terminal.
    pub outcome: Option<Result<Box<RawValue>, RpcError>>,
    /// When the task may be deleted (`None`: kept until evicted).
    pub expires_at: Option<SystemTime>,
    /// The questions a task of the tasks extension waits on, by key
    /// (`{method, params}` each), as `tasks/get` shows them.
    pub input_requests: Map<String, Value>,
}

impl TaskRecord {
    /// A new record of `task` for `owner`, expiring at `expires_at`.
    pub fn new(task: Task, owner: impl Into<String>, expires_at: Option<SystemTime>) -> Self {
        Self {
            task,
            owner: owner.into(),
            outcome: None,
            expires_at,
            input_requests: Map::new(),
        }
    }

    /// Whether the record is still alive at `now`.
    pub fn is_live(&self, now: SystemTime) -> bool {
        self.expires_at.is_none_or(|at| at > now)
    }

    /// How long the record has left at `now` (`None`: no expiry).
    pub fn remaining(&self, now: SystemTime) -> Option<Duration> {
        self.expires_at
            .map(|at| at.duration_since(now).unwrap_or(Duration::ZERO))
    }

    /// The record as JSON text, for a store that keeps text (Redis,
    /// PostgreSQL, …); [`decode`](Self::decode) reads it back.
    pub fn encode(&self) -> String {
        let (result, error) = match &self.outcome {
            Some(Ok(raw)) => (Some(raw.clone()), None),
            Some(Err(e)) => (None, Some(e.clone())),
            None => (None, None),
        };
        let stored = Stored {
            task: self.task.clone(),
            owner: self.owner.clone(),
            result,
            error,
            expires_at_ms: self.expires_at.map(|at| {
                let since = at.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
                u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
            }),
            input_requests: self.input_requests.clone(),
        };
        serde_json::to_string(&stored).unwrap_or_default()
    }

    /// Reads what [`encode`](Self::encode) wrote.
    pub fn decode(text: &str) -> Result<Self, String> {
        let stored: Stored =
            serde_json::from_str(text).map_err(|e| format!("unreadable task record: {e}"))?;
        let outcome = match (stored.result, stored.error) {
            (Some(raw), _) => Some(Ok(raw)),
            (None, Some(error)) => Some(Err(error)),
            (None, None) => None,
        };
        Ok(Self {
            task: stored.task,
            owner: stored.owner,
            outcome,
            expires_at: stored
                .expires_at_ms
                .map(|ms| UNIX_EPOCH + Duration::from_millis(ms)),
            input_requests: stored.input_requests,
        })
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    task: Task,
    owner: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    result: Option<Box<RawValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<RpcError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    input_requests: Map<String, Value>,
}

impl fmt::Debug for TaskRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskRecord")
            .field("task", &self.task)
            .field("owner", &self.owner)
            .field("has_outcome", &self.outcome.is_some())
            .finish_non_exhaustive()
    }
}

/// A change to a task record: edits it in place and says whether it
/// changed anything (nothing is written otherwise). A shared store may call
/// it more than once, on fresher copies, when another replica wrote the
/// record meanwhile.
pub type TaskChange<'a> = &'a (dyn Fn(&mut TaskRecord) -> bool + Send + Sync);

/// Keeps tasks: status, outcome, open questions, expiry. The receiver's
/// live view (running work, waiters) stays in the process; this is what
/// every replica reads. Every method is called without any lock of the
/// caller held, on the path of a task request.
#[async_trait]
pub trait TaskStore: fmt::Debug + Send + Sync + 'static {
    /// Stores a new task; an error if it cannot be kept (full, store away).
    async fn insert(&self, record: TaskRecord) -> StoreResult<()>;
    /// The task `task_id` of `owner`, if it exists and has not expired.
    async fn get(&self, owner: &str, task_id: &str) -> StoreResult<Option<TaskRecord>>;
    /// Applies `change` to the task atomically (no write of another
    /// replica in between is lost); returns the record as it now is and
    /// whether `change` changed it, or `None` if there is no such task.
    async fn update(
        &self,
        owner: &str,
        task_id: &str,
        change: TaskChange<'_>,
    ) -> StoreResult<Option<(TaskRecord, bool)>>;
    /// Every live task of `owner`, oldest first.
    async fn list(&self, owner: &str) -> StoreResult<Vec<Task>>;
    /// Deletes tasks expired at `now` (a store that expires by itself
    /// returns 0); returns how many.
    async fn remove_expired(&self, now: SystemTime) -> StoreResult<usize>;
}

/// The default store: in memory, at most `capacity` tasks. When full, the
/// oldest terminal task is evicted; if none is terminal, new tasks are
/// refused.
#[derive(Debug)]
pub struct InMemoryTaskStore {
    capacity: usize,
    tasks: Mutex<IndexMap<String, TaskRecord>>,
}

impl InMemoryTaskStore {
    /// A store for at most `capacity` tasks.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            tasks: Mutex::new(IndexMap::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, IndexMap<String, TaskRecord>> {
        self.tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new(10_000)
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn insert(&self, record: TaskRecord) -> StoreResult<()> {
        let mut tasks = self.lock();
        if tasks.len() >= self.capacity {
            let now = SystemTime::now();
            tasks.retain(|_, r| r.is_live(now));
        }
        if tasks.len() >= self.capacity {
            let oldest_terminal = tasks
                .iter()
                .find(|(_, r)| r.task.status.is_terminal())
                .map(|(id, _)| id.clone());
            match oldest_terminal {
                Some(id) => {
                    tasks.shift_remove(&id);
                }
                None => {
                    return Err(StoreError {
                        store: "memory".into(),
                        message: format!("the task store is full ({} tasks)", self.capacity),
                    });
                }
            }
        }
        tasks.insert(record.task.task_id.clone(), record);
        Ok(())
    }

    async fn get(&self, owner: &str, task_id: &str) -> StoreResult<Option<TaskRecord>> {
        let tasks = self.lock();
        Ok(tasks
            .get(task_id)
            .filter(|r| r.owner == owner && r.is_live(SystemTime::now()))
            .cloned())
    }

    async fn update(
        &self,
        owner: &str,
        task_id: &str,
        change: TaskChange<'_>,
    ) -> StoreResult<Option<(TaskRecord, bool)>> {
        let mut tasks = self.lock();
        let Some(record) = tasks.get_mut(task_id).filter(|r| r.owner == owner) else {
            return Ok(None);
        };
        let changed = change(record);
        Ok(Some((record.clone(), changed)))
    }

    async fn list(&self, owner: &str) -> StoreResult<Vec<Task>> {
        let now = SystemTime::now();
        Ok(self
            .lock()
            .values()
            .filter(|r| r.owner == owner && r.is_live(now))
            .map(|r| r.task.clone())
            .collect())
    }

    async fn remove_expired(&self, now: SystemTime) -> StoreResult<usize> {
        let mut tasks = self.lock();
        let before = tasks.len();
        tasks.retain(|_, r| r.is_live(now));
        Ok(before - tasks.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::TaskStatus;

    fn record(id: &str, expires_at: Option<SystemTime>) -> TaskRecord {
        TaskRecord::new(
            Task::new(String::new(), String::new(), TaskStatus::Working, id),
            "o",
            expires_at,
        )
    }

    #[tokio::test]
    async fn expired_tasks_are_gone() {
        let store = InMemoryTaskStore::new(2);
        store
            .insert(record("t", Some(SystemTime::now())))
            .await
            .unwrap();
        assert!(store.get("o", "t").await.unwrap().is_none());
        assert_eq!(store.remove_expired(SystemTime::now()).await.unwrap(), 1);
    }

    #[tokio::test]
    async fn a_full_store_refuses_when_nothing_is_terminal() {
        let store = InMemoryTaskStore::new(1);
        store.insert(record("a", None)).await.unwrap();
        let err = store.insert(record("b", None)).await.unwrap_err();
        assert!(err.message.contains("full"), "{err}");
    }

    #[test]
    fn records_round_trip_as_text() {
        let mut done = record(
            "t",
            Some(UNIX_EPOCH + Duration::from_millis(1_764_064_200_123)),
        );
        done.outcome = Some(Ok(
            RawValue::from_string(r#"{"content":[]}"#.into()).unwrap()
        ));
        done.input_requests
            .insert("k".into(), serde_json::json!({"method": "m"}));
        let back = TaskRecord::decode(&done.encode()).unwrap();
        assert_eq!(back.encode(), done.encode());
        assert!(back.expires_at == done.expires_at && back.outcome.is_some());
        let mut failed = record("u", None);
        failed.outcome = Some(Err(RpcError::internal("boom")));
        let back = TaskRecord::decode(&failed.encode()).unwrap();
        assert_eq!(back.encode(), failed.encode());
        assert!(matches!(back.outcome, Some(Err(_))));
        assert!(TaskRecord::decode("{}").is_err());
    }
}
