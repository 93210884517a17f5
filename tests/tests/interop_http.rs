//! Interop over Streamable HTTP with the official SDKs:
//!
//! - our client (`mcp_core::client::Client` over `StreamableHttpClient`)
//!   against the official TypeScript reference server
//!   `@modelcontextprotocol/server-everything` in its `streamableHttp` mode
//!   (built on the TypeScript SDK's `StreamableHTTPServerTransport`);
//! - the official Python SDK's client (`tests/interop/python_http_client.py`,
//!   `mcp.client.streamable_http.streamable_http_client`) against our server
//!   (`mcp serve everything --http 127.0.0.1:0`).
//!
//! Both need what `tests/interop/setup.sh` installs into `target/interop/`,
//! and the second needs the `mcp` binary; they fail (not skip) with
//! instructions when either is missing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::io::{BufRead, BufReader, Read};
use std::net::{SocketAddr, TcpStream};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_core::client::Client;
use mcp_core::schema::*;
use mcp_core::session::SessionConfig;
use mcp_core::transport::http::StreamableHttpClient;
use mcp_test_support::{obj, text, with_client};
use mcp_tests::everything;
use mcp_tests::interop::{
    LIMIT, NODE_VERSION, SERVER_EVERYTHING_VERSION, installed, mcp_binary, node, run_bounded,
    server_everything_dir, venv_python, workspace_root,
};
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use serde_json::{Value, json};

/// Longest one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Longest a server may take to start listening.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest wait for a notification or a log line that is due.
const EVENT_TIMEOUT: Duration = Duration::from_secs(10);

/// A server process in its own process group, its output collected (and
/// drained, so that it never blocks writing it). Dropping it kills the whole
/// group and reaps the process, also when the test panics.
struct ServerProcess {
    name: &'static str,
    child: Child,
    group: Pid,
    /// Every line of stdout and stderr so far, for assertions and diagnosis.
    output: Arc<Mutex<Vec<String>>>,
    /// The same lines, as they come.
    lines: mpsc::Receiver<String>,
}

impl ServerProcess {
    fn spawn(name: &'static str, mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let group = Pid::from_raw(i32::try_from(child.id()).unwrap());
        let output = Arc::new(Mutex::new(Vec::new()));
        let (tx, lines) = mpsc::channel();
        let stdout: Box<dyn Read + Send> = Box::new(child.stdout.take().unwrap());
        let stderr: Box<dyn Read + Send> = Box::new(child.stderr.take().unwrap());
        for stream in [stdout, stderr] {
            let output = output.clone();
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    output.lock().unwrap().push(line.clone());
                    let _ = tx.send(line);
                }
            });
        }
        Self {
            name,
            child,
            group,
            output,
            lines,
        }
    }

    fn output(&self) -> String {
        self.output.lock().unwrap().join("\n")
    }

    /// Waits (at most `limit`) for an output line `pick` accepts; fails the
    /// test, with the output so far, if the process exits or time runs out.
    fn wait_for_line<T>(&mut self, limit: Duration, pick: impl Fn(&str) -> Option<T>) -> T {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self
                .lines
                .recv_timeout(left.min(Duration::from_millis(100)))
            {
                Ok(line) => {
                    if let Some(found) = pick(&line) {
                        return found;
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = self.child.wait().unwrap();
                    panic!(
                        "{} closed its output ({status}) before the awaited line; output:\n{}",
                        self.name,
                        self.output()
                    );
                }
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!(
                    "{} exited ({status}) before the awaited line; output:\n{}",
                    self.name,
                    self.output()
                );
            }
            if Instant::now() >= deadline {
                panic!(
                    "{} did not print the awaited line within {limit:?}; output:\n{}",
                    self.name,
                    self.output()
                );
            }
        }
    }

    /// Whether some output line contains `needle`, waiting at most `limit`.
    fn printed_within(&self, needle: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            if self
                .output
                .lock()
                .unwrap()
                .iter()
                .any(|l| l.contains(needle))
            {
                return true;
            }
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = killpg(self.group, Signal::SIGKILL);
        let _ = self.child.wait();
    }
}

