//! Tasks (spec 2025-11-25): a tool run as a task, polled, awaited,
//! cancelled, expired, listed; input_required with an elicitation; the
//! spec's errors. Over the in-memory pair and over Streamable HTTP.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::jsonrpc::ErrorCode;
use mcp_core::schema::*;
use mcp_core::server::{Server, ToolDef};
use mcp_core::tasks::{RELATED_TASK_META, TaskConfig};
use mcp_core::transport::http::StreamableHttpClient;
use mcp_core::transport::memory_pair;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

#[derive(Deserialize, JsonSchema)]
struct Slow {
    millis: u64,
}

fn obj(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

fn server(stopped: Arc<AtomicUsize>) -> Server {
    let slow = move |a: Slow, cx: mcp_core::server::Context| {
        let stopped = stopped.clone();
        async move {
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(a.millis)) => Ok::<_, String>(format!("slept {}", a.millis)),
                () = cx.cancellation().cancelled() => {
                    stopped.fetch_add(1, Ordering::SeqCst);
                    Err("stopped".into())
                }
            }
        }
    };
    Server::builder("tasks", "1")
        .page_size(2)
        .tasks(
            TaskConfig::default()
                .poll_interval(Duration::from_millis(20))
                .ttl(Duration::from_secs(60), Duration::from_secs(60)),
        )
        .tool(
            ToolDef::new("slow", "Sleeps", slow)
                .unwrap()
                .task_support(ToolExecutionTaskSupport::Optional),
        )
        .tool(
            ToolDef::new(
                "must_be_task",
                "Only as a task",
                |_: Map<String, Value>, _cx| async { Ok::<_, String>("ok") },
            )
            .unwrap()
            .task_support(ToolExecutionTaskSupport::Required),
        )
        .tool(
            ToolDef::new(
                "plain",
                "Never a task",
                |_: Map<String, Value>, _cx| async { Ok::<_, String>("plain") },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "fails",
                "Reports an error",
                |_: Map<String, Value>, _cx| async { Err::<String, _>("broken") },
            )
            .unwrap()
            .task_support(ToolExecutionTaskSupport::Optional),
        )
        .tool(
            ToolDef::new(
                "ask",
                "Asks the user, as a task",
                |_: Map<String, Value>, cx| async move {
                    let mut properties = indexmap::IndexMap::new();
                    properties.insert(
                        "name".to_string(),
                        PrimitiveSchemaDefinition::StringSchema(StringSchema {
                            type_: StringSchemaType,
                            ..StringSchema::new()
                        }),
                    );
                    let params = ElicitRequestParams::Form(ElicitRequestFormParams::new(
                        "Your name?",
                        ElicitRequestFormParamsRequestedSchema {
                            type_: ElicitRequestFormParamsRequestedSchemaType,
                            ..ElicitRequestFormParamsRequestedSchema::new(properties)
                        },
                    ));
                    let answer = cx.elicit(params).await.map_err(|e| e.to_string())?;
                    let name = answer.content.and_then(|c| c.get("name").cloned());
                    Ok::<_, String>(format!("hello {name:?}"))
                },
            )
            .unwrap()
            .task_support(ToolExecutionTaskSupport::Optional),
        )
        .build()
}

async fn client_for(server: &Server, seen_related: Arc<AtomicUsize>) -> Client {
    let (a, b) = memory_pair();
    server.serve(b).unwrap();
    with_handlers(seen_related).connect(a).await.unwrap()
}

fn with_handlers(seen_related: Arc<AtomicUsize>) -> mcp_core::client::ClientBuilder {
    Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .on_elicitation(false, move |params, _cx| {
            let seen_related = seen_related.clone();
            async move {
                let ElicitRequestParams::Form(form) = params else {
                    panic!("form expected")
                };
                if form
                    .meta
                    .is_some_and(|m| m.extra.contains_key(RELATED_TASK_META))
                {
                    seen_related.fetch_add(1, Ordering::SeqCst);
                }
                let mut result = ElicitResult::new(ElicitResultAction::Accept);
                result.content.get_or_insert_with(Default::default).insert(
                    "name".into(),
                    ElicitResultContentValue::String("Ada".into()),
                );
                Ok(result)
            }
        })
}

