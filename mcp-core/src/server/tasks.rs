//! Tool calls run as tasks: the `Server`'s side of `tools/call` with
//! `task`, and of `tasks/get|result|list|cancel`.

use std::sync::Arc;

use serde_json::value::RawValue;

use super::Context;
use super::context::TaskLink;
use super::tool::ToolDef;
use crate::jsonrpc::RpcError;
use crate::schema::{
    CallToolRequestParams, CancelTaskResult, CreateTaskResult, GetTaskResult, ListTasksResult,
    TaskStatus,
};
use crate::tasks::TaskManager;

/// How long a cancelled task's work may take to stop by itself.
const CANCEL_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// Starts `tool` as a task and answers at once.
pub(crate) async fn start(
    manager: &Arc<TaskManager>,
    tool: ToolDef,
    params: CallToolRequestParams,
    cx: Context,
) -> Result<CreateTaskResult, RpcError> {
    let owner = cx.session.id.clone();
    let cancel = cx.session.peer.shared.closed.child_token();
    let ttl = params.task.as_ref().and_then(|t| t.ttl);
    let task = manager.create(&owner, ttl, cancel.clone())?;
    let link = TaskLink {
        id: task.task_id.clone(),
        owner: owner.clone(),
        manager: manager.clone(),
        progress_token: cx.progress_token().cloned(),
    };
    let task_cx = Context::for_task(cx.session.clone(), cancel.clone(), link);
    let peer = cx.session.peer.clone();
    let (runner, task_id) = (manager.clone(), task.task_id.clone());
    tokio::spawn(async move {
        let work = tool.call(params.arguments, task_cx);
        tokio::pin!(work);
        let outcome = tokio::select! {
            biased;
            result = &mut work => Some(result),
            () = cancel.cancelled() => {
                // The tool sees the same token: let it stop by itself
                // (cleaning up) for a moment before it is dropped.
                let _ = tokio::time::timeout(CANCEL_GRACE, &mut work).await;
                None
            }
        };
        let Some(result) = outcome else { return };
        let result = match result {
            Ok(result) => result,
            Err(error) => {
                if let Some(task) = runner.finish(&owner, &task_id, TaskStatus::Failed, Err(error))
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
        if let Some(task) = runner.finish(&owner, &task_id, status, encoded) {
            notify(&runner, &peer, task).await;
        }
    });
    notify(manager, &cx.session.peer, task.clone()).await;
    Ok(CreateTaskResult::new(task))
}

pub(crate) use crate::tasks::notify;

pub(crate) fn get(
    manager: &TaskManager,
    task_id: &str,
    cx: &Context,
) -> Result<GetTaskResult, RpcError> {
    let task = manager.get(&cx.session.id, task_id)?;
    Ok(task.into())
}

pub(crate) async fn result(
    manager: &TaskManager,
    task_id: &str,
    cx: &Context,
) -> Result<Box<RawValue>, RpcError> {
    manager
        .result(&cx.session.id, task_id, cx.cancellation())
        .await
}

pub(crate) async fn cancel(
    manager: &TaskManager,
    task_id: &str,
    cx: &Context,
) -> Result<CancelTaskResult, RpcError> {
    let task = manager.cancel(&cx.session.id, task_id)?;
    notify(manager, &cx.session.peer, task.clone()).await;
    Ok(task.into())
}

pub(crate) fn list(
    manager: &TaskManager,
    cursor: Option<&str>,
    page: usize,
    cx: &Context,
) -> Result<ListTasksResult, RpcError> {
    let (tasks, next_cursor) = manager.list(&cx.session.id, cursor, page)?;
    Ok(ListTasksResult {
        next_cursor,
        ..ListTasksResult::new(tasks)
    })
}
