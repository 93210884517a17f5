//! Helpers shared by libmcp's tests (`mcp-core/tests`, `tests/tests`): an
//! in-process server that mirrors the fixtures of `mcp serve everything` that
//! tests rely on, the path of the `mcp` binary (built when stale), and a raw
//! HTTP/1.1 client that sends exactly the bytes it is given (no default
//! headers).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::missing_panics_doc,
    missing_debug_implementations,
    reason = "test helpers: a failure fails the test"
)]

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use mcp_core::schema::{
    CallToolResult, CompleteResultCompletion, ContentBlock, CreateMessageRequestParams,
    GetPromptResult, PromptMessage, ReadResourceResult, Role, SamplingMessage,
    SamplingMessageContent, TextContent,
};
use mcp_core::server::{
    PromptDef, ResourceDef, ResourceTemplateDef, Server, ServerBuilder, ToolDef,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long any single wait in a test may take.
pub const WAIT: Duration = Duration::from_secs(10);

#[derive(Deserialize, JsonSchema)]
struct AddNumbers {
    a: f64,
    b: f64,
}

#[derive(Deserialize, JsonSchema)]
struct SlowTask {
    seconds: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    prompt: String,
}

/// A server with the same tool, resource and template names as the
/// everything server (`add_numbers`, `test_slow_task`, `test_sampling`,
/// `test://static-text`, `test://template/{id}/data`), so that one table of
/// inputs means the same thing in process and over stdio; like there,
/// `test_slow_task` may run as a task. Unlike the everything server it
/// declares neither prompts nor completions.
pub fn test_server() -> Server {
    builder().build()
}

/// [`test_server`] with a prompt, completions and a skill too (the
/// everything server's `test_prompt_with_arguments` and `pdf-processing`),
/// so that it answers every server method of both method tables.
pub fn full_server() -> Server {
    builder()
        .prompt(
            PromptDef::new("test_prompt_with_arguments", |args, _cx| async move {
                let text = format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    args.get("arg1").cloned().unwrap_or_default(),
                    args.get("arg2").cloned().unwrap_or_default()
                );
                Ok(GetPromptResult::new(vec![PromptMessage::new(
                    ContentBlock::text(text),
                    Role::User,
                )]))
            })
            .description("A prompt with required arguments")
            .argument("arg1", "First test argument", true)
            .argument("arg2", "Second test argument", true),
        )
        .completion(|params, _cx| async move {
            let values = ["testValue1", "testValue2"]
                .iter()
                .filter(|v| v.starts_with(params.argument.value.as_str()))
                .map(|v| (*v).to_string())
                .collect();
            Ok(CompleteResultCompletion::new(values))
        })
        .skills(skills())
        .build()
}

/// A skill at the path of the everything server's `pdf-processing`, with
/// a folder, so that one skills row means the same thing in both.
fn skills() -> mcp_core::skills::SkillCatalog {
    let files = [
        (
            "SKILL.md",
            "---\nname: pdf-processing\ndescription: Work with PDF files.\n---\nSee references/FORMS.md\n",
        ),
        ("references/FORMS.md", "# Forms\n"),
    ];
    let skill = mcp_core::skills::Skill::from_files("pdf-processing", files).unwrap();
    mcp_core::skills::SkillCatalog::new()
        .directory_read(true)
        .with(skill)
        .unwrap()
}

