//! Key order: tool schemas and user data keep the sender's key order.

use mcp_core::schema::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::compare::short_type_name;
use crate::fixture;

// ---------------------------------------------------------------------------
// Key order

/// The keys of the object at `pointer` in `value`, in order.
fn keys_at<'a>(value: &'a Value, pointer: &str) -> Vec<&'a str> {
    value
        .pointer(pointer)
        .and_then(Value::as_object)
        .unwrap_or_else(|| panic!("no object at {pointer}"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn assert_not_sorted(keys: &[&str]) {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    assert_ne!(
        sorted, keys,
        "the fixture's keys must not already be sorted"
    );
}

#[test]
fn tool_schemas_survive_byte_for_byte() {
    let loaded = fixture("tools_list_result_rich_schemas");
    let original = &loaded.case.message["result"];
    let result: ListToolsResult = serde_json::from_value(original.clone()).unwrap();
    let first = &result.tools[0];

    // Keywords MCP does not list are kept.
    let input = first.input_schema.as_map();
    assert!(input.contains_key("$schema"), "{input:?}");
    assert!(input.contains_key("$defs"), "{input:?}");
    assert_eq!(input["additionalProperties"], json!(false));
    assert_eq!(input["description"], json!("Search parameters"));

    // Each schema re-encodes to exactly the text it came from: same keys,
    // same order, same numbers.
    for (i, tool) in result.tools.iter().enumerate() {
        let want = serde_json::to_string(&original["tools"][i]["inputSchema"]).unwrap();
        let got = serde_json::to_string(&tool.input_schema).unwrap();
        assert_eq!(got, want, "tools[{i}].inputSchema");
        if let Some(output) = &tool.output_schema {
            let want = serde_json::to_string(&original["tools"][i]["outputSchema"]).unwrap();
            assert_eq!(
                serde_json::to_string(output).unwrap(),
                want,
                "tools[{i}].outputSchema"
            );
        }
    }

    // `properties` keeps its order through the whole message, not only the
    // schema on its own (checked on the encoded text, as Value equality
    // ignores order).
    let text = serde_json::to_string(&result).unwrap();
    let reparsed: Value = serde_json::from_str(&text).unwrap();
    for pointer in [
        "/tools/0/inputSchema/properties",
        "/tools/0/inputSchema/$defs/filters/properties",
        "/tools/0/outputSchema/properties",
        "/tools/0/inputSchema",
    ] {
        let want = keys_at(original, pointer);
        assert_eq!(keys_at(&reparsed, pointer), want, "{pointer}");
    }
    let props = keys_at(original, "/tools/0/inputSchema/properties");
    assert_eq!(props, ["query", "maxResults", "filters", "cursor", "boost"]);
    assert_not_sorted(&props);
    assert_not_sorted(&keys_at(original, "/tools/0/outputSchema/properties"));
    // The default `1.5` and `20` keep their form.
    assert!(text.contains(r#""default":20}"#), "{text}");
    assert!(text.contains(r#""default":1.5}"#), "{text}");

    // The same holds for a tool inside a sampling request.
    let sampling = &fixture("sampling_create_message_with_tools").case.message;
    let request: CreateMessageRequest = serde_json::from_value(sampling.clone()).unwrap();
    let tools = request.params.tools.as_ref().unwrap();
    assert_eq!(
        serde_json::to_string(&tools[0].input_schema).unwrap(),
        serde_json::to_string(&sampling["params"]["tools"][0]["inputSchema"]).unwrap()
    );
}

#[test]
fn user_data_keeps_its_key_order() {
    /// Decodes the value at `root` in fixture `name` as a `T`, re-encodes it
    /// to text and checks that each object at `pointers` (relative to `root`)
    /// has its keys in the sender's order, which the fixture makes unsorted.
    fn check<T: Serialize + DeserializeOwned>(name: &str, root: &str, pointers: &[&str]) {
        let original = fixture(name).case.message.pointer(root).unwrap();
        let decoded: T = serde_json::from_value(original.clone()).unwrap();
        let text = serde_json::to_string(&decoded).unwrap();
        let reparsed: Value = serde_json::from_str(&text).unwrap();
        for pointer in pointers {
            let want = keys_at(original, pointer);
            assert_not_sorted(&want);
            assert_eq!(
                keys_at(&reparsed, pointer),
                want,
                "{name}: {root}{pointer} as `{}`",
                short_type_name::<T>()
            );
        }
    }
    check::<ElicitRequest>(
        "elicitation_create_form_all_enum_shapes",
        "",
        &["/params/requestedSchema/properties"],
    );
    check::<ServerRequest>(
        "elicitation_create_form_all_enum_shapes",
        "",
        &["/params/requestedSchema/properties"],
    );
    check::<CallToolRequest>(
        "tools_call_string_progress_token",
        "",
        &["/params/arguments", "/params/arguments/include"],
    );
    check::<GetPromptRequest>("prompts_get_with_arguments", "", &["/params/arguments"]);
    check::<ClientRequest>(
        "initialize_full_capabilities",
        "",
        &[
            "/params/capabilities/experimental",
            "/params/capabilities/experimental/com.example~1batch",
        ],
    );
    check::<CallToolResult>(
        "tools_call_result_all_content_types",
        "/result",
        &["/structuredContent", "/structuredContent/forecast/0"],
    );
    check::<ElicitResult>(
        "elicit_result_accept_all_value_kinds",
        "/result",
        &["/content"],
    );
    check::<LoggingMessageNotification>(
        "logging_message_structured_data",
        "",
        &["/params/data", "/params/data/details"],
    );
    check::<JsonrpcErrorResponse>("error_invalid_params_with_data", "", &["/error/data"]);
}
