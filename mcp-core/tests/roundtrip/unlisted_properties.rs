//! Properties the schema does not list survive a round trip.

use mcp_core::schema::*;
use serde_json::{Value, json};

use crate::compare::first_difference;
use crate::official_schema::assert_schema_valid;

// ---------------------------------------------------------------------------
// Properties the schema does not list survive (it admits them; codegen gives
// every struct an `extra` catch-all, see codegen/src/catch_all.rs).

#[test]
fn unlisted_properties_round_trip() {
    let cases: [(&str, &str, Value); 6] = [
        (
            "ListToolsResult",
            "tool field",
            json!({ "tools": [{ "name": "a", "inputSchema": { "type": "object" }, "x-vendor": 1 }] }),
        ),
        (
            "InitializeRequest",
            "capability",
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": { "roots": { "listChanged": true }, "x-vendor": {} },
                    "clientInfo": { "name": "a", "version": "1" }
                }
            }),
        ),
        (
            "CallToolRequest",
            "params field",
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": { "name": "a", "x-vendor": 1 }
            }),
        ),
        (
            "ContentBlock",
            "content field",
            json!({ "type": "text", "text": "a", "x-vendor": 1 }),
        ),
        (
            "CallToolResult",
            "result field",
            json!({ "content": [], "x-vendor": 1 }),
        ),
        (
            "TaskStatusNotification",
            "task field",
            json!({
                "jsonrpc": "2.0", "method": "notifications/tasks/status",
                "params": {
                    "taskId": "t", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
                    "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null, "x-vendor": 1
                }
            }),
        ),
    ];
    let mut lost = Vec::new();
    for (def, what, value) in cases {
        assert_schema_valid(what, def, &value);
        let back = match def {
            "ListToolsResult" => serde_json::to_value(
                serde_json::from_value::<ListToolsResult>(value.clone()).unwrap(),
            ),
            "InitializeRequest" => serde_json::to_value(
                serde_json::from_value::<InitializeRequest>(value.clone()).unwrap(),
            ),
            "CallToolRequest" => serde_json::to_value(
                serde_json::from_value::<CallToolRequest>(value.clone()).unwrap(),
            ),
            "ContentBlock" => {
                serde_json::to_value(serde_json::from_value::<ContentBlock>(value.clone()).unwrap())
            }
            "CallToolResult" => serde_json::to_value(
                serde_json::from_value::<CallToolResult>(value.clone()).unwrap(),
            ),
            "TaskStatusNotification" => serde_json::to_value(
                serde_json::from_value::<TaskStatusNotification>(value.clone()).unwrap(),
            ),
            other => unreachable!("{other}"),
        }
        .unwrap();
        if let Some(difference) = first_difference("", &value, &back) {
            lost.push(format!("{def} ({what}): {difference}"));
        }
    }
    assert!(
        lost.is_empty(),
        "properties lost in a round trip: {lost:#?}"
    );
}
