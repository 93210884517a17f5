//! The checks of one fixture case by kind: requests and notifications
//! through their dispatch unions, results, and error responses.

use std::fmt::Debug;

use mcp_core::schema::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::Case;
use crate::compare::{assert_same_json, round_trip, short_type_name};
use crate::official_schema::{assert_schema_valid, check_schema};

// ---------------------------------------------------------------------------
// Requests and notifications

/// What the four message dispatch unions have in common.
pub(crate) trait MessageUnion: Serialize + DeserializeOwned + PartialEq + Debug {
    const NAME: &'static str;
    /// The official schema's `$defs` entry for the union.
    const SCHEMA_DEF: &'static str;
    /// Requests carry an `id`; notifications do not.
    const IS_REQUEST: bool;
    fn method_name(&self) -> &'static str;
    fn tag_name(&self) -> &'static str;
    fn decode_value(value: Value) -> Result<Self, serde_json::Error>;
    fn from_wire_parts(
        method: &str,
        id: Option<RequestId>,
        params: Option<&RawValue>,
    ) -> Result<Self, serde_json::Error>;
}

macro_rules! message_union {
    (request $union:ident, $methods:ident) => {
        impl MessageUnion for $union {
            const NAME: &'static str = stringify!($union);
            const SCHEMA_DEF: &'static str = stringify!($union);
            const IS_REQUEST: bool = true;
            fn method_name(&self) -> &'static str {
                self.method().as_str()
            }
            fn tag_name(&self) -> &'static str {
                self.tag()
            }
            fn decode_value(value: Value) -> Result<Self, serde_json::Error> {
                Self::from_value(value)
            }
            fn from_wire_parts(
                method: &str,
                id: Option<RequestId>,
                params: Option<&RawValue>,
            ) -> Result<Self, serde_json::Error> {
                let method = $methods::from_name(method)
                    .unwrap_or_else(|| panic!("`{method}` is not a {} method", Self::NAME));
                Self::from_parts(method, id.expect("a request has an id"), params)
            }
        }
    };
    (notification $union:ident, $methods:ident) => {
        impl MessageUnion for $union {
            const NAME: &'static str = stringify!($union);
            const SCHEMA_DEF: &'static str = stringify!($union);
            const IS_REQUEST: bool = false;
            fn method_name(&self) -> &'static str {
                self.method().as_str()
            }
            fn tag_name(&self) -> &'static str {
                self.tag()
            }
            fn decode_value(value: Value) -> Result<Self, serde_json::Error> {
                Self::from_value(value)
            }
            fn from_wire_parts(
                method: &str,
                id: Option<RequestId>,
                params: Option<&RawValue>,
            ) -> Result<Self, serde_json::Error> {
                assert!(id.is_none(), "a notification has no id");
                let method = $methods::from_name(method)
                    .unwrap_or_else(|| panic!("`{method}` is not a {} method", Self::NAME));
                Self::from_parts(method, params)
            }
        }
    };
}

message_union!(request ClientRequest, ClientRequestMethod);
message_union!(request ServerRequest, ServerRequestMethod);
message_union!(notification ClientNotification, ClientNotificationMethod);
message_union!(notification ServerNotification, ServerNotificationMethod);

