//! The client commands: one request each, printed for people or as JSON.

use indexmap::IndexMap;
use mcp_core::client::{Client, ToolTaskStart};
use mcp_core::schema::{
    CallToolRequestParams, ClientRequest, ClientRequestMethod, CompleteRequestParams, LoggingLevel,
    ServerNotificationMethod, ServerRequestMethod,
};
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
        /// `KEY=VALUE` arguments, typed by the tool's input schema and
        /// merged over `arguments`.
        pairs: Vec<(String, String)>,
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
    /// `skills/list`, every page.
    ListSkills,
    /// `skills/get`, then the skill's SKILL.md (or `file`) read and
    /// verified.
    GetSkill {
        /// The skill's URI.
        uri: String,
        /// Another file of the skill to print instead.
        file: Option<String>,
    },
    /// `ping`.
    Ping,
    /// `logging/setLevel`.
    SetLevel(LoggingLevel),
    /// `completion/complete`.
    Complete(Box<CompleteRequestParams>),
    /// Any request, params checked already (for a known method).
    Raw {
        /// The method.
        method: String,
        /// Its params.
        params: Option<Map<String, Value>>,
    },
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

/// Merges `KEY=VALUE` pairs over `arguments`: a value is the JSON it
/// parses as, else a string — unless `schema` (the tool's inputSchema) says
/// the property is a string, which keeps the text as it is.
pub(crate) fn merge_pairs(
    arguments: Option<Map<String, Value>>,
    pairs: Vec<(String, String)>,
    schema: Option<&Map<String, Value>>,
) -> Option<Map<String, Value>> {
    if pairs.is_empty() {
        return arguments;
    }
    let mut arguments = arguments.unwrap_or_default();
    for (key, text) in pairs {
        let declared = schema
            .and_then(|s| s.get("properties"))
            .and_then(|p| p.get(&key))
            .and_then(|p| p.get("type"));
        let wants_string = declared == Some(&Value::String("string".into()));
        let value = if wants_string {
            Value::String(text)
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        arguments.insert(key, value);
    }
    Some(arguments)
}

/// `mcp request METHOD --params JSON`: a request the client sends whose
/// params are checked against the schema; a method the server sends or a
/// notification is refused; an unknown method goes out as given.
pub(crate) fn raw_request(method: String, params: Option<&str>) -> Result<Request, CliError> {
    let params = match params {
        Some(text) => Some(
            tool_arguments(text)
                .map_err(|e| CliError::Usage(e.to_string().replace("--args", "--params")))?,
        ),
        None => None,
    };
    if ClientRequestMethod::from_name(&method).is_some() {
        let mut message = Map::new();
        message.insert("jsonrpc".into(), Value::from("2.0"));
        message.insert("id".into(), Value::from(0));
        message.insert("method".into(), Value::from(method.clone()));
        if let Some(params) = &params {
            message.insert("params".into(), Value::Object(params.clone()));
        }
        if let Err(e) = ClientRequest::from_value(Value::Object(message)) {
            return Err(CliError::Usage(format!(
                "--params do not fit `{method}`: {e}"
            )));
        }
    } else if ServerRequestMethod::from_name(&method).is_some() {
        return Err(CliError::Usage(format!(
            "`{method}` is a request the server sends, not the client"
        )));
    } else if ServerNotificationMethod::from_name(&method).is_some() {
        return Err(CliError::Usage(format!(
            "`{method}` is a notification, not a request"
        )));
    }
    Ok(Request::Raw { method, params })
}

/// Builds `completion/complete`'s params.
pub(crate) fn complete_params(
    prompt: Option<String>,
    resource: Option<String>,
    argument: String,
    value: String,
    context: Vec<(String, String)>,
) -> Result<Request, CliError> {
    let reference = match (prompt, resource) {
        (Some(name), None) => json!({"type": "ref/prompt", "name": name}),
        (None, Some(uri)) => json!({"type": "ref/resource", "uri": uri}),
        _ => {
            return Err(CliError::Usage(
                "give --prompt NAME or --resource URI_TEMPLATE".into(),
            ));
        }
    };
    let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
    if !context.is_empty() {
        let arguments: Map<String, Value> = context
            .into_iter()
            .map(|(k, v)| (k, Value::String(v)))
            .collect();
        params["context"] = json!({ "arguments": arguments });
    }
    serde_json::from_value(params)
        .map(|p| Request::Complete(Box::new(p)))
        .map_err(|e| CliError::Usage(format!("completion/complete: {e}")))
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
            pairs,
            task: true,
        } => {
            let arguments = typed_pairs(client, &name, arguments, pairs).await?;
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
            name,
            arguments,
            pairs,
            ..
        } => {
            let arguments = typed_pairs(client, &name, arguments, pairs).await?;
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
        Request::ListSkills => {
            let skills = client.list_all_skills().await.map_err(CliError::request)?;
            print(json, &json!({ "skills": skills }), || {
                output::skills(&skills)
            });
        }
        Request::GetSkill { uri, file } => {
            let entry = client.get_skill(&uri).await.map_err(CliError::request)?;
            let text = match &file {
                None => {
                    let loaded = client.load_skill(&entry).await.map_err(CliError::request)?;
                    loaded.skill_md
                }
                Some(file) => {
                    let bytes = client
                        .read_skill_file(&entry, file)
                        .await
                        .map_err(CliError::request)?;
                    String::from_utf8_lossy(&bytes).into_owned()
                }
            };
            let read = file.as_deref().unwrap_or(&uri);
            print(
                json,
                &json!({ "skill": entry, "uri": read, "text": text }),
                || text.clone(),
            );
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
        Request::SetLevel(level) => {
            client
                .set_logging_level(level)
                .await
                .map_err(CliError::request)?;
            print(json, &json!({}), || format!("log level set to {level}"));
        }
        Request::Complete(params) => {
            let result = client.complete(*params).await.map_err(CliError::request)?;
            print(json, &result, || output::completion(&result));
        }
        Request::Raw { method, params } => {
            let raw = client
                .request_raw(&method, &params, RequestOptions::default())
                .await
                .map_err(CliError::request)?;
            let value: Value = serde_json::from_str(raw.get())
                .map_err(|e| CliError::Failed(format!("the result is not JSON: {e}")))?;
            print(json, &value, || output::json(&value));
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

/// `KEY=VALUE` arguments merged, typed by the tool's schema when the
/// server lists the tool.
async fn typed_pairs(
    client: &Client,
    name: &str,
    arguments: Option<Map<String, Value>>,
    pairs: Vec<(String, String)>,
) -> Result<Option<Map<String, Value>>, CliError> {
    if pairs.is_empty() {
        return Ok(arguments);
    }
    // Best effort: without the list, values are typed by their text alone.
    let tools = client.list_all_tools().await.unwrap_or_default();
    let schema = tools
        .iter()
        .find(|t| t.name == name)
        .map(|t| t.input_schema.as_map());
    Ok(merge_pairs(arguments, pairs, schema))
}

pub(crate) fn print<T: serde::Serialize>(
    json: Option<&str>,
    value: &T,
    human: impl FnOnce() -> String,
) {
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
    fn pairs_are_json_or_strings_as_the_schema_says() {
        let schema = json!({"type": "object", "properties": {
            "zip": {"type": "string"}, "n": {"type": "number"}
        }});
        let merged = merge_pairs(
            Some(tool_arguments(r#"{"keep": 1, "n": 0}"#).unwrap()),
            vec![
                ("n".into(), "42".into()),
                ("zip".into(), "01234".into()),
                ("flag".into(), "true".into()),
                ("word".into(), "hello world".into()),
                ("list".into(), "[1,2]".into()),
            ],
            schema.as_object(),
        )
        .unwrap();
        assert_eq!(
            Value::Object(merged),
            json!({"keep": 1, "n": 42, "zip": "01234", "flag": true,
                   "word": "hello world", "list": [1, 2]})
        );
        assert_eq!(merge_pairs(None, vec![], None), None);
    }

    #[test]
    fn raw_requests_are_checked_when_known() {
        assert!(matches!(
            raw_request("tools/call".into(), Some(r#"{"name": "x"}"#)),
            Ok(Request::Raw { .. })
        ));
        let e = raw_request("tools/call".into(), Some(r#"{"name": 3}"#)).unwrap_err();
        assert!(
            e.to_string().contains("--params do not fit `tools/call`"),
            "{e}"
        );
        assert_eq!(e.status(), 2);
        let e = raw_request("sampling/createMessage".into(), None).unwrap_err();
        assert!(e.to_string().contains("the server sends"), "{e}");
        let e = raw_request("tools/list".into(), Some("[1]")).unwrap_err();
        assert!(
            e.to_string().contains("--params must be a JSON object"),
            "{e}"
        );
        assert!(matches!(
            raw_request("vendor/thing".into(), Some("{}")),
            Ok(Request::Raw { .. })
        ));
    }

    #[test]
    fn complete_params_name_a_prompt_or_a_template() {
        let Request::Complete(p) = complete_params(
            Some("greet".into()),
            None,
            "name".into(),
            "Gr".into(),
            vec![("lang".into(), "en".into())],
        )
        .unwrap() else {
            panic!()
        };
        let p = serde_json::to_value(&*p).unwrap();
        assert_eq!(p["ref"], json!({"type": "ref/prompt", "name": "greet"}));
        assert_eq!(p["context"]["arguments"]["lang"], "en");
        assert!(complete_params(None, None, "a".into(), String::new(), vec![]).is_err());
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
