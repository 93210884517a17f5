//! The tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): the
//! server decides which tool calls become tasks for a client that declares
//! the extension; `tasks/get` inlines the result, error or open input
//! requests; `tasks/update` answers them; `tasks/cancel` acknowledges. Over
//! the in-memory pair and stateless Streamable HTTP, where a task outlives
//! the POST that created it. 2025-11-25 tasks are `tasks.rs`'s.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use std::net::SocketAddr;
use std::time::Duration;

use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{CallToolResult, ToolExecutionTaskSupport};
use mcp_core::server::{Server, ToolDef};
use serde_json::{Value, json};

use common::stream::Stream;

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn server() -> Server {
    use ToolExecutionTaskSupport::{Optional, Required};
    let no_params = || json!({"type": "object", "properties": {}});
    let slow = ToolDef::raw(
        "slow",
        json!({"type": "object", "properties": {"ms": {"type": "integer"}}}),
        |args, cx| async move {
            let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
            tokio::select! {
                () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                () = cx.cancellation().cancelled() => return CallToolResult::error("stopped"),
            }
            CallToolResult::text(format!("slept {ms} ms"))
        },
    )
    .unwrap()
    .task_support(Optional);
    let must = ToolDef::raw("must_task", no_params(), |_, _| async {
        CallToolResult::text("done")
    })
    .unwrap()
    .task_support(Required);
    let ask = common::asking_tool().task_support(Optional);
    let boom = ToolDef::fallible("boom", no_params(), |_, _| async {
        Err(RpcError::internal("boom"))
    })
    .unwrap()
    .task_support(Optional);
    let sync = ToolDef::raw("sync", no_params(), |_, _| async {
        CallToolResult::text("sync")
    })
    .unwrap();
    // Asks before it becomes a task, and once more as one.
    let twice = ToolDef::raw("twice", no_params(), |_, cx| async move {
        let form = |message: &str| {
            serde_json::from_value(json!({
                "mode": "form", "message": message,
                "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
            }))
            .unwrap()
        };
        let first = match cx.elicit_keyed("first", form("Name?")).await {
            Ok(answer) => answer,
            Err(e) => return CallToolResult::error(e.to_string()),
        };
        tokio::time::sleep(Duration::from_millis(20)).await;
        let second = match cx.elicit_keyed("second", form("Sure?")).await {
            Ok(answer) => answer,
            Err(e) => return CallToolResult::error(e.to_string()),
        };
        CallToolResult::text(format!("{} then {}", first.action, second.action))
    })
    .unwrap()
    .task_support(Required)
    .asks_before_task();
    Server::builder("tasks-ext", "1")
        .tool(twice)
        .tool(slow)
        .tool(must)
        .tool(ask)
        .tool(boom)
        .tool(sync)
        .build()
}

fn meta(extension: bool) -> Value {
    let mut caps = json!({"elicitation": {}});
    if extension {
        caps["extensions"] = json!({ TASKS: {} });
    }
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    })
}

fn params(mut params: Value, extension: bool) -> Value {
    params["_meta"] = meta(extension);
    params
}

/// A client end over the in-memory pair that sends raw requests.
struct Raw {
    stream: Stream,
    next_id: i64,
}

impl Raw {
    fn serve(server: &Server) -> Self {
        Self {
            stream: Stream::serving(server.clone()),
            next_id: 0,
        }
    }

    async fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.stream.send(message.to_string().as_bytes()).await;
        loop {
            let m = self.stream.recv().await;
            if m.get("id") == Some(&json!(id)) {
                return m;
            }
        }
    }

    async fn ok(&mut self, method: &str, p: Value) -> Value {
        let reply = self.call(method, params(p, true)).await;
        assert!(reply.get("error").is_none(), "{method}: {reply}");
        reply["result"].clone()
    }

    async fn err(&mut self, method: &str, p: Value, extension: bool) -> Value {
        let reply = self.call(method, params(p, extension)).await;
        assert!(reply.get("result").is_none(), "{method}: {reply}");
        reply["error"].clone()
    }

    /// Polls `tasks/get` until the task has `status` (bounded).
    async fn until(&mut self, id: &str, status: &str) -> Value {
        for _ in 0..200 {
            let task = self.ok("tasks/get", json!({"taskId": id})).await;
            if task["status"] == status {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("task {id} never became {status}");
    }
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["resultType"], "task", "{created}");
    created["taskId"].as_str().expect("a task id").to_string()
}

