//! Round-trip corpus for the generated MCP 2025-11-25 protocol types.
//!
//! The fixtures live in `tests/fixtures/messages/*.json`. Each file names a
//! `kind` (which dispatch union its cases belong to) and lists cases, each
//! with the specific Rust `type` of the message, the `method` that names the
//! union variant it must decode to, and the JSON `message` itself.
//!
//! For every case, [`fixtures_round_trip_and_match_the_official_schema`]
//! decodes the message through its specific type *and* through its dispatch
//! union, re-encodes both, and compares them with the original as
//! `serde_json::Value`s; it also validates the message against the official
//! JSON schema (`schema/2025-11-25/schema.json`). The focused tests below
//! check what `Value` equality cannot see (key order, the textual form of
//! numbers) and that malformed messages are rejected with useful errors.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a panic is a test failure"
)]

use std::collections::{BTreeSet, HashMap};
use std::fmt::Debug;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::schema::*;
use serde::Deserialize;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------
// Fixture files

/// One `tests/fixtures/messages/*.json` file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FixtureFile {
    kind: Kind,
    /// Free text for readers of the fixture file.
    #[allow(dead_code, reason = "documentation for people reading the JSON")]
    about: String,
    cases: Vec<Case>,
}

/// What a fixture file holds, which decides how its cases are checked.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
enum Kind {
    /// Full requests; members of `ClientRequest`.
    ClientRequest,
    /// Full requests; members of `ServerRequest`.
    ServerRequest,
    /// Full notifications; members of `ClientNotification`.
    ClientNotification,
    /// Full notifications; members of `ServerNotification`.
    ServerNotification,
    /// Result responses answering a `ClientRequest`; decoded by `ServerResult`.
    ServerResult,
    /// Result responses answering a `ServerRequest`; decoded by `ClientResult`.
    ClientResult,
    /// Result responses to task-augmented requests (`CreateTaskResult`).
    CreateTaskResult,
    /// Error responses.
    ErrorResponse,
}

/// One message and what it must decode to.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// Unique name, used in failure messages.
    name: String,
    /// The specific Rust type of the message (of `message.result` for results).
    #[serde(rename = "type")]
    type_name: String,
    /// The method: of the message itself (requests, notifications), or of the
    /// request a result answers. It names the expected union variant.
    method: Option<String>,
    /// The `$defs` entry of the official schema, when its name differs from
    /// `type` (`JSONRPCErrorResponse` for `JsonrpcErrorResponse`, …).
    schema_def: Option<String>,
    /// Set when the official JSON schema is known to reject the case although
    /// our types deliberately accept it; the reason is checked to be exactly
    /// that (see [`check_schema`]).
    schema_divergence: Option<String>,
    /// The JSON-RPC message.
    message: Value,
}

impl Case {
    fn schema_def(&self) -> &str {
        self.schema_def.as_deref().unwrap_or(&self.type_name)
    }

    fn method(&self, ctx: &str) -> &str {
        self.method
            .as_deref()
            .unwrap_or_else(|| panic!("{ctx}: the fixture needs a `method`"))
    }
}

/// A case with the file it came from.
#[derive(Clone, Debug)]
struct Loaded {
    kind: Kind,
    /// `file.json::case_name`, for failure messages.
    ctx: String,
    case: Case,
}

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/messages")
}

/// Every fixture case, loaded once.
fn fixtures() -> &'static [Loaded] {
    static FIXTURES: OnceLock<Vec<Loaded>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let dir = fixtures_dir();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        paths.sort();
        let mut all = Vec::new();
        let mut names = BTreeSet::new();
        for path in paths {
            let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let file: FixtureFile = serde_json::from_str(&text)
                .unwrap_or_else(|e| panic!("{file_name} is not a fixture file: {e}"));
            for case in file.cases {
                assert!(
                    names.insert(case.name.clone()),
                    "{file_name}: duplicate case name `{}`",
                    case.name
                );
                all.push(Loaded {
                    kind: file.kind,
                    ctx: format!("{file_name}::{}", case.name),
                    case,
                });
            }
        }
        assert!(!all.is_empty(), "no fixtures found in {}", dir.display());
        all
    })
}

/// The fixture case called `name`.
fn fixture(name: &str) -> &'static Loaded {
    fixtures()
        .iter()
        .find(|f| f.case.name == name)
        .unwrap_or_else(|| panic!("no fixture case named `{name}`"))
}

