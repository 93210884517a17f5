//! Tool calls run as tasks: the `Server`'s side of `tools/call` with
//! `task`, and of `tasks/get|result|list|cancel` (2025-11-25); and of the
//! tasks extension (2026-07-28): a `tools/call` the server turns into a
//! task, and `tasks/get|update|cancel`.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use futures::FutureExt;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::Context;
use super::context::TaskLink;
use super::tool::ToolDef;
use crate::ProtocolVersion;
use crate::jsonrpc::RpcError;
use crate::schema::{
    CallToolRequestParams, CancelTaskResult, CreateTaskResult, GetTaskResult, ListTasksResult,
    TaskStatus,
};
use crate::tasks::{TaskManager, TasksRequest};

/// Starts `tool` as a task and answers at once.
pub(crate) async fn start(
    manager: &Arc<TaskManager>,
    tool: ToolDef,
    params: CallToolRequestParams,
    cx: Context,
) -> Result<CreateTaskResult, RpcError> {
    if cx
        .protocol_version()
        .is_some_and(ProtocolVersion::has_extensions)
    {
        return start_extension_task(manager, tool, params, &cx).await;
    }
    let owner = cx.session.task_owner().to_string();
    let cancel = cx.session.peer.shared.closed().child_token();
    let ttl = params.task.as_ref().and_then(|t| t.ttl);
    let task = manager.create(&owner, ttl, cancel.clone()).await?;
    let link = TaskLink {
        id: task.task_id.clone(),
        owner: owner.clone(),
        manager: manager.clone(),
        progress_token: cx.progress_token().cloned(),
        input_keys: None,
        cancel: cancel.clone(),
    };
    let task_cx = Context::for_task(cx.session.clone(), cancel.clone(), link, cx.http.clone());
    let peer = cx.session.peer.clone();
    let (runner, task_id) = (manager.clone(), task.task_id.clone());
    tokio::spawn(async move {
        let work = tool.call(params.arguments, task_cx);
        let Some(result) = unless_cancelled(work, &cancel).await else {
            return;
        };
        let result = match result {
            Ok(result) => result,
            Err(error) => {
                if let Some(task) = runner
                    .finish(&owner, &task_id, TaskStatus::Failed, Err(error))
                    .await
                {
                    notify(&runner, &peer, task).await;
                }
                return;
            }
        };
        // A tool result with isError makes the task `failed` (spec); the
        // result is still what tasks/result returns.
        let status = if result.is_error() {
            TaskStatus::Failed
        } else {
            TaskStatus::Completed
        };
        let encoded = serde_json::value::to_raw_value(&result).map_err(RpcError::internal);
        if let Some(task) = runner.finish(&owner, &task_id, status, encoded).await {
            notify(&runner, &peer, task).await;
        }
    });
    notify(manager, &cx.session.peer, task.clone()).await;
    Ok(CreateTaskResult::new(task))
}

pub(crate) use crate::tasks::notify;
use crate::tasks::unless_cancelled;

/// Starts `tool` as a task of the tasks extension (2026-07-28). The work
/// belongs to the task manager, not to the request: it runs on after the
/// request is answered and its stream (or the one-request engine of a
/// stateless HTTP POST) is gone, until it ends, is cancelled with
/// `tasks/cancel`, or the process ends. It sends the client nothing (the
/// extension has no notifications on a task's behalf); questions it asks
/// wait in the task's `inputRequests` for `tasks/update`.
async fn start_extension_task(
    manager: &Arc<TaskManager>,
    tool: ToolDef,
    params: CallToolRequestParams,
    cx: &Context,
) -> Result<CreateTaskResult, RpcError> {
    if let Some(round) = cx.session.input.clone().filter(|_| tool.asks_before_task) {
        return questions_then_task(manager, tool, params, cx, round).await;
    }
    let owner = extension_owner(cx);
    let cancel = CancellationToken::new();
    let task = manager.create(&owner, None, cancel.clone()).await?;
    let link = extension_link(manager, &task.task_id, &owner, &cancel);
    let task_cx = Context::for_task(
        Arc::new(cx.session.for_task()),
        cancel.clone(),
        link,
        cx.http.clone(),
    );
    let (runner, task_id) = (manager.clone(), task.task_id.clone());
    tokio::spawn(async move {
        let work = AssertUnwindSafe(tool.call(params.arguments, task_cx)).catch_unwind();
        let Some(outcome) = unless_cancelled(work, &cancel).await else {
            return;
        };
        let (status, outcome) = extension_outcome(outcome);
        runner.finish(&owner, &task_id, status, outcome).await;
    });
    Ok(CreateTaskResult::new(task))
}

