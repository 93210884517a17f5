//! One data-driven table that exercises every server method of the method
//! table — `METHOD_TABLE`'s client requests and the extension method table —
//! in both revisions (a 2025-11-25 session and 2026-07-28 requests that stand
//! alone; the skills extension's methods in the session too), over the
//! in-memory pair, stdio (a real `mcp serve everything`)
//! and Streamable HTTP. The rows are an exhaustive `match` on the method
//! enums, and the table is walked from `METHOD_TABLE`: a new method fails to
//! compile until it has a row, and a method the walk reaches without one
//! fails the test. A method absent from a revision must be -32601 there
//! (404 over HTTP for a request that stands alone).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

mod common;

use std::net::SocketAddr;

use common::stream::Stream;
use common::{WAIT, full_server, raw_http};
use mcp_core::ProtocolVersion;
use mcp_core::extensions::{EXTENSION_METHOD_TABLE, ExtensionMethod};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::schema::{ClientRequestMethod, Direction, METHOD_TABLE};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SESSION: ProtocolVersion = ProtocolVersion::V2025_11_25;
const ALONE: ProtocolVersion = ProtocolVersion::V2026_07_28;
const TASKS: &str = "io.modelcontextprotocol/tasks";

// ---------------------------------------------------------------------------
// The table

/// A method of either table.
#[derive(Clone, Copy, Debug)]
enum Method {
    Core(ClientRequestMethod),
    Extension(ExtensionMethod),
}

impl Method {
    fn name(self) -> &'static str {
        match self {
            Self::Core(m) => m.as_str(),
            Self::Extension(m) => m.as_str(),
        }
    }

    fn in_revision(self, version: ProtocolVersion) -> bool {
        match self {
            Self::Core(m) => m.in_revision(version),
            Self::Extension(m) => m.in_revision(version),
        }
    }
}

/// Whether a session answers `method` when the server declares its
/// extension (one that needs no declaration per request: the skills
/// extension's); every server here declares every extension.
fn answered_in_session(method: ExtensionMethod) -> bool {
    !method.spec().client_declares
}

/// Every client → server request of both tables.
fn methods() -> Vec<Method> {
    let core = METHOD_TABLE
        .iter()
        .filter(|s| !s.notification && s.direction != Direction::ServerToClient)
        .map(|s| {
            let m = ClientRequestMethod::from_name(s.name).expect("a client request");
            Method::Core(m)
        });
    let extension = EXTENSION_METHOD_TABLE
        .iter()
        .map(|s| Method::Extension(ExtensionMethod::from_name(s.name).unwrap()));
    core.chain(extension).collect()
}

/// What a row does.
enum Row {
    /// Send these params; the result must pass the check.
    Call(Value, fn(&Value) -> bool),
    /// Exercised by the session's handshake.
    Handshake,
    /// A `subscriptions/listen`: acknowledged first, ended by the client.
    Listen(Value),
}

/// Tasks made before the rows run: one finished, one running.
struct Tasks {
    done: String,
    running: String,
}

fn text_is(r: &Value, text: &str) -> bool {
    r["content"][0]["text"] == text
}

fn names(list: &Value, key: &str, name_key: &str, name: &str) -> bool {
    list[key]
        .as_array()
        .is_some_and(|items| items.iter().any(|i| i[name_key] == name))
}

