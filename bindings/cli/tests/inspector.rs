//! The `mcp` command's Inspector-level verbs end to end, against `mcp serve
//! everything`: `key=value` tool arguments, `complete`, `logging
//! set-level`, `request METHOD --params JSON`, `--header`/`--bearer` (the
//! headers a loopback listener receives), `--config FILE --server NAME`,
//! `servers list` and `tools list --all-servers`, with their exit statuses.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::path::PathBuf;
use std::time::Duration;

use mcp_test_support::capture_one_request;
use serde_json::{Value, json};

mod common;

use common::{MCP, Run, mcp_within};
/// Longest any one invocation may take.
const LIMIT: Duration = Duration::from_secs(40);

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

/// A configuration file named after the test, holding `servers`.
fn config_file(test: &str, servers: Value) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("inspector");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{test}.json"));
    std::fs::write(&path, json!({ "mcpServers": servers }).to_string()).unwrap();
    path
}

fn ours() -> Value {
    json!({"command": MCP, "args": ["serve", "everything"]})
}

#[test]
fn key_value_arguments_are_typed_by_the_schema() {
    let run = against_everything(&["tools", "call", "add_numbers", "a=2", "b=40"]);
    run.expect(0);
    assert_eq!(run.stdout, "42\n");
    // Merged over --args, the pair winning.
    let run = against_everything(&[
        "tools",
        "call",
        "add_numbers",
        "--args",
        r#"{"a": 1, "b": 1}"#,
        "b=2.5",
        "--json",
    ]);
    run.expect(0);
    assert_eq!(run.json()["content"][0]["text"], "3.5");
    // A bare word is not KEY=VALUE.
    let run = against_everything(&["tools", "call", "add_numbers", "oops"]);
    run.expect(2);
    assert!(run.stderr.contains("is not KEY=VALUE"), "{}", run.stderr);
}

#[test]
fn complete_asks_for_completions() {
    let run = against_everything(&[
        "complete",
        "--prompt",
        "test_prompt_with_arguments",
        "--argument",
        "arg1",
        "--value",
        "test",
    ]);
    run.expect(0);
    assert_eq!(run.stdout, "testValue1\ntestValue2\n");
    let run = against_everything(&[
        "complete",
        "--json",
        "--prompt",
        "test_prompt_with_arguments",
        "--argument",
        "arg2",
    ]);
    run.expect(0);
    let values = run.json()["completion"]["values"].clone();
    assert_eq!(
        values,
        json!(["testValue2", "testValue3", "other", "example"])
    );
    // Neither a prompt nor a template: a usage error.
    let run = against_everything(&["complete", "--argument", "x"]);
    run.expect(2);
}

#[test]
fn logging_set_level() {
    let run = against_everything(&["--protocol", "2025-11-25", "logging", "set-level", "info"]);
    run.expect(0);
    assert_eq!(run.stdout, "log level set to info\n");
    let run = against_everything(&["logging", "set-level", "info", "--json"]);
    run.expect(0);
    assert!(run.json()["protocolVersion"].is_string());
    let run = against_everything(&["logging", "set-level", "loud"]);
    run.expect(2);
    assert!(run.stderr.contains("not a log level"), "{}", run.stderr);
}

