//! The client leg of the official conformance suite: the harness runs this
//! binary once per scenario with `MCP_CONFORMANCE_SCENARIO` set and the
//! server's URL as the last argument; exit code 0 means the client did its
//! part (the harness checks what reached its mock server).

#![allow(clippy::print_stderr, reason = "a test tool reports on stderr")]

use std::process::ExitCode;
use std::sync::Arc;

use mcp_core::ProtocolVersion;
use mcp_core::auth::{
    AssertionSource, ClientCredentials, GrantKind, HeadlessUserAgent, IdJagExchange, JwsAlgorithm,
    OAuthClient, Secret, SigningKey,
};
use mcp_core::client::{Client, ClientBuilder, Negotiation};
use mcp_core::jsonrpc::RpcError;
use mcp_core::schema::{
    ElicitRequestParams, ElicitResult, ElicitResultAction, ElicitResultContentValue,
    PrimitiveSchemaDefinition,
};
use mcp_core::skills::SkillResources;
use mcp_core::transport::http::StreamableHttpClient;
use serde_json::{Map, Value, json};

/// The Client ID Metadata Document URL the suite expects (auth/basic-cimd).
const CIMD_CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// The redirect URI registered by the reference client; the suite's
/// authorization server redirects there with the code, which the headless
/// user agent takes from the `Location` header.
const REDIRECT_URI: &str = "http://localhost:3000/callback";

#[tokio::main]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance-client URL (with MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    match run(&scenario, &url).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("conformance-client: scenario `{scenario}`: {why}");
            ExitCode::FAILURE
        }
    }
}

async fn run(scenario: &str, url: &str) -> Result<(), String> {
    // The harness names the revision under test: 2026-07-28 runs the
    // client's own negotiation (the probe), older ones a session.
    let negotiation = match std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .as_deref()
    {
        Some(v) if ProtocolVersion::parse(v).is_some_and(|v| !v.has_initialize()) => {
            Negotiation::Auto
        }
        _ => Negotiation::Legacy,
    };
    let builder = Client::builder("libmcp-conformance-client", env!("CARGO_PKG_VERSION"))
        .negotiation(negotiation);
    match scenario {
        "request-metadata" | "json-schema-ref-no-deref" => {
            // Metadata on every request, the retry after -32022, and no
            // fetching of a network `$ref` while listing tools.
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            if client.server_capabilities().tools.is_some() {
                client.list_all_tools().await.map_err(|e| e.to_string())?;
            } else {
                client.ping().await.map_err(|e| e.to_string())?;
            }
            client.close().await;
            Ok(())
        }
        "http-standard-headers" => {
            // Every kind of request the server offers, so that each carries
            // its Mcp-Method (and Mcp-Name) header.
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let outcome = exercise_everything(&client).await;
            client.close().await;
            outcome
        }
        "sep-2322-client-request-state" => {
            let client = builder
                .on_elicitation(false, |_params, _cx| async {
                    let mut result = ElicitResult::new(ElicitResultAction::Accept);
                    result
                        .content
                        .get_or_insert_with(Default::default)
                        .insert("confirmed".into(), ElicitResultContentValue::Boolean(true));
                    Ok(result)
                })
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let outcome = async {
                for tool in client.list_all_tools().await.map_err(|e| e.to_string())? {
                    let result = client
                        .call_tool(&tool.name, Some(Map::new()))
                        .await
                        .map_err(|e| format!("`{}`: {e}", tool.name))?;
                    if result.is_error() {
                        return Err(format!("`{}` failed: {:?}", tool.name, result.content));
                    }
                }
                Ok(())
            }
            .await;
            client.close().await;
            outcome
        }
        "http-custom-headers" | "http-invalid-tool-headers" => {
            // The calls the scenario names in its context, or every tool
            // that survived the client's check of its header declarations.
            let context = conformance_context();
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let outcome = async {
                let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
                let calls: Vec<(String, Map<String, Value>)> =
                    match context.get("toolCalls").and_then(Value::as_array) {
                        Some(calls) => calls
                            .iter()
                            .filter_map(|c| {
                                Some((
                                    c.get("name")?.as_str()?.to_string(),
                                    c.get("arguments")?.as_object()?.clone(),
                                ))
                            })
                            .collect(),
                        None => tools
                            .iter()
                            .map(|t| (t.name.clone(), sample_arguments(t)))
                            .collect(),
                    };
                for (name, args) in calls {
                    client
                        .call_tool(&name, Some(args))
                        .await
                        .map_err(|e| format!("`{name}`: {e}"))?;
                }
                Ok(())
            }
            .await;
            client.close().await;
            outcome
        }
        "sep-2640-client-no-prefetch" => {
            // Listing is not loading: no skill file is read.
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let listed = client.list_all_skills().await.map_err(|e| e.to_string());
            client.close().await;
            listed.map(|_| ())
        }
        "sep-2640-client-verify-digest"
        | "sep-2640-client-verify-size"
        | "sep-2640-client-verify-frontmatter" => {
            // Loads every listed skill: its SKILL.md verified first, then
            // its other files, each verified; a skill that fails is dropped
            // (and the run fails, which the suite allows).
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let outcome = load_skills(&client).await;
            client.close().await;
            outcome
        }
        "initialize" => {
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            if client.server_capabilities().tools.is_some() {
                client.list_tools(None).await.map_err(|e| e.to_string())?;
            }
            client.close().await;
            Ok(())
        }
        "tools_call" => {
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
            let name = tools
                .iter()
                .find(|t| t.name == "add_numbers")
                .or(tools.first())
                .map(|t| t.name.clone())
                .ok_or("the server lists no tools")?;
            let args = json!({"a": 2, "b": 3}).as_object().cloned();
            let result = client
                .call_tool(&name, args)
                .await
                .map_err(|e| e.to_string())?;
            client.close().await;
            if result.is_error() {
                return Err(format!("`{name}` failed: {:?}", result.content));
            }
            Ok(())
        }
        "elicitation-sep1034-client-defaults" => {
            let client = builder
                .on_elicitation(
                    false,
                    |params, _cx| async move { accept_with_defaults(params) },
                )
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let result = client
                .call_tool("test_client_elicitation_defaults", Some(Map::new()))
                .await
                .map_err(|e| e.to_string())?;
            client.close().await;
            if result.is_error() {
                return Err(format!("the tool failed: {:?}", result.content));
            }
            Ok(())
        }
        "sse-retry" => {
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let result = client
                .call_tool("test_reconnection", Some(Map::new()))
                .await
                .map_err(|e| e.to_string())?;
            client.close().await;
            if result.is_error() {
                return Err(format!("the tool failed: {:?}", result.content));
            }
            Ok(())
        }
        "json-schema-2020-12-preservation" => {
            // Echo the focal tool's inputSchema back exactly as we hold it.
            let client = builder
                .connect(StreamableHttpClient::new(url))
                .await
                .map_err(|e| e.to_string())?;
            let tools = client.list_all_tools().await.map_err(|e| e.to_string())?;
            let focal = tools
                .iter()
                .find(|t| t.name == "json_schema_2020_12_tool")
                .ok_or("the server does not list json_schema_2020_12_tool")?;
            let schema = serde_json::Value::Object(focal.input_schema.as_map().clone());
            let args = json!({ "schema": schema }).as_object().cloned();
            let result = client
                .call_tool("json_schema_echo", args)
                .await
                .map_err(|e| e.to_string())?;
            client.close().await;
            if result.is_error() {
                return Err(format!("the echo failed: {:?}", result.content));
            }
            Ok(())
        }
        auth if auth.starts_with("auth/") => run_auth(builder, auth, url).await,
        other => Err(format!(
            "scenario `{other}` is not implemented by this client"
        )),
    }
}

