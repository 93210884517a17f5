//! `_meta`, request ids, progress tokens and task messages keep their form.

use mcp_core::schema::*;
use serde_json::{Value, json};

use crate::official_schema::schema_errors;
use crate::{Kind, check_case, fixture};

// ---------------------------------------------------------------------------
// `_meta`, ids, progress tokens, tasks

#[test]
fn empty_meta_survives() {
    let cases: &[(&str, &str)] = &[
        ("ping_with_empty_meta", "/params/_meta"),
        ("tools_call_empty_meta", "/params/_meta"),
        ("resources_unsubscribe", "/params/_meta"),
        ("initialized_with_empty_meta", "/params/_meta"),
        ("server_cancelled_string_request_id", "/params/_meta"),
        ("elicitation_create_form_without_mode", "/params/_meta"),
        (
            "sampling_create_message_multimodal_with_preferences",
            "/params/messages/2/_meta",
        ),
        ("initialize_result_full_capabilities", "/result/_meta"),
        ("resources_unsubscribe_result_empty_meta", "/result/_meta"),
        (
            "resources_read_result_text_and_blob",
            "/result/contents/1/_meta",
        ),
        (
            "tools_call_result_all_content_types",
            "/result/content/2/_meta",
        ),
        ("client_tasks_get_result", "/result/_meta"),
        ("create_task_result_for_tools_call", "/result/_meta"),
    ];
    for (name, pointer) in cases {
        let loaded = fixture(name);
        let original = &loaded.case.message;
        assert_eq!(
            original.pointer(pointer),
            Some(&json!({})),
            "{name}: fixture"
        );
        // Through the specific type, via the data-driven dispatch...
        check_case(loaded);
        // ...and explicitly through the generic envelope and the union.
        let re_encoded = match loaded.kind {
            Kind::ClientRequest => serde_json::to_value(
                serde_json::from_value::<ClientRequest>(original.clone()).unwrap(),
            ),
            Kind::ServerRequest => serde_json::to_value(
                serde_json::from_value::<ServerRequest>(original.clone()).unwrap(),
            ),
            Kind::ClientNotification => serde_json::to_value(
                serde_json::from_value::<ClientNotification>(original.clone()).unwrap(),
            ),
            Kind::ServerNotification => serde_json::to_value(
                serde_json::from_value::<ServerNotification>(original.clone()).unwrap(),
            ),
            _ => serde_json::to_value(
                serde_json::from_value::<JsonrpcMessage>(original.clone()).unwrap(),
            ),
        }
        .unwrap();
        assert_eq!(
            re_encoded.pointer(pointer),
            Some(&json!({})),
            "{name}: {pointer}"
        );
    }

    // The typed view: `Some` of an empty map, not `None`.
    let call: CallToolRequest =
        serde_json::from_value(fixture("tools_call_empty_meta").case.message.clone()).unwrap();
    let meta = call.params.meta.expect("`_meta: {}` decodes to Some");
    assert_eq!(meta.progress_token, None);
    assert!(meta.extra.is_empty());
    let result: EmptyResult = serde_json::from_value(
        fixture("resources_unsubscribe_result_empty_meta")
            .case
            .message["result"]
            .clone(),
    )
    .unwrap();
    assert_eq!(result.meta, Some(serde_json::Map::new()));
}

