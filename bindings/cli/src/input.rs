//! Input a server asks for while a command runs (elicitation, sampling),
//! whether as a 2025-11-25 server request or a 2026-07-28 input-required
//! round: asked on the terminal when stdin is one, otherwise declined with a
//! message on stderr naming what was asked. Never waits on a stdin that is
//! not a terminal.

use std::io::IsTerminal;

use mcp_core::jsonrpc::{ErrorCode, RpcError};
use mcp_core::schema::{
    CreateMessageRequestParams, CreateMessageResult, CreateMessageResultContent,
    ElicitRequestParams, ElicitResult, ElicitResultAction, Role, TextContent,
};
use serde_json::{Map, Value, json};

use crate::output;

/// The code the spec gives a sampling request the user rejected.
const USER_REJECTED: ErrorCode = ErrorCode(-1);

/// One line from the terminal (without its newline); `None` at end of input.
async fn ask(prompt: String) -> Option<String> {
    output::stderr_inline(&prompt);
    tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        match std::io::stdin().read_line(&mut line) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
        }
    })
    .await
    .ok()
    .flatten()
}

/// Answers `elicitation/create`.
pub(crate) async fn elicit(params: ElicitRequestParams) -> Result<ElicitResult, RpcError> {
    let message = match &params {
        ElicitRequestParams::Form(f) => f.message.clone(),
        ElicitRequestParams::Url(u) => u.message.clone(),
    };
    if !std::io::stdin().is_terminal() {
        output::stderr(&format!(
            "the server asked for input (\"{message}\"); stdin is not a terminal, so it was declined"
        ));
        return Ok(ElicitResult::new(ElicitResultAction::Decline));
    }
    output::stderr(&format!("the server asks: {message}"));
    let form = match params {
        ElicitRequestParams::Url(url) => {
            output::stderr(&format!("open {}", url.url));
            let answer = ask("accept once done? [y/N] ".into()).await;
            let action = if answer.is_some_and(|a| a.eq_ignore_ascii_case("y")) {
                ElicitResultAction::Accept
            } else {
                ElicitResultAction::Decline
            };
            return Ok(ElicitResult::new(action));
        }
        ElicitRequestParams::Form(form) => form,
    };
    let mut content = Map::new();
    for (name, schema) in &form.requested_schema.properties {
        let schema = serde_json::to_value(schema).unwrap_or(Value::Null);
        let kind = schema
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("string");
        let Some(text) = ask(format!("{name} ({kind}, empty to skip): ")).await else {
            return Ok(ElicitResult::new(ElicitResultAction::Cancel));
        };
        if text.is_empty() {
            continue;
        }
        let value = match kind {
            "boolean" => json!(matches!(text.as_str(), "y" | "yes" | "true" | "1")),
            "integer" | "number" => serde_json::from_str(&text).unwrap_or(Value::String(text)),
            _ => Value::String(text),
        };
        content.insert(name.clone(), value);
    }
    serde_json::from_value(json!({"action": "accept", "content": content}))
        .map_err(|e| RpcError::invalid_params(format!("the answer does not fit the form: {e}")))
}

/// Answers `sampling/createMessage`: the user types the reply.
pub(crate) async fn sample(
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, RpcError> {
    let asked = serde_json::to_string(&params.messages).unwrap_or_default();
    if !std::io::stdin().is_terminal() {
        output::stderr(&format!(
            "the server asked for a model reply to {asked}; stdin is not a terminal, so it was \
             declined"
        ));
        return Err(RpcError::new(
            USER_REJECTED,
            "the user declined the sampling request",
        ));
    }
    output::stderr(&format!("the server asks for a model reply to: {asked}"));
    match ask("reply (empty to decline): ".into()).await {
        Some(reply) if !reply.is_empty() => Ok(CreateMessageResult::new(
            CreateMessageResultContent::TextContent(TextContent::new(reply)),
            "human",
            Role::Assistant,
        )),
        _ => Err(RpcError::new(
            USER_REJECTED,
            "the user declined the sampling request",
        )),
    }
}
