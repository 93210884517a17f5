//! The everything server in process, through our client over the in-memory
//! transport: every fixture the conformance suite checks, with real values.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers fail the test on any error"
)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use mcp_cli::everything::everything_server;
use mcp_core::client::{Client, Negotiation};
use mcp_core::schema::*;
use mcp_core::server::ServerSession;
use mcp_core::session::RequestOptions;
use mcp_core::transport::memory_pair;
use serde_json::{Map, Value, json};

/// What the client was asked by the server.
#[derive(Default)]
struct Asked {
    sampling: Vec<Value>,
    elicitation: Vec<Value>,
}

async fn connect() -> (Client, ServerSession, Arc<Mutex<Asked>>) {
    let asked = Arc::new(Mutex::new(Asked::default()));
    let (a, b) = memory_pair();
    let session = everything_server().serve(b).unwrap();
    let (on_sampling, on_elicitation) = (asked.clone(), asked.clone());
    let client = Client::builder("everything-test", "1")
        .negotiation(Negotiation::Legacy)
        .on_sampling(false, move |params, _cx| {
            on_sampling
                .lock()
                .unwrap()
                .sampling
                .push(serde_json::to_value(&params).unwrap());
            async move {
                Ok(CreateMessageResult {
                    stop_reason: Some("endTurn".into()),
                    ..CreateMessageResult::new(
                        CreateMessageResultContent::TextContent(TextContent::new(
                            "This is a test response from the client",
                        )),
                        "test-model",
                        Role::Assistant,
                    )
                })
            }
        })
        .on_elicitation(false, move |params, _cx| {
            on_elicitation
                .lock()
                .unwrap()
                .elicitation
                .push(serde_json::to_value(&params).unwrap());
            async move {
                let content: IndexMap<String, ElicitResultContentValue> =
                    [("username", "testuser"), ("email", "test@example.com")]
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), ElicitResultContentValue::String(v.into())))
                        .collect();
                Ok(ElicitResult {
                    content: Some(content),
                    ..ElicitResult::new(ElicitResultAction::Accept)
                })
            }
        })
        .connect(a)
        .await
        .unwrap();
    (client, session, asked)
}

fn json_of<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap()
}

async fn call(client: &Client, name: &str, args: Value) -> Value {
    let args = match args {
        Value::Object(map) => Some(map),
        Value::Null => None,
        other => panic!("arguments must be an object: {other}"),
    };
    json_of(&client.call_tool(name, args).await.unwrap())
}

#[tokio::test]
async fn tools_are_listed_with_descriptions_and_schemas() {
    let (client, _session, _) = connect().await;
    let tools = json_of(&client.list_all_tools().await.unwrap());
    let names: Vec<&str> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "test_simple_text",
            "test_image_content",
            "test_audio_content",
            "test_embedded_resource",
            "test_multiple_content_types",
            "test_tool_with_logging",
            "test_tool_with_progress",
            "test_error_handling",
            "test_sampling",
            "test_elicitation",
            "test_elicitation_sep1034_defaults",
            "test_elicitation_sep1330_enums",
            "test_header_param",
            "json_schema_2020_12_tool",
            "test_reconnection",
            "add_numbers",
            "test_slow_task",
            // 2026-07-28 diagnostics and input-required rounds.
            "test_trigger_tool_change",
            "test_trigger_prompt_change",
            "test_missing_capability",
            "test_streaming_elicitation",
            "test_logging_tool",
            "test_input_required_result_elicitation",
            "test_input_required_result_sampling",
            "test_input_required_result_list_roots",
            "test_input_required_result_request_state",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_multi_round",
            "test_input_required_result_tampered_state",
            "test_input_required_result_capabilities",
            // The tasks extension's fixtures.
            "greet",
            "slow_compute",
            "failing_job",
            "protocol_error_job",
            "confirm_delete",
            "multi_input",
            "test_tool_with_task",
            "test_update_resource",
        ]
    );
    for tool in tools.as_array().unwrap() {
        let name = tool["name"].as_str().unwrap();
        assert!(
            !tool["description"].as_str().unwrap_or_default().is_empty(),
            "{name} has no description"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        if name.starts_with("test_")
            && ![
                "test_sampling",
                "test_elicitation",
                "test_slow_task",
                "test_update_resource",
                "test_tool_with_task",
                "test_header_param",
            ]
            .contains(&name)
        {
            assert_eq!(
                tool["inputSchema"],
                json!({"type": "object", "properties": {}}),
                "{name}"
            );
        }
    }
    let raw = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "json_schema_2020_12_tool")
        .unwrap();
    let schema = &raw["inputSchema"];
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["then"], json!({"required": ["phone"]}));
    let keys: Vec<&String> = schema.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "$schema",
            "type",
            "$defs",
            "properties",
            "allOf",
            "if",
            "then",
            "else",
            "additionalProperties"
        ],
        "keyword order is kept"
    );
}

