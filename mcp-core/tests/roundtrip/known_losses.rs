//! Known round-trip losses in the generated types, kept as ignored tests.

use mcp_core::schema::*;
use serde_json::json;

use crate::compare::round_trip;
use crate::official_schema::assert_schema_valid;

// ---------------------------------------------------------------------------
// Known round-trip losses in the generated types. Each message below is valid
// per the official schema but does not survive decode → encode. They are kept
// as ignored tests so that a fix in codegen turns them green; run them with
// `cargo test -p mcp-core --test roundtrip -- --ignored`.

#[test]
#[ignore = "generated-types bug: ErrorObject.data is Option<Value> skipped when None, so an explicit `\"data\": null` (valid per schema.json, where `data` has no type) decodes to None and is dropped on re-encode"]
fn error_data_null_round_trips() {
    let ctx = "error_data_null";
    let error = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "error": { "code": -32603, "message": "Internal error", "data": null }
    });
    assert_schema_valid(ctx, "JSONRPCErrorResponse", &error);
    let _: JsonrpcErrorResponse = round_trip(ctx, "JsonrpcErrorResponse", &error);
    let _: JsonrpcMessage = round_trip(ctx, "JsonrpcMessage", &error);
}
