//! The everything server's task fixtures under 2026-07-28 (the tasks
//! extension), as raw requests over the in-memory transport: `test_slow_task`
//! and `slow_compute` become tasks for a client that declares the extension,
//! `confirm_delete` waits for `tasks/update`, `greet` never is a task, and
//! `failing_job` needs the extension.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::time::Duration;

use mcp_cli::everything::everything_server;
use mcp_core::transport::{
    InboundFrame, OutboundKind, OutboundMessage, Transport, TransportHandle, memory_pair,
};
use serde_json::{Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

struct Raw {
    handle: TransportHandle,
    id: i64,
    _session: mcp_core::server::ServerSession,
}

impl Raw {
    fn new() -> Self {
        let (client, end) = memory_pair();
        let session = everything_server().serve(end).unwrap();
        Self {
            handle: client.start().unwrap(),
            id: 0,
            _session: session,
        }
    }

    async fn call(&mut self, method: &str, mut params: Value, extension: bool) -> Value {
        let mut caps = json!({"elicitation": {}});
        if extension {
            caps["extensions"] = json!({ TASKS: {} });
        }
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": caps,
        });
        self.id += 1;
        let text = json!({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params});
        let message = OutboundMessage {
            text: text.to_string(),
            kind: OutboundKind::Request,
            related: None,
        };
        self.handle.outbound.send(message).await.unwrap();
        loop {
            let frame = tokio::time::timeout(Duration::from_secs(10), self.handle.inbound.recv())
                .await
                .unwrap()
                .unwrap();
            let InboundFrame::Message(text) = frame else {
                panic!("{frame:?}")
            };
            let reply: Value = serde_json::from_str(&text).unwrap();
            if reply["id"] == self.id {
                return reply;
            }
        }
    }

    async fn task(&mut self, id: &str, until: &[&str]) -> Value {
        for _ in 0..300 {
            let got = self.call("tasks/get", json!({"taskId": id}), true).await;
            let task = got["result"].clone();
            if until.iter().any(|s| task["status"] == *s) {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("task {id} never reached {until:?}");
    }
}

#[tokio::test]
async fn task_fixtures_run_as_extension_tasks() {
    let mut raw = Raw::new();
    let discover = raw.call("server/discover", json!({}), false).await;
    assert_eq!(
        discover["result"]["capabilities"]["extensions"][TASKS],
        json!({})
    );

    for (name, args, text) in [
        ("test_slow_task", json!({"seconds": 1}), "worked for 1 s"),
        (
            "slow_compute",
            json!({"seconds": 0.05, "label": "x"}),
            "Computed `x` in 0.05 s",
        ),
    ] {
        let created = raw
            .call("tools/call", json!({"name": name, "arguments": args}), true)
            .await;
        assert_eq!(created["result"]["resultType"], "task", "{created}");
        let id = created["result"]["taskId"].as_str().unwrap().to_string();
        let done = raw.task(&id, &["completed", "failed"]).await;
        assert_eq!(done["result"]["content"][0]["text"], text, "{done}");
    }

    let created = raw
        .call(
            "tools/call",
            json!({"name": "confirm_delete", "arguments": {"filename": "a.txt"}}),
            true,
        )
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let waiting = raw.task(&id, &["input_required"]).await;
    let key = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap()
        .clone();
    let answer = json!({key: {"action": "accept", "content": {"confirm": true}}});
    let ack = raw
        .call(
            "tasks/update",
            json!({"taskId": id, "inputResponses": answer}),
            true,
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = raw.task(&id, &["completed"]).await;
    assert_eq!(done["result"]["content"][0]["text"], "Deleted a.txt");

    // Never a task; a tool error completes the task; a task-only tool
    // without the extension is -32021.
    let greet = raw
        .call(
            "tools/call",
            json!({"name": "greet", "arguments": {"name": "W"}}),
            true,
        )
        .await;
    assert_eq!(greet["result"]["content"][0]["text"], "Hello, W!");
    let failing = raw
        .call("tools/call", json!({"name": "failing_job"}), false)
        .await;
    assert_eq!(failing["error"]["code"], -32021, "{failing}");
    let created = raw
        .call("tools/call", json!({"name": "failing_job"}), true)
        .await;
    let id = created["result"]["taskId"].as_str().unwrap().to_string();
    let done = raw.task(&id, &["completed", "failed"]).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);
}
