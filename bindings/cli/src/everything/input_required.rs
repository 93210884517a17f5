//! Fixtures that ask the client for input by key — as an input-required
//! result under 2026-07-28, as server→client requests in a 2025-11-25
//! session — and the other diagnostics the 2026-07-28 server scenarios of the
//! conformance suite call. Each behaves as the suite's reference fixtures do.

use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CallToolResult, ContentBlock, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitResultAction, GetPromptResult, ListRootsResult,
    LoggingLevel, PromptMessage, Role,
};
use mcp_core::server::{Change, ChangeBus, Context, PromptDef, ServerBuilder};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use super::tools::{no_params, raw_tool};

fn params<T: DeserializeOwned>(value: Value) -> Result<T, String> {
    serde_json::from_value(value).map_err(|e| e.to_string())
}

/// Form-mode elicitation of one required property.
fn ask_for(message: &str, property: &str, kind: &str) -> Result<ElicitRequestParams, String> {
    params(json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {property: {"type": kind}},
            "required": [property],
        },
    }))
}

fn sampling(prompt: &str, max_tokens: i64) -> Result<CreateMessageRequestParams, String> {
    params(json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
        "maxTokens": max_tokens,
    }))
}

/// The accepted content's `property`, if it is a string.
fn accepted(result: &ElicitResult, property: &str) -> Option<String> {
    if result.action != ElicitResultAction::Accept {
        return None;
    }
    let value = serde_json::to_value(result.content.as_ref()?.get(property)?).ok()?;
    value.as_str().map(String::from)
}

fn sampled_text(result: &CreateMessageResult) -> String {
    serde_json::to_value(&result.content)
        .ok()
        .and_then(|c| c.get("text").and_then(Value::as_str).map(String::from))
        .unwrap_or_default()
}

