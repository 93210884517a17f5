//! Malformed messages are rejected with useful errors (and by the official
//! schema too), and the schema harness itself can fail.

use std::fmt::Debug;

use mcp_core::schema::*;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::fixture;
use crate::official_schema::{assert_schema_valid, schema_errors};

// ---------------------------------------------------------------------------
// Rejections: each must fail, name the problem, and be invalid per the
// official schema too (so the strictness is the schema's, not ours).

/// Decodes `value` as `T`, expecting an error that mentions every needle.
fn expect_rejection<T: DeserializeOwned + Debug>(what: &str, value: &Value, needles: &[&str]) {
    let from_value = serde_json::from_value::<T>(value.clone());
    let from_text = serde_json::from_str::<T>(&value.to_string());
    for (how, result) in [("from_value", from_value), ("from_str", from_text)] {
        let err = match result {
            Ok(decoded) => panic!("{what} ({how}): expected an error, decoded {decoded:?}"),
            Err(e) => e.to_string(),
        };
        for needle in needles {
            assert!(
                err.contains(needle),
                "{what} ({how}): error does not mention {needle:?}: {err}"
            );
        }
    }
}

fn expect_schema_rejection(def: &str, value: &Value) {
    assert!(
        !schema_errors(def, value).is_empty(),
        "the official schema accepts this as `{def}`: {value}"
    );
}

#[test]
fn rejects_wrong_jsonrpc_version() {
    let ping = json!({ "jsonrpc": "1.0", "id": 1, "method": "ping" });
    let needles = ["\"1.0\"", "expected the string \"2.0\""];
    expect_rejection::<PingRequest>("PingRequest", &ping, &needles);
    expect_rejection::<ClientRequest>("ClientRequest", &ping, &needles);
    expect_rejection::<ServerRequest>("ServerRequest", &ping, &needles);
    expect_rejection::<JsonrpcMessage>("JsonrpcMessage", &ping, &[]);
    expect_schema_rejection("PingRequest", &ping);

    let notification = json!({ "jsonrpc": "1.0", "method": "notifications/initialized" });
    expect_rejection::<ClientNotification>("ClientNotification", &notification, &needles);
    let response = json!({ "jsonrpc": "1.0", "id": 1, "result": {} });
    expect_rejection::<JsonrpcResultResponse>("JsonrpcResultResponse", &response, &needles);
    expect_schema_rejection("JSONRPCResultResponse", &response);

    // A missing version is an error too.
    let missing = json!({ "id": 1, "method": "ping" });
    expect_rejection::<PingRequest>("PingRequest", &missing, &["missing field `jsonrpc`"]);
}

#[test]
fn rejects_unknown_content_type() {
    let bogus = json!({ "type": "bogus", "text": "hi" });
    let needles = ["unknown ContentBlock `type` `bogus`", "`resource_link`"];
    expect_rejection::<ContentBlock>("ContentBlock", &bogus, &needles);
    expect_schema_rejection("ContentBlock", &bogus);

    // Nested in a tool result, the error still says what is wrong.
    let result = json!({ "content": [{ "type": "text", "text": "ok" }, bogus] });
    expect_rejection::<CallToolResult>("CallToolResult", &result, &needles);
    expect_schema_rejection("CallToolResult", &result);
    let via_union = ServerResult::from_value(ClientRequestMethod::CallTool, result).unwrap_err();
    assert!(via_union.to_string().contains(needles[0]), "{via_union}");

    // A known tag with the wrong shape names the missing field.
    expect_rejection::<ContentBlock>(
        "ContentBlock",
        &json!({ "type": "image", "data": "iVBORw0KGgo=" }),
        &["missing field `mimeType`"],
    );
    // Sampling content has its own set of tags: `resource_link` is not one.
    expect_rejection::<SamplingMessageContentBlock>(
        "SamplingMessageContentBlock",
        &json!({ "type": "resource_link", "uri": "file:///a", "name": "a" }),
        &["resource_link"],
    );
}

#[test]
fn rejects_method_that_does_not_match_the_struct() {
    let ping = json!({ "jsonrpc": "2.0", "id": 1, "method": "ping" });
    expect_rejection::<CallToolRequest>(
        "CallToolRequest",
        &ping,
        &["\"ping\"", "expected the string \"tools/call\""],
    );
    expect_schema_rejection("CallToolRequest", &ping);

    // Even with params that would fit the struct.
    let call_params = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": { "name": "get_weather" }
    });
    expect_rejection::<CallToolRequest>(
        "CallToolRequest",
        &call_params,
        &["\"tools/list\"", "\"tools/call\""],
    );
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    expect_rejection::<RootsListChangedNotification>(
        "RootsListChangedNotification",
        &initialized,
        &[
            "\"notifications/initialized\"",
            "\"notifications/roots/list_changed\"",
        ],
    );
}