/// The authorization scenarios: connect through an OAuth client, list the
/// tools and call `test-tool` (the 401 on the way starts the flow).
async fn run_auth(builder: ClientBuilder, scenario: &str, url: &str) -> Result<(), String> {
    let context = conformance_context();
    let text = |key: &str| context.get(key).and_then(Value::as_str).map(str::to_string);
    let agent = HeadlessUserAgent::new(REDIRECT_URI).map_err(|e| e.to_string())?;
    let mut oauth = OAuthClient::builder(url)
        .client_name("libmcp-conformance-client")
        .client_metadata_url(CIMD_CLIENT_METADATA_URL)
        .user_agent(Arc::new(agent));
    if let Some(id) = text("client_id") {
        let mut credentials = ClientCredentials::new(id);
        if let Some(secret) = text("client_secret") {
            credentials = credentials.with_secret(secret);
        }
        if let Some(pem) = text("private_key_pem") {
            let algorithm = text("signing_algorithm").and_then(|a| JwsAlgorithm::parse(&a));
            let key = SigningKey::from_pem(&pem, algorithm).map_err(|e| e.to_string())?;
            credentials = credentials.with_private_key(key);
        }
        oauth = oauth.pre_registered(credentials);
    }
    // The machine-to-machine scenarios list the tools only.
    let machine = match scenario {
        "auth/client-credentials-basic" | "auth/client-credentials-jwt" => {
            oauth = oauth.grant(GrantKind::ClientCredentials);
            true
        }
        "auth/enterprise-managed-authorization" => {
            let missing = |key: &str| format!("the context has no {key}");
            let endpoint =
                text("idp_token_endpoint").ok_or_else(|| missing("idp_token_endpoint"))?;
            let idp_client = text("idp_client_id").ok_or_else(|| missing("idp_client_id"))?;
            let id_token = text("idp_id_token").ok_or_else(|| missing("idp_id_token"))?;
            let exchange = IdJagExchange::new(
                endpoint,
                ClientCredentials::new(idp_client),
                AssertionSource::Token(Secret::new(id_token)),
            );
            oauth = oauth
                .grant(GrantKind::JwtBearer)
                .assertion(AssertionSource::IdJag(exchange));
            true
        }
        "auth/wif-jwt-bearer" => {
            let token = text("valid_jwt").ok_or("the context has no valid_jwt")?;
            oauth = oauth
                .grant(GrantKind::JwtBearer)
                .assertion(AssertionSource::Token(Secret::new(token)));
            true
        }
        _ => false,
    };
    let oauth = oauth.build().map_err(|e| e.to_string())?;
    let client = builder
        .connect(StreamableHttpClient::new(url).auth(oauth))
        .await
        .map_err(|e| e.to_string())?;
    let outcome = async {
        client.list_tools(None).await.map_err(|e| e.to_string())?;
        if !machine {
            let result = client
                .call_tool("test-tool", Some(Map::new()))
                .await
                .map_err(|e| e.to_string())?;
            if result.is_error() {
                return Err(format!("test-tool failed: {:?}", result.content));
            }
        }
        Ok(())
    }
    .await;
    client.close().await;
    outcome
}