#[test]
fn progress_tokens_and_request_ids_keep_their_kind() {
    let call: CallToolRequest = serde_json::from_value(
        fixture("tools_call_string_progress_token")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(call.id, RequestId::String("call-abc-123".into()));
    assert_eq!(
        call.params.meta.unwrap().progress_token,
        Some(ProgressToken::String("abc-123".into()))
    );

    let read: ReadResourceRequest = serde_json::from_value(
        fixture("resources_read_integer_progress_token")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(read.id, RequestId::Integer(4));
    let meta = read.params.meta.unwrap();
    assert_eq!(meta.progress_token, Some(ProgressToken::Integer(42)));
    assert!(
        meta.extra.is_empty(),
        "progressToken must not leak into extra"
    );

    let list: ListToolsRequest = serde_json::from_value(
        fixture("tools_list_with_cursor_and_meta")
            .case
            .message
            .clone(),
    )
    .unwrap();
    let meta = list.params.unwrap().meta.unwrap();
    assert_eq!(
        meta.progress_token,
        Some(ProgressToken::String("list-tools".into()))
    );
    assert_eq!(meta.extra.get("com.example/trace"), Some(&json!("abc")));

    let progress: ProgressNotification = serde_json::from_value(
        fixture("client_progress_integer_token")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(progress.params.progress_token, ProgressToken::Integer(55));
    let progress: ProgressNotification =
        serde_json::from_value(fixture("server_progress_string_token").case.message.clone())
            .unwrap();
    assert_eq!(
        progress.params.progress_token,
        ProgressToken::String("abc-123".into())
    );

    // A string that looks like a number stays a string, and vice versa.
    let quoted: RequestId = serde_json::from_str(r#""7""#).unwrap();
    assert_eq!(quoted, RequestId::String("7".into()));
    assert_eq!(serde_json::to_string(&RequestId::Integer(7)).unwrap(), "7");
    assert_eq!(serde_json::to_string(&quoted).unwrap(), r#""7""#);

    let cancelled: CancelledNotification = serde_json::from_value(
        fixture("client_cancelled_integer_request_id")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(cancelled.params.request_id, Some(RequestId::Integer(123)));
}

#[test]
fn task_messages_keep_ttl_null_and_related_task() {
    // `ttl: null` (unlimited) is kept as an explicit null, not dropped.
    let get = &fixture("tasks_get_result_ttl_null").case.message["result"];
    let decoded: GetTaskResult = serde_json::from_value(get.clone()).unwrap();
    assert_eq!(decoded.ttl, None);
    assert_eq!(decoded.status, TaskStatus::Working);
    assert_eq!(decoded.poll_interval, Some(5000));
    let text = serde_json::to_string(&decoded).unwrap();
    assert!(text.contains(r#""ttl":null"#), "{text}");

    // `ttl` is required (nullable): leaving it out is an error.
    let mut missing = get.clone();
    missing.as_object_mut().unwrap().remove("ttl");
    let err = serde_json::from_value::<GetTaskResult>(missing.clone()).unwrap_err();
    assert!(err.to_string().contains("missing field `ttl`"), "{err}");
    assert!(!schema_errors("GetTaskResult", &missing).is_empty());

    // The related-task `_meta` entry decodes as RelatedTaskMetadata.
    let status: TaskStatusNotification = serde_json::from_value(
        fixture("server_task_status_completed_related_task")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(status.params.status, TaskStatus::Completed);
    assert_eq!(status.params.ttl, None);
    let meta = status.params.meta.unwrap();
    let related: RelatedTaskMetadata =
        serde_json::from_value(meta["io.modelcontextprotocol/related-task"].clone()).unwrap();
    assert_eq!(related.task_id, status.params.task_id);

    // tasks/result carries the original request's result shape in `extra`.
    let payload: GetTaskPayloadResult = serde_json::from_value(
        fixture("tasks_result_payload_call_tool").case.message["result"].clone(),
    )
    .unwrap();
    assert!(
        payload
            .meta
            .unwrap()
            .contains_key("io.modelcontextprotocol/related-task")
    );
    let as_call: CallToolResult =
        serde_json::from_value(Value::Object(payload.extra.clone().into_map())).unwrap();
    assert_eq!(as_call.is_error, Some(false));

    // CreateTaskResult answers a task-augmented call.
    let call: CallToolRequest =
        serde_json::from_value(fixture("tools_call_task_augmented").case.message.clone()).unwrap();
    assert_eq!(call.params.task.unwrap().ttl, Some(60000));
    let created: CreateTaskResult = serde_json::from_value(
        fixture("create_task_result_for_tools_call").case.message["result"].clone(),
    )
    .unwrap();
    assert_eq!(created.task.ttl, Some(60000));
    assert_eq!(created.task.status, TaskStatus::Working);
}