/// A tool that asks before it becomes a task ([`ToolDef::asks_before_task`]):
/// it runs in the request, whose input-required rounds answer its first
/// questions; the task begins when it first waits on anything else (then
/// it runs on in the background, its later questions waiting in the task's
/// `inputRequests`), or, if it finishes first, is created finished.
async fn questions_then_task(
    manager: &Arc<TaskManager>,
    tool: ToolDef,
    params: CallToolRequestParams,
    cx: &Context,
    round: Arc<super::input::InputRound>,
) -> Result<CreateTaskResult, RpcError> {
    let request_cx = cx.clone();
    let call = async move { tool.call(params.arguments, request_cx).await };
    let mut work = Box::pin(AssertUnwindSafe(call).catch_unwind());
    // `None`: it waits on something other than the client (the task
    // begins); while it waits on the client this stays pending, and the
    // round ends with its questions.
    let finished = std::future::poll_fn(|task_cx| match work.as_mut().poll(task_cx) {
        std::task::Poll::Ready(outcome) => std::task::Poll::Ready(Some(outcome)),
        std::task::Poll::Pending if round.is_waiting_on_the_client() => std::task::Poll::Pending,
        std::task::Poll::Pending => std::task::Poll::Ready(None),
    })
    .await;
    let owner = extension_owner(cx);
    let cancel = CancellationToken::new();
    let task = manager.create(&owner, None, cancel.clone()).await?;
    let link = extension_link(manager, &task.task_id, &owner, &cancel);
    if let Some(outcome) = finished {
        let (status, outcome) = extension_outcome(outcome);
        manager.finish(&owner, &task.task_id, status, outcome).await;
        return Ok(CreateTaskResult::new(
            manager.get(&owner, &task.task_id).await?,
        ));
    }
    round.became(link);
    let (runner, task_id) = (manager.clone(), task.task_id.clone());
    tokio::spawn(async move {
        let Some(outcome) = unless_cancelled(work, &cancel).await else {
            return;
        };
        let (status, outcome) = extension_outcome(outcome);
        runner.finish(&owner, &task_id, status, outcome).await;
    });
    Ok(CreateTaskResult::new(task))
}

/// How a handler that became an extension task reaches it: no progress
/// token (the extension sends nothing on a task's behalf), and its
/// questions keyed by count in the task's `inputRequests`.
fn extension_link(
    manager: &Arc<TaskManager>,
    task_id: &str,
    owner: &str,
    cancel: &CancellationToken,
) -> TaskLink {
    TaskLink {
        id: task_id.to_string(),
        owner: owner.to_string(),
        manager: manager.clone(),
        progress_token: None,
        input_keys: Some(Arc::new(AtomicUsize::new(0))),
        cancel: cancel.clone(),
    }
}

/// A tool result, even with isError, completes an extension task; only a
/// JSON-RPC error (or a panic) fails it (SEP-2663).
fn extension_outcome(
    outcome: std::thread::Result<Result<crate::schema::CallToolResult, RpcError>>,
) -> (TaskStatus, Result<Box<RawValue>, RpcError>) {
    match outcome {
        Ok(Ok(result)) => (
            TaskStatus::Completed,
            serde_json::value::to_raw_value(&result).map_err(RpcError::internal),
        ),
        Ok(Err(error)) => (TaskStatus::Failed, Err(error)),
        Err(_) => (
            TaskStatus::Failed,
            Err(RpcError::internal("the tool panicked")),
        ),
    }
}

/// Who owns the extension tasks of this caller: the identity behind its
/// bearer token, if the server is protected (requests of 2026-07-28 have no
/// session to own them; without protection the task id is the only key).
fn extension_owner(cx: &Context) -> String {
    let auth = cx.auth();
    crate::tasks::extension_owner(auth.as_deref().map(|a| a.subject.as_str()))
}

/// A request of the tasks extension.
pub(crate) async fn extension(
    manager: &TaskManager,
    request: TasksRequest,
    cx: &Context,
) -> Result<Map<String, Value>, RpcError> {
    let owner = extension_owner(cx);
    match request {
        TasksRequest::Get { task_id } => manager.detailed(&owner, &task_id).await,
        TasksRequest::Update {
            task_id,
            input_responses,
        } => {
            manager.answer(&owner, &task_id, &input_responses).await?;
            Ok(Map::new())
        }
        TasksRequest::Cancel { task_id } => {
            manager.request_cancel(&owner, &task_id).await?;
            Ok(Map::new())
        }
    }
}

pub(crate) async fn get(
    manager: &TaskManager,
    task_id: &str,
    cx: &Context,
) -> Result<GetTaskResult, RpcError> {
    let task = manager.get(cx.session.task_owner(), task_id).await?;
    Ok(task.into())
}

pub(crate) async fn result(
    manager: &TaskManager,
    task_id: &str,
    cx: &Context,
) -> Result<Box<RawValue>, RpcError> {
    manager
        .result(cx.session.task_owner(), task_id, cx.cancellation())
        .await
}

pub(crate) async fn cancel(
    manager: &TaskManager,
    task_id: &str,
    cx: &Context,
) -> Result<CancelTaskResult, RpcError> {
    let task = manager.cancel(cx.session.task_owner(), task_id).await?;
    notify(manager, &cx.session.peer, task.clone()).await;
    Ok(task.into())
}

pub(crate) async fn list(
    manager: &TaskManager,
    cursor: Option<&str>,
    page: usize,
    cx: &Context,
) -> Result<ListTasksResult, RpcError> {
    let (tasks, next_cursor) = manager.list(cx.session.task_owner(), cursor, page).await?;
    Ok(ListTasksResult {
        next_cursor,
        ..ListTasksResult::new(tasks)
    })
}