/// Lists and uses every tool, resource and prompt the server declares.
async fn exercise_everything(client: &Client) -> Result<(), String> {
    let caps = client.server_capabilities().clone();
    if caps.tools.is_some() {
        for tool in client.list_all_tools().await.map_err(|e| e.to_string())? {
            client
                .call_tool(&tool.name, Some(sample_arguments(&tool)))
                .await
                .map_err(|e| format!("`{}`: {e}", tool.name))?;
        }
    }
    if caps.resources.is_some() {
        for resource in client
            .list_all_resources()
            .await
            .map_err(|e| e.to_string())?
        {
            client
                .read_resource(&resource.uri)
                .await
                .map_err(|e| format!("`{}`: {e}", resource.uri))?;
        }
    }
    if caps.prompts.is_some() {
        for prompt in client.list_all_prompts().await.map_err(|e| e.to_string())? {
            let arguments = prompt.arguments.as_ref().map(|args| {
                args.iter()
                    .filter(|a| a.required == Some(true))
                    .map(|a| (a.name.clone(), "x".to_string()))
                    .collect()
            });
            client
                .get_prompt(&prompt.name, arguments)
                .await
                .map_err(|e| format!("`{}`: {e}", prompt.name))?;
        }
    }
    Ok(())
}

/// The scenario's context (JSON in `MCP_CONFORMANCE_CONTEXT`), or null.
fn conformance_context() -> Value {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|raw| serde_json::from_str(&raw).ok())
        .unwrap_or(Value::Null)
}

/// Arguments for a tool: a plain value for each required property of its
/// input schema.
fn sample_arguments(tool: &mcp_core::schema::Tool) -> Map<String, Value> {
    let schema = tool.input_schema.as_map();
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array);
    let mut args = Map::new();
    for name in required.into_iter().flatten().filter_map(Value::as_str) {
        let kind = properties
            .and_then(|p| p.get(name))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str);
        let value = match kind {
            Some("integer" | "number") => json!(1),
            Some("boolean") => json!(true),
            Some("object") => json!({}),
            Some("array") => json!([]),
            Some("null") => Value::Null,
            _ => json!("x"),
        };
        args.insert(name.to_string(), value);
    }
    args
}

/// Accepts a form elicitation, answering every field that has a default
/// with that default (SEP-1034).
fn accept_with_defaults(params: ElicitRequestParams) -> Result<ElicitResult, RpcError> {
    let ElicitRequestParams::Form(form) = params else {
        return Ok(ElicitResult::new(ElicitResultAction::Decline));
    };
    let mut result = ElicitResult::new(ElicitResultAction::Accept);
    let content = result.content.get_or_insert_with(Default::default);
    for (name, schema) in &form.requested_schema.properties {
        let value = match schema {
            PrimitiveSchemaDefinition::StringSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::String)
            }
            PrimitiveSchemaDefinition::NumberSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::JsonNumber)
            }
            PrimitiveSchemaDefinition::BooleanSchema(s) => {
                s.default.map(ElicitResultContentValue::Boolean)
            }
            PrimitiveSchemaDefinition::UntitledSingleSelectEnumSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::String)
            }
            PrimitiveSchemaDefinition::TitledSingleSelectEnumSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::String)
            }
            PrimitiveSchemaDefinition::LegacyTitledEnumSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::String)
            }
            PrimitiveSchemaDefinition::UntitledMultiSelectEnumSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::Array)
            }
            PrimitiveSchemaDefinition::TitledMultiSelectEnumSchema(s) => {
                s.default.clone().map(ElicitResultContentValue::Array)
            }
        };
        if let Some(value) = value {
            content.insert(name.clone(), value);
        }
    }
    Ok(result)
}

/// Loads every listed skill and reads each of its files, all verified
/// against the listing: the first verification failure ends the run.
async fn load_skills(client: &Client) -> Result<(), String> {
    for entry in client.list_all_skills().await.map_err(|e| e.to_string())? {
        let loaded = client.load_skill(&entry).await.map_err(|e| e.to_string())?;
        if let SkillResources::Files(files) = &loaded.entry.resources {
            for file in files.iter().filter(|f| f.uri != entry.uri) {
                client
                    .read_skill_file(&entry, &file.uri)
                    .await
                    .map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}