#[tokio::test]
async fn discover_advertises_the_extension_not_the_core_tasks() {
    let mut raw = Raw::serve(&server());
    let discover = raw.ok("server/discover", json!({})).await;
    let caps = &discover["capabilities"];
    assert_eq!(caps["extensions"][TASKS], json!({}), "{discover}");
    assert!(caps.get("tasks").is_none(), "{discover}");
    // A server without task tools offers no extension.
    let plain = Server::builder("plain", "1")
        .tool(
            ToolDef::raw("t", json!({"type": "object"}), |_, _| async {
                CallToolResult::text("")
            })
            .unwrap(),
        )
        .build();
    let mut plain = Raw::serve(&plain);
    let discover = plain.ok("server/discover", json!({})).await;
    assert!(
        discover["capabilities"].get("extensions").is_none(),
        "{discover}"
    );
    let error = plain.err("tasks/get", json!({"taskId": "x"}), true).await;
    assert_eq!(error["code"], -32601, "{error}");
}

#[tokio::test]
async fn a_task_completes_with_its_result_inlined() {
    let mut raw = Raw::serve(&server());
    let created = raw
        .ok(
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 50}}),
        )
        .await;
    let id = task_id(&created);
    assert_eq!(created["status"], "working");
    assert!(
        created["ttlMs"].is_u64() && created["pollIntervalMs"].is_u64(),
        "{created}"
    );
    for legacy in ["task", "ttl", "pollInterval", "result", "requestState"] {
        assert!(created.get(legacy).is_none(), "{legacy} in {created}");
    }
    // Resolvable at once.
    let now = raw.ok("tasks/get", json!({"taskId": id})).await;
    assert_eq!(now["taskId"], id.as_str());
    assert_eq!(now["resultType"], "complete");
    let done = raw.until(&id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "slept 50 ms",
        "{done}"
    );
    assert!(
        done["result"].get("_meta").is_none(),
        "no related-task meta: {done}"
    );
    assert!(done.get("error").is_none());
    // A terminal task acknowledges cancellation and stays as it is.
    let ack = raw.ok("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["resultType"], "complete");
    assert!(
        ack.get("taskId").is_none() && ack.get("status").is_none(),
        "{ack}"
    );
    assert_eq!(raw.until(&id, "completed").await["status"], "completed");
}

#[tokio::test]
async fn errors_fail_the_task_and_tool_errors_complete_it() {
    let mut raw = Raw::serve(&server());
    let id = task_id(&raw.ok("tools/call", json!({"name": "boom"})).await);
    let failed = raw.until(&id, "failed").await;
    assert_eq!(failed["error"]["code"], -32603, "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
    // Cancelled while working: a tool error would follow, but the task stays cancelled.
    let id = task_id(
        &raw.ok(
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 60_000}}),
        )
        .await,
    );
    let ack = raw.ok("tasks/cancel", json!({"taskId": id})).await;
    assert_eq!(ack["resultType"], "complete");
    let cancelled = raw.until(&id, "cancelled").await;
    assert!(cancelled.get("result").is_none(), "{cancelled}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(raw.until(&id, "cancelled").await["status"], "cancelled");
}

