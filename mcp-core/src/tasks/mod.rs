//! Tasks (spec 2025-11-25, experimental): a task-augmented request is
//! answered at once with a `CreateTaskResult` and runs in the background;
//! the requestor polls `tasks/get`, waits with `tasks/result`, lists and
//! cancels. This module is the receiver's bookkeeping; the server role
//! (`server/tasks.rs`) runs tool calls through it. The tasks extension of
//! 2026-07-28 (`extension.rs`) keeps its tasks in the same manager.

mod extension;
mod replicas;
mod time;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, SystemTime};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

pub use crate::store::{InMemoryTaskStore, TaskRecord, TaskStore};
pub use extension::TasksRequest;
#[cfg(feature = "server")]
pub(crate) use extension::{created, owner as extension_owner};

use crate::jsonrpc::{ErrorCode, RpcError};
use crate::schema::{Task, TaskStatus};
use crate::store::{Bus, StoreError};

/// The `_meta` key that ties a message to a task.
pub const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// Whether `status` is terminal (completed, failed or cancelled).
pub fn is_terminal(status: TaskStatus) -> bool {
    status.is_terminal()
}

/// The transitions the spec allows: from `working` to anything else, from
/// `input_required` to anything else, and never out of a terminal status.
pub fn can_move(from: TaskStatus, to: TaskStatus) -> bool {
    match from {
        TaskStatus::Working => to != TaskStatus::Working,
        TaskStatus::InputRequired => to != TaskStatus::InputRequired,
        TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled => false,
    }
}

/// How a receiver runs tasks.
#[derive(Clone)]
#[non_exhaustive]
pub struct TaskConfig {
    /// Lifetime of a task that asks for none (default 1 h).
    pub default_ttl: Duration,
    /// Longest lifetime granted, whatever is asked (default 24 h).
    pub max_ttl: Duration,
    /// Suggested polling interval (default 1 s).
    pub poll_interval: Duration,
    /// Send `notifications/tasks/status` on every change (default true).
    pub status_notifications: bool,
    /// Where tasks are kept (default: in memory, 10,000 tasks). A store
    /// given to the HTTP server ([`Stores::tasks`](crate::store::Stores))
    /// replaces it.
    pub store: Arc<dyn TaskStore>,
}

impl std::fmt::Debug for TaskConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskConfig")
            .field("default_ttl", &self.default_ttl)
            .field("max_ttl", &self.max_ttl)
            .field("poll_interval", &self.poll_interval)
            .field("status_notifications", &self.status_notifications)
            .finish_non_exhaustive()
    }
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            default_ttl: Duration::from_secs(3600),
            max_ttl: Duration::from_secs(24 * 3600),
            poll_interval: Duration::from_secs(1),
            status_notifications: true,
            store: Arc::new(InMemoryTaskStore::default()),
        }
    }
}

impl TaskConfig {
    /// Sets [`default_ttl`](Self::default_ttl) and [`max_ttl`](Self::max_ttl).
    #[must_use]
    pub fn ttl(mut self, default: Duration, max: Duration) -> Self {
        self.default_ttl = default;
        self.max_ttl = max.max(default);
        self
    }

    /// Sets [`poll_interval`](Self::poll_interval).
    #[must_use]
    pub fn poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    /// Sets [`store`](Self::store).
    #[must_use]
    pub fn store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.store = store;
        self
    }

    /// Sets [`status_notifications`](Self::status_notifications).
    #[must_use]
    pub fn status_notifications(mut self, on: bool) -> Self {
        self.status_notifications = on;
        self
    }
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn not_found(task_id: &str) -> RpcError {
    RpcError::invalid_params(format!(
        "Failed to retrieve task: task `{task_id}` not found (or expired)"
    ))
}

/// A store that failed is the server's problem, not the request's.
fn store_failed(e: StoreError) -> RpcError {
    RpcError::internal(e.to_string())
}

/// What replicas share: the store every one reads, and the bus that
/// carries cancellations, answers and changes to the one running a task.
struct Shared {
    store: Arc<dyn TaskStore>,
    bus: Option<Arc<dyn Bus>>,
}

/// The receiver's live view of tasks: the store plus what cannot be stored
/// (running work to cancel, waiters to wake).
pub(crate) struct TaskManager {
    pub(crate) config: TaskConfig,
    /// Set once when the server is served with a shared store.
    shared: OnceLock<Shared>,
    running: Mutex<HashMap<String, CancellationToken>>,
    /// Input requests running extension tasks wait on, by task id.
    inputs: Mutex<HashMap<String, Vec<extension::PendingInput>>>,
    changed: Notify,
}

