//! The everything server's tools.

use std::time::Duration;

use mcp_core::schema::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, CreateMessageResultContent,
    ElicitRequestParams, ElicitResult, LoggingLevel, Role, SamplingMessage, SamplingMessageContent,
    SamplingMessageContentBlock, TextContent,
};
use mcp_core::server::{Context, ServerBuilder, ToolDef};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::{from_json, media};

/// Delay between the steps of the logging and progress tools.
const STEP: Duration = Duration::from_millis(50);

/// The input schema of tools without parameters.
pub(super) fn no_params() -> Value {
    json!({"type": "object", "properties": {}})
}

/// `test_header_param`'s arguments: a string and an integer that 2026-07-28
/// clients mirror as `Mcp-Param-Region` and `Mcp-Param-Count` over HTTP.
fn header_param_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region",
                       "description": "Where to run (mirrored as Mcp-Param-Region)"},
            "count": {"type": "integer", "x-mcp-header": "Count",
                      "description": "How many (mirrored as Mcp-Param-Count)"},
            "note": {"type": "string", "description": "Not mirrored"}
        },
        "required": ["region"]
    })
}

/// A tool without parameters, or with a schema given as is.
pub(super) fn raw_tool<F, Fut>(
    name: &str,
    description: &str,
    schema: Value,
    handler: F,
) -> Option<ToolDef>
where
    F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = CallToolResult> + Send + 'static,
{
    match ToolDef::raw(name, schema, handler) {
        Ok(tool) => Some(tool.description(description)),
        // Every schema here is a constant checked by the tests; never taken.
        Err(e) => {
            tracing::error!("the everything server's tool `{name}` is invalid: {e}");
            None
        }
    }
}

/// A typed tool (its schema derived from its arguments' type).
fn typed(tool: mcp_core::Result<ToolDef>) -> Option<ToolDef> {
    match tool {
        Ok(tool) => Some(tool),
        // Derived schemas are always objects; never taken.
        Err(e) => {
            tracing::error!("an everything server tool is invalid: {e}");
            None
        }
    }
}