/// Checks a full request or notification of specific type `T`, a member of
/// the union `U`; `declared` is `T`'s `McpRequest`/`McpNotification` METHOD.
fn check_message<T, U>(ctx: &str, case: &Case, declared: &'static str)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug + Clone + Into<U>,
    U: MessageUnion,
{
    let method = case.method(ctx);
    assert_eq!(
        declared, method,
        "{ctx}: `{}` declares METHOD `{declared}`, the fixture says `{method}`",
        case.type_name
    );

    // The specific struct.
    let specific: T = round_trip(ctx, &case.type_name, &case.message);

    // The dispatch union: same JSON, the right variant, the same content.
    let via_union: U = round_trip(ctx, U::NAME, &case.message);
    assert_eq!(
        via_union.method_name(),
        method,
        "{ctx}: {} picked the wrong variant",
        U::NAME
    );
    assert_eq!(via_union.tag_name(), method, "{ctx}: {} tag", U::NAME);
    let direct = U::decode_value(case.message.clone())
        .unwrap_or_else(|e| panic!("{ctx}: {}::from_value failed: {e}", U::NAME));
    assert_eq!(direct, via_union, "{ctx}: {}::from_value", U::NAME);
    let wrapped: U = specific.clone().into();
    assert_eq!(
        via_union,
        wrapped,
        "{ctx}: {} decoded to a different value than `{}` did",
        U::NAME,
        case.type_name
    );

    // The union rebuilt from wire parts, as a transport that has already
    // split the envelope does it.
    let id = case
        .message
        .get("id")
        .map(|id| serde_json::from_value::<RequestId>(id.clone()).unwrap());
    assert_eq!(
        id.is_some(),
        U::IS_REQUEST,
        "{ctx}: requests need an `id`, notifications must not have one"
    );
    let params = case
        .message
        .get("params")
        .map(|p| serde_json::value::to_raw_value(p).unwrap());
    let rebuilt = U::from_wire_parts(method, id, params.as_deref())
        .unwrap_or_else(|e| panic!("{ctx}: {}::from_parts failed: {e}", U::NAME));
    assert_eq!(rebuilt, via_union, "{ctx}: {}::from_parts", U::NAME);

    // The generic JSON-RPC envelope.
    let generic: JsonrpcMessage = round_trip(ctx, "JsonrpcMessage", &case.message);
    match (&generic, U::IS_REQUEST) {
        (JsonrpcMessage::Request(r), true) => assert_eq!(r.method, method, "{ctx}"),
        (JsonrpcMessage::Notification(n), false) => assert_eq!(n.method, method, "{ctx}"),
        (other, _) => panic!("{ctx}: JsonrpcMessage decoded the wrong kind: {other:?}"),
    }

    check_schema(ctx, case, case.schema_def(), &case.message);
    assert_schema_valid(ctx, U::SCHEMA_DEF, &case.message);
    assert_schema_valid(ctx, "JSONRPCMessage", &case.message);
}

pub(crate) fn check_request<T, U>(ctx: &str, case: &Case)
where
    T: McpRequest + PartialEq + Debug + Clone + Into<U>,
    U: MessageUnion,
{
    check_message::<T, U>(ctx, case, T::METHOD);
}

pub(crate) fn check_notification<T, U>(ctx: &str, case: &Case)
where
    T: McpNotification + PartialEq + Debug + Clone + Into<U>,
    U: MessageUnion,
{
    check_message::<T, U>(ctx, case, T::METHOD);
}

// ---------------------------------------------------------------------------
// Results

/// What the two result unions have in common.
pub(crate) trait ResultUnion: Serialize + PartialEq + Debug + Sized {
    const NAME: &'static str;
    const SCHEMA_DEF: &'static str;
    fn decode_value(method: &str, value: Value) -> Result<Self, serde_json::Error>;
    fn decode_str(method: &str, json: &str) -> Result<Self, serde_json::Error>;
    fn method_name(&self) -> &'static str;
}

macro_rules! result_union {
    ($union:ident, $methods:ident) => {
        impl ResultUnion for $union {
            const NAME: &'static str = stringify!($union);
            const SCHEMA_DEF: &'static str = stringify!($union);
            fn decode_value(method: &str, value: Value) -> Result<Self, serde_json::Error> {
                let m = $methods::from_name(method).unwrap_or_else(|| {
                    panic!("`{method}` is not a {} method", stringify!($methods))
                });
                Self::from_value(m, value)
            }
            fn decode_str(method: &str, json: &str) -> Result<Self, serde_json::Error> {
                let m = $methods::from_name(method).unwrap_or_else(|| {
                    panic!("`{method}` is not a {} method", stringify!($methods))
                });
                Self::from_json_str(m, json)
            }
            fn method_name(&self) -> &'static str {
                self.method().as_str()
            }
        }
    };
}

result_union!(ServerResult, ClientRequestMethod);
result_union!(ClientResult, ServerRequestMethod);

/// The `McpRequest::Result` type of the request type whose METHOD is `method`.
fn declared_result_type(method: &str) -> &'static str {
    macro_rules! lookup {
        ($($request:ty),* $(,)?) => {
            $(
                if <$request as McpRequest>::METHOD == method {
                    return short_type_name::<<$request as McpRequest>::Result>();
                }
            )*
        };
    }
    lookup!(
        InitializeRequest,
        PingRequest,
        ListResourcesRequest,
        ListResourceTemplatesRequest,
        ReadResourceRequest,
        SubscribeRequest,
        UnsubscribeRequest,
        ListPromptsRequest,
        GetPromptRequest,
        ListToolsRequest,
        CallToolRequest,
        GetTaskRequest,
        GetTaskPayloadRequest,
        CancelTaskRequest,
        ListTasksRequest,
        SetLevelRequest,
        CompleteRequest,
        CreateMessageRequest,
        ListRootsRequest,
        ElicitRequest,
    );
    panic!("no request type has METHOD `{method}`")
}

