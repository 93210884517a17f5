//! Property tests: encode → decode round trips of the JSON-RPC layer
//! (`mcp_core::jsonrpc`) and of generated protocol types, on generated
//! values.
//!
//! The generators stay inside the documented gaps (see the `#[ignore]` tests
//! of `roundtrip/known_losses.rs` and ARCHITECTURE.md "Known gaps"): no unknown fields on
//! typed objects, no `"data": null`, no ids beyond `i64`. Numbers are
//! integers or short binary fractions, which serde_json's default
//! (best-effort) float parser reads back exactly. Case counts are small so
//! that the whole file runs in well under a second in a debug build.

#![allow(clippy::unwrap_used, reason = "test code: a panic is a test failure")]

use mcp_core::jsonrpc::{
    ErrorCode, Inbound, RpcError, decode, encode_empty_result, encode_error, encode_notification,
    encode_request, encode_result,
};
use mcp_core::schema::*;
use proptest::prelude::*;
use serde_json::value::{RawValue, to_raw_value};
use serde_json::{Map, Value};

/// Cases per property: enough to vary every field, few enough to stay fast.
const CASES: u32 = 256;

fn config() -> ProptestConfig {
    ProptestConfig::with_cases(CASES)
}

// ---------------------------------------------------------------------------
// Strategies

/// Any text, short: every `char` (controls, quotes, backslashes, non-BMP).
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(any::<char>(), 0..10).prop_map(|c| c.into_iter().collect())
}

/// Object keys: a small alphabet so that keys repeat and collide, plus any
/// text. Never `_meta` (typed objects read it as their own field).
fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(vec!["a", "b", "name", "x-vendor", "", "é", "\"", "\\"])
            .prop_map(str::to_string),
        text(),
    ]
    .prop_filter("`_meta` is a field of typed objects", |k| k != "_meta")
}

/// Request ids: integers over the whole `i64` range, or any string.
fn request_id() -> impl Strategy<Value = RequestId> {
    prop_oneof![
        any::<i64>().prop_map(RequestId::Integer),
        text().prop_map(RequestId::String),
    ]
}

fn progress_token() -> impl Strategy<Value = ProgressToken> {
    prop_oneof![
        any::<i64>().prop_map(ProgressToken::Integer),
        text().prop_map(ProgressToken::String),
    ]
}

/// A float serde_json's default parser reads back exactly.
fn float() -> impl Strategy<Value = f64> {
    (any::<i16>(), 0u32..=10).prop_map(|(n, k)| f64::from(n) / f64::from(1u32 << k))
}

/// Any JSON value, a few levels deep.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        float().prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::vec((key(), inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A params (or result, or `_meta`) object.
fn object() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::vec((key(), json()), 0..5).prop_map(|kv| kv.into_iter().collect())
}

/// A wire error. `data` is never `null` (a known gap: it comes back absent).
fn rpc_error() -> impl Strategy<Value = RpcError> {
    let code = prop_oneof![
        proptest::sample::select(vec![
            ErrorCode::PARSE_ERROR,
            ErrorCode::INVALID_REQUEST,
            ErrorCode::METHOD_NOT_FOUND,
            ErrorCode::INVALID_PARAMS,
            ErrorCode::INTERNAL_ERROR,
            ErrorCode::RESOURCE_NOT_FOUND,
            ErrorCode::URL_ELICITATION_REQUIRED,
        ]),
        any::<i64>().prop_map(ErrorCode),
    ];
    let data = proptest::option::of(json().prop_filter("not null", |v| !v.is_null()));
    (code, text(), data).prop_map(|(code, message, data)| RpcError {
        code,
        message: message.into(),
        data,
    })
}