fn builder() -> ServerBuilder {
    Server::builder("bad-input-server", "1.0.0")
        .tool(
            ToolDef::new("add_numbers", "Adds two numbers", |a: AddNumbers, _cx| async move {
                Ok::<_, String>(format!("{}", a.a + a.b))
            })
            .unwrap(),
        )
        .tool(
            ToolDef::new(
                "test_slow_task",
                "Works for `seconds` (default 2)",
                |a: SlowTask, cx| async move {
                    let seconds = a.seconds.unwrap_or(2).min(60);
                    for done in 0..seconds {
                        let total = Some(f64::from(seconds));
                        cx.progress(f64::from(done), total, None).await.ok();
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_secs(1)) => {}
                            () = cx.cancellation().cancelled() => return Err("cancelled".to_string()),
                        }
                    }
                    Ok(format!("worked for {seconds} s"))
                },
            )
            .unwrap()
            // As in the everything server: a task when the client allows one.
            .task_support(mcp_core::schema::ToolExecutionTaskSupport::Optional),
        )
        .tool(
            ToolDef::new(
                "test_sampling",
                "Asks the client's model",
                |a: SamplingArgs, cx| async move {
                    let params = CreateMessageRequestParams::new(100, vec![SamplingMessage::new(SamplingMessageContent::TextContent(TextContent::new(
                                a.prompt,
                            )), Role::User)]);
                    let result = cx
                        .create_message(params)
                        .await
                        .map_err(|e| format!("Sampling failed: {e}"))?;
                    Ok::<_, String>(result.model)
                },
            )
            .unwrap(),
        )
        .resource(ResourceDef::new(
            "test://static-text",
            "static-text",
            |uri, _cx| async move {
                Ok(ReadResourceResult::text(
                    uri,
                    Some("text/plain".into()),
                    "static",
                ))
            },
        ))
        .resource_template(
            ResourceTemplateDef::new(
                "test://template/{id}/data",
                "template",
                |uri, vars, _cx| async move {
                    let id = vars.get("id").cloned().unwrap_or_default();
                    Ok(ReadResourceResult::text(uri, None, format!("data {id}")))
                },
            )
            .unwrap(),
        )
}

/// The `mcp` binary of this build (`target/<profile>/mcp`, next to the
/// directory of the test executable). `cargo test -p mcp-core` neither
/// builds other packages' binaries nor rebuilds them when mcp-core changes:
/// a binary missing or older than the sources it is built from is built
/// here, once per test process. (`cargo build --workspace`, as the test
/// command runs first, leaves it fresh, and then no cargo runs here.)
pub fn mcp_binary() -> PathBuf {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("the test executable's path");
            let profile_dir = exe
                .parent()
                .and_then(Path::parent)
                .expect("the test executable is in target/<profile>/deps");
            let mcp = profile_dir.join("mcp");
            let built = std::fs::metadata(&mcp).and_then(|m| m.modified()).ok();
            if built.is_none_or(|built| newest_source() > built) {
                build(profile_dir, &["-p", "mcp-cli", "--bin", "mcp"]);
            }
            assert!(mcp.exists(), "no `mcp` binary at {}", mcp.display());
            mcp
        })
        .clone()
}

/// Accepts one HTTP request on a loopback port, answers 500, and hands back
/// the request's head in lower case: what a client sends, without a server
/// to talk to. Returns the URL (`http://127.0.0.1:PORT/mcp`) and the thread
/// that yields the head.
pub fn capture_one_request() -> (String, std::thread::JoinHandle<String>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let handle = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            head.push(byte[0]);
        }
        let _ = stream.write_all(
            b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        );
        String::from_utf8_lossy(&head).to_lowercase()
    });
    (url, handle)
}

/// The workspace's root directory.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .expect("tests/support is two levels below the workspace")
        .to_path_buf()
}

/// An example program of `mcp-core` (`target/<profile>/examples/NAME`),
/// built like [`mcp_binary`] when missing or older than its sources
/// (`cargo test --workspace` builds examples before running tests, and
/// then no cargo runs here).
pub fn mcp_core_example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test executable is in target/<profile>/deps");
    let example = profile_dir.join("examples").join(name);
    let built = std::fs::metadata(&example).and_then(|m| m.modified()).ok();
    let root = workspace_root();
    let sources = [
        root.join("Cargo.lock"),
        root.join("mcp-core/Cargo.toml"),
        root.join("mcp-core/src"),
        root.join("mcp-core/examples"),
    ];
    if built.is_none_or(|built| newest_of(sources.to_vec()) > built) {
        build(profile_dir, &["-p", "mcp-core", "--example", name]);
    }
    assert!(example.exists(), "no example at {}", example.display());
    example
}

