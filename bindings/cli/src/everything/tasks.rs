//! Fixtures of the tasks extension (2026-07-28, `io.modelcontextprotocol/tasks`)
//! that the conformance suite's task scenarios call. Under 2026-07-28 the
//! server decides: a client that declares the extension gets a task for
//! every tool here but `greet`; under 2025-11-25 the same tools run as tasks
//! when the client asks with `task`.

use std::time::Duration;

use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    ElicitRequestParams, ElicitResultAction, ElicitResultContentValue, ToolExecutionTaskSupport,
};
use mcp_core::server::{Context, ServerBuilder, ToolDef};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::from_json;

#[derive(Deserialize, JsonSchema)]
struct Greet {
    /// Who to greet.
    name: String,
}

#[derive(Deserialize, JsonSchema)]
struct SlowCompute {
    /// How long to work, in seconds (at most 600).
    seconds: Option<f64>,
    /// A label echoed in the result.
    label: Option<String>,
}

#[derive(Deserialize, JsonSchema)]
struct ConfirmDelete {
    /// The file to (pretend to) delete.
    filename: String,
}

#[derive(Deserialize, JsonSchema)]
struct NoArgs {}

fn task(tool: mcp_core::Result<ToolDef>, support: ToolExecutionTaskSupport) -> Option<ToolDef> {
    match tool {
        Ok(tool) => Some(tool.task_support(support)),
        // Derived schemas are always objects; never taken.
        Err(e) => {
            tracing::error!("an everything server task tool is invalid: {e}");
            None
        }
    }
}

/// Registers the task fixtures on `builder`.
pub(super) fn register(builder: ServerBuilder) -> ServerBuilder {
    use ToolExecutionTaskSupport::{Optional, Required};
    let tools = [
        ToolDef::new(
            "greet",
            "Says hello to `name` (never a task)",
            |args: Greet, _cx| async move { Ok::<_, String>(format!("Hello, {}!", args.name)) },
        )
        .ok(),
        task(
            ToolDef::new(
                "slow_compute",
                "Works for `seconds` (default 1), then answers; runs as a task when the \
                 client allows one, and stops when the task is cancelled",
                |args: SlowCompute, cx| slow_compute(args, cx),
            ),
            Optional,
        ),
        task(
            ToolDef::new(
                "failing_job",
                "Fails with a tool error after about a second; must run as a task",
                |_: NoArgs, _cx| async move {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    Err::<String, _>("The job failed (on purpose)".to_string())
                },
            ),
            Required,
        ),
        task(
            ToolDef::fallible(
                "protocol_error_job",
                json!({"type": "object", "properties": {}}),
                |_, _cx| async move {
                    Err(RpcError::internal(
                        "the job hit a protocol error (on purpose)",
                    ))
                },
            )
            .map(|t| t.description("Ends with a JSON-RPC error, not a tool result; a task")),
            Optional,
        ),
        task(
            ToolDef::new(
                "confirm_delete",
                "Asks the user to confirm deleting `filename` (elicitation), then answers",
                |args: ConfirmDelete, cx| confirm_delete(args, cx),
            ),
            Optional,
        ),
        task(
            ToolDef::new(
                "multi_input",
                "Asks the user two questions at once (two elicitations), then answers",
                |_: NoArgs, cx| multi_input(cx),
            ),
            Optional,
        ),
        task(
            ToolDef::new(
                "test_tool_with_task",
                "Asks the user's name (an input-required round of the call), then greets them \
                 from a task",
                |_: NoArgs, cx| tool_with_task(cx),
            )
            .map(ToolDef::asks_before_task),
            Required,
        ),
    ];
    tools
        .into_iter()
        .flatten()
        .fold(builder, ServerBuilder::tool)
}

async fn slow_compute(args: SlowCompute, cx: Context) -> Result<String, String> {
    let seconds = args.seconds.unwrap_or(1.0).clamp(0.0, 600.0);
    let label = args.label.unwrap_or_default();
    tokio::select! {
        () = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {}
        () = cx.cancellation().cancelled() => return Err("cancelled".to_string()),
    }
    Ok(format!("Computed `{label}` in {seconds} s"))
}

fn confirm(message: String) -> Result<ElicitRequestParams, RpcError> {
    from_json(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {"confirm": {"type": "boolean", "description": "Go ahead?"}},
            "required": ["confirm"],
        },
    }))
}

async fn confirm_delete(args: ConfirmDelete, cx: Context) -> Result<String, String> {
    let params = confirm(format!("Delete {}?", args.filename)).map_err(|e| e.to_string())?;
    let answer = cx.elicit(params).await.map_err(|e| e.to_string())?;
    let confirmed = answer.action == ElicitResultAction::Accept
        && answer
            .content
            .as_ref()
            .and_then(|c| c.get("confirm"))
            .is_some_and(|v| *v == ElicitResultContentValue::Boolean(true));
    Ok(if confirmed {
        format!("Deleted {}", args.filename)
    } else {
        format!("Kept {}", args.filename)
    })
}

async fn multi_input(cx: Context) -> Result<String, String> {
    let first = confirm("First question: go ahead?".into()).map_err(|e| e.to_string())?;
    let second = confirm("Second question: really?".into()).map_err(|e| e.to_string())?;
    let (a, b) = tokio::join!(cx.elicit(first), cx.elicit(second));
    let (a, b) = (a.map_err(|e| e.to_string())?, b.map_err(|e| e.to_string())?);
    Ok(format!("Answers: {} and {}", a.action, b.action))
}

async fn tool_with_task(cx: Context) -> Result<String, String> {
    let params: ElicitRequestParams = from_json(json!({
        "mode": "form",
        "message": "What is your name?",
        "requestedSchema": {
            "type": "object",
            "properties": {"name": {"type": "string", "description": "Your name"}},
            "required": ["name"],
        },
    }))
    .map_err(|e| e.to_string())?;
    let answer = cx
        .elicit_keyed("user_name", params)
        .await
        .map_err(|e| e.to_string())?;
    let name = match answer.content.as_ref().and_then(|c| c.get("name")) {
        Some(ElicitResultContentValue::String(name)) => name.clone(),
        _ => "stranger".to_string(),
    };
    // The work of the task.
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok(format!("Hello, {name}!"))
}