#[derive(Deserialize, JsonSchema)]
struct SlowTask {
    /// How long to work, in seconds (at most 600).
    seconds: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
struct AddNumbers {
    /// The first number.
    a: f64,
    /// The second number.
    b: f64,
}

#[derive(Deserialize, JsonSchema)]
struct SamplingArgs {
    /// The prompt to send to the client's model.
    prompt: String,
}

#[derive(Deserialize, JsonSchema)]
struct ElicitationArgs {
    /// The message to show the user.
    message: String,
}

/// Registers every tool on `builder`.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    let tools = [
        raw_tool(
            "test_simple_text",
            "Tests simple text content response",
            no_params(),
            |_, _| async { CallToolResult::text("This is a simple text response for testing.") },
        ),
        raw_tool(
            "test_image_content",
            "Tests image content response",
            no_params(),
            |_, _| async {
                CallToolResult::success(vec![ContentBlock::image(media::tiny_png(), "image/png")])
            },
        ),
        raw_tool(
            "test_audio_content",
            "Tests audio content response",
            no_params(),
            |_, _| async {
                CallToolResult::success(vec![ContentBlock::audio(media::tiny_wav(), "audio/wav")])
            },
        ),
        raw_tool(
            "test_embedded_resource",
            "Tests embedded resource content response",
            no_params(),
            |_, _| async {
                CallToolResult::success(vec![ContentBlock::resource_text(
                    "test://embedded-resource",
                    Some("text/plain".into()),
                    "This is an embedded resource content.",
                )])
            },
        ),
        raw_tool(
            "test_multiple_content_types",
            "Tests response with multiple content types (text, image, resource)",
            no_params(),
            |_, _| async {
                CallToolResult::success(vec![
                    ContentBlock::text("Multiple content types test:"),
                    ContentBlock::image(media::tiny_png(), "image/png"),
                    ContentBlock::resource_text(
                        "test://mixed-content-resource",
                        Some("application/json".into()),
                        json!({"test": "data", "value": 123}).to_string(),
                    ),
                ])
            },
        ),
        raw_tool(
            "test_tool_with_logging",
            "Tests tool that emits log messages during execution",
            no_params(),
            |_, cx| with_logging(cx),
        ),
        raw_tool(
            "test_tool_with_progress",
            "Tests tool that reports progress notifications",
            no_params(),
            |_, cx| with_progress(cx),
        ),
        raw_tool(
            "test_error_handling",
            "Tests error response handling",
            no_params(),
            |_, _| async {
                CallToolResult::error("This tool intentionally returns an error for testing")
            },
        ),
        typed(ToolDef::new(
            "test_sampling",
            "Tests server-initiated sampling (LLM completion request)",
            |args: SamplingArgs, cx| sampling(args, cx),
        )),
        typed(
            ToolDef::new(
                "test_elicitation",
                "Tests server-initiated elicitation (user input request); may run as a task, \
                 which then waits in input_required",
                |args: ElicitationArgs, cx| async move {
                    let params = form(&args.message, elicitation_schema());
                    elicit(params, cx).await
                },
            )
            .map(|t| t.task_support(mcp_core::schema::ToolExecutionTaskSupport::Optional)),
        ),
        raw_tool(
            "test_elicitation_sep1034_defaults",
            "Tests elicitation with default values per SEP-1034",
            no_params(),
            |_, cx| async move {
                let params = form(SEP1034_MESSAGE, sep1034_schema());
                into_result(elicit(params, cx).await)
            },
        ),
        raw_tool(
            "test_elicitation_sep1330_enums",
            "Tests elicitation with enum schema improvements per SEP-1330",
            no_params(),
            |_, cx| async move {
                let params = form(SEP1330_MESSAGE, sep1330_schema());
                into_result(elicit(params, cx).await)
            },
        ),
        raw_tool(
            "test_header_param",
            "Tests arguments mirrored as Mcp-Param-* headers (SEP-2243): echoes them",
            header_param_schema(),
            |args, _| async move {
                CallToolResult::text(format!("Header params: {}", Value::Object(args)))
            },
        ),
        raw_tool(
            "json_schema_2020_12_tool",
            "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
            json_schema_2020_12(),
            |args, _| async move {
                CallToolResult::text(format!(
                    "JSON Schema 2020-12 tool called with: {}",
                    Value::Object(args)
                ))
            },
        ),
        raw_tool(
            "test_reconnection",
            "Tests reconnection: answers after a short delay (Streamable HTTP closes the \
             stream mid-call so that the client reconnects)",
            no_params(),
            |_, cx| async move {
                // Over Streamable HTTP this ends the response stream now; the
                // client resumes it and still gets the result (SEP-1699).
                cx.close_stream().await.ok();
                tokio::time::sleep(Duration::from_millis(300)).await;
                CallToolResult::text(
                    "Reconnection test completed successfully. If you received this, the \
                     client properly reconnected after stream closure.",
                )
            },
        ),
        typed(ToolDef::new(
            "add_numbers",
            "Adds two numbers and returns their sum",
            |args: AddNumbers, _cx| async move { Ok::<_, String>(format!("{}", args.a + args.b)) },
        )),
        typed(
            ToolDef::new(
                "test_slow_task",
                "Works for `seconds` (default 2), reporting progress each second; runs as a task \
                 (tools/call with `task`) or normally",
                |args: SlowTask, cx| async move {
                    let seconds = args.seconds.unwrap_or(2).min(600);
                    for done in 0..seconds {
                        cx.progress(f64::from(done), Some(f64::from(seconds)), None).await.ok();
                        tokio::select! {
                            () = tokio::time::sleep(Duration::from_secs(1)) => {}
                            () = cx.cancellation().cancelled() => return Err("cancelled".to_string()),
                        }
                    }
                    Ok(format!("worked for {seconds} s"))
                },
            )
            .map(|t| t.task_support(mcp_core::schema::ToolExecutionTaskSupport::Optional)),
        ),
    ];
    tools
        .into_iter()
        .flatten()
        .fold(builder, ServerBuilder::tool)
}

fn into_result(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(text) => CallToolResult::text(text),
        Err(e) => CallToolResult::error(e),
    }
}

async fn with_logging(cx: Context) -> CallToolResult {
    let steps = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for (i, step) in steps.into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        if let Err(e) = cx
            .log(LoggingLevel::Info, Some("everything"), json!(step))
            .await
        {
            return CallToolResult::error(format!("could not send a log message: {e}"));
        }
    }
    CallToolResult::text("Tool with logging executed successfully")
}

