//! What the interop tests check of the official everything server
//! (`@modelcontextprotocol/server-everything`) through our client, whatever
//! the transport: its fixed tools, sampling through a tool, its resources,
//! its prompts and completions. Each transport's test adds what only it has
//! (HTTP: the GET stream's logs, subscriptions, elicitation, session end).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::missing_panics_doc,
    reason = "test helpers: a failure fails the test"
)]

use std::sync::{Arc, Mutex};

use mcp_core::client::Client;
use mcp_core::schema::*;
use mcp_core::session::RequestOptions;
use mcp_test_support::{obj, text};
use serde_json::{Value, json};

/// The tools: `names` are listed (the fixed ones and those the server
/// registers for what the client offers); echo (of `message`), get-sum and
/// get-tiny-image answer; bad arguments and unknown tools come back as tool
/// errors; a long-running operation reports its progress.
pub async fn tools(client: &Client, names: &[&str], message: &str) {
    let tools = client.list_all_tools().await.unwrap();
    let listed: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    for name in names {
        assert!(listed.contains(name), "{name} not in {listed:?}");
    }
    let echo = tools.iter().find(|t| t.name == "echo").unwrap();
    let schema = Value::Object(echo.input_schema.as_map().clone());
    assert_eq!(schema["properties"]["message"]["type"], "string");
    assert_eq!(schema["required"], json!(["message"]));

    let echoed = client
        .call_tool("echo", Some(obj(json!({"message": message}))))
        .await
        .unwrap();
    assert!(!echoed.is_error());
    assert_eq!(text(&echoed, 0), format!("Echo: {message}"));

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

    let invalid = client
        .call_tool("get-sum", Some(obj(json!({"a": "one"}))))
        .await
        .unwrap();
    assert!(invalid.is_error(), "{invalid:?}");
    let unknown = client.call_tool("no-such-tool", None).await.unwrap();
    assert!(unknown.is_error(), "{unknown:?}");
    assert!(text(&unknown, 0).contains("no-such-tool"));

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
}

/// The server asks the client for a completion (sampling) in the middle of
/// a call. `sampled` is where the client's sampling handler records what it
/// was asked, `answer` a part of the text it answers. Returns the request
/// it was asked, for the caller's own checks.
pub async fn sampling(client: &Client, sampled: &Mutex<Vec<Value>>, answer: &str) -> Value {
    let sampling = client
        .call_tool(
            "trigger-sampling-request",
            Some(obj(json!({"prompt": "What is MCP?", "maxTokens": 50}))),
        )
        .await
        .unwrap();
    assert!(!sampling.is_error(), "{sampling:?}");
    assert!(text(&sampling, 0).contains(answer), "{sampling:?}");
    let request = sampled.lock().unwrap()[0].clone();
    assert_eq!(request["maxTokens"], 50);
    assert_eq!(
        request["messages"][0]["content"]["text"],
        "Resource trigger-sampling-request context: What is MCP?"
    );
    request
}

/// Resources and templates, listed and read (text and blob). Returns the
/// static `features.md` resource, for the caller's subscription checks.
pub async fn resources(client: &Client) -> Resource {
    let resources = client.list_all_resources().await.unwrap();
    let features = resources
        .into_iter()
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
    let ReadResourceResultContentsItem::TextResourceContents(dynamic) = &read.contents[0] else {
        panic!("not text: {read:?}")
    };
    assert!(
        dynamic
            .text
            .starts_with("Resource 7: This is a plaintext resource"),
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
    features
}

/// Prompts with and without arguments, and the completion of a completable
/// prompt argument (the server declares completions for it).
pub async fn prompts_and_completion(client: &Client) {
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

    let department = CompleteRequestParamsArgument::new("department", "Eng");
    let prompt = CompleteRequestParamsRef::PromptReference(PromptReference {
        type_: PromptReferenceType,
        ..PromptReference::new("completable-prompt")
    });
    let completion = client
        .complete(CompleteRequestParams::new(department, prompt))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["Engineering"]);
}