// ---------------------------------------------------------------------------
// The official JSON schema

fn schema_document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schema/2025-11-25/schema.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    })
}

/// A validator for `#/$defs/<def>`: the whole official schema document with
/// a root `$ref` to the definition, so every internal `$ref` resolves.
fn validator(def: &str) -> Arc<jsonschema::Validator> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap().get(def) {
        return Arc::clone(v);
    }
    let doc = schema_document();
    assert!(
        doc["$defs"].get(def).is_some(),
        "the official schema has no `$defs/{def}`"
    );
    let mut schema = doc.clone();
    schema
        .as_object_mut()
        .unwrap()
        .insert("$ref".into(), Value::String(format!("#/$defs/{def}")));
    let compiled = Arc::new(
        jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap_or_else(|e| panic!("compiling the schema for `{def}`: {e}")),
    );
    cache
        .lock()
        .unwrap()
        .insert(def.to_owned(), Arc::clone(&compiled));
    compiled
}

/// The official schema's complaints about `instance` as a `def`, as
/// `(instance path, message)` pairs; empty when it is valid.
fn schema_errors(def: &str, instance: &Value) -> Vec<(String, String)> {
    validator(def)
        .iter_errors(instance)
        .map(|e| (e.instance_path().as_str().to_owned(), e.to_string()))
        .collect()
}

fn assert_schema_valid(ctx: &str, def: &str, instance: &Value) {
    let errors = schema_errors(def, instance);
    assert!(
        errors.is_empty(),
        "{ctx}: the official schema rejects this as `{def}`: {errors:#?}"
    );
}

// ---------------------------------------------------------------------------
// Round-trip helpers

/// The first place where `expected` and `actual` differ, as a JSON pointer
/// with both values. `Value` equality ignores object key order but not the
/// kind of a number (`150` is not `150.0`).
fn first_difference(path: &str, expected: &Value, actual: &Value) -> Option<String> {
    match (expected, actual) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, va) in a {
                let p = format!("{path}/{k}");
                match b.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(&p, va, vb) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{p}: {va} was dropped")),
                }
            }
            b.keys()
                .find(|k| !a.contains_key(*k))
                .map(|k| format!("{path}/{k}: {} was added", b[k]))
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(&format!("{path}/{i}"), va, vb)),
        _ if expected == actual => None,
        _ => Some(format!("{path}: expected {expected}, got {actual}")),
    }
}

fn assert_same_json(ctx: &str, what: &str, expected: &Value, actual: &Value) {
    if expected != actual {
        let at = first_difference("", expected, actual).unwrap_or_default();
        panic!(
            "{ctx}: re-encoding through `{what}` changed the JSON at {at}\n\
             expected: {expected}\n     got: {actual}"
        );
    }
}

/// Decodes `value` as a `T` from JSON text (`from_str`) and from a `Value`
/// (`from_value`), checks the two agree, re-encodes and checks the result is
/// the same JSON as `value`.
fn round_trip<T>(ctx: &str, what: &str, value: &Value) -> T
where
    T: Serialize + DeserializeOwned + PartialEq + Debug,
{
    let text = serde_json::to_string(value).unwrap();
    let from_text: T = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{ctx}: decoding as `{what}` failed: {e}\n{text}"));
    let from_value: T = serde_json::from_value(value.clone())
        .unwrap_or_else(|e| panic!("{ctx}: decoding a Value as `{what}` failed: {e}"));
    assert_eq!(
        from_text, from_value,
        "{ctx}: `{what}` decodes differently from text and from a Value"
    );
    let back = serde_json::to_value(&from_text).unwrap();
    assert_same_json(ctx, what, value, &back);
    // The text form too: it must parse back to the same JSON.
    let back_text = serde_json::to_string(&from_text).unwrap();
    let reparsed: Value = serde_json::from_str(&back_text).unwrap();
    assert_same_json(ctx, what, value, &reparsed);
    from_text
}

fn short_type_name<T>() -> &'static str {
    let full = std::any::type_name::<T>();
    full.rsplit("::").next().unwrap_or(full)
}

// ---------------------------------------------------------------------------
// Requests and notifications