/// The row of `method` in `version`.
fn row(method: Method, version: ProtocolVersion, tasks: &Tasks) -> Row {
    use ClientRequestMethod as C;
    let session = version == SESSION;
    let (done, running) = (tasks.done.as_str(), tasks.running.as_str());
    match method {
        Method::Core(m) => match m {
            C::Initialize => Row::Handshake,
            C::Ping => Row::Call(json!({}), |r| *r == json!({})),
            C::ListResources => Row::Call(json!({}), |r| {
                names(r, "resources", "uri", "test://static-text")
            }),
            C::ListResourceTemplates => Row::Call(json!({}), |r| {
                names(
                    r,
                    "resourceTemplates",
                    "uriTemplate",
                    "test://template/{id}/data",
                )
            }),
            C::ReadResource => Row::Call(json!({"uri": "test://static-text"}), |r| {
                r["contents"][0]["uri"] == "test://static-text"
            }),
            C::Subscribe | C::Unsubscribe => {
                Row::Call(json!({"uri": "test://static-text"}), |r| *r == json!({}))
            }
            C::ListPrompts => Row::Call(json!({}), |r| {
                names(r, "prompts", "name", "test_prompt_with_arguments")
            }),
            C::GetPrompt => Row::Call(
                json!({"name": "test_prompt_with_arguments",
                       "arguments": {"arg1": "one", "arg2": "two"}}),
                |r| {
                    r["messages"][0]["content"]["text"]
                        .as_str()
                        .is_some_and(|t| t.contains("arg1='one'"))
                },
            ),
            C::ListTools => Row::Call(json!({}), |r| names(r, "tools", "name", "add_numbers")),
            C::CallTool => Row::Call(
                json!({"name": "add_numbers", "arguments": {"a": 2, "b": 3}}),
                |r| text_is(r, "5"),
            ),
            C::SetLevel => Row::Call(json!({"level": "info"}), |r| *r == json!({})),
            C::Complete => Row::Call(
                json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
                       "argument": {"name": "arg1", "value": "test"}}),
                |r| {
                    r["completion"]["values"]
                        .as_array()
                        .is_some_and(|v| v.contains(&json!("testValue1")))
                },
            ),
            // 2025-11-25 tasks.
            C::GetTask => Row::Call(json!({"taskId": done}), |r| r["status"] == "completed"),
            C::GetTaskPayload => {
                Row::Call(json!({"taskId": done}), |r| text_is(r, "worked for 0 s"))
            }
            C::ListTasks => Row::Call(json!({}), |r| {
                r["tasks"].as_array().is_some_and(|t| t.len() >= 2)
            }),
            C::CancelTask => Row::Call(json!({"taskId": running}), |r| r["status"] == "cancelled"),
            // 2026-07-28.
            C::Discover => Row::Call(json!({}), |r| {
                r["supportedVersions"]
                    .as_array()
                    .is_some_and(|v| v.contains(&json!("2026-07-28")))
                    && r["capabilities"]["extensions"][TASKS] == json!({})
            }),
            C::SubscriptionsListen => Row::Listen(json!({
                "notifications": {"toolsListChanged": true,
                                  "resourceSubscriptions": ["test://static-text"]}})),
        },
        Method::Extension(m) => {
            assert!(
                !session || answered_in_session(m),
                "the tasks extension's methods exist only per request"
            );
            let skill = "skill://pdf-processing/SKILL.md";
            match m {
                ExtensionMethod::SkillsList => Row::Call(json!({}), |r| {
                    r["skills"].as_array().is_some_and(|s| {
                        s.iter()
                            .any(|e| e["uri"] == "skill://pdf-processing/SKILL.md")
                    })
                }),
                ExtensionMethod::SkillsGet => Row::Call(json!({ "uri": skill }), |r| {
                    r["skill"]["frontmatter"]["name"] == "pdf-processing"
                }),
                ExtensionMethod::DirectoryRead => {
                    Row::Call(json!({"uri": "skill://pdf-processing/references"}), |r| {
                        r["resources"].as_array().is_some_and(|a| {
                            a.iter()
                                .any(|e| e["uri"] == "skill://pdf-processing/references/FORMS.md")
                        })
                    })
                }
                ExtensionMethod::TasksGet => Row::Call(json!({"taskId": done}), |r| {
                    r["status"] == "completed" && text_is(&r["result"], "worked for 0 s")
                }),
                ExtensionMethod::TasksUpdate => {
                    Row::Call(json!({"taskId": running, "inputResponses": {}}), |r| {
                        r.as_object()
                            .is_some_and(|o| o.keys().all(|k| k == "resultType" || k == "_meta"))
                    })
                }
                ExtensionMethod::TasksCancel => {
                    Row::Call(json!({"taskId": running}), |r| r.get("taskId").is_none())
                }
                other => panic!("no row for the extension method {other:?}"),
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Connections

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "sampling": {}, "elicitation": {}, "roots": {},
            "extensions": { TASKS: {} },
        },
    })
}

#[allow(
    clippy::large_enum_variant,
    reason = "one per test, never moved around"
)]
enum Conn {
    /// Stdio or the in-memory pair.
    Stream(Stream),
    Http {
        addr: SocketAddr,
        session: Option<String>,
    },
}

impl Conn {
    fn memory() -> Self {
        Self::Stream(Stream::serving(full_server()))
    }

    async fn stdio() -> Self {
        Self::Stream(Stream::stdio().await)
    }