#[tokio::test]
async fn input_requests_wait_for_tasks_update() {
    let mut raw = Raw::serve(&server());
    let id = task_id(&raw.ok("tools/call", json!({"name": "ask"})).await);
    let waiting = raw.until(&id, "input_required").await;
    let requests = waiting["inputRequests"].as_object().unwrap();
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, request) = requests.iter().next().unwrap();
    assert_eq!(request["method"], "elicitation/create", "{waiting}");
    assert_eq!(request["params"]["message"], "Go?");
    // Unknown keys are ignored, and so is an answer that is not an object.
    let ack = raw
        .ok(
            "tasks/update",
            json!({"taskId": id, "inputResponses": {"nope": {"action": "accept"}, key.as_str(): 3}}),
        )
        .await;
    assert_eq!(ack["resultType"], "complete");
    assert_eq!(
        raw.until(&id, "input_required").await["inputRequests"]
            .as_object()
            .unwrap()
            .len(),
        1
    );
    raw.ok(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {key.as_str(): {"action": "accept", "content": {"ok": true}}}}),
    )
    .await;
    let done = raw.until(&id, "completed").await;
    assert_eq!(
        done["result"]["content"][0]["text"], "answered accept",
        "{done}"
    );
    // `inputResponses` must be an object.
    let error = raw
        .err(
            "tasks/update",
            json!({"taskId": id, "inputResponses": []}),
            true,
        )
        .await;
    assert_eq!(error["code"], -32602, "{error}");
}

#[tokio::test]
async fn the_client_opts_in_per_request() {
    let mut raw = Raw::serve(&server());
    // Without the extension: task tools answer directly, a tool that must be
    // a task is refused with -32021 naming the extension, and so are the
    // tasks methods.
    let direct = raw
        .call(
            "tools/call",
            params(json!({"name": "slow", "arguments": {"ms": 1}}), false),
        )
        .await;
    assert_eq!(direct["result"]["resultType"], "complete", "{direct}");
    assert_eq!(direct["result"]["content"][0]["text"], "slept 1 ms");
    let missing = json!({"requiredCapabilities": {"extensions": { TASKS: {} }}});
    let error = raw
        .err("tools/call", json!({"name": "must_task"}), false)
        .await;
    assert_eq!(
        (error["code"].clone(), error["data"].clone()),
        (json!(-32021), missing.clone())
    );
    for (method, p) in [
        ("tasks/get", json!({"taskId": "x"})),
        ("tasks/update", json!({"taskId": "x", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "x"})),
    ] {
        let error = raw.err(method, p, false).await;
        assert_eq!(
            (error["code"].clone(), error["data"].clone()),
            (json!(-32021), missing.clone()),
            "{method}"
        );
    }
    // With it: unknown tasks are -32602; the 2025 methods do not exist.
    for (method, p) in [
        ("tasks/get", json!({"taskId": "x"})),
        ("tasks/update", json!({"taskId": "x", "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": "x"})),
        ("tasks/get", json!({})),
    ] {
        assert_eq!(raw.err(method, p, true).await["code"], -32602, "{method}");
    }
    for method in ["tasks/result", "tasks/list"] {
        assert_eq!(
            raw.err(method, json!({"taskId": "x"}), true).await["code"],
            -32601,
            "{method}"
        );
    }
    // A tool that is never a task ignores the legacy `task` field.
    let sync = raw
        .ok("tools/call", json!({"name": "sync", "task": {"ttl": 1000}}))
        .await;
    assert_eq!(sync["resultType"], "complete", "{sync}");
    assert_eq!(sync["content"][0]["text"], "sync");
}

#[tokio::test]
async fn sessions_keep_the_2025_tasks_and_see_no_extension_tasks() {
    let server = server();
    let mut raw = Raw::serve(&server);
    let id = task_id(
        &raw.ok(
            "tools/call",
            json!({"name": "slow", "arguments": {"ms": 1}}),
        )
        .await,
    );
    // A 2025-11-25 session on the same server: `tasks/update` is unknown,
    // and the extension's task is not its own.
    let init = raw
        .call(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "c", "version": "1"}}),
        )
        .await;
    assert!(init.get("result").is_some(), "{init}");
    assert_eq!(
        init["result"]["capabilities"]["tasks"]["requests"]["tools"]["call"],
        json!({})
    );
    let update = raw
        .call("tasks/update", json!({"taskId": id, "inputResponses": {}}))
        .await;
    assert_eq!(update["error"]["code"], -32601, "{update}");
    let get = raw.call("tasks/get", json!({"taskId": id})).await;
    assert_eq!(get["error"]["code"], -32602, "{get}");
}

