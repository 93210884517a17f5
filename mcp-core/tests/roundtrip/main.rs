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

mod checks;
mod compare;
mod elicitation;
mod key_order;
mod known_losses;
mod meta_ids_tasks;
mod numbers;
mod official_schema;
mod rejections;
mod unlisted_properties;

use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use mcp_core::schema::*;
use serde::Deserialize;
use serde_json::Value;

use checks::{
    check_create_task_result, check_error, check_notification, check_request, check_result,
};

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
