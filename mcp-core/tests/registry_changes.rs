//! A built `Server` accepts registrations before it is served (the
//! capabilities follow from them, as `ServerBuilder` derives them) and while
//! it is (clients hear `list_changed`); once served, what it offers is
//! settled.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::schema::*;
use mcp_core::server::{PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use mcp_core::transport::memory_pair;
use serde_json::json;

fn tool(name: &str) -> ToolDef {
    let answer = name.to_string();
    ToolDef::raw(name, json!({"type": "object"}), move |_, _| {
        let answer = answer.clone();
        async move { CallToolResult::text(answer) }
    })
    .unwrap()
}

fn resource(uri: &str) -> ResourceDef {
    ResourceDef::new(uri, "r", |uri, _| async move {
        Ok(ReadResourceResult::text(uri.clone(), None, uri))
    })
}

async fn connect(server: &Server) -> (Client, mcp_core::server::ServerSession) {
    let (a, b) = memory_pair();
    let session = server.serve(b).unwrap();
    let client = Client::builder("test-client", "0.1.0")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    (client, session)
}

async fn next_notification(
    notifications: &mut tokio::sync::broadcast::Receiver<ServerNotification>,
) -> ServerNotification {
    tokio::time::timeout(Duration::from_secs(5), notifications.recv())
        .await
        .expect("a notification within 5 s")
        .expect("the notification stream is open")
}

#[tokio::test]
async fn registrations_before_serving_decide_the_capabilities() {
    let server = Server::builder("late", "1").build();
    let empty = connect(&server).await.0;
    // Served once with nothing: nothing is offered, and that is settled.
    assert!(empty.server_capabilities().tools.is_none());
    assert!(server.register_tool(tool("a")).is_err());
    assert!(server.set_instructions("too late").is_err());

    let server = Server::builder("late", "1").build();
    server.register_tool(tool("a")).unwrap();
    server
        .register_prompt(PromptDef::new("p", |_, _| async {
            Ok(GetPromptResult::new(vec![]))
        }))
        .unwrap();
    server.set_instructions("be nice").unwrap();
    server
        .set_completion(|_, _| async { Ok(CompleteResultCompletion::new(vec![])) })
        .unwrap();
    assert!(server.unregister_prompt("p"));
    assert!(!server.unregister_prompt("p"));
    server.offer_resources().unwrap();
    let (client, _session) = connect(&server).await;
    let caps = client.server_capabilities();
    assert_eq!(caps.tools.as_ref().and_then(|t| t.list_changed), Some(true));
    assert!(caps.resources.is_some(), "offered without any resource");
    assert!(caps.prompts.is_none(), "the only prompt was removed");
    assert!(caps.completions.is_some());
    assert!(caps.tasks.is_none());
    assert_eq!(client.instructions(), Some("be nice"));
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    // Settled once served: prompts were not offered then.
    assert!(
        server
            .register_prompt(PromptDef::new("p", |_, _| async {
                Ok(GetPromptResult::new(vec![]))
            }))
            .is_err()
    );
}

#[tokio::test]
async fn registering_while_serving_tells_the_clients() {
    let server = Server::builder("live", "1").build();
    server.register_tool(tool("first")).unwrap();
    server.offer_resources().unwrap();
    let (client, _session) = connect(&server).await;
    let mut notifications = client.notifications();
    // Answered after `notifications/initialized` was read: the session is
    // ready to hear of changes.
    client.ping().await.unwrap();

    // From a thread outside any runtime, as the C and Python faces do.
    let registering = server.clone();
    std::thread::spawn(move || registering.register_tool(tool("second")))
        .join()
        .unwrap()
        .unwrap();
    let n = next_notification(&mut notifications).await;
    assert!(matches!(n, ServerNotification::ToolListChanged(_)), "{n:?}");
    let names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["first", "second"]);
    let called = client.call_tool("second", None).await.unwrap();
    assert_eq!(called.content[0].as_text(), Some("second"));

    server.register_resource(resource("mem://a")).unwrap();
    let n = next_notification(&mut notifications).await;
    assert!(
        matches!(n, ServerNotification::ResourceListChanged(_)),
        "{n:?}"
    );
    server
        .register_resource_template(
            ResourceTemplateDef::new("mem://t/{x}", "t", |uri, _, _| async move {
                Ok(ReadResourceResult::text(uri.clone(), None, uri))
            })
            .unwrap(),
        )
        .unwrap();
    let n = next_notification(&mut notifications).await;
    assert!(
        matches!(n, ServerNotification::ResourceListChanged(_)),
        "{n:?}"
    );
    let read = client.read_resource("mem://t/7").await.unwrap();
    assert_eq!(read.contents.len(), 1);
    assert!(server.unregister_resource_template("mem://t/{x}"));
    let n = next_notification(&mut notifications).await;
    assert!(
        matches!(n, ServerNotification::ResourceListChanged(_)),
        "{n:?}"
    );
    assert!(client.read_resource("mem://t/7").await.is_err());

    assert!(server.unregister_tool("first"));
    let n = next_notification(&mut notifications).await;
    assert!(matches!(n, ServerNotification::ToolListChanged(_)), "{n:?}");
    assert!(!server.unregister_tool("first"), "already gone");
    assert_eq!(client.list_all_tools().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_task_tool_added_while_serving_brings_tasks() {
    let server = Server::builder("tasks", "1").offer_tools().build();
    let _first = connect(&server).await;
    server
        .add_tool(tool("slow").task_support(ToolExecutionTaskSupport::Optional))
        .await
        .unwrap();
    // Sessions from now on are offered tasks.
    let (client, _session) = connect(&server).await;
    assert!(client.server_capabilities().tasks.is_some());
}
