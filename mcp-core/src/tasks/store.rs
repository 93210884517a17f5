//! Where tasks are kept: the [`TaskStore`] trait and its bounded in-memory
//! default.

use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::Instant;

use indexmap::IndexMap;
use serde_json::value::RawValue;

use crate::jsonrpc::RpcError;
use crate::schema::Task;

/// A task with what only the receiver knows about it.
#[derive(Clone)]
pub struct TaskRecord {
    /// The task as the requestor sees it.
    pub task: Task,
    /// Who may see the task (a session id or an authorization identity).
    pub owner: String,
    /// The underlying request's outcome once the task is terminal.
    pub outcome: Option<Result<Box<RawValue>, RpcError>>,
    /// When the task may be deleted (`None`: kept until evicted).
    pub expires_at: Option<Instant>,
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

/// Why a task could not be stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskStoreFull(pub usize);

impl fmt::Display for TaskStoreFull {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the task store is full ({} tasks)", self.0)
    }
}

impl std::error::Error for TaskStoreFull {}

/// Keeps tasks. Implement it to put tasks in a shared store; every method
/// is called without any lock of the caller held.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task.
    fn insert(&self, record: TaskRecord) -> Result<(), TaskStoreFull>;
    /// The task `task_id` of `owner`, if it exists and has not expired.
    fn get(&self, owner: &str, task_id: &str) -> Option<TaskRecord>;
    /// Changes a task in place; returns it as changed.
    fn update(
        &self,
        owner: &str,
        task_id: &str,
        change: &mut dyn FnMut(&mut TaskRecord),
    ) -> Option<TaskRecord>;
    /// Every live task of `owner`, oldest first.
    fn list(&self, owner: &str) -> Vec<Task>;
    /// Deletes expired tasks; returns how many.
    fn remove_expired(&self, now: Instant) -> usize;
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

fn live(record: &TaskRecord, now: Instant) -> bool {
    record.expires_at.is_none_or(|at| at > now)
}

impl TaskStore for InMemoryTaskStore {
    fn insert(&self, record: TaskRecord) -> Result<(), TaskStoreFull> {
        let mut tasks = self.lock();
        if tasks.len() >= self.capacity {
            let now = Instant::now();
            tasks.retain(|_, r| live(r, now));
        }
        if tasks.len() >= self.capacity {
            let oldest_terminal = tasks
                .iter()
                .find(|(_, r)| super::is_terminal(r.task.status))
                .map(|(id, _)| id.clone());
            match oldest_terminal {
                Some(id) => {
                    tasks.shift_remove(&id);
                }
                None => return Err(TaskStoreFull(self.capacity)),
            }
        }
        tasks.insert(record.task.task_id.clone(), record);
        Ok(())
    }

    fn get(&self, owner: &str, task_id: &str) -> Option<TaskRecord> {
        let tasks = self.lock();
        let record = tasks.get(task_id)?;
        (record.owner == owner && live(record, Instant::now())).then(|| record.clone())
    }

    fn update(
        &self,
        owner: &str,
        task_id: &str,
        change: &mut dyn FnMut(&mut TaskRecord),
    ) -> Option<TaskRecord> {
        let mut tasks = self.lock();
        let record = tasks.get_mut(task_id).filter(|r| r.owner == owner)?;
        change(record);
        Some(record.clone())
    }

    fn list(&self, owner: &str) -> Vec<Task> {
        let now = Instant::now();
        self.lock()
            .values()
            .filter(|r| r.owner == owner && live(r, now))
            .map(|r| r.task.clone())
            .collect()
    }

    fn remove_expired(&self, now: Instant) -> usize {
        let mut tasks = self.lock();
        let before = tasks.len();
        tasks.retain(|_, r| live(r, now));
        before - tasks.len()
    }
}
