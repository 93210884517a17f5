//! Our client against official SDK servers, in `auto` mode: the Rust
//! `Client` and the `mcp` command against a server built with the official
//! Python SDK 2.3 (`tests/interop/python_server.py`) serving 2026-07-28, and
//! the same server restricted to 2025-11-25, over stdio and Streamable HTTP;
//! the same against a server built with the official TypeScript SDK v2
//! (`tests/interop/ts_server.mjs`, npm `@modelcontextprotocol/server` 2.4)
//! on both transports (resource updates over HTTP at 2026-07-28 only, and
//! no input asked over its stateless 2025 HTTP serving);
//! and the `mcp` command against `@modelcontextprotocol/server-everything`
//! (2025-11-25) over stdio (our Rust client meets it in interop_stdio.rs and
//! interop_http.rs). Each must pick the right revision and every call must
//! succeed: tools, a tool that asks for input (an input-required round at
//! 2026-07-28, an elicitation request at 2025-11-25), resources, prompts and
//! resource subscriptions (`subscriptions/listen`, or `resources/subscribe`).
//! One HTTP server process per era; every wait is bounded.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::ffi::OsStr;
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_core::ProtocolVersion;
use mcp_core::client::Client;
use mcp_core::schema::{
    ElicitResult, ElicitResultAction, ElicitResultContentValue, ServerNotification,
    SubscriptionFilter,
};
use mcp_core::transport::ChildProcess;
use mcp_core::transport::http::StreamableHttpClient;
use mcp_tests::interop::{
    installed, mcp_binary, run_bounded, server_everything_dir, venv_python, workspace_root,
};
use serde_json::{Map, Value, json};

const STATIC_URI: &str = "interop://static";
/// Longest any one step may take.
const WAIT: Duration = Duration::from_secs(30);

fn python_server() -> PathBuf {
    installed(
        workspace_root().join("tests/interop/python_server.py"),
        "the Python SDK interop server",
    )
}

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

fn text(result: &mcp_core::schema::CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `era` as the revision the client must pick.
fn expected(era: &str) -> ProtocolVersion {
    match era {
        "2026" => ProtocolVersion::V2026_07_28,
        _ => ProtocolVersion::V2025_11_25,
    }
}

/// A client whose user answers every elicitation with the name "Ada".
fn client() -> mcp_core::client::ClientBuilder {
    Client::builder("libmcp-interop", "0.1.0").on_elicitation(false, |_params, _cx| async {
        let content: indexmap::IndexMap<String, ElicitResultContentValue> =
            serde_json::from_value(json!({"name": "Ada"})).unwrap();
        Ok(ElicitResult {
            content: Some(content),
            ..ElicitResult::new(ElicitResultAction::Accept)
        })
    })
}

/// Every call of the interop servers, with the revision checked first;
/// resource updates only where the server can announce them (`touch`).
async fn exercise(client: &Client, era: &str) {
    assert_eq!(client.protocol_version(), expected(era));
    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "add"), "no tool add");
    let sum = client
        .call_tool("add", args(json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert_eq!(text(&sum), "42");
    // Input asked of the user: the same handler under both revisions.
    if tools.iter().any(|t| t.name == "ask_name") {
        let asked = client
            .call_tool("ask_name", Some(Map::new()))
            .await
            .unwrap();
        assert_eq!(text(&asked), "hello Ada");
    }

    let resources = client.list_all_resources().await.unwrap();
    assert!(resources.iter().any(|r| r.uri == STATIC_URI));
    let read = client.read_resource(STATIC_URI).await.unwrap();
    assert!(
        serde_json::to_string(&read.contents)
            .unwrap()
            .contains("static content")
    );
    let prompts = client.list_all_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "greet"));
    let prompt = client
        .get_prompt(
            "greet",
            Some([("name".to_string(), "Grace".to_string())].into()),
        )
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&prompt.messages)
            .unwrap()
            .contains("Please greet Grace")
    );

    if !tools.iter().any(|t| t.name == "touch") {
        return;
    }
    // Resource updates: a listen at 2026-07-28, resources/subscribe before.
    let touch = || client.call_tool("touch", args(json!({"uri": STATIC_URI})));
    if era == "2026" {
        let mut sub = client
            .listen(SubscriptionFilter {
                resource_subscriptions: Some(vec![STATIC_URI.into()]),
                ..SubscriptionFilter::new()
            })
            .await
            .unwrap();
        touch().await.unwrap();
        let update = tokio::time::timeout(WAIT, sub.next())
            .await
            .expect("an update in time")
            .unwrap();
        assert!(
            matches!(&update, Some(ServerNotification::ResourceUpdated(n)) if n.params.uri == STATIC_URI),
            "{update:?}"
        );
        sub.close();
    } else {
        let mut notifications = client.notifications();
        client.subscribe(STATIC_URI).await.unwrap();
        touch().await.unwrap();
        let wait = async {
            loop {
                if let Ok(ServerNotification::ResourceUpdated(n)) = notifications.recv().await {
                    if n.params.uri == STATIC_URI {
                        return;
                    }
                }
            }
        };
        tokio::time::timeout(WAIT, wait)
            .await
            .expect("an update in time");
        client.unsubscribe(STATIC_URI).await.unwrap();
    }
}