#[test]
fn rejects_unknown_method_through_the_unions() {
    let unknown = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/bogus", "params": {} });
    expect_rejection::<ClientRequest>(
        "ClientRequest",
        &unknown,
        &[
            "unknown ClientRequest `method` `tools/bogus`",
            "`tools/call`",
        ],
    );
    expect_schema_rejection("ClientRequest", &unknown);

    // A method of the other direction is unknown too.
    let sampling = fixture("sampling_create_message_with_tools")
        .case
        .message
        .clone();
    expect_rejection::<ClientRequest>(
        "ClientRequest",
        &sampling,
        &["unknown ClientRequest `method` `sampling/createMessage`"],
    );
    expect_schema_rejection("ClientRequest", &sampling);
    let initialize = fixture("initialize_full_capabilities").case.message.clone();
    expect_rejection::<ServerRequest>(
        "ServerRequest",
        &initialize,
        &["unknown ServerRequest `method` `initialize`"],
    );
    let log = fixture("logging_message_string_data").case.message.clone();
    expect_rejection::<ClientNotification>(
        "ClientNotification",
        &log,
        &["unknown ClientNotification `method` `notifications/message`"],
    );
    let roots = fixture("roots_list_changed").case.message.clone();
    expect_rejection::<ServerNotification>(
        "ServerNotification",
        &roots,
        &["unknown ServerNotification `method` `notifications/roots/list_changed`"],
    );
    expect_rejection::<ClientRequest>(
        "ClientRequest",
        &json!({ "jsonrpc": "2.0", "id": 1 }),
        &["ClientRequest is missing its `method`"],
    );
}

#[test]
fn rejects_tool_schema_without_object_type() {
    let tool = |input_schema: Value| {
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "result": { "tools": [{ "name": "broken", "inputSchema": input_schema }] }
        })
    };
    let needle = "a tool schema must have \"type\": \"object\"";

    let no_type = tool(json!({ "properties": { "x": { "type": "string" } } }));
    expect_rejection::<ListToolsResult>("ListToolsResult", &no_type["result"], &[needle]);
    expect_schema_rejection("ListToolsResult", &no_type["result"]);
    let via_union =
        ServerResult::from_value(ClientRequestMethod::ListTools, no_type["result"].clone())
            .unwrap_err();
    assert!(via_union.to_string().contains(needle), "{via_union}");

    let string_type = tool(json!({ "type": "string" }));
    expect_rejection::<ListToolsResult>(
        "ListToolsResult",
        &string_type["result"],
        &[needle, "found \"string\""],
    );
    expect_schema_rejection("ListToolsResult", &string_type["result"]);

    let not_an_object = tool(json!(true));
    expect_rejection::<ListToolsResult>(
        "ListToolsResult",
        &not_an_object["result"],
        &["invalid type: boolean `true`, expected a map"],
    );

    // The output schema is held to the same rule in 2025-11-25; 2026-07-28
    // takes any JSON Schema there, so the neutral type does too.
    let output = json!({
        "name": "t",
        "inputSchema": { "type": "object" },
        "outputSchema": { "type": "array" }
    });
    expect_rejection::<mcp_core::schema::v2025_11_25::Tool>(
        "v2025_11_25::Tool",
        &output,
        &[needle, "found \"array\""],
    );
    expect_schema_rejection("Tool", &output);
    let neutral: Tool = serde_json::from_value(output.clone()).unwrap();
    assert_eq!(serde_json::to_value(&neutral).unwrap(), output);
}

#[test]
fn rejects_other_malformed_messages() {
    // URLElicitationRequiredError has a fixed code.
    let mut wrong_code = fixture("url_elicitation_required_error")
        .case
        .message
        .clone();
    wrong_code["error"]["code"] = json!(-32000);
    expect_rejection::<UrlElicitationRequiredError>(
        "UrlElicitationRequiredError",
        &wrong_code,
        &["invalid value"],
    );
    expect_schema_rejection("URLElicitationRequiredError", &wrong_code);

    // An unknown elicitation mode.
    let mut bad_mode = fixture("elicitation_create_url_mode").case.message.clone();
    bad_mode["params"]["mode"] = json!("popup");
    expect_rejection::<ElicitRequest>(
        "ElicitRequest",
        &bad_mode,
        &["unknown ElicitRequestParams `mode` `popup`"],
    );
    expect_schema_rejection("ElicitRequest", &bad_mode);

    // A request id must be a string or an integer.
    let float_id = json!({ "jsonrpc": "2.0", "id": 1.5, "method": "ping" });
    expect_rejection::<PingRequest>("PingRequest", &float_id, &[]);
    expect_schema_rejection("PingRequest", &float_id);
}

// ---------------------------------------------------------------------------
// The schema harness itself must be able to fail.

#[test]
fn schema_validation_rejects_invalid_messages() {
    // A valid fixture with one required field removed is invalid.
    let mut call = fixture("tools_call_string_progress_token")
        .case
        .message
        .clone();
    assert_schema_valid("tools_call", "CallToolRequest", &call);
    call["params"].as_object_mut().unwrap().remove("name");
    let errors = schema_errors("CallToolRequest", &call);
    assert!(
        errors
            .iter()
            .any(|(path, message)| path == "/params" && message.contains("name")),
        "{errors:?}"
    );
    // A result of the wrong type for its def.
    let list = &fixture("tools_list_result_rich_schemas").case.message["result"];
    assert!(!schema_errors("CallToolResult", list).is_empty());
    // Formats are checked (`Icon.src` is a URI).
    let icon = json!({ "src": "not a uri" });
    assert!(!schema_errors("Icon", &icon).is_empty());
}