impl TaskManager {
    pub(crate) fn new(config: TaskConfig) -> Self {
        Self {
            config,
            shared: OnceLock::new(),
            running: Mutex::new(HashMap::new()),
            inputs: Mutex::new(HashMap::new()),
            changed: Notify::new(),
        }
    }

    /// Keeps tasks in `store` from now on, shared with other replicas, and
    /// follows `bus` for what they ask of the tasks running here. The first
    /// call wins (a server served by several HTTP servers shares one store).
    #[cfg(feature = "server")]
    pub(crate) fn share(self: &Arc<Self>, store: Arc<dyn TaskStore>, bus: Option<Arc<dyn Bus>>) {
        if self
            .shared
            .set(Shared {
                store,
                bus: bus.clone(),
            })
            .is_ok()
        {
            if let Some(bus) = bus {
                replicas::follow(Arc::downgrade(self), bus.as_ref());
            }
        }
    }

    fn store(&self) -> &dyn TaskStore {
        match self.shared.get() {
            Some(shared) => shared.store.as_ref(),
            None => self.config.store.as_ref(),
        }
    }

    fn bus(&self) -> Option<&Arc<dyn Bus>> {
        self.shared.get().and_then(|s| s.bus.as_ref())
    }

    fn running(&self) -> MutexGuard<'_, HashMap<String, CancellationToken>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn inputs(&self) -> MutexGuard<'_, HashMap<String, Vec<extension::PendingInput>>> {
        self.inputs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Wakes the waiters here, and on other replicas.
    async fn announce(&self, task_id: &str) {
        self.changed.notify_waiters();
        if let Some(bus) = self.bus() {
            replicas::publish(bus.as_ref(), &replicas::Message::changed(task_id)).await;
        }
    }

    /// Creates a `working` task for `owner`; `cancel` stops its work.
    pub(crate) async fn create(
        &self,
        owner: &str,
        requested_ttl: Option<i64>,
        cancel: CancellationToken,
    ) -> Result<Task, RpcError> {
        let store = self.store();
        let now = SystemTime::now();
        store.remove_expired(now).await.map_err(store_failed)?;
        let ttl = match requested_ttl {
            Some(ms) if ms > 0 => Duration::from_millis(u64::try_from(ms).unwrap_or(u64::MAX))
                .min(self.config.max_ttl),
            _ => self.config.default_ttl,
        };
        let mut id = [0u8; 16];
        getrandom::fill(&mut id)
            .map_err(|e| RpcError::internal(format!("no randomness for a task id: {e}")))?;
        let task_id: String = id.iter().map(|b| format!("{b:02x}")).collect();
        let stamp = time::rfc3339(now);
        let task = Task {
            ttl: Some(millis(ttl)),
            poll_interval: Some(millis(self.config.poll_interval)),
            ..Task::new(stamp.clone(), stamp, TaskStatus::Working, task_id.clone())
        };
        store
            .insert(TaskRecord::new(task.clone(), owner, Some(now + ttl)))
            .await
            .map_err(|e| RpcError::new(ErrorCode::SERVER_ERROR, e.to_string()))?;
        self.running().insert(task_id, cancel);
        Ok(task)
    }

    /// Moves a task to `status` if the spec allows it; `None` when it may
    /// not move (e.g. it was cancelled meanwhile), does not exist, or the
    /// store failed.
    pub(crate) async fn transition(
        &self,
        owner: &str,
        task_id: &str,
        status: TaskStatus,
        message: Option<String>,
    ) -> Option<Task> {
        let change = move |r: &mut TaskRecord| {
            if !can_move(r.task.status, status) {
                return false;
            }
            r.task.status = status;
            r.task.status_message.clone_from(&message);
            r.task.last_updated_at = time::rfc3339(SystemTime::now());
            if status != TaskStatus::InputRequired {
                r.input_requests.clear();
            }
            true
        };
        match self.store().update(owner, task_id, &change).await {
            Ok(Some((record, true))) => {
                self.announce(task_id).await;
                Some(record.task)
            }
            Ok(_) => None,
            Err(e) => {
                tracing::warn!("task {task_id} did not move to {status}: {e}");
                None
            }
        }
    }

    /// Records the outcome and the terminal status of a finished task. The
    /// outcome is kept once the store acknowledges it (an error otherwise,
    /// logged: the store was away).
    pub(crate) async fn finish(
        &self,
        owner: &str,
        task_id: &str,
        status: TaskStatus,
        outcome: Result<Box<RawValue>, RpcError>,
    ) -> Option<Task> {
        self.running().remove(task_id);
        self.inputs().remove(task_id);
        let change = move |r: &mut TaskRecord| {
            if !can_move(r.task.status, status) {
                return false;
            }
            r.task.status = status;
            r.task.last_updated_at = time::rfc3339(SystemTime::now());
            r.outcome = Some(outcome.clone());
            r.input_requests.clear();
            true
        };
        let written = self.store().update(owner, task_id, &change).await;
        self.announce(task_id).await;
        match written {
            Ok(Some((record, true))) => Some(record.task),
            Ok(_) => None,
            Err(e) => {
                tracing::error!("the outcome of task {task_id} was not stored: {e}");
                None
            }
        }
    }

    async fn record(&self, owner: &str, task_id: &str) -> Result<TaskRecord, RpcError> {
        self.store()
            .get(owner, task_id)
            .await
            .map_err(store_failed)?
            .ok_or_else(|| not_found(task_id))
    }

    pub(crate) async fn get(&self, owner: &str, task_id: &str) -> Result<Task, RpcError> {
        Ok(self.record(owner, task_id).await?.task)
    }

    /// Waits until the task is terminal and returns what the underlying
    /// request returned, tagged with the related-task `_meta`.
    pub(crate) async fn result(
        &self,
        owner: &str,
        task_id: &str,
        cancel: &CancellationToken,
    ) -> Result<Box<RawValue>, RpcError> {
        // Another replica's change arrives on the bus, which may lose it:
        // the store is read again now and then.
        let recheck = if self.shared.get().is_some() {
            Duration::from_secs(1)
        } else {
            Duration::from_secs(5)
        };
        loop {
            // Register interest before checking, so no change is missed.
            let changed = self.changed.notified();
            let record = self.record(owner, task_id).await?;
            if is_terminal(record.task.status) {
                return match record.outcome {
                    Some(Ok(raw)) => with_related_task(&raw, task_id),
                    Some(Err(error)) => Err(error),
                    None => Err(RpcError::new(
                        ErrorCode::SERVER_ERROR,
                        format!("task `{task_id}` was cancelled before it produced a result"),
                    )),
                };
            }
            tokio::select! {
                () = changed => {}
                () = cancel.cancelled() => {
                    return Err(RpcError::new(ErrorCode::SERVER_ERROR, "tasks/result was cancelled"));
                }
                // Expiry is noticed by polling now and then.
                () = tokio::time::sleep(recheck) => {}
            }
        }
    }

    /// Stops the work of `task_id`: here if it runs here, else on the
    /// replica that runs it (through the bus).
    async fn stop(&self, task_id: &str) {
        self.inputs().remove(task_id);
        let local = self.running().remove(task_id);
        match local {
            Some(token) => token.cancel(),
            None => {
                if let Some(bus) = self.bus() {
                    replicas::publish(bus.as_ref(), &replicas::Message::cancel(task_id)).await;
                }
            }
        }
    }

    /// Cancels a task: its work stops and it becomes `cancelled`.
    pub(crate) async fn cancel(&self, owner: &str, task_id: &str) -> Result<Task, RpcError> {
        let current = self.get(owner, task_id).await?;
        if is_terminal(current.status) {
            return Err(RpcError::invalid_params(format!(
                "task `{task_id}` is already {} and cannot be cancelled",
                current.status
            )));
        }
        let task = self
            .transition(
                owner,
                task_id,
                TaskStatus::Cancelled,
                Some("The task was cancelled by request.".into()),
            )
            .await
            .ok_or_else(|| {
                RpcError::invalid_params(format!("task `{task_id}` cannot be cancelled now"))
            })?;
        self.stop(task_id).await;
        Ok(task)
    }

    /// One page of `owner`'s tasks after `cursor` (a task id).
    pub(crate) async fn list(
        &self,
        owner: &str,
        cursor: Option<&str>,
        page: usize,
    ) -> Result<(Vec<Task>, Option<String>), RpcError> {
        let tasks = self.store().list(owner).await.map_err(store_failed)?;
        let start = match cursor {
            None => 0,
            Some(c) => tasks
                .iter()
                .position(|t| t.task_id == c)
                .ok_or_else(|| RpcError::invalid_params(format!("invalid cursor `{c}`")))?,
        };
        let page = page.max(1);
        let next = tasks.get(start + page).map(|t| t.task_id.clone());
        Ok((tasks.into_iter().skip(start).take(page).collect(), next))
    }
}

/// Sends `notifications/tasks/status` for `task` if configured to.
pub(crate) async fn notify(manager: &TaskManager, peer: &crate::session::Peer, task: Task) {
    if !manager.config.status_notifications {
        return;
    }
    let params = crate::schema::TaskStatusNotificationParams::from(task);
    // A closed session has nobody to tell.
    let _ = peer
        .notify::<crate::schema::TaskStatusNotification>(params)
        .await;
}

/// How long a cancelled task's work may take to stop by itself.
#[cfg(any(feature = "client", feature = "server"))]
const CANCEL_GRACE: Duration = Duration::from_millis(250);

/// `work`'s output, or `None` when `cancel` fires first. The work sees the
/// same token: it may stop by itself (cleaning up) for a moment before it
/// is dropped.
#[cfg(any(feature = "client", feature = "server"))]
pub(crate) async fn unless_cancelled<F: std::future::Future>(
    work: F,
    cancel: &CancellationToken,
) -> Option<F::Output> {
    tokio::pin!(work);
    tokio::select! {
        biased;
        output = &mut work => Some(output),
        () = cancel.cancelled() => {
            let _ = tokio::time::timeout(CANCEL_GRACE, &mut work).await;
            None
        }
    }
}

#[cfg(feature = "client")]
/// Runs `work` as task `task_id` in the background: its outcome becomes the
/// task's, unless the task is cancelled first (the work then gets a moment
/// to stop by itself before it is dropped).
pub(crate) fn run_in_background(
    manager: Arc<TaskManager>,
    owner: String,
    task_id: String,
    cancel: CancellationToken,
    peer: crate::session::Peer,
    work: futures::future::BoxFuture<'static, Result<Box<RawValue>, RpcError>>,
) {
    tokio::spawn(async move {
        let Some(outcome) = unless_cancelled(work, &cancel).await else {
            return;
        };
        let status = if outcome.is_ok() {
            TaskStatus::Completed
        } else {
            TaskStatus::Failed
        };
        if let Some(task) = manager.finish(&owner, &task_id, status, outcome).await {
            notify(&manager, &peer, task).await;
        }
    });
}

/// Adds `_meta["io.modelcontextprotocol/related-task"] = {taskId}` to a
/// JSON object.
pub(crate) fn with_related_task(raw: &RawValue, task_id: &str) -> Result<Box<RawValue>, RpcError> {
    let mut value: Value = serde_json::from_str(raw.get()).map_err(RpcError::internal)?;
    if let Some(object) = value.as_object_mut() {
        insert_related_task(object, task_id);
    }
    serde_json::value::to_raw_value(&value).map_err(RpcError::internal)
}

/// Adds the related-task key to an object's `_meta`.
pub(crate) fn insert_related_task(object: &mut Map<String, Value>, task_id: &str) {
    let meta = object
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(RELATED_TASK_META.into(), json!({ "taskId": task_id }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_allowed_transitions() {
        use TaskStatus::*;
        assert!(can_move(Working, InputRequired) && can_move(InputRequired, Working));
        assert!(can_move(Working, Completed) && can_move(InputRequired, Cancelled));
        for terminal in [Completed, Failed, Cancelled] {
            for to in [Working, InputRequired, Completed, Failed, Cancelled] {
                assert!(!can_move(terminal, to), "{terminal} → {to}");
            }
        }
    }

    #[tokio::test]
    async fn lifecycle_result_and_cancel() {
        let manager = TaskManager::new(
            TaskConfig::default().ttl(Duration::from_secs(60), Duration::from_secs(60)),
        );
        let task = manager
            .create("a", Some(1_000_000_000), CancellationToken::new())
            .await
            .unwrap();
        assert_eq!(task.ttl, Some(60_000), "the ttl is capped");
        assert!(
            manager.get("b", &task.task_id).await.is_err(),
            "other owners do not see it"
        );
        let raw = serde_json::value::to_raw_value(&json!({"content": []})).unwrap();
        manager
            .finish("a", &task.task_id, TaskStatus::Completed, Ok(raw))
            .await;
        let result = manager
            .result("a", &task.task_id, &CancellationToken::new())
            .await
            .unwrap();
        assert!(result.get().contains(RELATED_TASK_META));
        let err = manager.cancel("a", &task.task_id).await.unwrap_err();
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS);

        let token = CancellationToken::new();
        let other = manager.create("a", None, token.clone()).await.unwrap();
        assert_eq!(
            manager.cancel("a", &other.task_id).await.unwrap().status,
            TaskStatus::Cancelled
        );
        assert!(token.is_cancelled());
        // A late finish does not move a cancelled task.
        let raw = serde_json::value::to_raw_value(&json!({})).unwrap();
        assert!(
            manager
                .finish("a", &other.task_id, TaskStatus::Completed, Ok(raw))
                .await
                .is_none()
        );
        assert_eq!(
            manager.get("a", &other.task_id).await.unwrap().status,
            TaskStatus::Cancelled
        );
    }
}