async fn lifecycle(client: &Client) {
    let caps = client.server_capabilities().tasks.clone().unwrap();
    assert!(caps.list.is_some() && caps.cancel.is_some());
    let tools = client.list_all_tools().await.unwrap();
    let slow = tools.iter().find(|t| t.name == "slow").unwrap();
    assert_eq!(
        slow.execution.as_ref().unwrap().task_support,
        Some(ToolExecutionTaskSupport::Optional)
    );

    let mut notifications = client.notifications();
    let created = client
        .call_tool_as_task(
            "slow",
            Some(obj(json!({"millis": 200}))),
            Some(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    let task = created.task;
    assert_eq!(task.status, TaskStatus::Working);
    assert_eq!(task.ttl, Some(5000));
    assert!(task.task_id.len() >= 32, "unguessable id");
    let polled = client.get_task(&task.task_id).await.unwrap();
    assert_eq!(polled.status, TaskStatus::Working);
    let result = client.await_tool_task(&task.task_id).await.unwrap();
    assert_eq!(result.content[0].as_text(), Some("slept 200"));
    assert!(result.meta.unwrap().contains_key(RELATED_TASK_META));
    assert_eq!(
        client.get_task(&task.task_id).await.unwrap().status,
        TaskStatus::Completed
    );
    // Status notifications: working, then completed.
    let mut statuses = Vec::new();
    while let Ok(Ok(n)) =
        tokio::time::timeout(Duration::from_millis(300), notifications.recv()).await
    {
        if let ServerNotification::TaskStatus(s) = n {
            if s.params.task_id == task.task_id {
                statuses.push(s.params.status);
            }
        }
    }
    assert_eq!(statuses, [TaskStatus::Working, TaskStatus::Completed]);

    // A failing tool makes a failed task whose result is the error result.
    let failed = client.call_tool_as_task("fails", None, None).await.unwrap();
    let result = client.await_tool_task(&failed.task.task_id).await.unwrap();
    assert!(result.is_error());
    assert_eq!(
        client.get_task(&failed.task.task_id).await.unwrap().status,
        TaskStatus::Failed
    );
}

async fn cancel_and_errors(client: &Client, stopped: &AtomicUsize) {
    let long = client
        .call_tool_as_task("slow", Some(obj(json!({"millis": 60_000}))), None)
        .await
        .unwrap();
    let cancelled = client.cancel_task(&long.task.task_id).await.unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    for _ in 0..200 {
        if stopped.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        stopped.load(Ordering::SeqCst),
        1,
        "the tool's work was stopped"
    );
    // Terminal tasks cannot be cancelled again (-32602).
    let again = client.cancel_task(&long.task.task_id).await.unwrap_err();
    assert!(
        matches!(&again, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{again}"
    );
    // Unknown ids are -32602 for get, result and cancel.
    for err in [
        client.get_task("nope").await.map(|_| ()).unwrap_err(),
        client
            .tool_task_result("nope")
            .await
            .map(|_| ())
            .unwrap_err(),
        client.cancel_task("nope").await.map(|_| ()).unwrap_err(),
    ] {
        assert!(
            matches!(&err, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
            "{err}"
        );
    }
    // taskSupport is enforced: forbidden as a task, required without one.
    let forbidden = client
        .call_tool_as_task("plain", None, None)
        .await
        .unwrap_err();
    assert!(
        matches!(&forbidden, Error::Rpc(e) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{forbidden}"
    );
    let required = client.call_tool("must_be_task", None).await.unwrap_err();
    assert!(
        matches!(&required, Error::Rpc(e) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{required}"
    );
    let as_task = client
        .call_tool_as_task("must_be_task", None, None)
        .await
        .unwrap();
    assert_eq!(
        client
            .await_tool_task(&as_task.task.task_id)
            .await
            .unwrap()
            .content[0]
            .as_text(),
        Some("ok")
    );
}

async fn listing(client: &Client) {
    let mut ids = Vec::new();
    for _ in 0..5 {
        ids.push(
            client
                .call_tool_as_task("slow", Some(obj(json!({"millis": 1}))), None)
                .await
                .unwrap()
                .task
                .task_id,
        );
    }
    let mut listed = Vec::new();
    let mut cursor = None;
    for _ in 0..20 {
        let page = client.list_tasks(cursor).await.unwrap();
        assert!(page.tasks.len() <= 2, "page size");
        listed.extend(page.tasks.into_iter().map(|t| t.task_id));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert!(
        ids.iter().all(|id| listed.contains(id)),
        "every task is listed"
    );
    let bad = client
        .list_tasks(Some("not-a-cursor".into()))
        .await
        .unwrap_err();
    assert!(
        matches!(&bad, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{bad}"
    );
}

async fn input_required(client: &Client, seen_related: &AtomicUsize) {
    let created = client.call_tool_as_task("ask", None, None).await.unwrap();
    let result = client.await_tool_task(&created.task.task_id).await.unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some("hello Some(String(\"Ada\"))")
    );
    assert_eq!(
        seen_related.load(Ordering::SeqCst),
        1,
        "the elicitation carried the related-task _meta"
    );
}

#[tokio::test]
async fn tasks_in_memory() {
    let stopped = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicUsize::new(0));
    let server = server(stopped.clone());
    let client = client_for(&server, seen.clone()).await;
    lifecycle(&client).await;
    cancel_and_errors(&client, &stopped).await;
    listing(&client).await;
    input_required(&client, &seen).await;
}

#[tokio::test]
async fn tasks_over_http() {
    let stopped = Arc::new(AtomicUsize::new(0));
    let seen = Arc::new(AtomicUsize::new(0));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(
        StreamableHttpServer::new(server(stopped.clone()), HttpServerConfig::default())
            .serve(listener),
    );
    let client = with_handlers(seen.clone())
        .connect(StreamableHttpClient::new(url))
        .await
        .unwrap();
    lifecycle(&client).await;
    cancel_and_errors(&client, &stopped).await;
    listing(&client).await;
    input_required(&client, &seen).await;
}

#[tokio::test]
async fn tasks_expire_and_are_private_to_their_session() {
    let server = Server::builder("s", "1")
        .tasks(TaskConfig::default().ttl(Duration::from_millis(100), Duration::from_millis(100)))
        .tool(
            ToolDef::new("slow", "", |_: Slow, _cx| async { Ok::<_, String>("x") })
                .unwrap()
                .task_support(ToolExecutionTaskSupport::Optional),
        )
        .build();
    let seen = Arc::new(AtomicUsize::new(0));
    let first = client_for(&server, seen.clone()).await;
    let second = client_for(&server, seen).await;
    let task = first
        .call_tool_as_task("slow", Some(obj(json!({"millis": 1}))), None)
        .await
        .unwrap()
        .task;
    assert_eq!(task.ttl, Some(100));
    let other = second.get_task(&task.task_id).await.unwrap_err();
    assert!(
        matches!(&other, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{other}"
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let expired = first.get_task(&task.task_id).await.unwrap_err();
    assert!(
        matches!(&expired, Error::Rpc(e) if e.code == ErrorCode::INVALID_PARAMS),
        "{expired}"
    );
}

#[tokio::test]
async fn a_server_without_tasks_refuses_client_side() {
    let server = Server::builder("s", "1")
        .tool(
            ToolDef::new("plain", "", |_: Map<String, Value>, _cx| async {
                Ok::<_, String>("p")
            })
            .unwrap(),
        )
        .build();
    let client = client_for(&server, Arc::default()).await;
    let err = client
        .call_tool_as_task("plain", None, None)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::CapabilityNotSupported { capability, .. } if capability == "tasks.requests.tools.call"),
        "{err}"
    );
    // Sent anyway, the task field is ignored and the tool runs normally (spec).
    let params = CallToolRequestParams {
        task: Some(TaskMetadata::new()),
        ..CallToolRequestParams::new("plain")
    };
    let raw = client
        .peer()
        .request_raw("tools/call", &params, Default::default())
        .await
        .unwrap();
    assert!(raw.get().contains("\"p\""), "{}", raw.get());
}

/// The other direction: the server asks the client to run sampling as a
/// task, polls it and fetches the result; the client can also cancel and
/// list. A client without tasks is refused before anything is sent.
#[tokio::test]
async fn task_augmented_sampling_from_the_server() {
    let tool = ToolDef::new(
        "delegate",
        "Samples as a task",
        |_: Map<String, Value>, cx| async move {
            let params = CreateMessageRequestParams::new(
                5,
                vec![SamplingMessage::new(
                    SamplingMessageContent::TextContent(TextContent::new("hi")),
                    Role::User,
                )],
            );
            let created = cx
                .create_message_as_task(params, Some(Duration::from_secs(30)))
                .await
                .map_err(|e| e.to_string())?;
            let id = created.task.task_id;
            assert_eq!(created.task.status, TaskStatus::Working);
            for _ in 0..200 {
                let task = cx.client_task(&id).await.map_err(|e| e.to_string())?;
                if task.status == TaskStatus::Completed {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let listed = cx
                .list_client_tasks(None)
                .await
                .map_err(|e| e.to_string())?;
            assert!(listed.tasks.iter().any(|t| t.task_id == id));
            let result: CreateMessageResult = cx
                .client_task_result(&id)
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(result.model)
        },
    )
    .unwrap();
    let server = Server::builder("s", "1").tool(tool).build();

    let (a, b) = memory_pair();
    server.serve(b).unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .tasks(TaskConfig::default().poll_interval(Duration::from_millis(10)))
        .on_sampling(false, |_params, _cx| async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Ok(CreateMessageResult::new(
                CreateMessageResultContent::TextContent(TextContent::new("later")),
                "slow-model",
                Role::Assistant,
            ))
        })
        .connect(a)
        .await
        .unwrap();
    let result = client.call_tool("delegate", None).await.unwrap();
    assert_eq!(
        result.content[0].as_text(),
        Some("slow-model"),
        "{result:?}"
    );

    // Without the client's tasks capability the server refuses locally.
    let (a, b) = memory_pair();
    server.serve(b).unwrap();
    let plain = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .on_sampling(false, |_p, _cx| async move {
            Err(mcp_core::jsonrpc::RpcError::internal("unused"))
        })
        .connect(a)
        .await
        .unwrap();
    let refused = plain.call_tool("delegate", None).await.unwrap();
    assert!(refused.is_error());
    let text = refused.content[0].as_text().unwrap();
    assert!(
        text.contains("tasks.requests.sampling.createMessage"),
        "{text}"
    );
}