/// When the newest file the `mcp` binary is built from changed.
fn newest_source() -> SystemTime {
    let root = workspace_root();
    newest_of(vec![
        root.join("Cargo.lock"),
        root.join("Cargo.toml"),
        root.join("mcp-core/Cargo.toml"),
        root.join("mcp-core/src"),
        root.join("bindings/cli/Cargo.toml"),
        root.join("bindings/cli/src"),
    ])
}

/// When the newest file under `pending` (files and directories) changed.
fn newest_of(mut pending: Vec<PathBuf>) -> SystemTime {
    let mut newest = SystemTime::UNIX_EPOCH;
    // Bounded: the source trees hold a few hundred files.
    for _ in 0..100_000 {
        let Some(path) = pending.pop() else { break };
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if let Ok(entries) = std::fs::read_dir(&path) {
                pending.extend(entries.filter_map(|e| e.ok()).map(|e| e.path()));
            }
        } else if let Ok(modified) = meta.modified() {
            newest = newest.max(modified);
        }
    }
    newest
}

/// Runs `cargo build --quiet WHAT…` into the target directory of
/// `profile_dir`.
fn build(profile_dir: &Path, what: &[&str]) {
    let target_dir = profile_dir.parent().expect("target/<profile>");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| env!("CARGO").into());
    let mut build = std::process::Command::new(cargo);
    build
        .args(["build", "--quiet"])
        .args(what)
        .arg("--target-dir")
        .arg(target_dir)
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    if profile_dir.file_name().is_some_and(|n| n == "release") {
        build.arg("--release");
    }
    // What cargo sets for this test (its package's name, directory…) is not
    // for that build: some build scripts watch such variables, and would
    // rebuild every time.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let ours = [
            "CARGO_PKG_",
            "CARGO_MANIFEST_",
            "CARGO_CRATE_",
            "CARGO_BIN_",
        ]
        .iter()
        .any(|p| name.starts_with(p))
            || [
                "CARGO_PRIMARY_PACKAGE",
                "CARGO_TARGET_TMPDIR",
                "CARGO_RUSTC_CURRENT_DIR",
            ]
            .contains(&name.as_ref());
        if ours {
            build.env_remove(name.as_ref());
        }
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "`cargo build {}` failed", what.join(" "));
}