/// Waits (bounded) until `addr` accepts TCP connections.
fn wait_until_accepting(addr: SocketAddr) {
    let deadline = Instant::now() + STARTUP_TIMEOUT;
    while TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing accepts connections on {addr} within {STARTUP_TIMEOUT:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `data:` URL of an ES module, for `node --import`.
fn javascript_data_url(source: &str) -> String {
    let mut url = String::from("data:text/javascript,");
    for byte in source.bytes() {
        if byte.is_ascii_alphanumeric() || b"-_.~".contains(&byte) {
            url.push(char::from(byte));
        } else {
            url.push_str(&format!("%{byte:02X}"));
        }
    }
    url
}

/// Loaded into the reference server with `node --import` before it starts.
///
/// Its `streamableHttp` transport (`dist/transports/streamableHttp.js`) calls
/// `app.listen(process.env.PORT || 3001, …)`: the port is chosen by `PORT`,
/// but there is no host option, so it would listen on every interface. This
/// module makes every `listen(port, …)` without a host bind 127.0.0.1 only,
/// and prints the address actually bound; with `PORT=0` the system picks a
/// free port and there is no race for one.
const LOOPBACK_ONLY: &str = r#"
import net from "node:net";
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const port = args[0];
  if ((typeof port === "number" || typeof port === "string") && typeof args[1] !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  this.once("listening", () => {
    console.error("libmcp-interop: listening on " + JSON.stringify(this.address()));
  });
  return listen.apply(this, args);
};
"#;

/// Starts the official everything server over Streamable HTTP on a free
/// loopback port; returns it and its MCP endpoint.
fn start_server_everything() -> (ServerProcess, String) {
    let node = node();
    let version = Command::new(&node).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&version.stdout).trim(),
        NODE_VERSION,
        "unexpected Node.js: run `bash tests/interop/setup.sh`"
    );
    let dir = server_everything_dir();
    let package: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("package.json")).unwrap()).unwrap();
    assert_eq!(
        package["version"], SERVER_EVERYTHING_VERSION,
        "unexpected server-everything version: run `bash tests/interop/setup.sh`"
    );
    // package.json's `bin` is dist/index.js; its first argument picks the transport.
    let entry = installed(dir.join("dist/index.js"), "server-everything's entry point");
    let mut command = Command::new(node);
    command
        .arg("--import")
        .arg(javascript_data_url(LOOPBACK_ONLY))
        .arg(entry)
        .arg("streamableHttp")
        .current_dir(&dir)
        // Nothing of ours (NODE_OPTIONS included) reaches the server.
        .env_clear()
        .env("PORT", "0");
    let mut server = ServerProcess::spawn("server-everything (streamableHttp)", command);
    let address = server.wait_for_line(STARTUP_TIMEOUT, |line| {
        let json = line.strip_prefix("libmcp-interop: listening on ")?;
        Some(serde_json::from_str::<Value>(json).unwrap())
    });
    assert_eq!(address["address"], "127.0.0.1", "not loopback: {address}");
    let port = u16::try_from(address["port"].as_u64().unwrap()).unwrap();
    assert_ne!(port, 0);
    wait_until_accepting(SocketAddr::from(([127, 0, 0, 1], port)));
    (server, format!("http://127.0.0.1:{port}/mcp"))
}

/// The log messages (`data` as text) the server has sent so far.
fn logged(notifications: &Mutex<Vec<ServerNotification>>) -> Vec<String> {
    notifications
        .lock()
        .unwrap()
        .iter()
        .filter_map(|n| match n {
            ServerNotification::LoggingMessage(m) => Some(match &m.params.data {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }),
            _ => None,
        })
        .collect()
}