fn annotations() -> impl Strategy<Value = Annotations> {
    (
        proptest::option::of(proptest::collection::vec(
            prop_oneof![Just(Role::User), Just(Role::Assistant)],
            0..3,
        )),
        proptest::option::of(text()),
        proptest::option::of((0u32..=16).prop_map(|n| f64::from(n) / 16.0)),
    )
        .prop_map(|(audience, last_modified, priority)| Annotations {
            audience,
            last_modified,
            priority: priority.and_then(serde_json::Number::from_f64),
            ..Annotations::new()
        })
}

fn content_block() -> impl Strategy<Value = ContentBlock> {
    prop_oneof![
        (
            text(),
            proptest::option::of(annotations()),
            proptest::option::of(object())
        )
            .prop_map(|(text, annotations, meta)| ContentBlock::Text(TextContent {
                annotations,
                meta,
                type_: TextContentType,
                ..TextContent::new(text)
            })),
        (
            text(),
            text(),
            proptest::option::of(annotations()),
            proptest::option::of(object()),
        )
            .prop_map(|(data, mime_type, annotations, meta)| {
                ContentBlock::Image(ImageContent {
                    annotations,
                    meta,
                    type_: ImageContentType,
                    ..ImageContent::new(data, mime_type)
                })
            }),
    ]
}

fn call_tool_request() -> impl Strategy<Value = CallToolRequest> {
    let meta = (
        proptest::option::of(progress_token()),
        object().prop_map(|mut m| {
            // A flattened map must not hold the named field's key.
            m.remove("progressToken");
            m
        }),
    )
        .prop_map(|(progress_token, extra)| CallToolRequestParamsMeta {
            progress_token,
            extra: extra.into(),
        });
    (
        request_id(),
        text(),
        proptest::option::of(object()),
        proptest::option::of(meta),
        proptest::option::of(proptest::option::of(any::<i64>())),
    )
        .prop_map(|(id, name, arguments, meta, task)| CallToolRequest {
            jsonrpc: JsonRpcVersion,
            method: CallToolRequestMethod,
            ..CallToolRequest::new(
                id,
                CallToolRequestParams {
                    arguments,
                    meta,
                    task: task.map(|ttl| TaskMetadata {
                        ttl,
                        ..TaskMetadata::new()
                    }),
                    ..CallToolRequestParams::new(name)
                },
            )
        })
}

fn call_tool_result() -> impl Strategy<Value = CallToolResult> {
    (
        proptest::collection::vec(content_block(), 0..4),
        proptest::option::of(any::<bool>()),
        proptest::option::of(object()),
        proptest::option::of(object()),
    )
        .prop_map(
            |(content, is_error, meta, structured_content)| CallToolResult {
                is_error,
                meta,
                structured_content: structured_content.map(Value::Object),
                ..CallToolResult::new(content)
            },
        )
}

fn client_capabilities() -> impl Strategy<Value = ClientCapabilities> {
    let maybe_object = || proptest::option::of(object());
    (
        proptest::option::of(proptest::option::of(any::<bool>())),
        proptest::option::of((maybe_object(), maybe_object())),
        proptest::option::of((maybe_object(), maybe_object())),
        proptest::option::of(proptest::collection::vec((key(), object()), 0..3)),
    )
        .prop_map(
            |(roots, sampling, elicitation, experimental)| ClientCapabilities {
                elicitation: elicitation.map(|(form, url)| ClientCapabilitiesElicitation {
                    form,
                    url,
                    ..ClientCapabilitiesElicitation::new()
                }),
                experimental: experimental.map(|e| e.into_iter().collect()),
                roots: roots.map(|list_changed| ClientCapabilitiesRoots {
                    list_changed,
                    ..ClientCapabilitiesRoots::new()
                }),
                sampling: sampling.map(|(context, tools)| ClientCapabilitiesSampling {
                    context,
                    tools,
                    ..ClientCapabilitiesSampling::new()
                }),
                ..ClientCapabilities::new()
            },
        )
}

