//! Refusals and failures of handlers: undeclared capabilities, RPC errors
//! with their code and data, and panics.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_core::Error;
use mcp_core::client::{Client, Negotiation};
use mcp_core::jsonrpc::{ErrorCode, RpcError};
use mcp_core::schema::*;
use mcp_core::server::{ResourceDef, Server, ToolDef};
use mcp_core::session::{RequestOptions, SessionConfig};
use mcp_core::transport::memory_pair;
use serde_json::{Map, Value, json};

use crate::connect;

/// Implements prompts but declares only tools: the dispatch answers
/// method-not-found for prompts before the handler is reached.
struct Undeclared(Arc<AtomicUsize>);

#[async_trait::async_trait]
impl mcp_core::server::ServerHandler for Undeclared {
    fn info(&self) -> mcp_core::server::ServerInfo {
        mcp_core::server::ServerInfo {
            implementation: Implementation::new("undeclared", "1"),
            capabilities: ServerCapabilities {
                tools: Some(ServerCapabilitiesTools::new()),
                ..ServerCapabilities::new()
            },
            instructions: None,
        }
    }

    async fn list_prompts(
        &self,
        _params: Option<PaginatedRequestParams>,
        _cx: mcp_core::server::Context,
    ) -> Result<ListPromptsResult, RpcError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        Ok(ListPromptsResult::new(Vec::new()))
    }
}

#[tokio::test]
async fn undeclared_capabilities_are_refused_before_the_handler() {
    let calls = Arc::new(AtomicUsize::new(0));
    let (a, b) = memory_pair();
    let _session = mcp_core::server::serve(
        Arc::new(Undeclared(calls.clone())),
        b,
        SessionConfig::default(),
    )
    .unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let raw = client
        .peer()
        .request_raw("prompts/list", &json!({}), RequestOptions::default())
        .await;
    assert!(
        matches!(raw, Err(Error::Rpc(ref e)) if e.code == ErrorCode::METHOD_NOT_FOUND),
        "{raw:?}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // The typed method refuses before sending, naming the capability.
    let typed = client.list_prompts(None).await.unwrap_err();
    assert!(
        matches!(typed, Error::CapabilityNotSupported { ref capability, .. } if capability == "prompts"),
        "{typed}"
    );
}

#[tokio::test]
async fn rpc_errors_from_handlers_keep_code_and_data() {
    let server = Server::builder("s", "1")
        .resource(ResourceDef::new("x://err", "err", |_uri, _cx| async {
            Err(RpcError::new(ErrorCode(-32042), "need a URL elicitation")
                .with_data(json!({"k": 1})))
        }))
        .build();
    let (a, b) = memory_pair();
    let _session = server.serve(b).unwrap();
    let client = Client::builder("c", "1")
        .negotiation(Negotiation::Legacy)
        .connect(a)
        .await
        .unwrap();
    let err = client.read_resource("x://err").await.unwrap_err();
    let Error::Rpc(e) = err else { panic!("{err}") };
    assert_eq!((e.code, e.data), (ErrorCode(-32042), Some(json!({"k": 1}))));
}

#[tokio::test]
async fn a_panicking_handler_answers_internal_error_and_the_session_goes_on() {
    let at_once = ToolDef::new(
        "panic_now",
        "Panics when called",
        |_: Map<String, Value>, _cx| async move {
            if true {
                panic!("boom at once");
            }
            Ok::<_, String>("unreachable")
        },
    )
    .unwrap();
    let later = ToolDef::new(
        "panic_later",
        "Panics after waiting",
        |_: Map<String, Value>, _cx| async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if true {
                panic!("boom later");
            }
            Ok::<_, String>("unreachable")
        },
    )
    .unwrap();
    let server = Server::builder("panics", "1")
        .tool(at_once)
        .tool(later)
        .build();
    let (client, _session) = connect(&server).await;
    for name in ["panic_now", "panic_later", "panic_now"] {
        let err = tokio::time::timeout(Duration::from_secs(5), client.call_tool(name, None))
            .await
            .expect("a panicking handler is answered, not left hanging")
            .unwrap_err();
        let Error::Rpc(e) = &err else {
            panic!("{name}: {err}")
        };
        assert_eq!(e.code, ErrorCode::INTERNAL_ERROR, "{name}");
        assert!(!e.message.contains("boom"), "the panic stays in the log");
        client.ping().await.unwrap();
    }
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
}