    async fn http() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = StreamableHttpServer::new(full_server(), HttpServerConfig::default());
        tokio::spawn(server.serve(listener));
        Self::Http {
            addr,
            session: None,
        }
    }

    async fn send_line(&mut self, message: &Value) {
        match self {
            Self::Stream(stream) => stream.send(message.to_string().as_bytes()).await,
            Self::Http { .. } => unreachable!("HTTP sends requests"),
        }
    }

    async fn next_line(&mut self) -> Value {
        match self {
            Self::Stream(stream) => stream.recv().await,
            Self::Http { .. } => unreachable!("HTTP reads responses"),
        }
    }

    /// Sends a request of `version` and returns its answer (and, over HTTP,
    /// the status).
    async fn call(
        &mut self,
        version: ProtocolVersion,
        id: &str,
        method: &str,
        mut params: Value,
    ) -> (u16, Value) {
        if version == ALONE {
            params["_meta"] = meta();
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if let Self::Http { addr, session } = self {
            let head = http_head(version, &message, session.as_deref());
            let response = raw_http(*addr, head.as_bytes(), message.to_string().as_bytes())
                .await
                .expect("an HTTP response");
            if let Some(id) = response.header("mcp-session-id") {
                *session = Some(id.to_string());
            }
            let answer = response.message().unwrap_or(Value::Null);
            return (response.status, answer);
        }
        self.send_line(&message).await;
        loop {
            let m = self.next_line().await;
            if m.get("id") == Some(&json!(id)) {
                return (200, m);
            }
        }
    }

    async fn initialize(&mut self) {
        let (status, answer) = self
            .call(
                SESSION,
                "init",
                "initialize",
                json!({"protocolVersion": "2025-11-25",
                       "capabilities": {"sampling": {}, "elicitation": {}, "roots": {}},
                       "clientInfo": {"name": "every-method", "version": "1"}}),
            )
            .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(
            answer["result"]["protocolVersion"], "2025-11-25",
            "{answer}"
        );
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        match self {
            Self::Http { addr, session } => {
                let head = http_head(SESSION, &initialized, session.as_deref());
                let response = raw_http(*addr, head.as_bytes(), initialized.to_string().as_bytes())
                    .await
                    .unwrap();
                assert_eq!(response.status, 202);
            }
            _ => self.send_line(&initialized).await,
        }
    }

    /// A `subscriptions/listen` until its acknowledgement, then ended by the
    /// client (a cancellation, or closing the HTTP stream).
    async fn listen(&mut self, params: Value) -> Value {
        let mut params = params;
        params["_meta"] = meta();
        let message = json!({"jsonrpc": "2.0", "id": "listen", "method": "subscriptions/listen",
                             "params": params});
        if let Self::Http { addr, .. } = self {
            // Read by hand: the acknowledgement may come with the head.
            let body = message.to_string();
            let head = http_head(ALONE, &message, None);
            let mut tcp = tokio::net::TcpStream::connect(*addr).await.unwrap();
            let request = format!("{head}\r\nContent-Length: {}\r\n\r\n{body}", body.len());
            tcp.write_all(request.as_bytes()).await.unwrap();
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            let ack = tokio::time::timeout(WAIT, async {
                loop {
                    let n = tcp.read(&mut buf).await.unwrap();
                    assert!(n > 0, "the stream ended before the acknowledgement");
                    seen.extend_from_slice(&buf[..n]);
                    let text = String::from_utf8_lossy(&seen);
                    if let Some(ack) = text
                        .lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
                        .find(|m| m["method"] == "notifications/subscriptions/acknowledged")
                    {
                        return ack;
                    }
                }
            })
            .await
            .expect("the acknowledgement in time");
            assert!(seen.starts_with(b"HTTP/1.1 200"), "the listen is accepted");
            drop(tcp);
            return ack;
        }
        self.send_line(&message).await;
        let ack = loop {
            let m = self.next_line().await;
            if m["method"] == "notifications/subscriptions/acknowledged" {
                break m;
            }
        };
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                            "params": {"requestId": "listen", "_meta": meta()}});
        self.send_line(&cancel).await;
        ack
    }

    async fn close(self) {
        if let Self::Stream(stream) = self {
            stream.close().await;
        }
    }
}

/// The head of a POST of `message`: for a request that stands alone, the
/// SEP-2243 headers its body asks for; in a session, its id.
fn http_head(version: ProtocolVersion, message: &Value, session: Option<&str>) -> String {
    let mut head = vec![
        "POST /mcp HTTP/1.1".to_string(),
        "Host: 127.0.0.1".to_string(),
        "Accept: application/json, text/event-stream".to_string(),
        "Content-Type: application/json".to_string(),
    ];
    if version == ALONE {
        head.push("MCP-Protocol-Version: 2026-07-28".into());
        if let Some(method) = message["method"].as_str() {
            head.push(format!("Mcp-Method: {method}"));
        }
        let params = &message["params"];
        if let Some(name) = params["name"]
            .as_str()
            .or(params["uri"].as_str())
            .or(params["taskId"].as_str())
        {
            head.push(format!("Mcp-Name: {name}"));
        }
    } else if let Some(session) = session {
        head.push(format!("Mcp-Session-Id: {session}"));
        head.push("MCP-Protocol-Version: 2025-11-25".into());
    }
    head.join("\r\n")
}

