//! Interop over stdio with the official SDKs:
//!
//! - our client (`mcp_core::client::Client` over `ChildProcess`) against the
//!   official TypeScript reference server `@modelcontextprotocol/server-everything`;
//! - the official Python SDK's client (`tests/interop/python_client.py`)
//!   against our server (`mcp serve everything`).
//!
//! Both need what `tests/interop/setup.sh` installs into `target/interop/`,
//! and fail (not skip) with instructions when it is missing.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::client::Client;
use mcp_core::schema::*;
use mcp_core::session::{RequestOptions, SessionConfig};
use mcp_core::transport::ChildProcess;
use mcp_test_support::{obj, text, with_client};
use mcp_tests::interop::{
    LIMIT, NODE_VERSION, SERVER_EVERYTHING_VERSION, installed, mcp_binary, node, run_bounded,
    server_everything_dir, venv_python, workspace_root,
};
use serde_json::{Value, json};

/// Longest one request may take.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);

/// Shows the reference server's stderr in the test's output (for diagnosis).
#[allow(clippy::print_stderr, reason = "the test harness captures it")]
fn server_stderr(line: &str) {
    eprintln!("[server-everything] {line}");
}

/// Our client, with sampling, elicitation and roots, connected to the
/// official everything server over stdio.
async fn connect_to_server_everything(sampled: Arc<Mutex<Vec<Value>>>) -> Client {
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
    let child = ChildProcess::new(node)
        .arg(entry)
        .arg("stdio")
        .shutdown_grace(Duration::from_secs(1))
        .on_stderr(server_stderr);
    let connecting = Client::builder("libmcp-interop", "0.1.0")
        .session_config(SessionConfig::default().request_timeout(REQUEST_TIMEOUT))
        .on_sampling(false, move |params, _cx| {
            sampled
                .lock()
                .unwrap()
                .push(serde_json::to_value(&params).unwrap());
            async move {
                Ok(CreateMessageResult {
                    stop_reason: Some("endTurn".into()),
                    ..CreateMessageResult::new(
                        CreateMessageResultContent::TextContent(TextContent::new(
                            "sampled by libmcp",
                        )),
                        "libmcp-test-model",
                        Role::Assistant,
                    )
                })
            }
        })
        .roots(vec![Root {
            name: Some("interop root".into()),
            ..Root::new("file:///tmp/libmcp-interop-root")
        }])
        .connect(child);
    tokio::time::timeout(REQUEST_TIMEOUT, connecting)
        .await
        .expect("initializing with server-everything timed out")
        .expect("could not initialize with server-everything")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_client_against_the_official_everything_server() {
    let sampled = Arc::new(Mutex::new(Vec::new()));
    let client = connect_to_server_everything(sampled.clone()).await;
    with_client(client, LIMIT, move |client| async move {
        assert_eq!(client.server_info().name, "mcp-servers/everything");
        assert_eq!(
            client.protocol_version(),
            mcp_core::ProtocolVersion::V2025_11_25
        );
        assert!(
            client
                .instructions()
                .is_some_and(|i| !i.is_empty())
        );
        client.ping().await.unwrap();

        // Tools: the fixed ones, and those registered because we offer
        // sampling and roots.
        let tools = client.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        for name in [
            "echo",
            "get-sum",
            "get-tiny-image",
            "trigger-long-running-operation",
            "trigger-sampling-request",
            "get-roots-list",
        ] {
            assert!(names.contains(&name), "{name} not in {names:?}");
        }
        let echo = tools.iter().find(|t| t.name == "echo").unwrap();
        let schema = Value::Object(echo.input_schema.as_map().clone());
        assert_eq!(schema["properties"]["message"]["type"], "string");
        assert_eq!(schema["required"], json!(["message"]));

        let echoed = client
            .call_tool("echo", Some(obj(json!({"message": "hello from Rust"}))))
            .await
            .unwrap();
        assert!(!echoed.is_error());
        assert_eq!(text(&echoed, 0), "Echo: hello from Rust");

        let sum = client
            .call_tool("get-sum", Some(obj(json!({"a": 19, "b": 23.5}))))
            .await
            .unwrap();
        assert_eq!(text(&sum, 0), "The sum of 19 and 23.5 is 42.5.");

        let image = client.call_tool("get-tiny-image", None).await.unwrap();
        let ContentBlock::Image(picture) = &image.content[1] else {
            panic!("not an image: {image:?}")
        };
        assert_eq!(picture.mime_type, "image/png");
        assert!(picture.data.starts_with("iVBORw0KGgo"), "not a base64 PNG");

        // Invalid arguments and unknown tools come back as tool errors.
        let invalid = client
            .call_tool("get-sum", Some(obj(json!({"a": "one"}))))
            .await
            .unwrap();
        assert!(invalid.is_error(), "{invalid:?}");
        let unknown = client.call_tool("no-such-tool", None).await.unwrap();
        assert!(unknown.is_error(), "{unknown:?}");
        assert!(text(&unknown, 0).contains("no-such-tool"));

        // Progress for a long-running operation.
        let progress = Arc::new(Mutex::new(Vec::new()));
        let sink = progress.clone();
        let options = RequestOptions::default().on_progress(move |p| {
            sink.lock()
                .unwrap()
                .push((p.progress.to_string(), p.total.map(|t| t.to_string())));
        });
        let params = CallToolRequestParams {
            arguments: Some(obj(json!({"duration": 0.3, "steps": 3}))),
            ..CallToolRequestParams::new("trigger-long-running-operation")
        };
        let done = client.call_tool_with(params, options).await.unwrap();
        assert_eq!(
            text(&done, 0),
            "Long running operation completed. Duration: 0.3 seconds, Steps: 3."
        );
        let progress = progress.lock().unwrap().clone();
        let three = Some("3".to_string());
        assert_eq!(
            progress,
            [
                ("1".to_string(), three.clone()),
                ("2".to_string(), three.clone()),
                ("3".to_string(), three)
            ]
        );

        // The server asks us for a completion (sampling) ...
        let sampling = client
            .call_tool(
                "trigger-sampling-request",
                Some(obj(json!({"prompt": "What is MCP?", "maxTokens": 50}))),
            )
            .await
            .unwrap();
        assert!(!sampling.is_error(), "{sampling:?}");
        assert!(
            text(&sampling, 0).contains("sampled by libmcp"),
            "{sampling:?}"
        );
        let request = sampled.lock().unwrap()[0].clone();
        assert_eq!(request["maxTokens"], 50);
        assert_eq!(
            request["messages"][0]["content"]["text"],
            "Resource trigger-sampling-request context: What is MCP?"
        );
        // ... and for our roots.
        let roots = client.call_tool("get-roots-list", None).await.unwrap();
        assert!(
            text(&roots, 0).contains("file:///tmp/libmcp-interop-root"),
            "{roots:?}"
        );

        // Resources, templates and reading both.
        let resources = client.list_all_resources().await.unwrap();
        let features = resources
            .iter()
            .find(|r| r.uri == "demo://resource/static/document/features.md")
            .expect("features.md is listed");
        assert_eq!(features.mime_type.as_deref(), Some("text/markdown"));
        let read = client.read_resource(&features.uri).await.unwrap();
        let ReadResourceResultContentsItem::TextResourceContents(doc) = &read.contents[0] else {
            panic!("not text: {read:?}")
        };
        assert!(doc.text.starts_with("# Everything Server"), "{}", doc.text);

        let templates = client.list_all_resource_templates().await.unwrap();
        let uris: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
        assert!(
            uris.contains(&"demo://resource/dynamic/text/{resourceId}")
                && uris.contains(&"demo://resource/dynamic/blob/{resourceId}"),
            "{uris:?}"
        );
        let read = client
            .read_resource("demo://resource/dynamic/text/7")
            .await
            .unwrap();
        let ReadResourceResultContentsItem::TextResourceContents(dynamic) = &read.contents[0]
        else {
            panic!("not text: {read:?}")
        };
        assert!(
            dynamic.text.starts_with("Resource 7: This is a plaintext resource"),
            "{}",
            dynamic.text
        );
        let read = client
            .read_resource("demo://resource/dynamic/blob/8")
            .await
            .unwrap();
        assert!(
            matches!(&read.contents[0], ReadResourceResultContentsItem::BlobResourceContents(b) if !b.blob.is_empty()),
            "{read:?}"
        );

        // Prompts.
        let prompts = client.list_all_prompts().await.unwrap();
        let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        assert!(
            names.contains(&"simple-prompt") && names.contains(&"args-prompt"),
            "{names:?}"
        );
        let simple = client.get_prompt("simple-prompt", None).await.unwrap();
        assert_eq!(
            simple.messages[0].content.as_text(),
            Some("This is a simple prompt without arguments.")
        );
        let args: indexmap::IndexMap<String, String> = [("city", "Paris"), ("state", "Texas")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let with_args = client.get_prompt("args-prompt", Some(args)).await.unwrap();
        assert_eq!(with_args.messages[0].role, Role::User);
        assert_eq!(
            with_args.messages[0].content.as_text(),
            Some("What's weather in Paris, Texas?")
        );

        // Completions (declared because its prompts have completable arguments).
        let completion = client
            .complete(CompleteRequestParams::new(CompleteRequestParamsArgument::new("department", "Eng"), CompleteRequestParamsRef::PromptReference(PromptReference {
                    type_: PromptReferenceType,
                    ..PromptReference::new("completable-prompt")
                })))
            .await
            .unwrap();
        assert_eq!(completion.completion.values, ["Engineering"]);

        client.set_logging_level(LoggingLevel::Error).await.unwrap();
        client.ping().await.unwrap();
    })
    .await;
}

#[test]
fn the_official_python_client_against_our_server() {
    let python = venv_python();
    let mcp = mcp_binary();
    let script = installed(
        workspace_root().join("tests/interop/python_client.py"),
        "the Python interop client",
    );
    let (code, stdout, stderr) = run_bounded(
        &python,
        &[
            script.as_os_str(),
            mcp.as_os_str(),
            "serve".as_ref(),
            "everything".as_ref(),
        ],
    );
    assert_eq!(
        code,
        Some(0),
        "the Python SDK's client failed against `mcp serve everything`\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    let summary = stdout.lines().last().unwrap_or_default();
    assert_eq!(
        summary, "python interop: 10 passed, 0 failed",
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
}