#[test]
fn request_sends_any_method() {
    let run = against_everything(&["request", "tools/list", "--json"]);
    run.expect(0);
    assert!(
        run.json()["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty())
    );
    let run = against_everything(&[
        "request",
        "tools/call",
        "--params",
        r#"{"name": "add_numbers", "arguments": {"a": 1, "b": 2}}"#,
    ]);
    run.expect(0);
    assert!(run.stdout.contains("\"3\""), "{}", run.stdout);
    // Known methods are checked before anything is sent.
    let run = against_everything(&["request", "tools/call", "--params", r#"{"name": 3}"#]);
    run.expect(2);
    assert!(
        run.stderr.contains("do not fit `tools/call`"),
        "{}",
        run.stderr
    );
    let run = against_everything(&["request", "sampling/createMessage"]);
    run.expect(2);
    // Unknown methods go out as given; the server refuses this one.
    let run = against_everything(&["request", "vendor/unknown", "--params", "{}"]);
    run.expect(1);
    assert!(run.stderr.contains("-32601"), "{}", run.stderr);
}

#[test]
fn headers_and_bearer_tokens_go_with_http_requests() {
    let (url, head) = capture_one_request();
    let run = mcp(&[
        "--timeout",
        "5",
        "ping",
        "--url",
        &url,
        "--header",
        "X-Custom: one two",
        "--bearer",
        "s3cret",
    ]);
    run.expect(3);
    let head = head.join().unwrap();
    assert!(head.contains("x-custom: one two\r\n"), "{head}");
    assert!(head.contains("authorization: bearer s3cret\r\n"), "{head}");

    let run = mcp(&["ping", "--url", &url, "--header", "no colon"]);
    run.expect(2);
    let run = against_everything(&["ping", "--bearer", "x"]);
    run.expect(2);
    assert!(run.stderr.contains("for HTTP servers"), "{}", run.stderr);
}

#[test]
fn config_names_the_server() {
    let path = config_file(
        "config_names_the_server",
        json!({"ours": ours(), "down": {"command": "/nonexistent/mcp-server"}}),
    );
    let path = path.to_str().unwrap();
    let run = mcp(&[
        "tools",
        "call",
        "add_numbers",
        "a=1",
        "b=2",
        "--config",
        path,
        "--server",
        "ours",
    ]);
    run.expect(0);
    assert_eq!(run.stdout, "3\n");
    let run = mcp(&["ping", "--config", path]);
    run.expect(2);
    assert!(
        run.stderr.contains("choose one with --server (ours, down)"),
        "{}",
        run.stderr
    );
    let run = mcp(&["ping", "--config", path, "--server", "nope"]);
    run.expect(2);
    assert!(run.stderr.contains("no server `nope`"), "{}", run.stderr);
    let run = mcp(&["ping", "--config", path, "--server", "down"]);
    run.expect(3);

    let bad = config_file("config_bad", json!({"x": {"command": 1}}));
    let run = mcp(&["ping", "--config", bad.to_str().unwrap()]);
    run.expect(2);
    assert!(
        run.stderr
            .contains("mcpServers.x: `command` must be a string"),
        "{}",
        run.stderr
    );
}

#[test]
fn servers_list_says_which_answer() {
    let path = config_file(
        "servers_list",
        json!({"ours": ours(), "down": {"command": "/nonexistent/mcp-server"}}),
    );
    let path = path.to_str().unwrap();
    let run = mcp(&["servers", "list", "--config", path]);
    run.expect(1);
    assert!(run.stdout.contains("ours  [stdio]"), "{}", run.stdout);
    assert!(
        run.stdout.contains("answers: mcp-everything"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("down  [stdio] /nonexistent/mcp-server\n    failed: "),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("no answer from down"), "{}", run.stderr);

    let run = mcp(&["servers", "list", "--config", path, "--json"]);
    run.expect(1);
    let servers = run.json()["servers"].clone();
    assert_eq!(servers[0]["name"], "ours");
    assert_eq!(servers[0]["state"], "connected");
    assert!(servers[0]["tools"].as_u64().unwrap() > 0);
    assert_eq!(servers[1]["state"], "failed");
    assert!(
        servers[1]["error"]
            .as_str()
            .unwrap()
            .contains("/nonexistent")
    );

    let only = config_file("servers_list_ok", json!({"ours": ours()}));
    mcp(&["servers", "list", "--config", only.to_str().unwrap()]).expect(0);
}

#[test]
fn tools_list_over_all_servers() {
    let path = config_file("all_servers", json!({"one": ours(), "two": ours()}));
    let run = mcp(&[
        "tools",
        "list",
        "--json",
        "--all-servers",
        "--config",
        path.to_str().unwrap(),
    ]);
    run.expect(0);
    let value = run.json();
    let names: Vec<&str> = value["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"one__add_numbers") && names.contains(&"two__add_numbers"),
        "{names:?}"
    );
    assert_eq!(value["servers"].as_array().unwrap().len(), 2);

    let run = mcp(&[
        "tools",
        "list",
        "--all-servers",
        "--config",
        path.to_str().unwrap(),
    ]);
    run.expect(0);
    assert!(
        run.stdout.contains("one__add_numbers — Adds two numbers"),
        "{}",
        run.stdout
    );

    let with_down = config_file(
        "all_servers_down",
        json!({"one": ours(), "down": {"command": "/nonexistent/mcp-server"}}),
    );
    let run = mcp(&[
        "tools",
        "list",
        "--all-servers",
        "--config",
        with_down.to_str().unwrap(),
    ]);
    run.expect(1);
    assert!(run.stdout.contains("one__add_numbers"), "{}", run.stdout);
    assert!(
        run.stderr.contains("error: server `down`"),
        "{}",
        run.stderr
    );
    // --all-servers needs --config.
    mcp(&[
        "tools",
        "list",
        "--all-servers",
        "--",
        MCP,
        "serve",
        "everything",
    ])
    .expect(2);
}
