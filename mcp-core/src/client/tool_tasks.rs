//! Tool calls run as tasks, one API over both revisions: the core tasks of
//! 2025-11-25 (`tools/call` with `task`, `tasks/get|result|list|cancel`) and
//! the tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`: a
//! `tools/call` answered with `resultType: "task"`, then
//! `tasks/get|update|cancel`, the task's input requests answered with the
//! user's sampling, elicitation and roots handlers).

use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use super::Client;
use super::modern::{Modern, ResultKind, result_kind};
use crate::extensions::{ExtensionMethod, TASKS};
use crate::jsonrpc::RpcError;
use crate::schema::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelTaskRequest,
    CancelTaskRequestParams, CancelTaskResult, ClientRequestMethod, CreateTaskResult,
    GetTaskPayloadRequest, GetTaskPayloadRequestParams, GetTaskRequest, GetTaskRequestParams,
    GetTaskResult, InputRequests, ListTasksRequest, ListTasksResult, McpRequest, Task,
    TaskMetadata, TaskStatus,
};
use crate::session::RequestOptions;
use crate::{Error, Result};

/// Bounds on the interval between two polls of a task, whatever the server
/// suggests.
const MIN_POLL: Duration = Duration::from_millis(10);
const MAX_POLL: Duration = Duration::from_secs(60);
/// The interval when the server suggests none.
const DEFAULT_POLL: Duration = Duration::from_secs(1);

/// What starting a tool call as a task gave back.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ToolTaskStart {
    /// The task; wait for its result with [`Client::await_tool_task`].
    Task(Task),
    /// The final result: the server ran the call without a task (a tool
    /// that does not run as one, under the tasks extension).
    Done(CallToolResult),
}