fn initialize_request() -> impl Strategy<Value = InitializeRequest> {
    let implementation = (
        text(),
        text(),
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
    )
        .prop_map(|(name, version, title, description, website_url)| {
            let mut i = Implementation::new(name, version);
            i.title = title;
            i.description = description;
            i.website_url = website_url;
            i
        });
    let meta = proptest::option::of(proptest::option::of(progress_token())).prop_map(|m| {
        m.map(|progress_token| InitializeRequestParamsMeta {
            progress_token,
            extra: Default::default(),
        })
    });
    let version = prop_oneof![
        proptest::sample::select(vec!["2025-11-25", "2025-06-18", "2024-11-05"])
            .prop_map(str::to_string),
        text(),
    ];
    (
        request_id(),
        client_capabilities(),
        implementation,
        meta,
        version,
    )
        .prop_map(|(id, capabilities, client_info, meta, protocol_version)| {
            InitializeRequest {
                jsonrpc: JsonRpcVersion,
                method: InitializeRequestMethod,
                ..InitializeRequest::new(
                    id,
                    InitializeRequestParams {
                        meta,
                        ..InitializeRequestParams::new(capabilities, client_info, protocol_version)
                    },
                )
            }
        })
}

// ---------------------------------------------------------------------------
// Helpers

fn raw_json(raw: Option<&RawValue>) -> Option<Value> {
    raw.map(|r| serde_json::from_str(r.get()).unwrap())
}

/// Decodes `text` as a request through the JSON-RPC layer and then the
/// `ClientRequest` union, as the server does.
fn decode_client_request(text: &str) -> ClientRequest {
    let Inbound::Request(request) = decode(text).unwrap() else {
        panic!("not a request: {text}")
    };
    let method = ClientRequestMethod::from_name(&request.method).unwrap();
    ClientRequest::from_parts(method, request.id, request.params).unwrap()
}

// ---------------------------------------------------------------------------
// The JSON-RPC layer

proptest! {
    #![proptest_config(config())]

    #[test]
    fn ids_round_trip(id in request_id()) {
        let text = serde_json::to_string(&id).unwrap();
        prop_assert_eq!(serde_json::from_str::<RequestId>(&text).unwrap(), id);
    }

    #[test]
    fn requests_round_trip(id in request_id(), method in text(), params in proptest::option::of(object())) {
        let text = encode_request(&id, &method, params.as_ref()).unwrap();
        let Inbound::Request(request) = decode(&text).unwrap() else {
            panic!("not a request: {text}")
        };
        prop_assert_eq!(&request.id, &id);
        prop_assert_eq!(request.method.as_ref(), method.as_str());
        prop_assert_eq!(raw_json(request.params), params.clone().map(Value::Object));
        // The generated envelope reads the same text.
        let expected = JsonrpcRequest {
            jsonrpc: JsonRpcVersion,
            params,
            ..JsonrpcRequest::new(id, method)
        };
        prop_assert_eq!(serde_json::from_str::<JsonrpcRequest>(&text).unwrap(), expected.clone());
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcMessage>(&text).unwrap(),
            JsonrpcMessage::Request(expected)
        );
    }

    #[test]
    fn notifications_round_trip(method in text(), params in proptest::option::of(object())) {
        let text = encode_notification(&method, params.as_ref()).unwrap();
        let Inbound::Notification(notification) = decode(&text).unwrap() else {
            panic!("not a notification: {text}")
        };
        prop_assert_eq!(notification.method.as_ref(), method.as_str());
        prop_assert_eq!(raw_json(notification.params), params.clone().map(Value::Object));
        let expected = JsonrpcNotification {
            jsonrpc: JsonRpcVersion,
            params,
            ..JsonrpcNotification::new(method)
        };
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcNotification>(&text).unwrap(),
            expected.clone()
        );
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcMessage>(&text).unwrap(),
            JsonrpcMessage::Notification(expected)
        );
    }

    #[test]
    fn results_round_trip(id in request_id(), result in object(), meta in proptest::option::of(object())) {
        let mut body = result.clone();
        if let Some(meta) = &meta {
            body.insert("_meta".into(), Value::Object(meta.clone()));
        }
        let raw = to_raw_value(&body).unwrap();
        let text = encode_result(&id, &raw);
        let Inbound::Response(response) = decode(&text).unwrap() else {
            panic!("not a response: {text}")
        };
        prop_assert_eq!(response.id.as_ref(), Some(&id));
        prop_assert_eq!(raw_json(response.outcome.ok()), Some(Value::Object(body)));
        let expected = JsonrpcResultResponse {
            jsonrpc: JsonRpcVersion,
            ..JsonrpcResultResponse::new(id, BaseResult {
                meta,
                extra: result.into(),
                ..BaseResult::new()
            })
        };
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcResultResponse>(&text).unwrap(),
            expected.clone()
        );
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcMessage>(&text).unwrap(),
            JsonrpcMessage::ResultResponse(expected)
        );
    }

    #[test]
    fn empty_results_round_trip(id in request_id()) {
        let text = encode_empty_result(&id);
        let Inbound::Response(response) = decode(&text).unwrap() else {
            panic!("not a response: {text}")
        };
        prop_assert_eq!(response.id.as_ref(), Some(&id));
        prop_assert_eq!(response.outcome.unwrap().get(), "{}");
    }

    #[test]
    fn errors_round_trip(id in proptest::option::of(request_id()), error in rpc_error()) {
        let text = encode_error(id.as_ref(), &error);
        let Inbound::Response(response) = decode(&text).unwrap() else {
            panic!("not a response: {text}")
        };
        prop_assert_eq!(&response.id, &id);
        prop_assert_eq!(response.outcome.unwrap_err(), error.clone());
        let expected = JsonrpcErrorResponse {
            id,
            jsonrpc: JsonRpcVersion,
            ..JsonrpcErrorResponse::new(ErrorObject {
                data: error.data,
                ..ErrorObject::new(error.code.0, error.message.into_owned())
            })
        };
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcErrorResponse>(&text).unwrap(),
            expected.clone()
        );
        prop_assert_eq!(
            serde_json::from_str::<JsonrpcMessage>(&text).unwrap(),
            JsonrpcMessage::ErrorResponse(expected)
        );
    }
}

