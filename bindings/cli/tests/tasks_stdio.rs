//! Tasks over stdio: our client against `mcp serve everything` started as a
//! child process — a long tool run as a task (poll, await, status
//! notifications), cancelled mid-way, expired after its TTL, listed, and
//! waiting in `input_required` on an elicitation the client answers.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::ErrorCode;
use mcp_core::schema::{
    ElicitRequestParams, ElicitResult, ElicitResultAction, ElicitResultContentValue,
    ServerNotification, TaskStatus,
};
use mcp_core::tasks::RELATED_TASK_META;
use mcp_core::transport::ChildProcess;
use serde_json::{Map, Value, json};

const MCP: &str = env!("CARGO_BIN_EXE_mcp");

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

async fn connect() -> Client {
    Client::builder("tasks-over-stdio", "1")
        .negotiation(Negotiation::Legacy)
        .on_elicitation(false, |params, _cx| async move {
            let ElicitRequestParams::Form(form) = params else {
                panic!("form mode expected")
            };
            // Task-related requests carry the related-task _meta (spec).
            let related = form
                .meta
                .is_some_and(|m| m.extra.contains_key(RELATED_TASK_META));
            let mut result = ElicitResult::new(ElicitResultAction::Accept);
            let content = result.content.get_or_insert_with(Default::default);
            let name = if related { "in-task" } else { "plain" };
            content.insert(
                "username".into(),
                ElicitResultContentValue::String(name.into()),
            );
            content.insert(
                "email".into(),
                ElicitResultContentValue::String("a@example.com".into()),
            );
            Ok(result)
        })
        .connect(ChildProcess::new(MCP).args(["serve", "everything"]))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_long_tool_runs_as_a_task() {
    let client = connect().await;
    let mut notifications = client.notifications();
    let created = client
        .call_tool_as_task("test_slow_task", Some(obj(json!({"seconds": 1}))), None)
        .await
        .unwrap();
    let id = created.task.task_id;
    assert_eq!(created.task.status, TaskStatus::Working);
    assert_eq!(
        client.get_task(&id).await.unwrap().status,
        TaskStatus::Working
    );
    let result = client.await_tool_task(&id).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("worked for 1 s"));
    assert_eq!(
        client.get_task(&id).await.unwrap().status,
        TaskStatus::Completed
    );
    let mut statuses = Vec::new();
    while let Ok(Ok(n)) =
        tokio::time::timeout(Duration::from_millis(300), notifications.recv()).await
    {
        if let ServerNotification::TaskStatus(s) = n {
            statuses.push(s.params.status);
        }
    }
    assert_eq!(statuses, [TaskStatus::Working, TaskStatus::Completed]);
    let listed = client.list_tasks(None).await.unwrap();
    assert!(listed.tasks.iter().any(|t| t.task_id == id));
    client.close().await;
}

#[tokio::test]
async fn a_task_is_cancelled_mid_way_and_expires() {
    let client = connect().await;
    let long = client
        .call_tool_as_task("test_slow_task", Some(obj(json!({"seconds": 60}))), None)
        .await
        .unwrap()
        .task;
    let cancelled = client.cancel_task(&long.task_id).await.unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    let again = client.cancel_task(&long.task_id).await.unwrap_err();
    assert!(
        matches!(&again, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{again}"
    );

    // A short TTL: the task is gone once it has passed.
    let short = client
        .call_tool_as_task(
            "test_slow_task",
            Some(obj(json!({"seconds": 0}))),
            Some(Duration::from_millis(200)),
        )
        .await
        .unwrap()
        .task;
    assert_eq!(short.ttl, Some(200));
    tokio::time::sleep(Duration::from_millis(400)).await;
    let expired = client.get_task(&short.task_id).await.unwrap_err();
    assert!(
        matches!(&expired, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{expired}"
    );
    client.close().await;
}

#[tokio::test]
async fn an_input_required_task_is_answered_by_the_client() {
    let client = connect().await;
    let created = client
        .call_tool_as_task(
            "test_elicitation",
            Some(obj(json!({"message": "Who are you?"}))),
            None,
        )
        .await
        .unwrap();
    let result = client.await_tool_task(&created.task.task_id).await.unwrap();
    let text = result.content[0].as_text().unwrap();
    assert!(
        text.contains("action=accept") && text.contains("in-task"),
        "{text}"
    );
    // The same tool called normally sends no task _meta.
    let plain = client
        .call_tool("test_elicitation", Some(obj(json!({"message": "Again?"}))))
        .await
        .unwrap();
    assert!(plain.content[0].as_text().unwrap().contains("plain"));
    client.close().await;
}