fn poll_interval(ms: Option<i64>) -> Duration {
    ms.and_then(|ms| u64::try_from(ms).ok())
        .map_or(DEFAULT_POLL, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// A task as the extension shows it (`ttlMs`, `pollIntervalMs`, maybe
/// `result`/`error`/`inputRequests` inlined) in the 2025-11-25 shape:
/// the renamed fields back under their old names, the inlined ones kept in
/// `extra`.
fn task_of_extension(raw: &RawValue, method: &str) -> Result<GetTaskResult> {
    let malformed = |why: String| Error::Protocol(format!("malformed `{method}` answer: {why}"));
    let mut object: Map<String, Value> =
        serde_json::from_str(raw.get()).map_err(|e| malformed(e.to_string()))?;
    object.remove("resultType");
    for (from, to) in [("ttlMs", "ttl"), ("pollIntervalMs", "pollInterval")] {
        if let Some(value) = object.remove(from) {
            object.insert(to.into(), value);
        }
    }
    serde_json::from_value(Value::Object(object)).map_err(|e| malformed(e.to_string()))
}

impl Client {
    /// The revision's per-request metadata when tasks are the extension's
    /// (2026-07-28), `None` when they are the core API of a session.
    fn extension_tasks(&self) -> Option<&Modern> {
        self.modern
            .as_ref()
            .filter(|_| self.version.has_extensions())
    }

    /// Whether the server offers the tasks extension (in the capabilities
    /// of its `server/discover` answer).
    pub fn offers_tasks_extension(&self) -> bool {
        self.extension_tasks().is_some()
            && self
                .server
                .capabilities
                .extensions
                .as_ref()
                .is_some_and(|e| e.contains_key(TASKS))
    }

    fn has_tool_tasks(&self) -> Result<()> {
        if self.extension_tasks().is_some() {
            return self.require(
                self.offers_tasks_extension(),
                ClientRequestMethod::CallTool.as_str(),
                &format!("extensions.{TASKS}"),
            );
        }
        let declared = self
            .server
            .capabilities
            .tasks
            .as_ref()
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .and_then(|t| t.call.as_ref())
            .is_some();
        self.require(
            declared,
            ClientRequestMethod::CallTool.as_str(),
            "tasks.requests.tools.call",
        )
    }

    /// A request of the tasks extension (the extension declared on it).
    async fn extension_request(
        &self,
        modern: &Modern,
        method: ExtensionMethod,
        params: &Map<String, Value>,
    ) -> Result<Box<RawValue>> {
        modern
            .call_declaring(
                self.peer(),
                &self.service,
                method.as_str(),
                params,
                RequestOptions::default(),
                Some(TASKS),
            )
            .await
    }

    /// Starts `tools/call` as a task, under either revision: in a
    /// 2025-11-25 session with `task` (the server must declare
    /// `tasks.requests.tools.call` and the tool allow it); under 2026-07-28
    /// declaring the tasks extension, where the server decides, so the
    /// answer may be the final result. `ttl` asks how long a 2025-11-25
    /// server keeps the task.
    pub async fn start_tool_task(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        ttl: Option<Duration>,
    ) -> Result<ToolTaskStart> {
        self.has_tool_tasks()?;
        let Some(modern) = self.extension_tasks() else {
            let params = CallToolRequestParams {
                arguments,
                task: Some(TaskMetadata {
                    ttl: ttl.map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX)),
                    ..TaskMetadata::new()
                }),
                ..CallToolRequestParams::new(name)
            };
            let raw = self
                .send_raw(
                    <CallToolRequest as McpRequest>::METHOD,
                    &params,
                    RequestOptions::default(),
                )
                .await?;
            let created: CreateTaskResult = serde_json::from_str(raw.get())?;
            return Ok(ToolTaskStart::Task(created.task));
        };
        let params = CallToolRequestParams {
            arguments,
            ..CallToolRequestParams::new(name)
        };
        let raw = modern
            .call_declaring(
                self.peer(),
                &self.service,
                <CallToolRequest as McpRequest>::METHOD,
                &params,
                RequestOptions::default(),
                Some(TASKS),
            )
            .await?;
        self.tool_call_answer(name, &raw)
    }

    /// A `tools/call` answer of 2026-07-28: the final result or a task.
    fn tool_call_answer(&self, name: &str, raw: &RawValue) -> Result<ToolTaskStart> {
        let method = <CallToolRequest as McpRequest>::METHOD;
        match result_kind(raw)? {
            ResultKind::Task => Ok(ToolTaskStart::Task(as_task(task_of_extension(
                raw, method,
            )?)?)),
            _ => {
                let result: CallToolResult = serde_json::from_str(raw.get())?;
                self.check_structured_content(name, &result)?;
                Ok(ToolTaskStart::Done(result))
            }
        }
    }

    /// A `tools/call` answer of a request that may become a task (the user
    /// opted in with [`ClientBuilder::tasks_extension`](super::ClientBuilder::tasks_extension)):
    /// the final result, waiting for the task if it is one.
    pub(super) async fn finish_tool_call(
        &self,
        name: &str,
        raw: &RawValue,
    ) -> Result<CallToolResult> {
        match self.tool_call_answer(name, raw)? {
            ToolTaskStart::Done(result) => Ok(result),
            ToolTaskStart::Task(task) => {
                let result = self.await_tool_task(&task.task_id).await?;
                self.check_structured_content(name, &result)?;
                Ok(result)
            }
        }
    }

    /// Starts `tools/call` as a task and returns at once with the task
    /// (see [`start_tool_task`](Self::start_tool_task), which also gives
    /// back a final result: under the tasks extension of 2026-07-28 a server
    /// answering without a task is an error here).
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        ttl: Option<Duration>,
    ) -> Result<CreateTaskResult> {
        match self.start_tool_task(name, arguments, ttl).await? {
            ToolTaskStart::Task(task) => Ok(CreateTaskResult::new(task)),
            ToolTaskStart::Done(_) => Err(Error::Protocol(format!(
                "the server ran `{name}` without a task (use start_tool_task to take its result)"
            ))),
        }
    }

    /// `tasks/get`, under either revision. Under the tasks extension the
    /// answer's inlined `result`, `error` or `inputRequests` are in
    /// `extra`, and `ttlMs`/`pollIntervalMs` in `ttl`/`poll_interval`.
    pub async fn get_task(&self, task_id: &str) -> Result<GetTaskResult> {
        let Some(modern) = self.extension_tasks() else {
            let params = GetTaskRequestParams::new(task_id);
            return self
                .send::<GetTaskRequest>(params, RequestOptions::default())
                .await;
        };
        let method = ExtensionMethod::TasksGet;
        let params = task_params(task_id);
        let raw = self.extension_request(modern, method, &params).await?;
        let task = task_of_extension(&raw, method.as_str())?;
        if task.task_id != task_id {
            return Err(Error::Protocol(format!(
                "`{}` for task `{task_id}` answered with task `{}`",
                method.as_str(),
                task.task_id
            )));
        }
        Ok(task)
    }

    /// `tasks/result` of a tool-call task: waits until the task ends and
    /// returns the tool's result (or the call's error). The tasks extension
    /// has no `tasks/result`: there this is [`await_tool_task`](Self::await_tool_task).
    pub async fn tool_task_result(&self, task_id: &str) -> Result<CallToolResult> {
        if self.extension_tasks().is_some() {
            return self.await_tool_task(task_id).await;
        }
        self.task_payload(task_id).await
    }

    /// `tasks/result` (2025-11-25).
    async fn task_payload(&self, task_id: &str) -> Result<CallToolResult> {
        let params = GetTaskPayloadRequestParams::new(task_id);
        let raw = self
            .send_raw(
                <GetTaskPayloadRequest as McpRequest>::METHOD,
                &params,
                RequestOptions::default().timeout(self.task_wait_limit),
            )
            .await?;
        Ok(serde_json::from_str(raw.get())?)
    }

    /// Waits for a tool-call task to end and returns the tool's result (or
    /// the call's error), polling `tasks/get` at the server's interval
    /// (clamped to 10 ms – 60 s) for at most
    /// [`task_wait_limit`](super::ClientBuilder::task_wait_limit). In a
    /// 2025-11-25 session it fetches the result with `tasks/result` once
    /// the task ends or needs input (which delivers the server's requests
    /// to the handlers); under the tasks extension it answers the task's
    /// `inputRequests` with the handlers and `tasks/update` (at most
    /// [`max_input_rounds`](super::ClientBuilder::max_input_rounds) times).
    pub async fn await_tool_task(&self, task_id: &str) -> Result<CallToolResult> {
        let deadline = Instant::now() + self.task_wait_limit;
        let mut rounds = 0;
        loop {
            let task = self.get_task(task_id).await?;
            let interval = poll_interval(task.poll_interval);
            match self.extension_tasks() {
                None => {
                    if crate::tasks::is_terminal(task.status)
                        || task.status == TaskStatus::InputRequired
                    {
                        return self.task_payload(task_id).await;
                    }
                }
                Some(modern) => {
                    if let Some(done) = extension_outcome(&task)? {
                        return Ok(done);
                    }
                    if task.status == TaskStatus::InputRequired {
                        if rounds == modern.max_rounds {
                            return Err(Error::Protocol(format!(
                                "task `{task_id}` still needs input after {rounds} rounds; \
                                 giving up (ClientBuilder::max_input_rounds)"
                            )));
                        }
                        rounds += 1;
                        self.answer_task_input(modern, &task).await?;
                        continue;
                    }
                }
            }
            if Instant::now() + interval > deadline {
                return Err(Error::Protocol(format!(
                    "task `{task_id}` is still `{}` after {:?} (ClientBuilder::task_wait_limit)",
                    task.status, self.task_wait_limit
                )));
            }
            tokio::time::sleep(interval).await;
        }
    }

    /// Answers an extension task's open `inputRequests` through the
    /// handlers and sends the answers with `tasks/update`.
    async fn answer_task_input(&self, modern: &Modern, task: &GetTaskResult) -> Result<()> {
        let method = ExtensionMethod::TasksUpdate;
        let requests: InputRequests = task
            .extra
            .get("inputRequests")
            .cloned()
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| {
                Error::Protocol(format!(
                    "task `{}` has malformed inputRequests: {e}",
                    task.task_id
                ))
            })?
            .ok_or_else(|| {
                Error::Protocol(format!(
                    "task `{}` is input_required but lists no inputRequests",
                    task.task_id
                ))
            })?;
        let answers = modern
            .answer(
                self.peer(),
                &self.service,
                method.as_str(),
                Some(requests),
                &RequestOptions::default(),
            )
            .await?;
        let mut params = task_params(&task.task_id);
        let answers = answers.map(serde_json::to_value).transpose()?;
        params.insert(
            "inputResponses".into(),
            answers.unwrap_or_else(|| json!({})),
        );
        self.extension_request(modern, method, &params).await?;
        Ok(())
    }

    /// One page of `tasks/list` (2025-11-25 only: the tasks extension has
    /// no listing).
    pub async fn list_tasks(&self, cursor: Option<String>) -> Result<ListTasksResult> {
        if self.extension_tasks().is_some() {
            return Err(Error::ProtocolVersion(format!(
                "the `{TASKS}` extension has no tasks/list"
            )));
        }
        let params = cursor.map(|cursor| crate::schema::PaginatedRequestParams {
            cursor: Some(cursor),
            ..crate::schema::PaginatedRequestParams::new()
        });
        self.send::<ListTasksRequest>(params, RequestOptions::default())
            .await
    }

    /// `tasks/cancel`, under either revision. The extension's answer is an
    /// acknowledgement only, so the task is then fetched with `tasks/get`.
    pub async fn cancel_task(&self, task_id: &str) -> Result<CancelTaskResult> {
        let Some(modern) = self.extension_tasks() else {
            let params = CancelTaskRequestParams::new(task_id);
            return self
                .send::<CancelTaskRequest>(params, RequestOptions::default())
                .await;
        };
        let params = task_params(task_id);
        self.extension_request(modern, ExtensionMethod::TasksCancel, &params)
            .await?;
        let task = self.get_task(task_id).await?;
        Ok(CancelTaskResult::from(as_task(task)?))
    }
}