/// Checks the JSON-RPC result envelope of a case and returns its `result`.
fn check_result_envelope<'a>(ctx: &str, case: &'a Case) -> &'a Value {
    let envelope: JsonrpcResultResponse = round_trip(ctx, "JsonrpcResultResponse", &case.message);
    let generic: JsonrpcMessage = round_trip(ctx, "JsonrpcMessage", &case.message);
    assert_eq!(
        generic,
        JsonrpcMessage::ResultResponse(envelope.clone()),
        "{ctx}: JsonrpcMessage picked the wrong kind"
    );
    let response: JsonrpcResponse = round_trip(ctx, "JsonrpcResponse", &case.message);
    assert_eq!(
        response,
        JsonrpcResponse::ResultResponse(envelope),
        "{ctx}: JsonrpcResponse picked the wrong kind"
    );
    assert_schema_valid(ctx, "JSONRPCResultResponse", &case.message);
    assert_schema_valid(ctx, "JSONRPCMessage", &case.message);
    case.message
        .get("result")
        .unwrap_or_else(|| panic!("{ctx}: a result response needs a `result`"))
}

/// Checks a result response whose `result` is a `T`, decoded by the union `U`.
pub(crate) fn check_result<T, U>(ctx: &str, case: &Case)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
    U: ResultUnion,
{
    let method = case.method(ctx);
    assert_eq!(
        declared_result_type(method),
        case.type_name,
        "{ctx}: the McpRequest::Result of `{method}` is not the fixture's type"
    );
    assert_eq!(short_type_name::<T>(), case.type_name, "{ctx}");
    let result = check_result_envelope(ctx, case);

    let specific: T = round_trip(ctx, &case.type_name, result);

    let via_union = U::decode_value(method, result.clone())
        .unwrap_or_else(|e| panic!("{ctx}: {}::from_value(`{method}`) failed: {e}", U::NAME));
    assert_eq!(
        via_union.method_name(),
        method,
        "{ctx}: {} picked the wrong variant",
        U::NAME
    );
    assert_same_json(
        ctx,
        U::NAME,
        result,
        &serde_json::to_value(&via_union).unwrap(),
    );
    assert_eq!(
        serde_json::to_value(&via_union).unwrap(),
        serde_json::to_value(&specific).unwrap(),
        "{ctx}: {} and `{}` disagree",
        U::NAME,
        case.type_name
    );
    let from_text = U::decode_str(method, &serde_json::to_string(result).unwrap())
        .unwrap_or_else(|e| panic!("{ctx}: {}::from_json_str failed: {e}", U::NAME));
    assert_eq!(from_text, via_union, "{ctx}: {}::from_json_str", U::NAME);

    check_schema(ctx, case, case.schema_def(), result);
    // The union defs in schema.json are `anyOf`s that include the open
    // `Result`, so they accept any object; kept for completeness.
    assert_schema_valid(ctx, U::SCHEMA_DEF, result);
}

pub(crate) fn check_create_task_result(ctx: &str, case: &Case) {
    assert_eq!(case.type_name, "CreateTaskResult", "{ctx}");
    let method = case.method(ctx);
    // Only requests whose params take a `task` can be task-augmented.
    assert!(
        ["tools/call", "sampling/createMessage", "elicitation/create"].contains(&method),
        "{ctx}: `{method}` cannot be task-augmented"
    );
    let result = check_result_envelope(ctx, case);
    let task: CreateTaskResult = round_trip(ctx, "CreateTaskResult", result);
    // The nested Task must also stand on its own.
    let inner: Task = round_trip(ctx, "Task", &result["task"]);
    assert_eq!(task.task, inner, "{ctx}");
    check_schema(ctx, case, "CreateTaskResult", result);
    assert_schema_valid(ctx, "Task", &result["task"]);
}

// ---------------------------------------------------------------------------
// Error responses

pub(crate) fn check_error<T>(ctx: &str, case: &Case)
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    assert_eq!(short_type_name::<T>(), case.type_name, "{ctx}");
    let _specific: T = round_trip(ctx, &case.type_name, &case.message);
    let generic: JsonrpcErrorResponse = round_trip(ctx, "JsonrpcErrorResponse", &case.message);
    let message: JsonrpcMessage = round_trip(ctx, "JsonrpcMessage", &case.message);
    assert_eq!(
        message,
        JsonrpcMessage::ErrorResponse(generic.clone()),
        "{ctx}: JsonrpcMessage picked the wrong kind"
    );
    let response: JsonrpcResponse = round_trip(ctx, "JsonrpcResponse", &case.message);
    assert_eq!(
        response,
        JsonrpcResponse::ErrorResponse(generic),
        "{ctx}: JsonrpcResponse picked the wrong kind"
    );
    check_schema(ctx, case, case.schema_def(), &case.message);
    assert_schema_valid(ctx, "JSONRPCErrorResponse", &case.message);
    assert_schema_valid(ctx, "JSONRPCMessage", &case.message);
}