async fn start_http() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let http = StreamableHttpServer::new(server(), HttpServerConfig::default());
    tokio::spawn(http.serve(listener));
    addr
}

/// One stateless POST with the headers its body asks for; the status and
/// the JSON-RPC answer (the last `data:` of an event stream).
async fn post(addr: SocketAddr, method: &str, p: Value, name: Option<&str>) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params(p, true)});
    let mut request = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method)
        .body(body.to_string());
    if let Some(name) = name {
        request = request.header("mcp-name", name);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let json = common::answer_json(&text);
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

#[tokio::test]
async fn over_stateless_http_a_task_outlives_its_post() {
    let addr = start_http().await;
    let (status, created) = post(
        addr,
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 300}}),
        Some("slow"),
    )
    .await;
    assert_eq!(status, 200, "{created}");
    // The POST is over (its body was read to the end): the task goes on.
    let id = task_id(&created["result"]);
    let mut last = Value::Null;
    for _ in 0..200 {
        let (status, got) = post(addr, "tasks/get", json!({"taskId": id}), Some(&id)).await;
        assert_eq!(status, 200, "{got}");
        last = got["result"].clone();
        if last["status"] != "working" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(last["status"], "completed", "{last}");
    assert_eq!(last["result"]["content"][0]["text"], "slept 300 ms");

    // Input over separate POSTs.
    let (_, created) = post(addr, "tools/call", json!({"name": "ask"}), Some("ask")).await;
    let id = task_id(&created["result"]);
    let mut key = None;
    for _ in 0..200 {
        let (_, got) = post(addr, "tasks/get", json!({"taskId": id}), Some(&id)).await;
        if let Some(requests) = got["result"]["inputRequests"].as_object() {
            key = requests.keys().next().cloned();
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let key = key.expect("the task asks");
    let answer = json!({"taskId": id, "inputResponses": {key: {"action": "decline"}}});
    let (status, ack) = post(addr, "tasks/update", answer, Some(&id)).await;
    assert_eq!(
        (status, ack["result"]["resultType"].clone()),
        (200, json!("complete")),
        "{ack}"
    );
    let mut last = Value::Null;
    for _ in 0..200 {
        let (_, got) = post(addr, "tasks/get", json!({"taskId": id}), Some(&id)).await;
        last = got["result"].clone();
        if last["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        last["result"]["content"][0]["text"], "answered decline",
        "{last}"
    );

    // `Mcp-Name` repeats the task id (SEP-2663): missing or different is -32020.
    for name in [None, Some("another-task")] {
        let (status, got) = post(addr, "tasks/get", json!({"taskId": id}), name).await;
        assert_eq!(
            (status, got["error"]["code"].clone()),
            (400, json!(-32020)),
            "{got}"
        );
    }
    // The endpoint still serves.
    let (status, _) = post(addr, "tasks/get", json!({"taskId": id}), Some(&id)).await;
    assert_eq!(status, 200);
}

/// Tokens `alice` and `bob`, each its own subject.
struct TwoUsers;

#[async_trait::async_trait]
impl mcp_core::auth::TokenValidator for TwoUsers {
    async fn validate(
        &self,
        token: &str,
    ) -> Result<mcp_core::auth::AuthInfo, mcp_core::auth::TokenError> {
        match token {
            "alice" | "bob" => Ok(mcp_core::auth::AuthInfo::new(
                token,
                "http://127.0.0.1/mcp",
                Vec::<String>::new(),
            )),
            _ => Err(mcp_core::auth::TokenError::Invalid("unknown".into())),
        }
    }
}

/// On a protected server an extension task belongs to the subject of the
/// token that created it: another caller's `tasks/get`, `tasks/update` and
/// `tasks/cancel` find no such task.
#[tokio::test]
async fn a_task_belongs_to_the_caller_who_created_it() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = mcp_core::auth::ProtectedResource::builder(
        "http://127.0.0.1/mcp",
        ["http://127.0.0.1/as"],
        TwoUsers,
    )
    .build()
    .unwrap();
    let config = HttpServerConfig::default().protected_resource(resource);
    tokio::spawn(StreamableHttpServer::new(server(), config).serve(listener));
    let call = |token: &'static str, method: &'static str, p: Value| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params(p, true)});
        let name = body["params"]["taskId"]
            .as_str()
            .or(body["params"]["name"].as_str())
            .unwrap_or_default()
            .to_string();
        async move {
            let response = reqwest::Client::new()
                .post(format!("http://{addr}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2026-07-28")
                .header("mcp-method", method)
                .header("mcp-name", name)
                .header("authorization", format!("Bearer {token}"))
                .body(body.to_string())
                .send()
                .await
                .unwrap();
            let text = response.text().await.unwrap();
            let json = common::answer_json(&text);
            serde_json::from_str::<Value>(json).unwrap()
        }
    };
    let created = call(
        "alice",
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 60_000}}),
    )
    .await;
    let id = task_id(&created["result"]);
    let mine = call("alice", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(mine["result"]["status"], "working", "{mine}");
    for (method, p) in [
        ("tasks/get", json!({"taskId": id})),
        ("tasks/update", json!({"taskId": id, "inputResponses": {}})),
        ("tasks/cancel", json!({"taskId": id})),
    ] {
        let theirs = call("bob", method, p).await;
        assert_eq!(theirs["error"]["code"], -32602, "{method}: {theirs}");
    }
    // Bob's cancel did nothing; Alice's does.
    let mine = call("alice", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(mine["result"]["status"], "working", "{mine}");
    call("alice", "tasks/cancel", json!({"taskId": id})).await;
    let mine = call("alice", "tasks/get", json!({"taskId": id})).await;
    assert_eq!(mine["result"]["status"], "cancelled", "{mine}");
}

/// A tool that asks before it becomes a task: its first question is an
/// input-required round of the `tools/call` (no task yet), the retry with
/// the answer becomes the task, and its later question waits in the task.
#[tokio::test]
async fn questions_first_then_the_task() {
    let mut raw = Raw::serve(&server());
    let round = raw.ok("tools/call", json!({"name": "twice"})).await;
    assert_eq!(round["resultType"], "input_required", "{round}");
    assert!(round.get("taskId").is_none(), "{round}");
    assert_eq!(
        round["inputRequests"]["first"]["method"],
        "elicitation/create"
    );
    let state = round["requestState"].as_str().unwrap();
    let created = raw
        .ok(
            "tools/call",
            json!({"name": "twice", "requestState": state,
                   "inputResponses": {"first": {"action": "accept", "content": {"name": "Ann"}}}}),
        )
        .await;
    let id = task_id(&created);
    assert!(created.get("requestState").is_none() && created.get("inputRequests").is_none());
    let waiting = raw.until(&id, "input_required").await;
    assert_eq!(
        waiting["inputRequests"]["second"]["params"]["message"], "Sure?",
        "{waiting}"
    );
    raw.ok(
        "tasks/update",
        json!({"taskId": id, "inputResponses": {"second": {"action": "decline"}}}),
    )
    .await;
    let done = raw.until(&id, "completed").await;
    assert!(text_is(&done["result"], "accept then decline"), "{done}");
}

fn text_is(result: &Value, text: &str) -> bool {
    result["content"][0]["text"] == text
}