// ---------------------------------------------------------------------------
// Typed messages

proptest! {
    #![proptest_config(config())]

    #[test]
    fn call_tool_requests_round_trip(request in call_tool_request()) {
        let text = serde_json::to_string(&request).unwrap();
        prop_assert_eq!(serde_json::from_str::<CallToolRequest>(&text).unwrap(), request.clone());
        let union = ClientRequest::CallTool(request);
        prop_assert_eq!(serde_json::from_str::<ClientRequest>(&text).unwrap(), union.clone());
        prop_assert_eq!(decode_client_request(&text), union);
    }

    #[test]
    fn call_tool_results_round_trip(id in request_id(), result in call_tool_result()) {
        let text = serde_json::to_string(&result).unwrap();
        prop_assert_eq!(serde_json::from_str::<CallToolResult>(&text).unwrap(), result.clone());
        // Inside a response, read back by the method of its request.
        let response = encode_result(&id, &to_raw_value(&result).unwrap());
        let Inbound::Response(decoded) = decode(&response).unwrap() else {
            panic!("not a response: {response}")
        };
        let value: Value = serde_json::from_str(decoded.outcome.unwrap().get()).unwrap();
        prop_assert_eq!(
            ServerResult::from_value(ClientRequestMethod::CallTool, value).unwrap(),
            ServerResult::CallTool(result)
        );
    }

    #[test]
    fn initialize_requests_round_trip(request in initialize_request()) {
        let text = serde_json::to_string(&request).unwrap();
        prop_assert_eq!(serde_json::from_str::<InitializeRequest>(&text).unwrap(), request.clone());
        let union = ClientRequest::from(request);
        prop_assert_eq!(serde_json::from_str::<ClientRequest>(&text).unwrap(), union.clone());
        prop_assert_eq!(decode_client_request(&text), union);
    }
}