/// Waits (at most [`EVENT_TIMEOUT`]) for a log message starting with `prefix`.
async fn log_arrives(notifications: &Mutex<Vec<ServerNotification>>, prefix: &str) {
    let deadline = Instant::now() + EVENT_TIMEOUT;
    while !logged(notifications).iter().any(|m| m.starts_with(prefix)) {
        assert!(
            Instant::now() < deadline,
            "no log message `{prefix}…` within {EVENT_TIMEOUT:?}; got {:?}",
            logged(notifications)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// What the server asked our client for.
#[derive(Default)]
struct Asked {
    sampling: Mutex<Vec<Value>>,
    elicitation: Mutex<Vec<Value>>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_official_everything_server_over_http() {
    let (server, url) = start_server_everything();
    let asked = Arc::new(Asked::default());
    let notifications = Arc::new(Mutex::new(Vec::<ServerNotification>::new()));

    let on_sampling = asked.clone();
    let on_elicitation = asked.clone();
    let sink = notifications.clone();
    let connecting = Client::builder("libmcp-interop", "0.1.0")
        .session_config(SessionConfig::default().request_timeout(REQUEST_TIMEOUT))
        .on_sampling(false, move |params, _cx| {
            on_sampling
                .sampling
                .lock()
                .unwrap()
                .push(serde_json::to_value(&params).unwrap());
            async move {
                Ok(CreateMessageResult {
                    stop_reason: Some("endTurn".into()),
                    ..CreateMessageResult::new(
                        CreateMessageResultContent::TextContent(TextContent::new(
                            "sampled by libmcp over HTTP",
                        )),
                        "libmcp-test-model",
                        Role::Assistant,
                    )
                })
            }
        })
        .on_elicitation(false, move |params, _cx| {
            on_elicitation
                .elicitation
                .lock()
                .unwrap()
                .push(serde_json::to_value(&params).unwrap());
            async move {
                let content: indexmap::IndexMap<String, ElicitResultContentValue> =
                    serde_json::from_value(json!({
                        "name": "Ada Lovelace",
                        "check": true,
                        "integer": 7,
                        "email": "ada@example.com"
                    }))
                    .unwrap();
                Ok(ElicitResult {
                    content: Some(content),
                    ..ElicitResult::new(ElicitResultAction::Accept)
                })
            }
        })
        .roots(vec![Root {
            name: Some("interop http root".into()),
            ..Root::new("file:///tmp/libmcp-interop-http-root")
        }])
        .on_notification(move |n| sink.lock().unwrap().push(n))
        .connect(StreamableHttpClient::new(url.clone()));
    let client = tokio::time::timeout(REQUEST_TIMEOUT, connecting)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "initializing with server-everything at {url} timed out; its output:\n{}",
                server.output()
            )
        })
        .unwrap_or_else(|e| {
            panic!(
                "could not initialize with server-everything at {url}: {e}; its output:\n{}",
                server.output()
            )
        });

    let seen = notifications.clone();
    with_client(client, LIMIT, move |client| async move {
        let notifications = seen;
        assert_eq!(client.server_info().name, "mcp-servers/everything");
        assert_eq!(
            client.protocol_version(),
            mcp_core::ProtocolVersion::V2025_11_25
        );
        assert!(client.instructions().is_some_and(|i| !i.is_empty()));
        client.ping().await.unwrap();

        // Shortly after initialization the server asks for our roots on the
        // standalone GET stream, and logs (on that stream) that it got them.
        log_arrives(
            &notifications,
            "Roots updated: 1 root(s) received from client",
        )
        .await;

        // Tools: the fixed ones, and those registered because we offer
        // sampling, elicitation and roots.
        everything::tools(
            &client,
            &[
                "echo",
                "get-sum",
                "get-tiny-image",
                "get-structured-content",
                "trigger-long-running-operation",
                "trigger-sampling-request",
                "trigger-elicitation-request",
                "get-roots-list",
            ],
            "hello over HTTP",
        )
        .await;

        // Structured content (checked by our client against the outputSchema).
        let weather = client
            .call_tool(
                "get-structured-content",
                Some(obj(json!({"location": "Chicago"}))),
            )
            .await
            .unwrap();
        assert!(!weather.is_error(), "{weather:?}");
        let expected =
            json!({"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82});
        assert_eq!(weather.structured_content.clone(), Some(expected.clone()));
        assert_eq!(
            serde_json::from_str::<Value>(text(&weather, 0)).unwrap(),
            expected
        );

        // The server asks us for a completion (sampling) in the middle of a
        // call: its request comes on the call's SSE stream, our answer goes
        // back as a POST.
        let request =
            everything::sampling(&client, &asked.sampling, "sampled by libmcp over HTTP").await;
        assert_eq!(request["systemPrompt"], "You are a helpful test server.");

        // ... and for user input (elicitation, with every kind of field).
        let elicited = client
            .call_tool("trigger-elicitation-request", None)
            .await
            .unwrap();
        assert!(!elicited.is_error(), "{elicited:?}");
        assert_eq!(
            text(&elicited, 0),
            "\u{2705} User provided the requested information!"
        );
        assert_eq!(
            text(&elicited, 1),
            "User inputs:\n- Name: Ada Lovelace\n- Agreed to terms: true\n- Email: \
             ada@example.com\n- Favorite Integer: 7"
        );
        let request = asked.elicitation.lock().unwrap()[0].clone();
        assert_eq!(
            request["message"],
            "Please provide inputs for the following fields:"
        );
        let fields = request["requestedSchema"]["properties"]
            .as_object()
            .unwrap();
        assert_eq!(fields.len(), 13, "{fields:?}");
        assert_eq!(request["requestedSchema"]["required"], json!(["name"]));
        assert_eq!(fields["integer"]["default"], 42);
        assert_eq!(
            fields["legacyTitledEnum"]["enumNames"][0], "Cats",
            "{fields:?}"
        );

        // ... and the roots it got at the start.
        let roots = client.call_tool("get-roots-list", None).await.unwrap();
        assert!(
            text(&roots, 0).contains("Current MCP Roots (1 total)")
                && text(&roots, 0).contains("file:///tmp/libmcp-interop-http-root"),
            "{roots:?}"
        );

        let features = everything::resources(&client).await;

        // Subscribing: the server acknowledges with a log message that it
        // sends on the GET stream (it names no request).
        client.subscribe(&features.uri).await.unwrap();
        log_arrives(
            &notifications,
            &format!(
                "Received Subscribe Resource request for URI: {}",
                features.uri
            ),
        )
        .await;
        client.unsubscribe(&features.uri).await.unwrap();
        log_arrives(
            &notifications,
            &format!("Received Unsubscribe Resource request: {}", features.uri),
        )
        .await;

        everything::prompts_and_completion(&client).await;

        client.set_logging_level(LoggingLevel::Error).await.unwrap();
        client.ping().await.unwrap();
    })
    .await;

    // Closing the client ended the session with DELETE.
    assert!(
        server.printed_within(
            "Received session termination request for session",
            EVENT_TIMEOUT
        ),
        "the client did not end its session with DELETE; server output:\n{}",
        server.output()
    );
}

#[test]
fn the_official_python_client_against_our_server_over_http() {
    let python = venv_python();
    let script = installed(
        workspace_root().join("tests/interop/python_http_client.py"),
        "the Python HTTP interop client",
    );
    let mut command = Command::new(mcp_binary());
    command.args(["serve", "everything", "--http", "127.0.0.1:0"]);
    let mut server = ServerProcess::spawn("mcp serve everything --http", command);
    let url = server.wait_for_line(STARTUP_TIMEOUT, |line| {
        line.strip_prefix("mcp: serving on ").map(str::to_string)
    });
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");

    let (code, stdout, stderr) = run_bounded(&python, &[script.as_os_str(), url.as_ref()]);
    assert_eq!(
        code,
        Some(0),
        "the Python SDK's client failed against `mcp serve everything --http`\nstdout:\n{stdout}\
         \nstderr:\n{stderr}\nserver output:\n{}",
        server.output()
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        summary, "python http interop: 13 passed, 0 failed",
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
}
