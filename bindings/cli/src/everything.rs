//! The "everything" server: every fixture the MCP conformance suite's server
//! scenarios expect (tools, resources, a resource template, prompts and
//! completions), plus `add_numbers` and two skills (the skills extension). Served by `mcp serve everything`.

mod input_required;
mod media;
mod skills;
mod tasks;
mod tools;

use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    CompleteRequestParams, CompleteRequestParamsRef, CompleteResultCompletion, ContentBlock,
    GetPromptResult, PromptMessage, ReadResourceResult, Role,
};
use std::sync::OnceLock;

use mcp_core::server::{
    ChangeBus, PromptDef, ResourceDef, ResourceTemplateDef, Server, ServerBuilder, ToolDef,
};

pub use media::{tiny_png, tiny_wav};
pub use skills::{directory_skills, fixture_skills};

/// The URI of the subscribable resource.
pub const WATCHED_RESOURCE: &str = "test://watched-resource";

/// The change bus every everything server of this process shares, so that a
/// change announced while serving one request reaches the
/// `subscriptions/listen` streams of all.
fn bus() -> ChangeBus {
    static BUS: OnceLock<ChangeBus> = OnceLock::new();
    BUS.get_or_init(ChangeBus::new).clone()
}

/// Builds the everything server. Every call builds a new, independent server
/// (serve one per Streamable HTTP session, or one for stdio). Every fixture
/// is a constant that `tests/everything.rs` checks, so none is ever dropped.
pub fn everything_server() -> Server {
    everything_builder().build()
}