fn root_uris(result: &ListRootsResult) -> String {
    result
        .roots
        .iter()
        .map(|r| r.uri.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn finish(result: Result<String, String>) -> CallToolResult {
    match result {
        Ok(text) => CallToolResult::text(text),
        Err(e) => CallToolResult::error(e),
    }
}

async fn elicitation(cx: Context) -> Result<String, String> {
    let answer = cx
        .elicit_keyed(
            "user_name",
            ask_for("What is your name?", "name", "string")?,
        )
        .await
        .map_err(|e| e.to_string())?;
    let name = accepted(&answer, "name").ok_or("no name was given")?;
    Ok(format!("Hello, {name}!"))
}

async fn sampling_tool(cx: Context) -> Result<String, String> {
    let answer = cx
        .create_message_keyed(
            "capital_question",
            sampling("What is the capital of France?", 100)?,
        )
        .await
        .map_err(|e| e.to_string())?;
    Ok(format!("Sampling response: {}", sampled_text(&answer)))
}

async fn list_roots(cx: Context) -> Result<String, String> {
    let roots = cx
        .list_roots_keyed("client_roots")
        .await
        .map_err(|e| e.to_string())?;
    Ok(format!(
        "Client exposed {} root(s): {}",
        roots.roots.len(),
        root_uris(&roots)
    ))
}

/// Carries its own marker across the round and finishes only when it comes
/// back from a verified `requestState`.
async fn confirm_with_state(cx: Context, tool: &str, done: &str) -> Result<String, String> {
    let verified = cx.request_state().is_some_and(|s| s["tool"] == tool);
    cx.set_request_state(json!({"tool": tool}));
    let answer = cx
        .elicit_keyed("confirm", ask_for("Please confirm", "ok", "boolean")?)
        .await
        .map_err(|e| e.to_string())?;
    if answer.action != ElicitResultAction::Accept {
        return Err("the confirmation was not accepted".into());
    }
    if !verified {
        return Err("the requestState did not come back verified".into());
    }
    Ok(done.into())
}

async fn multiple_inputs(cx: Context) -> Result<String, String> {
    cx.set_request_state(json!({"tool": "multiple_inputs"}));
    let name = ask_for("What is your name?", "name", "string")?;
    let greeting = sampling("Generate a greeting", 50)?;
    // Asked together: one round carries all three questions.
    let (name, greeting, roots) = tokio::join!(
        cx.elicit_keyed("user_name", name),
        cx.create_message_keyed("greeting", greeting),
        cx.list_roots_keyed("client_roots"),
    );
    let name = name.map_err(|e| e.to_string())?;
    let name = accepted(&name, "name").ok_or("no name was given")?;
    let greeting = sampled_text(&greeting.map_err(|e| e.to_string())?);
    let roots = roots.map_err(|e| e.to_string())?;
    Ok(format!(
        "{greeting} {name} — {} root(s) visible",
        roots.roots.len()
    ))
}

async fn multi_round(cx: Context) -> Result<String, String> {
    let first = cx
        .elicit_keyed(
            "step1",
            ask_for("Step 1: What is your name?", "name", "string")?,
        )
        .await
        .map_err(|e| e.to_string())?;
    let name = accepted(&first, "name").ok_or("no name was given")?;
    let second = cx
        .elicit_keyed(
            "step2",
            ask_for("Step 2: What is your favorite color?", "color", "string")?,
        )
        .await
        .map_err(|e| e.to_string())?;
    let color = accepted(&second, "color").ok_or("no color was given")?;
    Ok(format!("Multi-round complete: {name} likes {color}"))
}

/// Asks only for what the client declared; any retry completes.
async fn capabilities(cx: Context) -> Result<String, String> {
    if cx.input_responses().is_some() {
        return Ok("received the client's input".into());
    }
    let caps = cx.client_capabilities().cloned().unwrap_or_default();
    let name = ask_for("What is your name?", "name", "string")?;
    let greeting = sampling("Generate a short greeting", 50)?;
    let elicit = async {
        if caps.elicitation.is_some() {
            cx.elicit_keyed("user_name", name).await.map(|_| ())
        } else {
            Ok(())
        }
    };
    let sample = async {
        if caps.sampling.is_some() {
            cx.create_message_keyed("greeting", greeting)
                .await
                .map(|_| ())
        } else {
            Ok(())
        }
    };
    let roots = async {
        if caps.roots.is_some() {
            cx.list_roots_keyed("client_roots").await.map(|_| ())
        } else {
            Ok(())
        }
    };
    let (a, b, c) = tokio::join!(elicit, sample, roots);
    a.and(b).and(c).map_err(|e| e.to_string())?;
    Ok("nothing to ask this client".into())
}

/// Needs sampling: a client without it gets -32021 in 2026-07-28.
async fn missing_capability(cx: Context) -> Result<String, String> {
    cx.create_message_keyed(
        "llm_answer",
        sampling("Reply with the single word: pong", 16)?,
    )
    .await
    .map_err(|e| e.to_string())?;
    Ok("sampling round-trip complete".into())
}

async fn logging(cx: Context) -> CallToolResult {
    // Sent only if the request asked for logs at this level.
    let _ = cx
        .log(
            LoggingLevel::Info,
            Some("everything"),
            json!("test_logging_tool ran"),
        )
        .await;
    CallToolResult::text("Logged one info message (if the client asked for logs).")
}

/// Registers the fixtures; the change triggers announce on `bus`.
pub(super) fn register(builder: ServerBuilder, bus: &ChangeBus) -> ServerBuilder {
    let (tools_bus, prompts_bus) = (bus.clone(), bus.clone());
    let tools = [
        raw_tool(
            "test_trigger_tool_change",
            "Announces that the tool list changed (to subscriptions/listen streams)",
            no_params(),
            move |_, _| {
                tools_bus.publish(Change::ToolsListChanged);
                async { CallToolResult::text("tool list change announced") }
            },
        ),
        raw_tool(
            "test_trigger_prompt_change",
            "Announces that the prompt list changed (to subscriptions/listen streams)",
            no_params(),
            move |_, _| {
                prompts_bus.publish(Change::PromptsListChanged);
                async { CallToolResult::text("prompt list change announced") }
            },
        ),
        raw_tool(
            "test_missing_capability",
            "Needs the client's sampling capability (-32021 without it)",
            no_params(),
            |_, cx| async move { finish(missing_capability(cx).await) },
        ),
        raw_tool(
            "test_streaming_elicitation",
            "Answers on its response stream without asking the client anything",
            no_params(),
            |_, _| async { CallToolResult::text("streamed without server requests") },
        ),
        raw_tool(
            "test_logging_tool",
            "Logs at info level through the request's log level",
            no_params(),
            |_, cx| logging(cx),
        ),
        raw_tool(
            "test_input_required_result_elicitation",
            "Asks for a name (input key user_name)",
            no_params(),
            |_, cx| async move { finish(elicitation(cx).await) },
        ),
        raw_tool(
            "test_input_required_result_sampling",
            "Asks the client's model a question (input key capital_question)",
            no_params(),
            |_, cx| async move { finish(sampling_tool(cx).await) },
        ),
        raw_tool(
            "test_input_required_result_list_roots",
            "Asks for the client's roots (input key client_roots)",
            no_params(),
            |_, cx| async move { finish(list_roots(cx).await) },
        ),
        raw_tool(
            "test_input_required_result_request_state",
            "Asks for a confirmation and needs its own requestState back",
            no_params(),
            |_, cx| async move {
                finish(
                    confirm_with_state(
                        cx,
                        "request_state",
                        "state-ok: requestState verified and confirmation received",
                    )
                    .await,
                )
            },
        ),
        raw_tool(
            "test_input_required_result_multiple_inputs",
            "Asks for a name, a greeting and the roots in one round",
            no_params(),
            |_, cx| async move { finish(multiple_inputs(cx).await) },
        ),
        raw_tool(
            "test_input_required_result_multi_round",
            "Asks for a name, then in a second round for a color",
            no_params(),
            |_, cx| async move { finish(multi_round(cx).await) },
        ),
        raw_tool(
            "test_input_required_result_tampered_state",
            "Asks for a confirmation; a changed requestState is refused",
            no_params(),
            |_, cx| async move {
                finish(confirm_with_state(cx, "tampered_state", "integrity-ok").await)
            },
        ),
        raw_tool(
            "test_input_required_result_capabilities",
            "Asks only for what the client's capabilities allow",
            no_params(),
            |_, cx| async move { finish(capabilities(cx).await) },
        ),
    ];
    let builder = tools
        .into_iter()
        .flatten()
        .fold(builder, ServerBuilder::tool);
    builder.prompt(
        PromptDef::new(
            "test_input_required_result_prompt",
            |_args, cx| async move {
                let context = ask_for("What context should the prompt use?", "context", "string")
                    .map_err(RpcError::internal)?;
                let answer = cx
                    .elicit_keyed("prompt_context", context)
                    .await
                    .map_err(|e| RpcError::internal(e.to_string()))?;
                let context = accepted(&answer, "context").unwrap_or_default();
                Ok(GetPromptResult::new(vec![PromptMessage::new(
                    ContentBlock::text(format!("Prompt with context: {context}")),
                    Role::User,
                )]))
            },
        )
        .description("A prompt that asks the client for input first"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elicitation_params_are_valid() {
        assert!(ask_for("m", "name", "string").is_ok());
        assert!(sampling("p", 5).is_ok());
    }
}
