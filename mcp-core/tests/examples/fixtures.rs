//! The 2025-11-25 message fixtures of `roundtrip/`
//! (`tests/fixtures/messages/*.json`), read through the exact
//! `v2025_11_25` types: each message, its union or result enum, and the
//! JSON-RPC envelopes.

use std::path::Path;

use mcp_core::schema::v2025_11_25 as v25;
use serde::Deserialize;
use serde_json::Value;

use crate::Sample;
use crate::codec::{Check, by_method, member, through};

#[derive(Deserialize)]
struct File {
    kind: String,
    cases: Vec<RawCase>,
}

#[derive(Deserialize)]
struct RawCase {
    name: String,
    #[serde(rename = "type")]
    type_name: String,
    method: Option<String>,
    schema_def: Option<String>,
    message: Value,
}

/// One fixture case: the parts to read (the message; for a result
/// response also its result), each as `(name, schema def, value, checks)`.
pub(crate) struct Case {
    parts: Vec<(String, String, Value, Vec<Check>)>,
}

impl Case {
    pub(crate) fn samples(&self) -> Vec<Sample<'_>> {
        self.parts
            .iter()
            .map(|(name, def, value, checks)| Sample {
                name: name.clone(),
                def: def.clone(),
                value: value.clone(),
                checks,
            })
            .collect()
    }
}

pub(crate) fn cases() -> Vec<Case> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/messages");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let mut cases = Vec::new();
    for path in paths {
        let file_name = path.file_name().unwrap().to_string_lossy().into_owned();
        let file: File = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for raw in file.cases {
            cases.push(case(&file.kind, &file_name, raw));
        }
    }
    assert!(!cases.is_empty());
    cases
}

fn exact(what: &str, at: &'static str, run: fn(&Value) -> crate::codec::Outcome) -> Check {
    Check::new(format!("v2025_11_25::{what}"), false, at, run)
}

/// `through::<v25::$ty>` by the type's name.
macro_rules! by_name {
    ($name:expr, [$($ty:ident),* $(,)?]) => {
        match $name {
            $(stringify!($ty) => exact(stringify!($ty), "", through::<v25::$ty>),)*
            other => panic!("no v2025_11_25 type `{other}` in examples/fixtures.rs"),
        }
    };
}

/// `member::<v25::$ty, v25::$union>` by the type's name.
macro_rules! member_by_name {
    ($name:expr, $union:ident, [$($ty:ident),* $(,)?]) => {
        match $name {
            $(stringify!($ty) => exact(
                concat!(stringify!($union), " holding ", stringify!($ty)),
                "",
                member::<v25::$ty, v25::$union>,
            ),)*
            other => panic!("`{other}` is not a member of {}", stringify!($union)),
        }
    };
}

fn type_check(name: &str) -> Check {
    by_name!(
        name,
        [
            CallToolRequest,
            CancelTaskRequest,
            CompleteRequest,
            GetPromptRequest,
            GetTaskPayloadRequest,
            GetTaskRequest,
            InitializeRequest,
            ListPromptsRequest,
            ListResourceTemplatesRequest,
            ListResourcesRequest,
            ListTasksRequest,
            ListToolsRequest,
            PingRequest,
            ReadResourceRequest,
            SetLevelRequest,
            SubscribeRequest,
            UnsubscribeRequest,
            CreateMessageRequest,
            ElicitRequest,
            ListRootsRequest,
            CancelledNotification,
            InitializedNotification,
            ProgressNotification,
            RootsListChangedNotification,
            TaskStatusNotification,
            ElicitationCompleteNotification,
            LoggingMessageNotification,
            PromptListChangedNotification,
            ResourceListChangedNotification,
            ResourceUpdatedNotification,
            ToolListChangedNotification,
            CallToolResult,
            CancelTaskResult,
            CompleteResult,
            EmptyResult,
            GetPromptResult,
            GetTaskPayloadResult,
            GetTaskResult,
            InitializeResult,
            ListPromptsResult,
            ListResourceTemplatesResult,
            ListResourcesResult,
            ListTasksResult,
            ListToolsResult,
            ReadResourceResult,
            CreateMessageResult,
            ElicitResult,
            ListRootsResult,
            CreateTaskResult,
            JsonrpcErrorResponse,
            UrlElicitationRequiredError,
        ]
    )
}