#[tokio::test]
async fn content_fixtures() {
    let (client, _session, _) = connect().await;
    let text = call(&client, "test_simple_text", Value::Null).await;
    assert_eq!(
        text["content"],
        json!([{"type": "text", "text": "This is a simple text response for testing."}])
    );

    let image = call(&client, "test_image_content", json!({})).await;
    assert_eq!(image["content"][0]["type"], "image");
    assert_eq!(image["content"][0]["mimeType"], "image/png");
    assert_eq!(image["content"][0]["data"], mcp_cli::everything::tiny_png());

    let audio = call(&client, "test_audio_content", json!({})).await;
    assert_eq!(audio["content"][0]["type"], "audio");
    assert_eq!(audio["content"][0]["mimeType"], "audio/wav");
    assert_eq!(audio["content"][0]["data"], mcp_cli::everything::tiny_wav());

    let embedded = call(&client, "test_embedded_resource", json!({})).await;
    assert_eq!(embedded["content"][0]["type"], "resource");
    assert_eq!(
        embedded["content"][0]["resource"],
        json!({"uri": "test://embedded-resource", "mimeType": "text/plain",
               "text": "This is an embedded resource content."})
    );

    let mixed = call(&client, "test_multiple_content_types", json!({})).await;
    let types: Vec<&str> = mixed["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["text", "image", "resource"]);

    let error = call(&client, "test_error_handling", json!({})).await;
    assert_eq!(error["isError"], true);
    assert_eq!(
        error["content"][0]["text"],
        "This tool intentionally returns an error for testing"
    );

    let sum = call(&client, "add_numbers", json!({"a": 2, "b": 3.5})).await;
    assert_eq!(sum["content"][0]["text"], "5.5");
    let bad = call(&client, "add_numbers", json!({"a": "two"})).await;
    assert_eq!(bad["isError"], true);
    let message = bad["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("Invalid arguments"), "{message}");

    let schema_tool = call(
        &client,
        "json_schema_2020_12_tool",
        json!({"name": "Ada", "email": "ada@example.com"}),
    )
    .await;
    assert_eq!(
        schema_tool["content"][0]["text"],
        "JSON Schema 2020-12 tool called with: {\"name\":\"Ada\",\"email\":\"ada@example.com\"}"
    );
    let rejected = call(&client, "json_schema_2020_12_tool", json!({"extra": 1})).await;
    assert_eq!(rejected["isError"], true, "additionalProperties: false");

    let started = std::time::Instant::now();
    let reconnection = call(&client, "test_reconnection", json!({})).await;
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert!(
        reconnection["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Reconnection test completed")
    );
}

#[tokio::test]
async fn logging_and_progress_notifications() {
    let (client, _session, _) = connect().await;
    let mut notifications = client.notifications();
    client.set_logging_level(LoggingLevel::Debug).await.unwrap();
    let result = call(&client, "test_tool_with_logging", json!({})).await;
    assert_eq!(
        result["content"][0]["text"],
        "Tool with logging executed successfully"
    );
    let mut logs = Vec::new();
    while let Ok(Ok(n)) =
        tokio::time::timeout(Duration::from_millis(200), notifications.recv()).await
    {
        if let ServerNotification::LoggingMessage(m) = n {
            logs.push(m.params.data);
        }
    }
    assert_eq!(
        logs,
        [
            json!("Tool execution started"),
            json!("Tool processing data"),
            json!("Tool execution completed")
        ]
    );

    // Progress, with a token the client chooses (as the conformance harness does).
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let options = RequestOptions::default().on_progress(move |p| {
        sink.lock().unwrap().push((p.progress.to_string(), p.total));
    });
    let params = CallToolRequestParams {
        arguments: None,
        ..CallToolRequestParams::new("test_tool_with_progress")
    };
    let started = std::time::Instant::now();
    client.call_tool_with(params, options).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(90),
        "~50 ms apart"
    );
    let seen = seen.lock().unwrap().clone();
    let hundred = Some(serde_json::Number::from(100));
    assert_eq!(
        seen,
        [
            ("0".to_string(), hundred.clone()),
            ("50".to_string(), hundred.clone()),
            ("100".to_string(), hundred)
        ]
    );
}

#[tokio::test]
async fn sampling_and_elicitation() {
    let (client, _session, asked) = connect().await;
    let sampled = call(
        &client,
        "test_sampling",
        json!({"prompt": "Test prompt for sampling"}),
    )
    .await;
    assert_eq!(
        sampled["content"][0]["text"],
        "LLM response: This is a test response from the client"
    );
    let request = asked.lock().unwrap().sampling[0].clone();
    assert_eq!(request["maxTokens"], 100);
    assert_eq!(
        request["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "Test prompt for sampling"}}])
    );

    let elicited = call(
        &client,
        "test_elicitation",
        json!({"message": "Please provide your information"}),
    )
    .await;
    assert_eq!(
        elicited["content"][0]["text"],
        "User response: action=accept, content={\"username\":\"testuser\",\"email\":\"test@example.com\"}"
    );
    let request = asked.lock().unwrap().elicitation[0].clone();
    assert_eq!(request["message"], "Please provide your information");
    let props = &request["requestedSchema"]["properties"];
    assert_eq!(props["username"]["type"], "string");
    assert_eq!(props["email"]["format"], "email");

    call(&client, "test_elicitation_sep1034_defaults", json!({})).await;
    let request = asked.lock().unwrap().elicitation[1].clone();
    let props = &request["requestedSchema"]["properties"];
    assert_eq!(
        props["name"],
        json!({"type": "string", "description": "User name", "default": "John Doe"})
    );
    assert_eq!(props["age"]["type"], "integer");
    assert_eq!(props["age"]["default"], 30);
    assert_eq!(props["score"]["type"], "number");
    assert_eq!(props["score"]["default"], 95.5);
    assert_eq!(
        props["status"]["enum"],
        json!(["active", "inactive", "pending"])
    );
    assert_eq!(props["status"]["default"], "active");
    assert_eq!(props["verified"]["type"], "boolean");
    assert_eq!(props["verified"]["default"], true);

    call(&client, "test_elicitation_sep1330_enums", json!({})).await;
    let request = asked.lock().unwrap().elicitation[2].clone();
    let props = &request["requestedSchema"]["properties"];
    let untitled = props["untitledSingle"].as_object().unwrap();
    assert_eq!(untitled["type"], "string");
    assert!(untitled.contains_key("enum") && !untitled.contains_key("oneOf"));
    assert!(!untitled.contains_key("enumNames"));
    let titled = props["titledSingle"].as_object().unwrap();
    assert!(!titled.contains_key("enum"));
    assert_eq!(
        titled["oneOf"][0],
        json!({"const": "value1", "title": "First Option"})
    );
    assert_eq!(
        props["legacyEnum"]["enum"].as_array().unwrap().len(),
        props["legacyEnum"]["enumNames"].as_array().unwrap().len()
    );
    assert_eq!(props["untitledMulti"]["type"], "array");
    assert_eq!(
        props["untitledMulti"]["items"],
        json!({"type": "string", "enum": ["option1", "option2", "option3"]})
    );
    assert_eq!(props["titledMulti"]["type"], "array");
    assert_eq!(
        props["titledMulti"]["items"]["anyOf"][2],
        json!({"const": "value3", "title": "Third Choice"})
    );
}

#[tokio::test]
async fn a_client_without_sampling_gets_a_tool_error() {
    let (a, b) = memory_pair();
    let _session = everything_server().serve(b).unwrap();
    let client = Client::builder("bare", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let mut args = Map::new();
    args.insert("prompt".into(), json!("hi"));
    let result = client.call_tool("test_sampling", Some(args)).await.unwrap();
    assert!(result.is_error());
    let text = result.content[0].as_text().unwrap();
    assert!(text.contains("sampling"), "{text}");
}

#[tokio::test]
async fn resources_templates_and_subscriptions() {
    let (client, _session, _) = connect().await;
    let resources = json_of(&client.list_all_resources().await.unwrap());
    let uris: Vec<&str> = resources
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        uris,
        [
            "test://static-text",
            "test://static-binary",
            "test://watched-resource",
            "skill://pdf-processing/SKILL.md",
            "skill://release-notes/SKILL.md"
        ]
    );
    let text = json_of(&client.read_resource("test://static-text").await.unwrap());
    assert_eq!(
        text["contents"],
        json!([{"uri": "test://static-text", "mimeType": "text/plain",
                "text": "This is the content of the static text resource."}])
    );
    let binary = json_of(&client.read_resource("test://static-binary").await.unwrap());
    assert_eq!(binary["contents"][0]["mimeType"], "image/png");
    assert_eq!(
        binary["contents"][0]["blob"],
        mcp_cli::everything::tiny_png()
    );

    let templates = json_of(&client.list_all_resource_templates().await.unwrap());
    assert_eq!(templates[0]["uriTemplate"], "test://template/{id}/data");
    let templated = json_of(
        &client
            .read_resource("test://template/123/data")
            .await
            .unwrap(),
    );
    assert_eq!(templated["contents"][0]["uri"], "test://template/123/data");
    let data: Value =
        serde_json::from_str(templated["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        data,
        json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"})
    );

    client.subscribe("test://watched-resource").await.unwrap();
    client.unsubscribe("test://watched-resource").await.unwrap();
}

#[tokio::test]
async fn prompts_and_completion() {
    let (client, _session, _) = connect().await;
    let prompts = json_of(&client.list_all_prompts().await.unwrap());
    for prompt in prompts.as_array().unwrap() {
        assert!(
            !prompt["description"].as_str().unwrap().is_empty(),
            "{prompt}"
        );
    }
    let simple = json_of(&client.get_prompt("test_simple_prompt", None).await.unwrap());
    assert_eq!(simple["messages"][0]["role"], "user");
    assert_eq!(
        simple["messages"][0]["content"]["text"],
        "This is a simple prompt for testing."
    );

    let args: IndexMap<String, String> = [("arg1", "testValue1"), ("arg2", "testValue2")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let with_args = json_of(
        &client
            .get_prompt("test_prompt_with_arguments", Some(args))
            .await
            .unwrap(),
    );
    assert_eq!(
        with_args["messages"][0]["content"]["text"],
        "Prompt with arguments: arg1='testValue1', arg2='testValue2'"
    );

    let args: IndexMap<String, String> = [(
        "resourceUri".to_string(),
        "test://example-resource".to_string(),
    )]
    .into_iter()
    .collect();
    let embedded = json_of(
        &client
            .get_prompt("test_prompt_with_embedded_resource", Some(args))
            .await
            .unwrap(),
    );
    assert_eq!(embedded["messages"][0]["content"]["type"], "resource");
    assert_eq!(
        embedded["messages"][0]["content"]["resource"]["uri"],
        "test://example-resource"
    );

    let image = json_of(
        &client
            .get_prompt("test_prompt_with_image", None)
            .await
            .unwrap(),
    );
    assert_eq!(image["messages"][0]["content"]["type"], "image");
    assert_eq!(image["messages"][0]["content"]["mimeType"], "image/png");

    let completion = client
        .complete(CompleteRequestParams::new(
            CompleteRequestParamsArgument::new("arg1", "test"),
            CompleteRequestParamsRef::PromptReference(PromptReference {
                type_: PromptReferenceType,
                ..PromptReference::new("test_prompt_with_arguments")
            }),
        ))
        .await
        .unwrap();
    assert_eq!(completion.completion.values, ["testValue1", "testValue2"]);
}

#[tokio::test]
async fn capabilities_match_the_conformance_servers() {
    let (client, _session, _) = connect().await;
    let caps = json_of(client.server_capabilities());
    assert_eq!(caps["tools"]["listChanged"], true);
    assert_eq!(caps["resources"]["subscribe"], true);
    assert_eq!(caps["prompts"]["listChanged"], true);
    assert_eq!(caps["logging"], json!({}));
    assert_eq!(caps["completions"], json!({}));
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/skills"],
        json!({"directoryRead": true})
    );
    client.ping().await.unwrap();
}

/// The fixture skills are valid, two, each with a file in a subfolder (the
/// conformance suite's directory scenario descends into one).
#[test]
fn fixture_skills_are_valid() {
    let skills = mcp_cli::everything::fixture_skills().unwrap();
    let uris: Vec<_> = skills.skills().map(|s| s.entry().uri.clone()).collect();
    assert_eq!(
        uris,
        [
            "skill://pdf-processing/SKILL.md",
            "skill://release-notes/SKILL.md"
        ]
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/everything/skill-files");
    let loaded = mcp_cli::everything::directory_skills(&dir).unwrap();
    for (a, b) in skills.skills().zip(loaded.skills()) {
        assert_eq!(
            a.entry(),
            b.entry(),
            "the compiled-in fixtures are the directory's"
        );
    }
}

/// The fixtures written for input-required rounds work unchanged in a
/// 2025-11-25 session, where asking is a server→client request.
#[tokio::test]
async fn keyed_questions_are_requests_in_a_session() {
    let (client, _session, asked) = connect().await;
    let result = call(&client, "test_input_required_result_sampling", json!({})).await;
    assert_eq!(
        result["content"][0]["text"],
        "Sampling response: This is a test response from the client"
    );
    assert_eq!(asked.lock().unwrap().sampling.len(), 1);
}
