//! A `ClientGroup` over an `mcpServers` file naming real servers: `mcp serve
//! everything` over stdio and over Streamable HTTP (with a header), the
//! official TypeScript everything server (`@modelcontextprotocol/
//! server-everything`, 2025-11-25) and a server built with the official
//! Python SDK (`tests/interop/python_server.py`, 2026-07-28), plus one whose
//! command does not exist. Merged, namespaced tools and prompts; calls,
//! prompts and resources routed to their server; a tool-list change of one
//! server refreshing the merged list; the failed server reported and named
//! by calls to it; the Python server killed (SIGKILL of its PID), reported
//! as disconnected, and started again by the next call of one of its tools.
//! Then, with `mcp serve everything` alone: a stdio entry's `env` and an
//! HTTP entry's `headers` reaching their servers, and servers that are slow
//! to start connected in parallel.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mcp_core::Error;
use mcp_core::client::group::{GroupEvent, ServerState};
use mcp_core::client::{Client, ClientGroup, GroupConfig};
use mcp_core::schema::CallToolResult;
use mcp_test_support::capture_one_request;
use mcp_tests::interop::{
    installed, mcp_binary, node, server_everything_dir, venv_python, workspace_root,
};
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

/// Longest any one step may take.
const WAIT: Duration = Duration::from_secs(60);

/// The group of `config`, connected within [`WAIT`] (a server that failed
/// to connect is not tried again during a test).
async fn connect(config: &GroupConfig) -> ClientGroup {
    tokio::time::timeout(
        WAIT,
        ClientGroup::builder(Client::builder("group-test", "1.0.0"))
            .retry_interval(Duration::from_secs(600))
            .connect(config),
    )
    .await
    .expect("the group connects in time")
}

fn args(v: Value) -> Option<Map<String, Value>> {
    v.as_object().cloned()
}

