//! The `mcp` binary end to end: our client against our everything server
//! over stdio (`mcp … -- mcp serve everything`), output and exit statuses.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

mod common;

use common::{MCP, Run, mcp_within};
/// Longest any one invocation may take.
const LIMIT: Duration = Duration::from_secs(30);

/// Runs `mcp ARGS…`, killing it if it takes longer than [`LIMIT`].
fn mcp(args: &[&str]) -> Run {
    mcp_within(LIMIT, args)
}

/// `mcp ARGS… -- mcp serve everything`.
fn against_everything(args: &[&str]) -> Run {
    let mut all = vec!["--timeout", "20"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--", MCP, "serve", "everything"]);
    mcp(&all)
}

fn ok(run: &Run) {
    assert_eq!(
        run.status, 0,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
}

#[test]
fn tools_list_for_people_and_scripts() {
    let run = against_everything(&["tools", "list"]);
    ok(&run);
    assert!(
        run.stdout
            .contains("add_numbers — Adds two numbers and returns their sum\n")
    );
    assert!(
        run.stdout
            .contains("    a: number (required) — The first number.\n")
    );
    assert!(
        run.stdout
            .contains("test_simple_text — Tests simple text content response\n")
    );

    let run = against_everything(&["tools", "list", "--json"]);
    ok(&run);
    let tools = run.json();
    let tools = tools["tools"].as_array().unwrap();
    // The 2025-11-25 fixtures and the 2026-07-28 ones (input-required rounds,
    // diagnostics, the tasks extension, test_update_resource).
    assert_eq!(tools.len(), 38);
    let simple = tools
        .iter()
        .find(|t| t["name"] == "test_simple_text")
        .unwrap();
    assert_eq!(
        simple["inputSchema"],
        json!({"type": "object", "properties": {}})
    );
}

#[test]
fn tools_call_prints_content_and_passes_arguments() {
    let run = against_everything(&[
        "tools",
        "call",
        "add_numbers",
        "--args",
        r#"{"a": 2, "b": 40}"#,
    ]);
    ok(&run);
    assert_eq!(run.stdout, "42\n");

    let run = against_everything(&[
        "tools",
        "call",
        "add_numbers",
        "--json",
        "--args",
        r#"{"a": 0.5, "b": 0.25}"#,
    ]);
    ok(&run);
    // The result as the server sent it, plus the revision spoken.
    let result = run.json();
    assert_eq!(result["content"], json!([{"type": "text", "text": "0.75"}]));
    assert_eq!(result["protocolVersion"], "2026-07-28", "{result}");
    let run = against_everything(&[
        "--protocol",
        "2025-11-25",
        "tools",
        "call",
        "add_numbers",
        "--json",
        "--args",
        r#"{"a": 0.5, "b": 0.25}"#,
    ]);
    ok(&run);
    assert_eq!(
        run.json(),
        json!({"content": [{"type": "text", "text": "0.75"}], "protocolVersion": "2025-11-25"})
    );

    let run = against_everything(&["tools", "call", "test_multiple_content_types"]);
    ok(&run);
    assert_eq!(
        run.stdout,
        "Multiple content types test:\n[image (image/png), 69 bytes]\n\
         [resource test://mixed-content-resource (application/json)]\n\
         {\"test\":\"data\",\"value\":123}\n"
    );
    let run = against_everything(&["tools", "call", "test_audio_content"]);
    ok(&run);
    assert_eq!(run.stdout, "[audio (audio/wav), 204 bytes]\n");
}

#[test]
fn logging_and_progress_go_to_stderr_unless_quiet() {
    let run = against_everything(&["tools", "call", "test_tool_with_logging"]);
    ok(&run);
    assert_eq!(run.stdout, "Tool with logging executed successfully\n");
    for line in [
        "[log info everything] Tool execution started",
        "[log info everything] Tool processing data",
        "[log info everything] Tool execution completed",
    ] {
        assert!(run.stderr.contains(line), "{}", run.stderr);
    }

    let run = against_everything(&["tools", "call", "test_tool_with_progress"]);
    ok(&run);
    assert!(
        run.stderr
            .contains("[progress] 0/100 Completed step 0 of 100"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("[progress] 50/100"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("[progress] 100/100 Completed step 100 of 100"),
        "{}",
        run.stderr
    );

    let run = against_everything(&["--quiet", "tools", "call", "test_tool_with_logging"]);
    ok(&run);
    assert_eq!(run.stderr, "");
}

#[test]
fn a_tool_error_is_printed_and_exits_1() {
    let run = against_everything(&["tools", "call", "test_error_handling"]);
    assert_eq!(run.status, 1);
    assert_eq!(
        run.stdout,
        "This tool intentionally returns an error for testing\n"
    );
    assert!(
        run.stderr
            .contains("error: the tool `test_error_handling` reported an error"),
        "{}",
        run.stderr
    );

    let run = against_everything(&["tools", "call", "test_error_handling", "--json"]);
    assert_eq!(run.status, 1);
    assert_eq!(run.json()["isError"], true);

    // Arguments that do not match the schema: a tool error the model can read.
    let run = against_everything(&["tools", "call", "add_numbers", "--args", r#"{"a": "x"}"#]);
    assert_eq!(run.status, 1);
    assert!(
        run.stdout
            .starts_with("Invalid arguments for tool `add_numbers`"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_unknown_tool_shows_the_servers_json_rpc_error() {
    let run = against_everything(&["tools", "call", "no_such_tool"]);
    assert_eq!(run.status, 1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("error -32602") && run.stderr.contains("unknown tool `no_such_tool`"),
        "{}",
        run.stderr
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    for (args, expected) in [
        (r#"{"a": 1"#, "--args is not valid JSON"),
        ("[1, 2]", "--args must be a JSON object"),
    ] {
        let run = against_everything(&["tools", "call", "add_numbers", "--args", args]);
        assert_eq!(run.status, 2, "{}", run.stderr);
        assert!(run.stderr.contains(expected), "{}", run.stderr);
    }
    let run = against_everything(&[
        "prompts",
        "get",
        "test_simple_prompt",
        "--args",
        r#"{"a": {}}"#,
    ]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("prompt arguments are strings"),
        "{}",
        run.stderr
    );

    // No server at all.
    let run = mcp(&["tools", "list"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("<COMMAND>"), "{}", run.stderr);
    let run = mcp(&["frobnicate"]);
    assert_eq!(run.status, 2);
}

#[test]
fn a_server_that_cannot_start_exits_3() {
    let run = mcp(&["ping", "--", "/nonexistent/mcp-server"]);
    assert_eq!(run.status, 3);
    assert!(
        run.stderr.contains("cannot start /nonexistent/mcp-server"),
        "{}",
        run.stderr
    );

    let run = mcp(&["ping", "--", "sh", "-c", "echo broken >&2; exit 7"]);
    assert_eq!(run.status, 3);
    assert!(run.stderr.contains("[server] broken"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("error: could not start a session with the server"),
        "{}",
        run.stderr
    );
}

/// `mcp serve everything --http 127.0.0.1:0`, stopped by PID when dropped.
struct HttpServer {
    child: std::process::Child,
    url: String,
}

impl HttpServer {
    fn start() -> Self {
        use std::io::BufRead;
        let mut child = Command::new(MCP)
            .args(["serve", "everything", "--http", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("cannot start mcp serve");
        let stderr = child.stderr.take().unwrap();
        let mut lines = std::io::BufReader::new(stderr).lines();
        let url = lines
            .by_ref()
            .take(20)
            .map_while(Result::ok)
            .find_map(|l| l.strip_prefix("mcp: serving on ").map(str::to_string))
            .expect("the server did not say where it listens");
        // Keep draining stderr so that the server never blocks on it.
        std::thread::spawn(move || lines.for_each(drop));
        Self { child, url }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn over_streamable_http() {
    let server = HttpServer::start();
    let run = mcp(&["tools", "list", "--url", &server.url]);
    ok(&run);
    assert!(run.stdout.contains("test_simple_text"), "{}", run.stdout);
    let run = mcp(&[
        "tools",
        "call",
        "add_numbers",
        "--args",
        r#"{"a":2,"b":40}"#,
        "--url",
        &server.url,
    ]);
    ok(&run);
    assert!(run.stdout.contains("42"), "{}", run.stdout);
    // The server closes the stream mid-call; the client resumes it.
    // Resumption is 2025-11-25's (2026-07-28 streams are not resumable).
    let run = mcp(&[
        "tools",
        "call",
        "test_reconnection",
        "--protocol",
        "2025-11-25",
        "--url",
        &server.url,
    ]);
    ok(&run);
    assert!(run.stdout.contains("reconnected"), "{}", run.stdout);
}

#[test]
fn http_errors_are_clear() {
    // Nothing listens on port 9 of loopback.
    let run = mcp(&["ping", "--url", "http://127.0.0.1:9/mcp"]);
    assert_eq!(run.status, 3);
    assert!(run.stderr.contains("error"), "{}", run.stderr);
    let run = mcp(&["serve", "everything", "--http", "not-an-address"]);
    assert_eq!(run.status, 2);
    assert!(run.stderr.contains("not an address"), "{}", run.stderr);
}

#[test]
fn skills() {
    let run = against_everything(&["skills", "list"]);
    ok(&run);
    let uris: Vec<_> = run
        .stdout
        .lines()
        .map(|l| l.split("  ").next().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://release-notes/SKILL.md"
        ]
    );
    let run = against_everything(&["skills", "get", "skill://release-notes/SKILL.md"]);
    ok(&run);
    assert!(
        run.stdout.starts_with("---\nname: release-notes\n"),
        "{}",
        run.stdout
    );
    let run = against_everything(&[
        "skills",
        "get",
        "skill://release-notes/SKILL.md",
        "--file",
        "skill://release-notes/templates/notes.md",
    ]);
    ok(&run);
    assert!(run.stdout.starts_with("## [VERSION]"), "{}", run.stdout);
    // An unknown skill is the server's -32602; a file of another skill is
    // refused before it is read.
    let run = against_everything(&["skills", "get", "skill://nope/SKILL.md"]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("-32602"), "{}", run.stderr);
    let run = against_everything(&[
        "skills",
        "get",
        "skill://release-notes/SKILL.md",
        "--file",
        "skill://pdf-processing/SKILL.md",
    ]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("not a listed file"), "{}", run.stderr);
}

#[test]
fn resources() {
    let run = against_everything(&["resources", "list"]);
    ok(&run);
    assert_eq!(
        run.stdout
            .lines()
            .map(|l| l.split("  ").next().unwrap())
            .collect::<Vec<_>>(),
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
            "skill://pdf-processing/SKILL.md",
            "skill://release-notes/SKILL.md"
        ]
    );

    let run = against_everything(&["resources", "read", "test://static-text"]);
    ok(&run);
    assert_eq!(
        run.stdout,
        "This is the content of the static text resource.\n"
    );

    let run = against_everything(&["resources", "read", "test://static-binary"]);
    ok(&run);
    assert_eq!(
        run.stdout,
        "[resource test://static-binary (image/png), 69 bytes]\n"
    );

    let run = against_everything(&["resources", "read", "test://template/123/data", "--json"]);
    ok(&run);
    let text = run.json()["contents"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("\"id\":\"123\""), "{text}");

    let run = against_everything(&["resources", "templates"]);
    ok(&run);
    assert!(
        run.stdout
            .starts_with("test://template/{id}/data  template [application/json]"),
        "{}",
        run.stdout
    );

    // Resource not found: -32602 in 2026-07-28, -32002 before.
    let run = against_everything(&["resources", "read", "test://missing"]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("error -32602"), "{}", run.stderr);
    let run = against_everything(&[
        "resources",
        "read",
        "test://missing",
        "--protocol",
        "2025-11-25",
    ]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("error -32002"), "{}", run.stderr);
}

#[test]
fn prompts() {
    let run = against_everything(&["prompts", "list"]);
    ok(&run);
    assert!(
        run.stdout.contains(
            "test_prompt_with_arguments (Prompt With Arguments) — A prompt with required arguments\n    arg1 (required) — First test argument\n"
        ),
        "{}",
        run.stdout
    );

    let run = against_everything(&[
        "prompts",
        "get",
        "test_prompt_with_arguments",
        "--args",
        r#"{"arg1": "one", "arg2": "two"}"#,
    ]);
    ok(&run);
    assert_eq!(
        run.stdout,
        "[user]\nPrompt with arguments: arg1='one', arg2='two'\n"
    );

    let run = against_everything(&["prompts", "get", "test_prompt_with_image", "--json"]);
    ok(&run);
    assert_eq!(run.json()["messages"][0]["content"]["type"], "image");

    let run = against_everything(&["prompts", "get", "test_prompt_with_arguments"]);
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("arg1, arg2"), "{}", run.stderr);
}

#[test]
fn ping() {
    let run = against_everything(&["ping"]);
    ok(&run);
    assert!(run.stdout.starts_with("pong ("), "{}", run.stdout);
    let run = against_everything(&["ping", "--json"]);
    ok(&run);
    assert_eq!(run.json(), json!({"protocolVersion": "2026-07-28"}));
    let run = against_everything(&["ping", "--json", "--protocol", "2024-11-05"]);
    ok(&run);
    assert_eq!(run.json(), json!({"protocolVersion": "2024-11-05"}));
    let run = against_everything(&["ping", "--protocol", "1.0"]);
    assert_eq!(run.status, 2);
    assert!(
        run.stderr.contains("not a protocol revision"),
        "{}",
        run.stderr
    );
}

#[test]
fn help_and_version() {
    let run = mcp(&["--help"]);
    ok(&run);
    assert!(run.stdout.contains("Exit status:"), "{}", run.stdout);
    let run = mcp(&["--version"]);
    ok(&run);
    assert!(run.stdout.starts_with("mcp "), "{}", run.stdout);
}

#[test]
fn tools_call_as_a_task() {
    let run = against_everything(&[
        "tools",
        "call",
        "test_slow_task",
        "--task",
        "--args",
        r#"{"seconds":1}"#,
    ]);
    ok(&run);
    assert!(run.stdout.contains("worked for 1 s"), "{}", run.stdout);
    assert!(
        run.stderr.contains(": working") && run.stderr.contains(": completed"),
        "{}",
        run.stderr
    );
    // A tool that does not support tasks: in a 2025-11-25 session the
    // server refuses it as a task; under the tasks extension of 2026-07-28
    // (auto, with a server that offers it) the server runs it directly.
    let run = against_everything(&[
        "tools",
        "call",
        "add_numbers",
        "--task",
        "--protocol",
        "2025-11-25",
        "--args",
        r#"{"a":1,"b":2}"#,
    ]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains("-32601") || run.stderr.contains("task"),
        "{}",
        run.stderr
    );
    let run = against_everything(&[
        "tools",
        "call",
        "add_numbers",
        "--task",
        "--args",
        r#"{"a":1,"b":2}"#,
    ]);
    ok(&run);
    assert!(run.stdout.contains('3'), "{}", run.stdout);
    assert!(run.stderr.contains("without a task"), "{}", run.stderr);
}

#[test]
fn tools_call_as_a_task_under_2026() {
    // Auto picks 2026-07-28 and the tasks extension the server offers.
    let run = against_everything(&[
        "tools",
        "call",
        "slow_compute",
        "--task",
        "--json",
        "--args",
        r#"{"seconds":0.2,"label":"x"}"#,
    ]);
    ok(&run);
    let out = run.json();
    assert_eq!(out["protocolVersion"], "2026-07-28", "{out}");
    assert!(out.to_string().contains("Computed `x`"), "{out}");
    assert!(
        run.stderr.contains(": working") && run.stderr.contains(": completed"),
        "{}",
        run.stderr
    );
    // A task that asks: with no terminal, declined (a message names what
    // was asked), answered with tasks/update; never a hang.
    let run = against_everything(&[
        "tools",
        "call",
        "confirm_delete",
        "--task",
        "--protocol",
        "2026-07-28",
        "--args",
        r#"{"filename":"a.txt"}"#,
    ]);
    ok(&run);
    assert!(run.stdout.contains("Kept a.txt"), "{}", run.stdout);
    assert!(run.stderr.contains("Delete a.txt?"), "{}", run.stderr);
    // A task that ends with a JSON-RPC error fails the command.
    let run = against_everything(&["tools", "call", "protocol_error_job", "--task"]);
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.stderr.contains("on purpose"), "{}", run.stderr);
}
