//! Numbers keep their textual form: integers stay integers, fractions stay
//! the fractions they were.

use mcp_core::schema::*;

use crate::fixture;

// ---------------------------------------------------------------------------
// Numbers

/// Asserts that `text` holds `"key":literal` as a whole JSON number (not as
/// the start of a longer one such as `150.0`).
fn assert_number(text: &str, key: &str, literal: &str) {
    let needle = format!("\"{key}\":{literal}");
    let whole = text.match_indices(&needle).any(|(i, _)| {
        matches!(
            text[i + needle.len()..].chars().next(),
            Some(',' | '}' | ']')
        )
    });
    assert!(whole, "expected {needle} in {text}");
}

#[test]
fn numbers_keep_their_textual_form() {
    // Integers stay integers: `150`, never `150.0`.
    let progress = &fixture("server_progress_string_token").case.message;
    let decoded: ProgressNotification = serde_json::from_value(progress.clone()).unwrap();
    assert!(decoded.params.total.as_ref().unwrap().is_u64());
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "progress", "50");
    assert_number(&text, "total", "150");
    assert!(!text.contains("150.0") && !text.contains("50.0"), "{text}");
    // Through the union as well.
    let decoded: ServerNotification = serde_json::from_value(progress.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "total", "150");

    // Fractions stay the fractions they were.
    let fractional = &fixture("server_progress_fractional").case.message;
    let decoded: ServerNotification = serde_json::from_value(fractional.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "progress", "0.25");
    assert_number(&text, "progressToken", "42");

    // Sampling: an integral priority `1` next to fractional ones.
    let sampling = &fixture("sampling_create_message_multimodal_with_preferences")
        .case
        .message;
    let decoded: CreateMessageRequest = serde_json::from_value(sampling.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    for (key, literal) in [
        ("intelligencePriority", "1"),
        ("costPriority", "0.3"),
        ("speedPriority", "0.8"),
        ("temperature", "0.7"),
        ("maxTokens", "150"),
        ("priority", "0.8"),
        ("ttl", "30000"),
        ("progressToken", "55"),
        ("top_k", "40"),
    ] {
        assert_number(&text, key, literal);
    }
    assert!(!text.contains("1.0") && !text.contains("150.0"), "{text}");

    // Annotations priority `1` and a size on a resource.
    let resources = &fixture("resources_list_result").case.message["result"];
    let decoded: ListResourcesResult = serde_json::from_value(resources.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "priority", "1");
    assert_number(&text, "size", "1024");

    // Elicitation defaults (SEP-1034): integer 30 and number 95.5.
    let elicit = &fixture("elicitation_create_form_all_enum_shapes")
        .case
        .message;
    let decoded: ElicitRequest = serde_json::from_value(elicit.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "default", "30");
    assert_number(&text, "default", "95.5");
    assert_number(&text, "maximum", "150");
    assert_number(&text, "minimum", "0");
    assert!(!text.contains("30.0") && !text.contains("150.0"), "{text}");

    // Tool results: numbers inside structured content, and the error data.
    let call = &fixture("tools_call_result_all_content_types").case.message["result"];
    let decoded: CallToolResult = serde_json::from_value(call.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "temperature", "22.5");
    assert_number(&text, "humidity", "65");
    assert_number(&text, "high", "25");
    let error = &fixture("error_invalid_params_with_data").case.message;
    let decoded: JsonrpcErrorResponse = serde_json::from_value(error.clone()).unwrap();
    let text = serde_json::to_string(&decoded).unwrap();
    assert_number(&text, "code", "-32602");
    assert_number(&text, "retryAfter", "1.5");
}
