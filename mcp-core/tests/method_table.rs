//! The method table names the result of every request of every revision
//! with types, and agrees with each module's `McpRequest` impls. Results
//! that accept any object (`EmptyResult`, the `tasks/result` payload) can
//! only be told apart by the method they answer, so the table is what
//! decides them.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

use std::collections::BTreeMap;

use mcp_core::schema::{self as n, METHOD_TABLE, ProtocolVersion};
use mcp_core::schema::{v2025_11_25 as v25, v2026_07_28 as v26};
use serde_json::json;

fn short_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

/// `method → result type name` from the `McpRequest` impls of a module
/// (each module has its own trait).
macro_rules! results {
    ($module:ident: $($ty:ident),* $(,)?) => {{
        let mut map = BTreeMap::new();
        $(
            let old = map.insert(
                <$module::$ty as $module::McpRequest>::METHOD,
                short_name::<<$module::$ty as $module::McpRequest>::Result>(),
            );
            assert!(old.is_none(), "{} twice", stringify!($ty));
        )*
        map
    }};
}

fn neutral_results() -> BTreeMap<&'static str, &'static str> {
    results!(n:
        InitializeRequest, PingRequest, ListResourcesRequest, ListResourceTemplatesRequest,
        ReadResourceRequest, SubscribeRequest, UnsubscribeRequest, ListPromptsRequest,
        GetPromptRequest, ListToolsRequest, CallToolRequest, GetTaskRequest, GetTaskPayloadRequest,
        CancelTaskRequest, ListTasksRequest, SetLevelRequest, CompleteRequest, DiscoverRequest,
        SubscriptionsListenRequest, CreateMessageRequest, ListRootsRequest, ElicitRequest,
    )
}

fn v2025_results() -> BTreeMap<&'static str, &'static str> {
    results!(v25:
        InitializeRequest, PingRequest, ListResourcesRequest, ListResourceTemplatesRequest,
        ReadResourceRequest, SubscribeRequest, UnsubscribeRequest, ListPromptsRequest,
        GetPromptRequest, ListToolsRequest, CallToolRequest, GetTaskRequest, GetTaskPayloadRequest,
        CancelTaskRequest, ListTasksRequest, SetLevelRequest, CompleteRequest,
        CreateMessageRequest, ListRootsRequest, ElicitRequest,
    )
}

/// 2026-07-28's server requests are embedded in results (`InputRequest`), not
/// sent as requests, so they have no `McpRequest` impl there; the table names
/// their results.
fn v2026_results() -> BTreeMap<&'static str, &'static str> {
    results!(v26:
        DiscoverRequest, ListResourcesRequest, ListResourceTemplatesRequest, ReadResourceRequest,
        SubscriptionsListenRequest, ListPromptsRequest, GetPromptRequest, ListToolsRequest,
        CallToolRequest, CompleteRequest,
    )
}

#[test]
fn every_request_names_its_result() {
    for spec in &METHOD_TABLE {
        assert_eq!(
            spec.result.is_some(),
            !spec.notification,
            "`{}`: a request names its result, a notification none",
            spec.name
        );
    }
    let neutral = neutral_results();
    for revision in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let exact = match revision {
            ProtocolVersion::V2025_11_25 => v2025_results(),
            _ => v2026_results(),
        };
        let requests: Vec<_> = METHOD_TABLE
            .iter()
            .filter(|s| !s.notification && s.revisions.contains(revision))
            .collect();
        assert!(!requests.is_empty(), "{revision}: no request");
        for spec in &requests {
            let result = spec.result.unwrap();
            assert_eq!(
                neutral.get(spec.name),
                Some(&result),
                "{revision} `{}`: the table and the neutral McpRequest impl disagree",
                spec.name
            );
            let embedded = revision == ProtocolVersion::V2026_07_28
                && v26::InputRequestMethod::from_name(spec.name).is_some();
            if embedded {
                continue;
            }
            assert_eq!(
                exact.get(spec.name),
                Some(&result),
                "{revision} `{}`: the table and the revision's McpRequest impl disagree",
                spec.name
            );
        }
        // Every request type of the revision is in the table for it.
        for method in exact.keys() {
            assert!(
                requests.iter().any(|s| s.name == *method),
                "{revision}: `{method}` is not in the method table for this revision"
            );
        }
    }
}

#[test]
fn results_that_take_any_object_are_told_apart_by_method() {
    let open = ["EmptyResult", "GetTaskPayloadResult"];
    let result = json!({ "x-anything": 1, "_meta": {} });
    let mut seen = 0;
    for method in n::ClientRequestMethod::ALL {
        if open.contains(&method.spec().result.unwrap()) {
            let decoded = n::ServerResult::from_value(*method, result.clone()).unwrap();
            assert_eq!(decoded.method(), *method);
            assert_eq!(serde_json::to_value(&decoded).unwrap(), result);
            seen += 1;
        }
    }
    for method in n::ServerRequestMethod::ALL {
        if open.contains(&method.spec().result.unwrap()) {
            let decoded = n::ClientResult::from_value(*method, result.clone()).unwrap();
            assert_eq!(decoded.method(), *method);
            assert_eq!(serde_json::to_value(&decoded).unwrap(), result);
            seen += 1;
        }
    }
    assert!(seen >= 4, "ping and tasks/result, both ways");

    // The payload of `tasks/result` is the underlying request's result, kept
    // whole.
    let payload = json!({ "content": [{ "type": "text", "text": "done" }], "isError": false });
    let decoded =
        n::ServerResult::from_value(n::ClientRequestMethod::GetTaskPayload, payload.clone())
            .unwrap();
    assert!(matches!(decoded, n::ServerResult::GetTaskPayload(_)));
    assert_eq!(serde_json::to_value(&decoded).unwrap(), payload);
}
