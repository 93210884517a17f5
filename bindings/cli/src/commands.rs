//! The client commands: one request each, printed for people or as JSON.

use indexmap::IndexMap;
use mcp_core::client::{Client, ToolTaskStart};
use mcp_core::schema::CallToolRequestParams;
use mcp_core::session::RequestOptions;
use serde_json::{Map, Value, json};

use crate::error::CliError;
use crate::output;

/// What a client command asks the server.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Request {
    /// `tools/list`, every page.
    ListTools,
    /// `tools/call`.
    CallTool {
        /// The tool.
        name: String,
        /// Its arguments (`None`: no `arguments` key at all).
        arguments: Option<Map<String, Value>>,
        /// Run it as a task.
        task: bool,
    },
    /// `resources/list`, every page.
    ListResources,
    /// `resources/read`.
    ReadResource {
        /// The resource.
        uri: String,
    },
    /// `resources/templates/list`, every page.
    ListTemplates,
    /// Updates of a resource, until Ctrl-C.
    Subscribe {
        /// The resource.
        uri: String,
    },
    /// `prompts/list`, every page.
    ListPrompts,
    /// `prompts/get`.
    GetPrompt {
        /// The prompt.
        name: String,
        /// Its arguments.
        arguments: Option<IndexMap<String, String>>,
    },
    /// `ping`.
    Ping,
}

/// How results are printed.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Printing {
    /// Raw result JSON instead of text for people.
    pub(crate) json: bool,
    /// No progress on stderr.
    pub(crate) quiet: bool,
}

/// Parses `--args` of `tools call`: a JSON object.
pub(crate) fn tool_arguments(text: &str) -> Result<Map<String, Value>, CliError> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(other) => Err(CliError::Usage(format!(
            "--args must be a JSON object such as '{{\"a\": 1}}', got {other}"
        ))),
        Err(e) => Err(CliError::Usage(format!("--args is not valid JSON: {e}"))),
    }
}

/// Parses `--args` of `prompts get`: a JSON object whose values are strings
/// (numbers and booleans are taken as their JSON text).
pub(crate) fn prompt_arguments(text: &str) -> Result<IndexMap<String, String>, CliError> {
    tool_arguments(text)?
        .into_iter()
        .map(|(key, value)| match value {
            Value::String(s) => Ok((key, s)),
            Value::Number(_) | Value::Bool(_) => Ok((key, value.to_string())),
            other => Err(CliError::Usage(format!(
                "--args: prompt arguments are strings, but `{key}` is {other}"
            ))),
        })
        .collect()
}

/// Sends `request` and prints its result.
pub(crate) async fn run(
    client: &Client,
    request: Request,
    printing: Printing,
) -> Result<(), CliError> {
    let json = printing.json.then(|| client.protocol_version().as_str());
    match request {
        Request::ListTools => {
            let tools = client.list_all_tools().await.map_err(CliError::request)?;
            print(json, &json!({ "tools": tools }), || output::tools(&tools));
        }
        Request::CallTool {
            name,
            arguments,
            task: true,
        } => {
            let started = client
                .start_tool_task(&name, arguments, None)
                .await
                .map_err(CliError::request)?;
            let result = match started {
                ToolTaskStart::Task(task) => {
                    let id = task.task_id;
                    if !printing.quiet {
                        output::stderr(&format!("task {id}: {}", task.status));
                    }
                    let result = client
                        .await_tool_task(&id)
                        .await
                        .map_err(CliError::request)?;
                    if !printing.quiet {
                        if let Ok(task) = client.get_task(&id).await {
                            output::stderr(&format!("task {id}: {}", task.status));
                        }
                    }
                    result
                }
                // Under the tasks extension the server decides.
                ToolTaskStart::Done(result) => {
                    if !printing.quiet {
                        output::stderr("the server ran the call without a task");
                    }
                    result
                }
                other => {
                    return Err(CliError::Failed(format!(
                        "an unexpected answer to a call as a task: {other:?}"
                    )));
                }
            };
            print(json, &result, || output::tool_result(&result));
            if result.is_error() {
                output::stderr(&format!("error: the tool `{name}` reported an error"));
                return Err(CliError::Reported);
            }
        }
        Request::CallTool {
            name, arguments, ..
        } => {
            let params = CallToolRequestParams {
                arguments,
                ..CallToolRequestParams::new(name.clone())
            };
            let options = if printing.quiet {
                RequestOptions::default()
            } else {
                RequestOptions::default().on_progress(|p| output::progress(&p))
            };
            let result = client
                .call_tool_with(params, options)
                .await
                .map_err(CliError::request)?;
            print(json, &result, || output::tool_result(&result));
            if result.is_error() {
                output::stderr(&format!("error: the tool `{name}` reported an error"));
                return Err(CliError::Reported);
            }
        }
        Request::ListResources => {
            let resources = client
                .list_all_resources()
                .await
                .map_err(CliError::request)?;
            print(json, &json!({ "resources": resources }), || {
                output::resources(&resources)
            });
        }
        Request::ReadResource { uri } => {
            let result = client
                .read_resource(&uri)
                .await
                .map_err(CliError::request)?;
            print(json, &result, || output::read_result(&result));
        }
        Request::Subscribe { uri } => return crate::subscribe::run(client, &uri, printing).await,
        Request::ListTemplates => {
            let templates = client
                .list_all_resource_templates()
                .await
                .map_err(CliError::request)?;
            print(json, &json!({ "resourceTemplates": templates }), || {
                output::templates(&templates)
            });
        }
        Request::ListPrompts => {
            let prompts = client.list_all_prompts().await.map_err(CliError::request)?;
            print(json, &json!({ "prompts": prompts }), || {
                output::prompts(&prompts)
            });
        }
        Request::GetPrompt { name, arguments } => {
            let result = client
                .get_prompt(&name, arguments)
                .await
                .map_err(CliError::request)?;
            print(json, &result, || output::prompt(&result));
        }
        Request::Ping => {
            let started = std::time::Instant::now();
            client.ping().await.map_err(CliError::request)?;
            let elapsed = started.elapsed();
            print(json, &json!({}), || {
                format!("pong ({:.1} ms)", elapsed.as_secs_f64() * 1000.0)
            });
        }
    }
    Ok(())
}

fn print<T: serde::Serialize>(json: Option<&str>, value: &T, human: impl FnOnce() -> String) {
    if let Some(version) = json {
        // Every result names the revision it was spoken in.
        let mut value = serde_json::to_value(value).unwrap_or(Value::Null);
        if let Value::Object(object) = &mut value {
            object.insert("protocolVersion".into(), Value::String(version.into()));
        }
        output::stdout(&output::json(&value));
    } else {
        output::stdout(&human());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_arguments_must_be_a_json_object() {
        assert_eq!(tool_arguments(r#"{"a": 1}"#).unwrap()["a"], 1);
        let err = tool_arguments("[1]").unwrap_err();
        assert!(err.to_string().contains("must be a JSON object"), "{err}");
        let err = tool_arguments("{a:").unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        assert_eq!(err.status(), 2);
    }

    #[test]
    fn prompt_arguments_are_strings() {
        let args = prompt_arguments(r#"{"a": "x", "n": 2, "b": true}"#).unwrap();
        assert_eq!(
            args.into_iter().collect::<Vec<_>>(),
            [
                ("a".to_string(), "x".to_string()),
                ("n".to_string(), "2".to_string()),
                ("b".to_string(), "true".to_string())
            ]
        );
        assert!(prompt_arguments(r#"{"a": [1]}"#).is_err());
    }
}