// ---------------------------------------------------------------------------
// The walk

/// Makes the tasks the task rows use: `done` (finished) and `running`.
async fn make_tasks(conn: &mut Conn, version: ProtocolVersion) -> Tasks {
    let mut ids = Vec::new();
    for (n, seconds) in [0, 60].into_iter().enumerate() {
        let mut params = json!({"name": "test_slow_task", "arguments": {"seconds": seconds}});
        if version == SESSION {
            params["task"] = json!({"ttl": 60_000});
        }
        let (_, created) = conn
            .call(version, &format!("task-{n}"), "tools/call", params)
            .await;
        let result = &created["result"];
        let id = result["taskId"]
            .as_str()
            .or(result["task"]["taskId"].as_str())
            .unwrap_or_else(|| panic!("a task: {created}"));
        ids.push(id.to_string());
    }
    // The finished one is terminal before the rows read it.
    for attempt in 0..200 {
        let params = json!({"taskId": ids[0]});
        let (_, got) = conn
            .call(version, &format!("wait-{attempt}"), "tasks/get", params)
            .await;
        if got["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let running = ids.pop().unwrap();
    let done = ids.pop().unwrap();
    Tasks { done, running }
}

async fn walk(conn: &mut Conn, version: ProtocolVersion, transport: &str) -> usize {
    if version == SESSION {
        conn.initialize().await;
    }
    let tasks = make_tasks(conn, version).await;
    let mut exercised = 0;
    for (n, method) in methods().into_iter().enumerate() {
        let name = method.name();
        let what = format!("{transport} {version}: {name}");
        let id = format!("row-{n}");
        // An extension method named like a core method of this revision is
        // that method here (`tasks/get` in 2025-11-25): the core row's.
        if matches!(method, Method::Extension(_))
            && ClientRequestMethod::from_name(name).is_some_and(|m| m.in_revision(version))
        {
            continue;
        }
        let in_session =
            version == SESSION && matches!(method, Method::Extension(m) if answered_in_session(m));
        if !method.in_revision(version) && !in_session {
            // A core name that is an extension method here is the
            // extension's row.
            let extension =
                ExtensionMethod::from_name(name).is_some_and(|m| m.in_revision(version));
            if matches!(method, Method::Core(_)) && extension {
                continue;
            }
            let (status, answer) = conn.call(version, &id, name, json!({})).await;
            assert_eq!(answer["error"]["code"], -32601, "{what}: {answer}");
            let expected = if version == ALONE && matches!(conn, Conn::Http { .. }) {
                404
            } else {
                200
            };
            assert_eq!(status, expected, "{what}");
            continue;
        }
        match row(method, version, &tasks) {
            Row::Handshake => {}
            Row::Call(params, check) => {
                let (status, answer) = conn.call(version, &id, name, params).await;
                assert_eq!(status, 200, "{what}: {answer}");
                let result = &answer["result"];
                assert!(check(result), "{what}: {answer}");
                if version == ALONE {
                    assert!(result["resultType"].is_string(), "{what}: {answer}");
                }
            }
            Row::Listen(params) => {
                let ack = conn.listen(params).await;
                assert_eq!(
                    ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen",
                    "{what}: {ack}"
                );
            }
        }
        exercised += 1;
    }
    // Still serving.
    let (status, answer) = conn
        .call(
            version,
            "last",
            "tools/call",
            json!({"name": "add_numbers", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(status, 200);
    assert!(
        text_is(&answer["result"], "2"),
        "{transport} {version}: {answer}"
    );
    exercised
}

/// Both revisions over one transport: first the requests that stand alone
/// (a stream that has initialized serves its session only), then a session.
async fn every_method(mut conn: Conn, transport: &str) {
    let alone = walk(&mut conn, ALONE, transport).await;
    let session = walk(&mut conn, SESSION, transport).await;
    // Every method of each revision had its row run.
    let count = |v: ProtocolVersion| {
        methods()
            .iter()
            .filter(|m| {
                m.in_revision(v)
                    || (v == SESSION
                        && matches!(m, Method::Extension(e) if answered_in_session(*e)))
            })
            .count()
    };
    assert_eq!(alone, count(ALONE), "{transport}");
    assert_eq!(session, count(SESSION), "{transport}");
    conn.close().await;
}

#[tokio::test]
async fn every_method_in_memory() {
    every_method(Conn::memory(), "memory").await;
}

#[tokio::test]
async fn every_method_over_stdio() {
    every_method(Conn::stdio().await, "stdio").await;
}

#[tokio::test]
async fn every_method_over_streamable_http() {
    every_method(Conn::http().await, "http").await;
}