fn text(result: &CallToolResult) -> String {
    serde_json::to_value(&result.content).unwrap()[0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `mcp serve everything --http` on a free loopback port, its process group
/// killed when dropped.
struct HttpEverything {
    child: Child,
    url: String,
}

impl HttpEverything {
    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new(mcp_binary())
            .args([
                "serve",
                "everything",
                "--http",
                &format!("127.0.0.1:{port}"),
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let started = Instant::now();
        while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
            assert!(started.elapsed() < WAIT, "no server on {addr}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpEverything {
    fn drop(&mut self) {
        let group = nix::unistd::Pid::from_raw(i32::try_from(self.child.id()).unwrap());
        let _ = nix::sys::signal::killpg(group, nix::sys::signal::Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// The PIDs the Python server's wrapper wrote, one per start.
fn pids(file: &Path) -> Vec<i32> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse().ok())
        .collect()
}

/// Waits for an event `wanted` accepts, skipping others.
async fn wait_for(
    events: &mut broadcast::Receiver<GroupEvent>,
    what: &str,
    wanted: impl Fn(&GroupEvent) -> bool,
) {
    let found = tokio::time::timeout(WAIT, async {
        loop {
            match events.recv().await {
                Ok(event) if wanted(&event) => return,
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => panic!("the group's events ended"),
            }
        }
    })
    .await;
    assert!(found.is_ok(), "no {what} within {WAIT:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_of_real_servers() {
    let scratch = workspace_root().join("target/tmp/group_servers");
    std::fs::create_dir_all(&scratch).unwrap();
    let pid_file = scratch.join("python.pids");
    let _ = std::fs::remove_file(&pid_file);
    let python_script = installed(
        workspace_root().join("tests/interop/python_server.py"),
        "the Python SDK interop server",
    );
    let everything_ts = installed(
        server_everything_dir().join("dist/index.js"),
        "server-everything's entry point",
    );
    let http = HttpEverything::start();
    let config = json!({"mcpServers": {
        "ours": {"command": mcp_binary(), "args": ["serve", "everything"]},
        "ts": {"command": node(), "args": [everything_ts, "stdio"]},
        // The wrapper records the PID of each start, then becomes the server.
        "py": {
            "command": "/bin/sh",
            "args": ["-c", "echo $$ >> \"$0\"; exec \"$@\"", pid_file, venv_python(),
                     python_script, "2026", "stdio"]
        },
        "web": {"type": "http", "url": http.url, "headers": {"X-Test": "group"}},
        "broken": {"command": "/nonexistent/mcp-server"}
    }});
    let file = scratch.join("mcp.json");
    std::fs::write(&file, config.to_string()).unwrap();
    let config = GroupConfig::from_file(&file).unwrap();

    let group = connect(&config).await;

    // Every server but the broken one is connected; the broken one says why.
    let status = group.status();
    let names: Vec<&str> = status.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["ours", "ts", "py", "web", "broken"]);
    for s in &status[..4] {
        assert_eq!(s.state, ServerState::Connected, "{s:?}");
        assert!(s.tools > 0 && s.connections == 1, "{s:?}");
    }
    assert_eq!(status[4].state, ServerState::Failed);
    let why = status[4].error.clone().unwrap_or_default();
    assert!(why.contains("/nonexistent/mcp-server"), "{why}");
    assert_eq!(
        status[2].protocol_version,
        Some(mcp_core::ProtocolVersion::V2026_07_28)
    );
    assert_eq!(
        status[1].protocol_version,
        Some(mcp_core::ProtocolVersion::V2025_11_25)
    );

    // One merged list, each name routed to its server.
    let tools: Vec<String> = group.tools().into_iter().map(|t| t.name).collect();
    for name in [
        "ours__add_numbers",
        "ts__echo",
        "py__add",
        "web__add_numbers",
    ] {
        assert!(tools.iter().any(|t| t == name), "{name} not in {tools:?}");
    }
    assert_eq!(group.route_tool("py__add"), Some(("py", "add".to_string())));
    let sum = group
        .call_tool("ours__add_numbers", args(json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert_eq!(text(&sum), "5");
    let sum = group
        .call_tool("web__add_numbers", args(json!({"a": 20, "b": 3})))
        .await
        .unwrap();
    assert_eq!(text(&sum), "23");
    let echo = group
        .call_tool("ts__echo", args(json!({"message": "hi there"})))
        .await
        .unwrap();
    assert!(text(&echo).contains("hi there"), "{echo:?}");
    let sum = group
        .call_tool("py__add", args(json!({"a": 2, "b": 40})))
        .await
        .unwrap();
    assert_eq!(text(&sum), "42");

    // The failed server's tools fail naming it; an unknown prefix is unknown.
    match group.call_tool("broken__anything", None).await {
        Err(Error::Member { server, .. }) => assert_eq!(server, "broken"),
        other => panic!("{other:?}"),
    }
    let e = group.call_tool("nobody__x", None).await.unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    // A server's own error comes back naming the server.
    // A tool's own failure (here, arguments it rejects) is a result with
    // `isError`, passed through as it came.
    let bad = group
        .call_tool("py__add", args(json!({"a": "x"})))
        .await
        .unwrap();
    assert_eq!(bad.is_error, Some(true), "{bad:?}");
    assert!(text(&bad).contains("valid integer"), "{bad:?}");
    // A server's JSON-RPC error comes back naming the server.
    let e = group
        .read_resource_from("py", "interop://no-such-resource")
        .await
        .unwrap_err();
    assert!(
        matches!(&e, Error::Member { server, source }
            if server == "py" && matches!(**source, Error::Rpc(_))),
        "{e:?}"
    );
    assert!(e.to_string().contains("server `py`"), "{e}");

    // Prompts and resources, routed.
    let prompts: Vec<String> = group.prompts().into_iter().map(|p| p.name).collect();
    assert!(prompts.iter().any(|p| p == "py__greet"), "{prompts:?}");
    let greeting = group
        .get_prompt(
            "py__greet",
            Some([("name".to_string(), "Grace".to_string())].into()),
        )
        .await
        .unwrap();
    assert!(
        serde_json::to_string(&greeting.messages)
            .unwrap()
            .contains("Please greet Grace")
    );
    let resources = group.list_resources().await;
    assert!(
        resources
            .iter()
            .any(|r| r.server == "py" && r.item.uri == "interop://static"),
        "{resources:?}"
    );
    assert!(resources.iter().any(|r| r.server == "ts"));
    let read = group.read_resource("interop://static").await.unwrap();
    assert!(
        serde_json::to_string(&read.contents)
            .unwrap()
            .contains("static content")
    );
    let read = group.read_resource("test://static-text").await.unwrap();
    assert!(!read.contents.is_empty());

    // A tool-list change of one server refreshes the merged list (a
    // subscriptions/listen under 2026-07-28).
    let mut events = group.events();
    group
        .call_tool("ours__test_trigger_tool_change", None)
        .await
        .unwrap();
    wait_for(
        &mut events,
        "tools change of `ours`",
        |e| matches!(e, GroupEvent::ToolsChanged { server } if server == "ours"),
    )
    .await;

    // The Python server dies: reported, and back on the next call.
    let started = pids(&pid_file);
    assert_eq!(started.len(), 1, "{started:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(started[0]),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    wait_for(&mut events, "`py` disconnected", |e| {
        matches!(e, GroupEvent::Status(s) if s.name == "py" && s.state == ServerState::Disconnected)
    })
    .await;
    let py = &group.status()[2];
    assert_eq!(py.state, ServerState::Disconnected);
    assert!(py.error.is_some(), "{py:?}");
    // Its tools stay listed, so that calling one brings it back.
    assert!(group.route_tool("py__add").is_some());
    let sum = tokio::time::timeout(
        WAIT,
        group.call_tool("py__add", args(json!({"a": 1, "b": 2}))),
    )
    .await
    .expect("the call returns in time")
    .unwrap();
    assert_eq!(text(&sum), "3");
    let py = &group.status()[2];
    assert_eq!((py.state, py.connections), (ServerState::Connected, 2));
    let restarted = pids(&pid_file);
    assert_eq!(restarted.len(), 2, "{restarted:?}");
    assert_ne!(restarted[0], restarted[1]);

    // The others were not disturbed.
    let echo = group
        .call_tool("ts__echo", args(json!({"message": "still"})))
        .await
        .unwrap();
    assert!(text(&echo).contains("still"));

    tokio::time::timeout(WAIT, group.close())
        .await
        .expect("the group closes in time");
    assert!(
        group
            .status()
            .iter()
            .all(|s| s.state == ServerState::Closed)
    );
    let e = group.call_tool("py__add", None).await.unwrap_err();
    assert!(e.to_string().contains("server `py`"), "{e}");
    drop(http);
}

/// A stdio entry's `env` is in its server's environment, and an HTTP
/// entry's `headers` go with its requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_env_and_headers_reach_the_servers() {
    let scratch = workspace_root().join("target/tmp/group_servers_env");
    std::fs::create_dir_all(&scratch).unwrap();
    let env_file = scratch.join("env.txt");
    let _ = std::fs::remove_file(&env_file);
    let (url, head) = capture_one_request();
    let config = GroupConfig::from_value(&json!({"mcpServers": {
        // The wrapper writes the variable it was given, then becomes the server.
        "local": {
            "command": "/bin/sh",
            "args": ["-c", "printf %s \"$GROUP_TEST_VALUE\" > \"$0\"; exec \"$@\"", env_file,
                     mcp_binary(), "serve", "everything"],
            "env": {"GROUP_TEST_VALUE": "from the config"}
        },
        "remote": {"type": "http", "url": url, "headers": {"X-Test": "group", "X-Other": "two words"}}
    }}))
    .unwrap();
    let group = connect(&config).await;

    let status = group.status();
    assert_eq!(status[0].state, ServerState::Connected, "{:?}", status[0]);
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        "from the config"
    );
    let sum = group
        .call_tool("local__add_numbers", args(json!({"a": 1, "b": 1})))
        .await
        .unwrap();
    assert_eq!(text(&sum), "2");

    // The capture answered 500: the member failed, after sending the headers.
    assert_eq!(status[1].state, ServerState::Failed, "{:?}", status[1]);
    let head = head.join().unwrap();
    assert!(head.starts_with("post /mcp "), "{head}");
    assert!(head.contains("\r\nx-test: group\r\n"), "{head}");
    assert!(head.contains("\r\nx-other: two words\r\n"), "{head}");

    tokio::time::timeout(WAIT, group.close())
        .await
        .expect("the group closes in time");
}

/// The servers of a group are connected at once: three that each take
/// `DELAY` to start connect in about one `DELAY`, not three, beside a fast
/// one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_connects_its_servers_in_parallel() {
    const DELAY: Duration = Duration::from_secs(4);
    let slow = || {
        json!({
            "command": "/bin/sh",
            "args": ["-c", format!("sleep {}; exec \"$0\" serve everything", DELAY.as_secs()),
                     mcp_binary()]
        })
    };
    let config = GroupConfig::from_value(&json!({"mcpServers": {
        "slow1": slow(),
        "fast": {"command": mcp_binary(), "args": ["serve", "everything"]},
        "slow2": slow(),
        "slow3": slow(),
    }}))
    .unwrap();
    let started = Instant::now();
    let group = connect(&config).await;
    let took = started.elapsed();
    assert!(group.all_connected(), "{:?}", group.status());
    // Serially, at least 3 × DELAY; in parallel, DELAY and the start-ups.
    assert!(took >= DELAY, "{took:?}");
    assert!(took < DELAY * 2 + DELAY / 2, "connecting took {took:?}");
    for name in ["fast", "slow1", "slow2", "slow3"] {
        let sum = group
            .call_tool(
                &format!("{name}__add_numbers"),
                args(json!({"a": 2, "b": 2})),
            )
            .await
            .unwrap();
        assert_eq!(text(&sum), "4");
    }
    tokio::time::timeout(WAIT, group.close())
        .await
        .expect("the group closes in time");
}