/// The task itself, without what `tasks/get` of the extension inlines.
fn as_task(task: GetTaskResult) -> Result<Task> {
    let mut value = serde_json::to_value(task)?;
    if let Value::Object(object) = &mut value {
        for inlined in ["result", "error", "inputRequests", "resultType", "_meta"] {
            object.remove(inlined);
        }
    }
    serde_json::from_value(value).map_err(|e| Error::Protocol(format!("malformed task: {e}")))
}

fn task_params(task_id: &str) -> Map<String, Value> {
    let mut params = Map::new();
    params.insert("taskId".into(), json!(task_id));
    params
}

/// The end of an extension task: its result once `completed`, its error
/// once `failed`, an error once `cancelled`; `None` while it runs.
fn extension_outcome(task: &GetTaskResult) -> Result<Option<CallToolResult>> {
    let id = &task.task_id;
    match task.status {
        TaskStatus::Completed => {
            let result = task.extra.get("result").ok_or_else(|| {
                Error::Protocol(format!("task `{id}` is completed but has no result"))
            })?;
            serde_json::from_value(result.clone())
                .map(Some)
                .map_err(|e| Error::Protocol(format!("task `{id}` has a malformed result: {e}")))
        }
        TaskStatus::Failed => {
            let error = task
                .extra
                .get("error")
                .ok_or_else(|| Error::Protocol(format!("task `{id}` failed but gives no error")))?;
            let error: RpcError = serde_json::from_value(error.clone())
                .map_err(|e| Error::Protocol(format!("task `{id}` has a malformed error: {e}")))?;
            Err(Error::Rpc(error))
        }
        TaskStatus::Cancelled => Err(Error::Cancelled(format!(
            "task `{id}` was cancelled{}",
            task.status_message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ))),
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(value: Value) -> Result<GetTaskResult> {
        let raw = RawValue::from_string(value.to_string()).map_err(Error::Json)?;
        task_of_extension(&raw, "tasks/get")
    }

    fn base(status: &str) -> Value {
        json!({"taskId": "t", "status": status, "createdAt": "2026-01-01T00:00:00Z",
               "lastUpdatedAt": "2026-01-01T00:00:00Z", "ttlMs": 5, "pollIntervalMs": 7,
               "resultType": "complete"})
    }

    #[test]
    fn extension_tasks_read_as_2025_tasks() {
        let t = task(base("working")).unwrap();
        assert_eq!((t.ttl, t.poll_interval), (Some(5), Some(7)));
        assert!(extension_outcome(&t).unwrap().is_none());
        assert!(task(json!({"status": "working"})).is_err(), "no taskId");
        assert!(task(json!([1])).is_err());
        assert!(task(json!({"taskId": "t", "status": "later"})).is_err());
    }

    #[test]
    fn malformed_ends_are_clear_errors() {
        let done = |extra: Value| {
            let mut v = base("completed");
            v.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            extension_outcome(&task(v).unwrap())
        };
        let ok = done(json!({"result": {"content": [{"type": "text", "text": "x"}]}}));
        assert!(ok.unwrap().is_some());
        let missing = done(json!({})).unwrap_err().to_string();
        assert!(missing.contains("no result"), "{missing}");
        let bad = done(json!({"result": 3})).unwrap_err().to_string();
        assert!(bad.contains("malformed result"), "{bad}");

        let failed = task(base("failed")).unwrap();
        let e = extension_outcome(&failed).unwrap_err().to_string();
        assert!(e.contains("no error"), "{e}");
        let mut v = base("failed");
        v["error"] = json!({"code": -32603, "message": "boom"});
        assert!(matches!(
            extension_outcome(&task(v).unwrap()),
            Err(Error::Rpc(e)) if e.message == "boom"
        ));
        let mut v = base("failed");
        v["error"] = json!("boom");
        assert!(extension_outcome(&task(v).unwrap()).is_err());
        assert!(matches!(
            extension_outcome(&task(base("cancelled")).unwrap()),
            Err(Error::Cancelled(_))
        ));
    }

    #[test]
    fn poll_intervals_are_clamped() {
        assert_eq!(poll_interval(None), DEFAULT_POLL);
        assert_eq!(poll_interval(Some(0)), MIN_POLL);
        assert_eq!(poll_interval(Some(-5)), DEFAULT_POLL);
        assert_eq!(poll_interval(Some(i64::MAX)), MAX_POLL);
        assert_eq!(poll_interval(Some(250)), Duration::from_millis(250));
    }
}
