//! Client ↔ server over the in-memory pair: every method, cancellation,
//! progress, timeouts, concurrency, capability gating and bad input.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail the test on any error"
)]

mod in_flight;
mod methods;
mod raw;
mod refusals;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::client::{Client, Negotiation};
use mcp_core::schema::*;
use mcp_core::server::{Json, PromptDef, ResourceDef, ResourceTemplateDef, Server, ToolDef};
use mcp_core::transport::memory_pair;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

#[derive(Deserialize, JsonSchema)]
struct SleepArgs {
    millis: u64,
}

fn obj(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

struct Unfinished(Arc<AtomicUsize>, bool);

impl Unfinished {
    fn finish(mut self) {
        self.1 = false;
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if self.1 {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
}

fn test_server(cancelled: Arc<AtomicUsize>) -> Server {
    Server::builder("test-server", "0.1.0")
        .instructions("be nice")
        .page_size(2)
        .tool(
            ToolDef::new("add", "Adds two integers", |a: AddArgs, _cx| async move {
                Ok::<_, String>(Json(Sum { sum: a.a + a.b }))
            })
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "fail",
                "Always fails",
                |_: Map<String, Value>, _cx| async move { Err::<String, _>("it broke") },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "sleep",
                "Sleeps, reporting progress",
                move |a: SleepArgs, cx| {
                    // Counts runs that did not finish: cancellation drops the future.
                    let unfinished = Unfinished(cancelled.clone(), true);
                    async move {
                        for i in 0..4u32 {
                            cx.progress(f64::from(i), Some(4.0), None).await.ok();
                            tokio::time::sleep(Duration::from_millis(a.millis / 4)).await;
                        }
                        unfinished.finish();
                        Ok::<_, String>("slept".to_string())
                    }
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "log",
                "Logs at every level",
                |_: Map<String, Value>, cx| async move {
                    for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Error] {
                        cx.log(level, Some("test"), json!(format!("{level}")))
                            .await
                            .ok();
                    }
                    Ok::<_, String>("logged")
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "sample",
                "Asks the client's model",
                |_: Map<String, Value>, cx| async move {
                    let params = CreateMessageRequestParams::new(
                        10,
                        vec![SamplingMessage::new(
                            SamplingMessageContent::TextContent(TextContent::new("hi")),
                            Role::User,
                        )],
                    );
                    let result = cx.create_message(params).await.map_err(|e| e.to_string())?;
                    Ok::<_, String>(format!("model {} said something", result.model))
                },
            )
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "roots",
                "Lists the client's roots",
                |_: Map<String, Value>, cx| async move {
                    let roots = cx.list_roots().await.map_err(|e| e.to_string())?;
                    Ok::<_, String>(
                        roots
                            .roots
                            .into_iter()
                            .map(|r| r.uri)
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                },
            )
            .unwrap(),
        )
        .resource(
            ResourceDef::new("test://static", "static", |uri, _cx| async move {
                Ok(ReadResourceResult::text(
                    uri,
                    Some("text/plain".into()),
                    "hello",
                ))
            })
            .mime_type("text/plain"),
        )
        .resource_template(
            ResourceTemplateDef::new("test://items/{id}", "item", |uri, vars, _cx| async move {
                Ok(ReadResourceResult::text(
                    uri,
                    None,
                    format!("item {}", vars["id"]),
                ))
            })
            .unwrap(),
        )
        .prompt(
            PromptDef::new("greet", |args, _cx| async move {
                Ok(GetPromptResult::new(vec![PromptMessage::new(
                    ContentBlock::text(format!("Hello {}", args["name"])),
                    Role::User,
                )]))
            })
            .description("Greets")
            .argument("name", "who", true),
        )
        .completion(|params, _cx| async move {
            let values = ["alpha", "beta", "alpine"]
                .into_iter()
                .filter(|v| v.starts_with(&params.argument.value))
                .map(String::from)
                .collect();
            Ok(CompleteResultCompletion::new(values))
        })
        .build()
}

async fn connect(server: &Server) -> (Client, mcp_core::server::ServerSession) {
    let (a, b) = memory_pair();
    let session = server.serve(b).unwrap();
    let client = Client::builder("test-client", "0.1.0")
        .negotiation(Negotiation::Legacy)
        .on_sampling(false, |_params, _cx| async move {
            Ok(CreateMessageResult::new(
                CreateMessageResultContent::TextContent(TextContent::new("hello")),
                "test-model",
                Role::Assistant,
            ))
        })
        .roots(vec![Root::new("file:///tmp")])
        .connect(a)
        .await
        .unwrap();
    (client, session)
}