fn union_check(kind: &str, name: &str) -> Check {
    match kind {
        "client_request" => member_by_name!(
            name,
            ClientRequest,
            [
                CallToolRequest,
                CancelTaskRequest,
                CompleteRequest,
                GetPromptRequest,
                GetTaskPayloadRequest,
                GetTaskRequest,
                InitializeRequest,
                ListPromptsRequest,
                ListResourceTemplatesRequest,
                ListResourcesRequest,
                ListTasksRequest,
                ListToolsRequest,
                PingRequest,
                ReadResourceRequest,
                SetLevelRequest,
                SubscribeRequest,
                UnsubscribeRequest,
            ]
        ),
        "server_request" => member_by_name!(
            name,
            ServerRequest,
            [
                CancelTaskRequest,
                CreateMessageRequest,
                ElicitRequest,
                GetTaskPayloadRequest,
                GetTaskRequest,
                ListRootsRequest,
                ListTasksRequest,
                PingRequest,
            ]
        ),
        "client_notification" => member_by_name!(
            name,
            ClientNotification,
            [
                CancelledNotification,
                InitializedNotification,
                ProgressNotification,
                RootsListChangedNotification,
                TaskStatusNotification,
            ]
        ),
        "server_notification" => member_by_name!(
            name,
            ServerNotification,
            [
                CancelledNotification,
                ElicitationCompleteNotification,
                LoggingMessageNotification,
                ProgressNotification,
                PromptListChangedNotification,
                ResourceListChangedNotification,
                ResourceUpdatedNotification,
                TaskStatusNotification,
                ToolListChangedNotification,
            ]
        ),
        other => panic!("no union for fixture kind `{other}`"),
    }
}

fn case(kind: &str, file: &str, raw: RawCase) -> Case {
    let name = format!("{file}::{}", raw.name);
    let def = raw
        .schema_def
        .clone()
        .unwrap_or_else(|| raw.type_name.clone());
    let generic = |what: &'static str| -> Vec<Check> {
        vec![
            exact(what, "", through_envelope(what)).general(),
            exact("JsonrpcMessage", "", through::<v25::JsonrpcMessage>).general(),
        ]
    };
    let parts = match kind {
        "client_request" | "server_request" | "client_notification" | "server_notification" => {
            let mut checks = vec![
                type_check(&raw.type_name),
                union_check(kind, &raw.type_name),
            ];
            checks.push(exact("JsonrpcMessage", "", through::<v25::JsonrpcMessage>).general());
            vec![(name, def, raw.message, checks)]
        }
        "server_result" | "client_result" | "create_task_result" => {
            let method: &'static str = Box::leak(raw.method.clone().unwrap().into_boxed_str());
            let mut result_checks = vec![type_check(&raw.type_name)];
            match kind {
                "server_result" => result_checks.push(Check::new(
                    format!("v2025_11_25::ServerResult for {method}"),
                    false,
                    "",
                    by_method::<v25::ServerResult>(method),
                )),
                "client_result" => result_checks.push(Check::new(
                    format!("v2025_11_25::ClientResult for {method}"),
                    false,
                    "",
                    by_method::<v25::ClientResult>(method),
                )),
                _ => {}
            }
            let result = raw.message["result"].clone();
            let mut envelope = generic("JsonrpcResultResponse");
            envelope.push(exact("JsonrpcResponse", "", through::<v25::JsonrpcResponse>).general());
            vec![
                (
                    name.clone(),
                    "JSONRPCResultResponse".into(),
                    raw.message,
                    envelope,
                ),
                (format!("{name}/result"), def, result, result_checks),
            ]
        }
        "error_response" => {
            let mut envelope = generic("JsonrpcErrorResponse");
            envelope.push(exact("JsonrpcResponse", "", through::<v25::JsonrpcResponse>).general());
            vec![
                (
                    name.clone(),
                    "JSONRPCErrorResponse".into(),
                    raw.message.clone(),
                    envelope,
                ),
                (name, def, raw.message, vec![type_check(&raw.type_name)]),
            ]
        }
        other => panic!("{file}: unknown fixture kind `{other}`"),
    };
    Case { parts }
}

fn through_envelope(name: &str) -> fn(&Value) -> crate::codec::Outcome {
    match name {
        "JsonrpcResultResponse" => through::<v25::JsonrpcResultResponse>,
        "JsonrpcErrorResponse" => through::<v25::JsonrpcErrorResponse>,
        other => panic!("no envelope `{other}`"),
    }
}