/// An HTTP response read whole from a raw connection.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC message of the body: the JSON body itself, or the
    /// first SSE event whose data is a response.
    pub fn message(&self) -> Option<serde_json::Value> {
        let content_type = self.header("content-type").unwrap_or_default();
        let text = String::from_utf8_lossy(&self.body);
        if content_type.starts_with("application/json") {
            return serde_json::from_str(&text).ok();
        }
        if content_type.starts_with("text/event-stream") {
            return text
                .split("\n\n")
                .map(|event| {
                    event
                        .lines()
                        .filter_map(|l| l.strip_prefix("data:"))
                        .map(|d| d.strip_prefix(' ').unwrap_or(d))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .filter_map(|data| serde_json::from_str::<serde_json::Value>(&data).ok())
                .find(|m| m.get("id").is_some() && m.get("method").is_none());
        }
        None
    }
}

/// Sends `head` (request line and header lines, without the blank line)
/// and `body` on a new connection with `Connection: close`, and reads the
/// whole response, within [`WAIT`]. `None` if the server closed the
/// connection without a response.
pub async fn raw_http(addr: SocketAddr, head: &[u8], body: &[u8]) -> Option<RawResponse> {
    tokio::time::timeout(WAIT, async {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let mut request = head.to_vec();
        request.extend_from_slice(
            format!(
                "\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )
            .as_bytes(),
        );
        // The server may answer (and close) before reading everything.
        let _ = tcp.write_all(&request).await;
        let _ = tcp.write_all(body).await;
        let mut raw = Vec::new();
        // A reset after an early answer still leaves what was read.
        let _ = tcp.read_to_end(&mut raw).await;
        parse_response(&raw)
    })
    .await
    .expect("the server answers in time")
}

/// Sends a request like [`raw_http`] but returns the open connection as
/// soon as the response head has arrived (for responses that stream).
pub async fn open_http(addr: SocketAddr, head: &[u8], body: &[u8]) -> (TcpStream, u16) {
    tokio::time::timeout(WAIT, async {
        let mut tcp = TcpStream::connect(addr).await.unwrap();
        let mut request = head.to_vec();
        request.extend_from_slice(format!("\r\nContent-Length: {}\r\n\r\n", body.len()).as_bytes());
        request.extend_from_slice(body);
        tcp.write_all(&request).await.unwrap();
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        while !raw.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = tcp.read(&mut buf).await.unwrap();
            assert!(n > 0, "the server closed the connection");
            raw.extend_from_slice(&buf[..n]);
        }
        let status = parse_response(&raw).map_or(0, |r| r.status);
        (tcp, status)
    })
    .await
    .expect("the response starts in time")
}

fn parse_response(raw: &[u8]) -> Option<RawResponse> {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&raw[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let rest = &raw[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(rest)
    } else {
        rest.to_vec()
    };
    Some(RawResponse {
        status,
        headers,
        body,
    })
}

/// Decodes a chunked body (as much of it as arrived).
fn dechunk(mut rest: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    for _ in 0..100_000 {
        let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") else {
            break;
        };
        let size = std::str::from_utf8(&rest[..line_end])
            .ok()
            .and_then(|s| usize::from_str_radix(s.split(';').next().unwrap_or("").trim(), 16).ok());
        let Some(size) = size.filter(|&s| s > 0) else {
            break;
        };
        let start = line_end + 2;
        let stop = (start + size).min(rest.len());
        body.extend_from_slice(&rest[start..stop]);
        rest = rest.get(stop + 2..).unwrap_or_default();
    }
    body
}

// ---------------------------------------------------------------------------
// Our client in tests

/// `value` as a JSON object (e.g. tool arguments written with `json!`).
pub fn obj(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The JSON text of an HTTP answer's message: the last non-empty `data:`
/// line of an event stream, or the whole body (a JSON answer).
pub fn answer_json(body: &str) -> &str {
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .rfind(|d| !d.trim().is_empty())
        .map_or(body, str::trim)
}

/// A tool `ask` without arguments that asks the client a form ("Go?", one
/// boolean `ok`) and answers `answered <action>`, or the error as a tool
/// error.
pub fn asking_tool() -> ToolDef {
    let no_params = serde_json::json!({"type": "object", "properties": {}});
    ToolDef::raw("ask", no_params, |_, cx| async move {
        let params = serde_json::from_value(serde_json::json!({
            "mode": "form", "message": "Go?",
            "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
        }))
        .expect("valid elicitation params");
        match cx.elicit(params).await {
            Ok(answer) => CallToolResult::text(format!("answered {}", answer.action)),
            Err(e) => CallToolResult::error(e.to_string()),
        }
    })
    .expect("a valid input schema")
}

/// The text of content block `index` of a tool result.
pub fn text(result: &mcp_core::schema::CallToolResult, index: usize) -> &str {
    result
        .content
        .get(index)
        .and_then(ContentBlock::as_text)
        .unwrap_or_else(|| panic!("content[{index}] is not text: {result:?}"))
}

/// Runs `body` with `client` within `limit`, then closes the client (and so
/// shuts down a server process it started; the close itself bounded by
/// [`WAIT`]) whether the body passed, failed or timed out; then passes the
/// failure on.
pub async fn with_client<F, Fut>(client: mcp_core::client::Client, limit: Duration, body: F)
where
    F: FnOnce(std::sync::Arc<mcp_core::client::Client>) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let client = std::sync::Arc::new(client);
    let task = tokio::spawn(body(client.clone()));
    let outcome = tokio::time::timeout(limit, task).await;
    let _ = tokio::time::timeout(WAIT, client.close()).await;
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Ok(Err(e)) => panic!("the test task failed: {e}"),
        Err(_) => panic!("the test did not finish within {limit:?}"),
    }
}