/// What the four message dispatch unions have in common.
trait MessageUnion: Serialize + DeserializeOwned + PartialEq + Debug {
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

fn check_request<T, U>(ctx: &str, case: &Case)
where
    T: McpRequest + PartialEq + Debug + Clone + Into<U>,
    U: MessageUnion,
{
    check_message::<T, U>(ctx, case, T::METHOD);
}

fn check_notification<T, U>(ctx: &str, case: &Case)
where
    T: McpNotification + PartialEq + Debug + Clone + Into<U>,
    U: MessageUnion,
{
    check_message::<T, U>(ctx, case, T::METHOD);
}

// ---------------------------------------------------------------------------
// Results

/// What the two result unions have in common.
trait ResultUnion: Serialize + PartialEq + Debug + Sized {
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
fn check_result<T, U>(ctx: &str, case: &Case)
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

fn check_create_task_result(ctx: &str, case: &Case) {
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

fn check_error<T>(ctx: &str, case: &Case)
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

// ---------------------------------------------------------------------------
// Schema validation of a case

/// Validates `instance` as `def`, honouring a documented divergence.
fn check_schema(ctx: &str, case: &Case, def: &str, instance: &Value) {
    let Some(reason) = &case.schema_divergence else {
        assert_schema_valid(ctx, def, instance);
        return;
    };
    // The one known divergence: schema.json types ElicitResult content
    // values as string|integer|boolean|string[], while the normative
    // schema.ts allows any number (SEP-1034 number fields such as `95.5`).
    // Our types follow schema.ts (codegen patch `elicit-result-values`), so
    // schema validation is skipped for such a case. It is not silently
    // skipped: the schema must reject it, and only because of non-integer
    // numbers among the content values, so nothing else can hide here.
    assert!(
        reason.contains("ElicitResult"),
        "{ctx}: unexpected schema_divergence: {reason}"
    );
    assert_eq!(
        def, "ElicitResult",
        "{ctx}: divergence only covers ElicitResult"
    );
    let errors = schema_errors(def, instance);
    assert!(
        !errors.is_empty(),
        "{ctx}: marked as a schema divergence but the official schema accepts it; \
         drop `schema_divergence`"
    );
    for (path, message) in &errors {
        let value = instance.pointer(path);
        let fractional = value.and_then(Value::as_number).is_some_and(|n| n.is_f64());
        assert!(
            path.starts_with("/content/") && fractional,
            "{ctx}: the official schema rejects more than a fractional content value: \
             {path}: {message}"
        );
    }
    // With the fractional numbers made integral, the official schema accepts it.
    let mut integral = instance.clone();
    for v in integral["content"].as_object_mut().unwrap().values_mut() {
        if v.is_f64() {
            *v = json!(v.as_f64().unwrap().trunc() as i64);
        }
    }
    assert_schema_valid(ctx, def, &integral);
}

// ---------------------------------------------------------------------------
// The data-driven test

macro_rules! by_type {
    ($ctx:expr, $case:expr, $check:ident::<_, $union:ty>, [$($ty:ident),* $(,)?]) => {
        match $case.type_name.as_str() {
            $(stringify!($ty) => $check::<$ty, $union>($ctx, $case),)*
            other => panic!("{}: `{}` is not a type this kind of fixture can hold", $ctx, other),
        }
    };
}

fn check_case(loaded: &Loaded) {
    let ctx = loaded.ctx.as_str();
    let case = &loaded.case;
    match loaded.kind {
        Kind::ClientRequest => by_type!(
            ctx,
            case,
            check_request::<_, ClientRequest>,
            [
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
            ]
        ),
        Kind::ServerRequest => by_type!(
            ctx,
            case,
            check_request::<_, ServerRequest>,
            [
                PingRequest,
                GetTaskRequest,
                GetTaskPayloadRequest,
                CancelTaskRequest,
                ListTasksRequest,
                CreateMessageRequest,
                ListRootsRequest,
                ElicitRequest,
            ]
        ),
        Kind::ClientNotification => {
            by_type!(
                ctx,
                case,
                check_notification::<_, ClientNotification>,
                [
                    CancelledNotification,
                    InitializedNotification,
                    ProgressNotification,
                    TaskStatusNotification,
                    RootsListChangedNotification,
                ]
            )
        }
        Kind::ServerNotification => {
            by_type!(
                ctx,
                case,
                check_notification::<_, ServerNotification>,
                [
                    CancelledNotification,
                    ProgressNotification,
                    ResourceListChangedNotification,
                    ResourceUpdatedNotification,
                    PromptListChangedNotification,
                    ToolListChangedNotification,
                    TaskStatusNotification,
                    LoggingMessageNotification,
                    ElicitationCompleteNotification,
                ]
            )
        }
        Kind::ServerResult => by_type!(
            ctx,
            case,
            check_result::<_, ServerResult>,
            [
                InitializeResult,
                EmptyResult,
                ListResourcesResult,
                ListResourceTemplatesResult,
                ReadResourceResult,
                ListPromptsResult,
                GetPromptResult,
                ListToolsResult,
                CallToolResult,
                GetTaskResult,
                GetTaskPayloadResult,
                CancelTaskResult,
                ListTasksResult,
                CompleteResult,
            ]
        ),
        Kind::ClientResult => by_type!(
            ctx,
            case,
            check_result::<_, ClientResult>,
            [
                EmptyResult,
                GetTaskResult,
                GetTaskPayloadResult,
                CancelTaskResult,
                ListTasksResult,
                CreateMessageResult,
                ListRootsResult,
                ElicitResult,
            ]
        ),
        Kind::CreateTaskResult => check_create_task_result(ctx, case),
        Kind::ErrorResponse => match case.type_name.as_str() {
            "JsonrpcErrorResponse" => check_error::<JsonrpcErrorResponse>(ctx, case),
            "UrlElicitationRequiredError" => check_error::<UrlElicitationRequiredError>(ctx, case),
            other => panic!("{ctx}: `{other}` is not an error response type"),
        },
    }
}

#[test]
fn fixtures_round_trip_and_match_the_official_schema() {
    let mut failures = Vec::new();
    for loaded in fixtures() {
        if catch_unwind(AssertUnwindSafe(|| check_case(loaded))).is_err() {
            failures.push(loaded.ctx.clone());
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixture cases failed (messages above): {failures:#?}",
        failures.len(),
        fixtures().len()
    );
}

#[test]
fn every_union_member_has_a_fixture() {
    let methods_of = |kind: Kind| -> BTreeSet<&str> {
        fixtures()
            .iter()
            .filter(|f| f.kind == kind)
            .filter_map(|f| f.case.method.as_deref())
            .collect()
    };
    let expect = |kind: Kind, all: Vec<&'static str>| {
        let have = methods_of(kind);
        let missing: Vec<_> = all.iter().filter(|m| !have.contains(*m)).collect();
        assert!(missing.is_empty(), "{kind:?}: no fixture for {missing:?}");
    };
    // These fixtures are 2025-11-25 messages: every method that revision has
    // (the method table says which; 2026-07-28 is covered by `examples.rs`).
    let v = mcp_core::ProtocolVersion::V2025_11_25;
    let client_requests: Vec<_> = ClientRequestMethod::ALL
        .iter()
        .filter(|m| m.in_revision(v))
        .map(|m| m.as_str())
        .collect();
    let server_requests: Vec<_> = ServerRequestMethod::ALL
        .iter()
        .filter(|m| m.in_revision(v))
        .map(|m| m.as_str())
        .collect();
    expect(Kind::ClientRequest, client_requests.clone());
    expect(Kind::ServerRequest, server_requests.clone());
    expect(
        Kind::ClientNotification,
        ClientNotificationMethod::ALL
            .iter()
            .filter(|m| m.in_revision(v))
            .map(|m| m.as_str())
            .collect(),
    );
    expect(
        Kind::ServerNotification,
        ServerNotificationMethod::ALL
            .iter()
            .filter(|m| m.in_revision(v))
            .map(|m| m.as_str())
            .collect(),
    );
    // A result for every request, in both directions.
    expect(Kind::ServerResult, client_requests);
    expect(Kind::ClientResult, server_requests);

    let types_of = |kind: Kind| -> BTreeSet<&str> {
        fixtures()
            .iter()
            .filter(|f| f.kind == kind)
            .map(|f| f.case.type_name.as_str())
            .collect()
    };
    assert!(types_of(Kind::CreateTaskResult).contains("CreateTaskResult"));
    let errors = types_of(Kind::ErrorResponse);
    assert!(errors.contains("JsonrpcErrorResponse"), "{errors:?}");
    assert!(errors.contains("UrlElicitationRequiredError"), "{errors:?}");
}

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

// ---------------------------------------------------------------------------
// Elicitation

#[test]
fn elicitation_form_enum_shapes_decode_to_the_right_variants() {
    let message = &fixture("elicitation_create_form_all_enum_shapes")
        .case
        .message;
    let request: ElicitRequest = serde_json::from_value(message.clone()).unwrap();
    let ElicitRequestParams::Form(form) = &request.params else {
        panic!("expected form mode, got {:?}", request.params);
    };
    assert!(form.mode.is_some(), "explicit `mode: form` must be kept");
    let schema = &form.requested_schema;
    assert_eq!(
        schema.schema.as_deref(),
        Some("https://json-schema.org/draft/2020-12/schema")
    );
    let props = &schema.properties;
    let variant = |name: &str| -> &'static str {
        match props
            .get(name)
            .unwrap_or_else(|| panic!("no property {name}"))
        {
            PrimitiveSchemaDefinition::TitledSingleSelectEnumSchema(_) => "TitledSingleSelect",
            PrimitiveSchemaDefinition::LegacyTitledEnumSchema(_) => "LegacyTitled",
            PrimitiveSchemaDefinition::UntitledSingleSelectEnumSchema(_) => "UntitledSingleSelect",
            PrimitiveSchemaDefinition::TitledMultiSelectEnumSchema(_) => "TitledMultiSelect",
            PrimitiveSchemaDefinition::UntitledMultiSelectEnumSchema(_) => "UntitledMultiSelect",
            PrimitiveSchemaDefinition::StringSchema(_) => "String",
            PrimitiveSchemaDefinition::NumberSchema(_) => "Number",
            PrimitiveSchemaDefinition::BooleanSchema(_) => "Boolean",
        }
    };
    let expected = [
        ("name", "String"),
        ("email", "String"),
        ("age", "Number"),
        ("score", "Number"),
        ("newsletter", "Boolean"),
        ("color", "UntitledSingleSelect"),
        ("size", "TitledSingleSelect"),
        ("plan", "LegacyTitled"),
        ("toppings", "UntitledMultiSelect"),
        ("languages", "TitledMultiSelect"),
    ];
    assert_eq!(props.len(), expected.len());
    for (name, want) in expected {
        assert_eq!(variant(name), want, "property `{name}`");
    }

    // SEP-1034 defaults, with the right types and values.
    let PrimitiveSchemaDefinition::StringSchema(name) = &props["name"] else {
        unreachable!()
    };
    assert_eq!(name.default.as_deref(), Some("Ada Lovelace"));
    assert_eq!((name.min_length, name.max_length), (Some(1), Some(100)));
    let PrimitiveSchemaDefinition::StringSchema(email) = &props["email"] else {
        unreachable!()
    };
    assert_eq!(email.format, Some(StringSchemaFormat::Email));
    let PrimitiveSchemaDefinition::NumberSchema(age) = &props["age"] else {
        unreachable!()
    };
    assert_eq!(age.type_, NumberSchemaType::Integer);
    let age_default = age.default.as_ref().unwrap();
    assert!(
        age_default.is_u64(),
        "30 must stay an integer: {age_default}"
    );
    assert_eq!(age_default.as_u64(), Some(30));
    let PrimitiveSchemaDefinition::NumberSchema(score) = &props["score"] else {
        unreachable!()
    };
    assert_eq!(score.type_, NumberSchemaType::Number);
    assert_eq!(score.default.as_ref().and_then(|n| n.as_f64()), Some(95.5));
    let PrimitiveSchemaDefinition::BooleanSchema(newsletter) = &props["newsletter"] else {
        unreachable!()
    };
    assert_eq!(newsletter.default, Some(true));
    let PrimitiveSchemaDefinition::UntitledSingleSelectEnumSchema(color) = &props["color"] else {
        unreachable!()
    };
    assert_eq!(color.enum_, ["red", "green", "blue"]);
    assert_eq!(color.default.as_deref(), Some("green"));
    let PrimitiveSchemaDefinition::TitledSingleSelectEnumSchema(size) = &props["size"] else {
        unreachable!()
    };
    let sizes: Vec<_> = size
        .one_of
        .iter()
        .map(|o| (o.const_.as_str(), o.title.as_str()))
        .collect();
    assert_eq!(sizes, [("s", "Small"), ("m", "Medium"), ("l", "Large")]);
    assert_eq!(size.default.as_deref(), Some("m"));
    let PrimitiveSchemaDefinition::LegacyTitledEnumSchema(plan) = &props["plan"] else {
        unreachable!()
    };
    assert_eq!(plan.enum_names, ["Free tier", "Professional"]);
    assert_eq!(plan.default.as_deref(), Some("pro"));
    let PrimitiveSchemaDefinition::UntitledMultiSelectEnumSchema(toppings) = &props["toppings"]
    else {
        unreachable!()
    };
    assert_eq!(toppings.items.enum_, ["cheese", "ham", "olives"]);
    assert_eq!((toppings.min_items, toppings.max_items), (Some(1), Some(3)));
    assert_eq!(
        toppings.default.as_deref(),
        Some(&["cheese".to_owned()][..])
    );
    let PrimitiveSchemaDefinition::TitledMultiSelectEnumSchema(languages) = &props["languages"]
    else {
        unreachable!()
    };
    let ts = &languages.items.any_of[2];
    assert_eq!(
        (ts.const_.as_str(), ts.title.as_str()),
        ("ts", "TypeScript")
    );
    assert_eq!(
        languages.default.as_deref(),
        Some(&["rust".to_owned(), "ts".to_owned()][..])
    );

    // Without `mode`, a request is still form mode, and stays without it.
    let bare = &fixture("elicitation_create_form_without_mode").case.message;
    let request: ServerRequest = serde_json::from_value(bare.clone()).unwrap();
    let ServerRequest::Elicit(ElicitRequest {
        params: ElicitRequestParams::Form(form),
        ..
    }) = &request
    else {
        panic!("expected a form elicitation, got {request:?}");
    };
    assert!(form.mode.is_none());
    assert!(
        serde_json::to_value(&request).unwrap()["params"]
            .get("mode")
            .is_none()
    );
}

#[test]
fn elicitation_url_mode_decodes_as_url() {
    let message = &fixture("elicitation_create_url_mode").case.message;
    let request: ServerRequest = serde_json::from_value(message.clone()).unwrap();
    let ServerRequest::Elicit(ElicitRequest {
        params: ElicitRequestParams::Url(url),
        ..
    }) = &request
    else {
        panic!("expected a URL elicitation, got {request:?}");
    };
    assert_eq!(
        url.elicitation_id.as_deref(),
        Some("550e8400-e29b-41d4-a716-446655440000")
    );
    assert_eq!(url.url, "https://mcp.example.com/ui/set_api_key");
    assert_eq!(request.method(), ServerRequestMethod::Elicit);

    // The same parameters inside a URLElicitationRequiredError.
    let error: UrlElicitationRequiredError = serde_json::from_value(
        fixture("url_elicitation_required_error")
            .case
            .message
            .clone(),
    )
    .unwrap();
    assert_eq!(*error.error.code, -32042);
    assert_eq!(
        error.error.data.elicitations[0].elicitation_id,
        url.elicitation_id
    );
    assert_eq!(
        error.error.data.extra.get("com.example/hint"),
        Some(&json!("retry after authorizing"))
    );
}

#[test]
fn elicit_result_values_keep_their_kind() {
    let message = &fixture("elicit_result_accept_all_value_kinds").case.message;
    let result =
        ClientResult::from_value(ServerRequestMethod::Elicit, message["result"].clone()).unwrap();
    let ClientResult::Elicit(result) = result else {
        panic!("expected ClientResult::Elicit, got {result:?}");
    };
    assert_eq!(result.action, ElicitResultAction::Accept);
    let content = result.content.as_ref().unwrap();
    assert!(matches!(&content["name"], ElicitResultContentValue::String(s) if s == "Ada Lovelace"));
    let ElicitResultContentValue::JsonNumber(score) = &content["score"] else {
        panic!("score: {:?}", content["score"]);
    };
    assert_eq!(score.as_f64(), Some(95.5));
    let ElicitResultContentValue::JsonNumber(age) = &content["age"] else {
        panic!("age: {:?}", content["age"]);
    };
    assert!(age.is_u64() && age.as_u64() == Some(30), "{age}");
    assert!(matches!(
        content["newsletter"],
        ElicitResultContentValue::Boolean(true)
    ));
    assert!(
        matches!(&content["languages"], ElicitResultContentValue::Array(a) if a == &["rust", "ts"])
    );
    let text = serde_json::to_string(&result).unwrap();
    assert!(text.contains(r#""score":95.5,"age":30,"#), "{text}");
}

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