async fn with_progress(cx: Context) -> CallToolResult {
    for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if i > 0 {
            tokio::time::sleep(STEP).await;
        }
        let message = format!("Completed step {progress} of 100");
        if let Err(e) = cx.progress(progress, Some(100.0), Some(message)).await {
            return CallToolResult::error(format!("could not send progress: {e}"));
        }
    }
    CallToolResult::text("Progress test completed: reported 0, 50 and 100 of 100")
}

async fn sampling(args: SamplingArgs, cx: Context) -> Result<String, String> {
    let params = CreateMessageRequestParams::new(
        100,
        vec![SamplingMessage::new(
            SamplingMessageContent::TextContent(TextContent::new(args.prompt)),
            Role::User,
        )],
    );
    let result = cx
        .create_message(params)
        .await
        .map_err(|e| format!("Sampling failed: {e}"))?;
    let text = match &result.content {
        CreateMessageResultContent::TextContent(t) => t.text.clone(),
        CreateMessageResultContent::Array(blocks) => blocks
            .iter()
            .filter_map(|b| match b {
                SamplingMessageContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(""),
        other => format!(
            "(non-text content: {})",
            serde_json::to_string(other).unwrap_or_default()
        ),
    };
    Ok(format!("LLM response: {text}"))
}

async fn elicit(
    params: Result<ElicitRequestParams, String>,
    cx: Context,
) -> Result<String, String> {
    let result: ElicitResult = cx
        .elicit(params?)
        .await
        .map_err(|e| format!("Elicitation failed: {e}"))?;
    let content = serde_json::to_string(&result.content.unwrap_or_default())
        .map_err(|e| format!("could not encode the answer: {e}"))?;
    Ok(format!(
        "User response: action={}, content={content}",
        result.action
    ))
}

fn form(message: &str, schema: Value) -> Result<ElicitRequestParams, String> {
    from_json(json!({"message": message, "requestedSchema": schema})).map_err(|e| e.to_string())
}

/// `test_elicitation`: a username and an email address.
fn elicitation_schema() -> Value {
    json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "title": "Username", "description": "Your username"},
                "email": {
                    "type": "string",
                    "title": "Email",
                    "description": "Your email address",
                    "format": "email"
                }
            },
            "required": ["username", "email"]
    })
}

const SEP1034_MESSAGE: &str = "Please review and update the form fields with defaults";
const SEP1330_MESSAGE: &str = "Please select options from the enum fields";

/// `test_elicitation_sep1034_defaults`: a default for every primitive type.
fn sep1034_schema() -> Value {
    json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "User name", "default": "John Doe"},
                "age": {"type": "integer", "description": "User age", "default": 30},
                "score": {"type": "number", "description": "User score", "default": 95.5},
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active"
                },
                "verified": {"type": "boolean", "description": "Verification status", "default": true}
            },
            "required": []
    })
}

/// `test_elicitation_sep1330_enums`: the five enum schema variants.
fn sep1330_schema() -> Value {
    json!({
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"]
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]
                    }
                }
            },
            "required": []
    })
}

/// The input schema of `json_schema_2020_12_tool` (SEP-1613, SEP-2106):
/// served exactly as written, keywords and order included.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"]
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What goes on the wire for `schema`, through the protocol types.
    fn sent_schema(schema: &Value) -> Value {
        let params = form("message", schema.clone()).unwrap();
        assert!(matches!(params, ElicitRequestParams::Form(_)));
        let sent = serde_json::to_value(params).unwrap();
        assert_eq!(sent["message"], "message");
        assert!(sent.get("mode").is_none(), "form mode is the default");
        sent["requestedSchema"].clone()
    }

    #[test]
    fn elicitation_schemas_are_sent_exactly_as_written() {
        for schema in [elicitation_schema(), sep1034_schema(), sep1330_schema()] {
            assert_eq!(sent_schema(&schema), schema);
        }
        let props = &sep1034_schema()["properties"];
        assert_eq!(props["age"]["default"], 30);
        assert_eq!(props["score"]["default"], 95.5);
        assert_eq!(props["verified"]["default"], true);
    }

    #[test]
    fn the_2020_12_schema_is_served_exactly() {
        let tool = ToolDef::raw("t", json_schema_2020_12(), |_, _| async {
            CallToolResult::text("")
        })
        .unwrap();
        assert_eq!(
            serde_json::to_string(&tool.tool().input_schema).unwrap(),
            json_schema_2020_12().to_string()
        );
    }
}