/// The everything server before it is built (to add settings such as a
/// shared requestState key).
pub fn everything_builder() -> ServerBuilder {
    let builder = Server::builder("mcp-everything", env!("CARGO_PKG_VERSION"))
        .title("libmcp everything server")
        .instructions(
            "A test server with every kind of MCP fixture: tools (text, image, audio, \
             resources, logging, progress, errors, sampling, elicitation), resources, a \
             resource template, prompts and completions.",
        );
    let builder = tools::register(builder);
    let builder = input_required::register(builder, &bus()).change_bus(bus());
    let builder = tasks::register(builder);
    let builder = match update_resource_tool() {
        Ok(tool) => builder.tool(tool),
        // A derived schema is always an object; never taken.
        Err(e) => {
            tracing::error!("the everything server's test_update_resource is invalid: {e}");
            builder
        }
    };
    let builder = resources(builder);
    let builder = match fixture_skills() {
        Ok(skills) => builder.skills(skills),
        // The fixtures are checked by `tests/everything.rs`; never taken.
        Err(e) => {
            tracing::error!("the everything server's fixture skills are invalid: {e}");
            builder
        }
    };
    let builder = prompts(builder);
    builder.completion(|params, _cx| async move { Ok(complete(&params)) })
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct UpdateResource {
    /// The resource that changed (default `test://watched-resource`).
    uri: Option<String>,
}

/// `test_update_resource`: announces that a resource changed, to every
/// subscriber in this process — 2025-11-25 sessions that sent
/// `resources/subscribe` and 2026-07-28 `subscriptions/listen` streams alike.
fn update_resource_tool() -> mcp_core::Result<ToolDef> {
    ToolDef::new(
        "test_update_resource",
        "Sends notifications/resources/updated for `uri` (default test://watched-resource) \
         to every subscriber: resources/subscribe sessions and subscriptions/listen streams",
        |args: UpdateResource, _cx| async move {
            let uri = args.uri.unwrap_or_else(|| WATCHED_RESOURCE.to_string());
            let sessions = bus().notify_resource_updated(&uri).await;
            Ok::<_, String>(format!(
                "Announced an update of {uri} ({sessions} subscribed session(s), and every \
                 listening stream)"
            ))
        },
    )
}

fn resources(builder: ServerBuilder) -> ServerBuilder {
    let template = ResourceTemplateDef::new(
        "test://template/{id}/data",
        "template",
        |uri, vars, _cx| async move {
            let id = vars.get("id").cloned().unwrap_or_default();
            let text = serde_json::json!({
                "id": id,
                "templateTest": true,
                "data": format!("Data for ID: {id}"),
            });
            Ok(ReadResourceResult::text(
                uri,
                Some("application/json".into()),
                text.to_string(),
            ))
        },
    );
    let builder = builder
        .resource(
            ResourceDef::new("test://static-text", "static-text", |uri, _cx| async move {
                Ok(ReadResourceResult::text(
                    uri,
                    Some("text/plain".into()),
                    "This is the content of the static text resource.",
                ))
            })
            .title("Static Text Resource")
            .description("A static text resource for testing")
            .mime_type("text/plain"),
        )
        .resource(
            ResourceDef::new(
                "test://static-binary",
                "static-binary",
                |uri, _cx| async move {
                    Ok(ReadResourceResult::blob(
                        uri,
                        Some("image/png".into()),
                        media::tiny_png(),
                    ))
                },
            )
            .title("Static Binary Resource")
            .description("A static binary resource (a 1x1 PNG image) for testing")
            .mime_type("image/png"),
        )
        .resource(
            ResourceDef::new(
                WATCHED_RESOURCE,
                "watched-resource",
                |uri, _cx| async move {
                    Ok(ReadResourceResult::text(
                        uri,
                        Some("text/plain".into()),
                        "Watched resource content",
                    ))
                },
            )
            .title("Watched Resource")
            .description("A resource clients can subscribe to")
            .mime_type("text/plain"),
        );
    match template {
        Ok(template) => builder.resource_template(
            template
                .description("A resource template with parameter substitution")
                .mime_type("application/json"),
        ),
        // The template is a constant that parses (see the tests); never taken.
        Err(e) => {
            tracing::error!("the everything server's resource template is invalid: {e}");
            builder
        }
    }
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage::new(content, Role::User)
}

fn prompt_result(messages: Vec<PromptMessage>) -> GetPromptResult {
    GetPromptResult::new(messages)
}

fn prompts(builder: ServerBuilder) -> ServerBuilder {
    builder
        .prompt(
            PromptDef::new("test_simple_prompt", |_args, _cx| async move {
                Ok(prompt_result(vec![user(ContentBlock::text(
                    "This is a simple prompt for testing.",
                ))]))
            })
            .title("Simple Test Prompt")
            .description("A simple prompt without arguments"),
        )
        .prompt(
            PromptDef::new("test_prompt_with_arguments", |args, _cx| async move {
                let arg = |name: &str| args.get(name).cloned().unwrap_or_default();
                let text = format!(
                    "Prompt with arguments: arg1='{}', arg2='{}'",
                    arg("arg1"),
                    arg("arg2")
                );
                Ok(prompt_result(vec![user(ContentBlock::text(text))]))
            })
            .title("Prompt With Arguments")
            .description("A prompt with required arguments")
            .argument("arg1", "First test argument", true)
            .argument("arg2", "Second test argument", true),
        )
        .prompt(
            PromptDef::new(
                "test_prompt_with_embedded_resource",
                |args, _cx| async move {
                    let uri = args.get("resourceUri").cloned().unwrap_or_default();
                    Ok(prompt_result(vec![
                        user(ContentBlock::resource_text(
                            uri,
                            Some("text/plain".into()),
                            "Embedded resource content for testing.",
                        )),
                        user(ContentBlock::text(
                            "Please process the embedded resource above.",
                        )),
                    ]))
                },
            )
            .title("Prompt With Embedded Resource")
            .description("A prompt that includes an embedded resource")
            .argument("resourceUri", "URI of the resource to embed", true),
        )
        .prompt(
            PromptDef::new("test_prompt_with_image", |_args, _cx| async move {
                Ok(prompt_result(vec![
                    user(ContentBlock::image(media::tiny_png(), "image/png")),
                    user(ContentBlock::text("Please analyze the image above.")),
                ]))
            })
            .title("Prompt With Image")
            .description("A prompt that includes image content"),
        )
}

/// Suggestions for the arguments of `test_prompt_with_arguments`.
const ARG1_VALUES: &[&str] = &["testValue1", "testValue2", "sample", "example"];
const ARG2_VALUES: &[&str] = &["testValue2", "testValue3", "other", "example"];

/// `completion/complete`: values for `test_prompt_with_arguments`'s
/// arguments that start with what was typed; nothing for anything else.
fn complete(params: &CompleteRequestParams) -> CompleteResultCompletion {
    let candidates: &[&str] = match &params.ref_ {
        CompleteRequestParamsRef::PromptReference(p) if p.name == "test_prompt_with_arguments" => {
            match params.argument.name.as_str() {
                "arg1" => ARG1_VALUES,
                "arg2" => ARG2_VALUES,
                _ => &[],
            }
        }
        _ => &[],
    };
    let typed = params.argument.value.as_str();
    let values: Vec<String> = candidates
        .iter()
        .filter(|v| v.starts_with(typed))
        .map(|v| (*v).to_string())
        .collect();
    CompleteResultCompletion {
        total: i64::try_from(values.len()).ok(),
        has_more: Some(false),
        ..CompleteResultCompletion::new(values)
    }
}

/// Decodes a fixture built from JSON, as a JSON-RPC internal error if it
/// does not fit the protocol types (which this module's tests rule out).
fn from_json<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, RpcError> {
    serde_json::from_value(value).map_err(RpcError::internal)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::schema::{CompleteRequestParamsArgument, PromptReference, PromptReferenceType};

    fn completion(name: &str, arg: &str, value: &str) -> Vec<String> {
        let params = CompleteRequestParams::new(
            CompleteRequestParamsArgument::new(arg, value),
            CompleteRequestParamsRef::PromptReference(PromptReference {
                type_: PromptReferenceType,
                ..PromptReference::new(name)
            }),
        );
        complete(&params).values
    }

    #[test]
    fn completions_filter_by_prefix() {
        assert_eq!(
            completion("test_prompt_with_arguments", "arg1", "test"),
            ["testValue1", "testValue2"]
        );
        assert_eq!(
            completion("test_prompt_with_arguments", "arg2", ""),
            ARG2_VALUES
        );
        assert!(completion("test_prompt_with_arguments", "arg1", "zzz").is_empty());
        assert!(completion("test_simple_prompt", "arg1", "").is_empty());
    }

    #[test]
    fn the_template_parses() {
        let template =
            ResourceTemplateDef::new("test://template/{id}/data", "template", |uri, _, _| async {
                Ok(ReadResourceResult::text(uri, None, ""))
            });
        assert!(template.is_ok());
    }
}