/// Runs `mcp --json ARGS… TARGET…` and returns its JSON output, checking the
/// revision it names.
fn mcp_json(args: &[&str], target: &[&OsStr], era: &str) -> Value {
    let mut all: Vec<&OsStr> = vec![OsStr::new("--json")];
    all.extend(args.iter().map(OsStr::new));
    all.extend_from_slice(target);
    let (code, stdout, stderr) = run_bounded(&mcp_binary(), &all);
    assert_eq!(
        code,
        Some(0),
        "`mcp {args:?}` failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let value: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("`mcp {args:?}` printed no JSON ({e}): {stdout}"));
    assert_eq!(
        value["protocolVersion"],
        expected(era).as_str(),
        "`mcp {args:?}`: {value}"
    );
    value
}

/// The `mcp` command's verbs against the interop server at `target`.
fn mcp_against(target: &[&OsStr], era: &str) {
    let sum = mcp_json(
        &["tools", "call", "add", "--args", r#"{"a":2,"b":40}"#],
        target,
        era,
    );
    assert_eq!(sum["content"][0]["text"], "42", "{sum}");
    // Stdin is no terminal: the question is declined, and the tool says so.
    let tools = mcp_json(&["tools", "list"], target, era);
    if tools.to_string().contains("\"ask_name\"") {
        let asked = mcp_json(&["tools", "call", "ask_name"], target, era);
        assert_eq!(asked["content"][0]["text"], "no name", "{asked}");
    }
    let read = mcp_json(&["resources", "read", STATIC_URI], target, era);
    assert!(read.to_string().contains("static content"), "{read}");
    let prompt = mcp_json(
        &["prompts", "get", "greet", "--args", r#"{"name":"Grace"}"#],
        target,
        era,
    );
    assert!(
        prompt.to_string().contains("Please greet Grace"),
        "{prompt}"
    );
}

async fn python_over_stdio(era: &'static str) {
    let python = venv_python();
    let script = python_server();
    let child = ChildProcess::new(&python)
        .arg(&script)
        .arg(era)
        .arg("stdio")
        .shutdown_grace(Duration::from_secs(1));
    let client = tokio::time::timeout(WAIT, client().connect(child))
        .await
        .expect("connecting in time")
        .unwrap();
    let outcome = tokio::time::timeout(WAIT * 2, exercise(&client, era)).await;
    client.close().await;
    outcome.expect("the calls finish in time");

    tokio::task::spawn_blocking(move || {
        let target = [
            OsStr::new("--"),
            python.as_os_str(),
            script.as_os_str(),
            OsStr::new(era),
            OsStr::new("stdio"),
        ];
        mcp_against(&target, era);
    })
    .await
    .unwrap();
}

/// The Python server over HTTP, in its own process group, stopped (the
/// whole group) when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    /// `command` with `http PORT` added, on a free port.
    fn start(mut command: Command) -> Self {
        // A free port: the system picks one, which is released for the server.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = command
            .args(["http", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let server = Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let started = Instant::now();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(
                started.elapsed() < WAIT,
                "the server did not listen on {addr} within {WAIT:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

async fn python_over_http(era: &'static str) {
    let mut command = Command::new(venv_python());
    command.arg(python_server()).arg(era);
    over_http(HttpServer::start(command), era).await;
}

/// The Rust client, then the `mcp` command, against `server`.
async fn over_http(server: HttpServer, era: &'static str) {
    let client = tokio::time::timeout(
        WAIT,
        client().connect(StreamableHttpClient::new(server.url.clone())),
    )
    .await
    .expect("connecting in time")
    .unwrap();
    let outcome = tokio::time::timeout(WAIT * 2, exercise(&client, era)).await;
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    outcome.expect("the calls finish in time");
    let url = server.url.clone();
    tokio::task::spawn_blocking(move || {
        let target = [OsStr::new("--url"), OsStr::new(&url)];
        mcp_against(&target, era);
    })
    .await
    .unwrap();
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2026_over_stdio() {
    python_over_stdio("2026").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2025_over_stdio() {
    python_over_stdio("2025").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2026_over_http() {
    python_over_http("2026").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_2025_over_http() {
    python_over_http("2025").await;
}

/// The TypeScript SDK v2 server over stdio (`serveStdio` for both eras, or
/// the 2025-11-25 wiring), run from beside its package.
async fn typescript_over_stdio(era: &'static str) {
    let script = typescript_server();
    let node = mcp_tests::interop::node();
    let child = ChildProcess::new(&node)
        .arg(&script)
        .arg(era)
        .shutdown_grace(Duration::from_secs(1));
    let client = tokio::time::timeout(WAIT, client().connect(child))
        .await
        .expect("connecting in time")
        .unwrap();
    let outcome = tokio::time::timeout(WAIT * 2, exercise(&client, era)).await;
    client.close().await;
    outcome.expect("the calls finish in time");
    tokio::task::spawn_blocking(move || {
        let target = [
            OsStr::new("--"),
            node.as_os_str(),
            script.as_os_str(),
            OsStr::new(era),
        ];
        mcp_against(&target, era);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_2026_over_stdio() {
    typescript_over_stdio("2026").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_2025_over_stdio() {
    typescript_over_stdio("2025").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_2026_over_http() {
    typescript_over_http("2026").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typescript_sdk_2025_over_http() {
    typescript_over_http("2025").await;
}

async fn typescript_over_http(era: &'static str) {
    let script = typescript_server();
    let mut command = Command::new(mcp_tests::interop::node());
    command
        .arg(&script)
        .arg(era)
        .current_dir(script.parent().unwrap());
    over_http(HttpServer::start(command), era).await;
}

/// The TypeScript server script, copied beside its installed package.
fn typescript_server() -> PathBuf {
    let dir = installed(
        mcp_tests::interop::interop_dir()
            .join("ts-server/node_modules/@modelcontextprotocol/server"),
        "@modelcontextprotocol/server",
    );
    assert!(dir.exists());
    let script = mcp_tests::interop::interop_dir().join("ts-server/ts_server.mjs");
    std::fs::copy(
        workspace_root().join("tests/interop/ts_server.mjs"),
        &script,
    )
    .unwrap();
    script
}

/// The `mcp` command (auto) against the official everything server over
/// stdio: 2025-11-25, and its calls succeed.
#[test]
fn mcp_against_server_everything_over_stdio() {
    let entry = installed(
        server_everything_dir().join("dist/index.js"),
        "server-everything's entry point",
    );
    let node = mcp_tests::interop::node();
    let target = [
        OsStr::new("--"),
        node.as_os_str(),
        entry.as_os_str(),
        OsStr::new("stdio"),
    ];
    let tools = mcp_json(&["tools", "list"], &target, "2025");
    assert!(tools.to_string().contains("\"echo\""), "{tools}");
    let echo = mcp_json(
        &["tools", "call", "echo", "--args", r#"{"message":"hi"}"#],
        &target,
        "2025",
    );
    assert!(echo.to_string().contains("hi"), "{echo}");
    let resources = mcp_json(&["resources", "list"], &target, "2025");
    let uri = resources["resources"][0]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    mcp_json(&["resources", "read", &uri], &target, "2025");
    let prompts = mcp_json(&["prompts", "list"], &target, "2025");
    assert!(prompts["prompts"].as_array().is_some_and(|p| !p.is_empty()));
}
