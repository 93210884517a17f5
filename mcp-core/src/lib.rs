//! The libmcp [Model Context Protocol](https://modelcontextprotocol.io)
//! engine: servers and clients over stdio, Streamable HTTP and in-memory
//! pairs, speaking MCP **2026-07-28** and **2025-11-25** (and negotiating
//! down to 2025-06-18, 2025-03-26 and 2024-11-05).
//!
//! The same engine is the `mcp` command, the C library and the Python
//! package of libmcp; this crate is its Rust face.
//!
//! # A server
//!
//! A server is a struct whose methods are its tools, prompts and resources,
//! marked in an `impl` block under
//! [`#[mcp_core::handlers]`](handlers) (the `macros` feature): the struct
//! is the state the methods share. Each parameter of a tool is an argument
//! of its input schema, derived through
//! [`JsonSchema`](https://docs.rs/schemars) (`Option<T>` is optional), and
//! every call is validated against it before the method runs; doc comments
//! become descriptions. Returning [`Json<T>`](server::Json) adds an
//! `outputSchema` and `structuredContent`, a `String` is text, and an `Err`
//! becomes a result with `isError: true`.
//!
//! ```no_run
//! use mcp_core::server::{Json, Server};
//! use mcp_core::transport::Stdio;
//! use schemars::JsonSchema;
//! use serde::Serialize;
//!
//! struct Calculator;
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! #[mcp_core::handlers]
//! impl Calculator {
//!     /// Adds two integers.
//!     #[tool(read_only)]
//!     async fn add(&self, a: i64, b: i64) -> Json<Sum> {
//!         Json(Sum { sum: a + b })
//!     }
//!
//!     /// Asks for a summary of a text.
//!     #[prompt]
//!     fn summarize(&self, text: String) -> String {
//!         format!("Summarize this: {text}")
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> mcp_core::Result<()> {
//!     let server = Server::builder("calculator", "1.0.0")
//!         .handlers(Calculator)
//!         .build();
//!     server.serve(Stdio::new())?.closed().await;
//!     Ok(())
//! }
//! ```
//!
//! What is registered decides the capabilities the server declares. Tools
//! known only at run time are registered one by one on the builder, each a
//! [`ToolDef`](server::ToolDef) whose arguments are a type that derives
//! `Deserialize` and `JsonSchema`:
//!
//! ```no_run
//! use mcp_core::server::{Json, Server, ToolDef};
//! use schemars::JsonSchema;
//! use serde::{Deserialize, Serialize};
//!
//! #[derive(Deserialize, JsonSchema)]
//! struct Add { a: i64, b: i64 }
//!
//! #[derive(Serialize, JsonSchema)]
//! struct Sum { sum: i64 }
//!
//! # fn f() -> mcp_core::Result<Server> {
//! let add = ToolDef::new("add", "Adds two integers", |args: Add, _cx| async move {
//!     Ok::<_, String>(Json(Sum { sum: args.a + args.b }))
//! })?;
//! let server = Server::builder("calculator", "1.0.0").tool(add).build();
//! # Ok(server) }
//! ```
//!
//! A handler gets a [`Context`](server::Context): progress
//! ([`progress`](server::Context::progress)), logging
//! ([`log`](server::Context::log)), cancellation
//! ([`is_cancelled`](server::Context::is_cancelled)), the caller's identity
//! ([`auth`](server::Context::auth)), and questions to the client
//! ([`elicit`](server::Context::elicit),
//! [`create_message`](server::Context::create_message),
//! [`list_roots`](server::Context::list_roots)). A question is written once
//! for both revisions: in a 2025-11-25 session it is a request to the
//! client; in a 2026-07-28 request it becomes an input-required round, and
//! the handler runs again with the answers (nothing is kept on the server
//! between rounds; see [`RequestStateKey`](server::RequestStateKey) for
//! replicas). Tools, resources and prompts can be added and removed while
//! the server runs ([`Server::add_tool`](server::Server::add_tool), …;
//! clients are told the list changed). For full control implement
//! [`ServerHandler`](server::ServerHandler) instead.
//!
//! # A client
//!
//! [`Client`](client::Client) connects over any transport — here a server
//! started as a child process — and offers a typed method per request:
//!
//! ```no_run
//! # async fn f() -> mcp_core::Result<()> {
//! use mcp_core::client::Client;
//! use mcp_core::transport::ChildProcess;
//! use serde_json::json;
//!
//! let client = Client::builder("my-app", "1.0.0")
//!     .connect(ChildProcess::new("mcp").args(["serve", "everything"]))
//!     .await?;
//! for tool in client.list_all_tools().await? {
//!     println!("{}", tool.name);
//! }
//! let arguments = json!({"a": 2, "b": 3}).as_object().cloned();
//! let result = client.call_tool("add_numbers", arguments).await?;
//! println!("{:?}", result.content);
//! client.close().await;
//! # Ok(()) }
//! ```
//!
//! Handlers set on the [`ClientBuilder`](client::ClientBuilder)
//! (`on_sampling`, `on_elicitation`, roots) answer the server's questions in
//! both revisions and decide the capabilities the client declares.
//!
//! # Several servers
//!
//! A [`ClientGroup`](client::ClientGroup) is one client of many servers
//! (features `client`, `stdio` and `http-client`): it reads the
//! `mcpServers` configuration that Claude Desktop, Cursor and VS Code use
//! ([`GroupConfig`](client::GroupConfig): stdio entries with `command`,
//! `args`, `env`, `cwd`; HTTP entries with `url`, `headers`; `${env:NAME}`
//! expanded), connects to every server in parallel, and offers their tools
//! and prompts as one list in which tool `t` of server `s` is `s__t`. A call
//! goes to its server; a server that fails or goes away is reported in
//! [`status`](client::ClientGroup::status) and started again by the next
//! call that needs it, while the others go on. The
//! [`group`](client::group) module has the naming and reconnection rules.
//!
//! ```no_run
//! # async fn f() -> mcp_core::Result<()> {
//! use mcp_core::client::{Client, ClientGroup, GroupConfig};
//! use serde_json::json;
//!
//! let config = GroupConfig::parse(r#"{"mcpServers": {
//!     "files": {"command": "mcp-files", "args": ["--root", "."], "env": {"LOG": "1"}},
//!     "search": {"url": "https://search.example.com/mcp",
//!                "headers": {"Authorization": "Bearer ${env:SEARCH_TOKEN}"}}
//! }}"#)?;
//! let group = ClientGroup::builder(Client::builder("my-app", "1.0.0"))
//!     .connect(&config)
//!     .await;
//! for status in group.status() {
//!     println!("{}: {}", status.name, status.state);
//! }
//! for tool in group.tools() {
//!     println!("{}", tool.name); // "files__read", "search__query", …
//! }
//! let arguments = json!({"path": "README.md"}).as_object().cloned();
//! let result = group.call_tool("files__read", arguments).await?;
//! # let _ = result;
//! group.close().await;
//! # Ok(()) }
//! ```
//!
//! The `mcp` command reads the same file: `mcp tools list --config mcp.json
//! --all-servers` lists the merged tools, `--server NAME` picks one server.
//!
//! # The two protocol revisions
//!
//! **2026-07-28** has no handshake: each request carries its revision and
//! the client's capabilities in `_meta`, the server answers it alone
//! (`server/discover` describes the server), and a server asks the client
//! for input by answering with an input-required result. **2025-11-25** is
//! a session opened by `initialize`, in which the server sends requests to
//! the client. A server built here answers both, on one stdio connection or
//! one HTTP endpoint, chosen per request. A client probes with
//! `server/discover` and falls back to `initialize`
//! ([`Negotiation`](client::Negotiation); `protocol_version` on the builder
//! pins one). The protocol types in [`schema`] are version-neutral (both
//! schemas merged), so handlers are written once; `schema::v2025_11_25` and
//! `schema::v2026_07_28` hold each revision's exact types (feature
//! `revision-types`).
//!
//! # Streamable HTTP
//!
//! [`StreamableHttpServer`](http::StreamableHttpServer) serves a
//! `Server` at `/mcp`, or gives an axum `Router` to mount in an application
//! ([`router`](http::StreamableHttpServer::router)):
//!
//! ```no_run
//! # async fn f(server: mcp_core::server::Server) -> std::io::Result<()> {
//! use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
//!
//! let http = StreamableHttpServer::new(server, HttpServerConfig::default());
//! http.bind("127.0.0.1:3000".parse().expect("an address")).await
//! # }
//! ```
//!
//! The endpoint is also a plain tower `Service<http::Request<B>>` (the
//! [`StreamableHttpServer`](http::StreamableHttpServer) itself)
//! with a response body of its own, for hyper or any tower-based framework,
//! behind the host's own layers. What those layers put into a request's
//! extensions reaches handlers through
//! [`Context::http_parts`](server::Context::http_parts) (the request's
//! method, URI, headers and extensions), and
//! [`Context::peer_addr`](server::Context::peer_addr) gives the client's
//! address: an authentication layer of the host application hands the
//! caller's identity to tools this way, with no OAuth configuration in
//! libmcp (`mcp-core/examples/axum_auth.rs` is a whole program).
//!
//! ```no_run
//! use axum::extract::Request;
//! use axum::middleware::{self, Next};
//! use axum::response::Response;
//! use mcp_core::server::{Context, Server};
//! use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
//!
//! /// Who the caller is, as the host's authentication layer found out.
//! #[derive(Clone)]
//! struct User(String);
//!
//! async fn authenticate(mut request: Request, next: Next) -> Response {
//!     // Check the request's credentials here (and answer 401 without them).
//!     request.extensions_mut().insert(User("alice".to_string()));
//!     next.run(request).await
//! }
//!
//! struct Api;
//!
//! #[mcp_core::handlers]
//! impl Api {
//!     /// Says who is calling, and from where.
//!     #[tool]
//!     fn whoami(&self, cx: Context) -> String {
//!         let user = cx.http_parts().and_then(|parts| parts.extensions.get::<User>());
//!         let from = cx.peer_addr().map_or("?".to_string(), |addr| addr.to_string());
//!         match user {
//!             Some(User(name)) => format!("{name} from {from}"),
//!             None => format!("anonymous from {from}"),
//!         }
//!     }
//! }
//!
//! # async fn f() -> std::io::Result<()> {
//! let server = Server::builder("api", "1.0.0").handlers(Api).build();
//! let endpoint = StreamableHttpServer::new(server, HttpServerConfig::default());
//! let app = axum::Router::new()
//!     .route_service("/mcp", endpoint)
//!     .layer(middleware::from_fn(authenticate));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//! let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
//! axum::serve(listener, app).await
//! # }
//! ```
//!
//! The client side is
//! [`StreamableHttpClient`](transport::http::StreamableHttpClient), given
//! to [`ClientBuilder::connect`](client::ClientBuilder::connect) like any
//! transport. Host and `Origin` headers are checked (loopback by default,
//! [`HostPolicy`](http::HostPolicy)); sessions can live in a
//! shared [`store`] so that several replicas serve one endpoint (Redis with
//! the `redis` feature).
//!
//! # Authorization
//!
//! OAuth 2.1 as the MCP specification describes it (feature `auth`). A
//! client gives an [`OAuthClient`](auth::OAuthClient) to the HTTP transport
//! (discovery, registration, PKCE, refresh and step-up happen on the first
//! 401); any [`AuthProvider`](auth::AuthProvider) of your own works too. A
//! server describes itself as a
//! [`ProtectedResource`](auth::ProtectedResource) with a
//! [`TokenValidator`](auth::TokenValidator) of yours, and handlers read the
//! caller from [`Context::auth`](server::Context::auth):
//!
//! ```no_run
//! use mcp_core::auth::{AuthInfo, ProtectedResource, TokenError, TokenValidator};
//! use mcp_core::http::HttpServerConfig;
//!
//! struct Introspect;
//!
//! #[async_trait::async_trait]
//! impl TokenValidator for Introspect {
//!     async fn validate(&self, token: &str) -> Result<AuthInfo, TokenError> {
//!         // Ask the authorization server (RFC 7662), check a JWT, …
//!         let _ = token;
//!         Ok(AuthInfo::new("alice", "https://mcp.example.com/mcp", ["tools"]))
//!     }
//! }
//!
//! # fn f() -> mcp_core::Result<()> {
//! let resource = ProtectedResource::builder(
//!     "https://mcp.example.com/mcp",
//!     ["https://auth.example.com"],
//!     Introspect,
//! )
//! .required_scopes(["tools"])
//! .build()?;
//! let config = HttpServerConfig::default().protected_resource(resource);
//! # let _ = config; Ok(()) }
//! ```
//!
//! # Tasks
//!
//! A tool call can run as a task: the client gets a task id at once and
//! polls or waits for the result. Servers opt in per tool
//! ([`ToolDef::task_support`](server::ToolDef::task_support)) and set the
//! limits with [`ServerBuilder::tasks`](server::ServerBuilder::tasks)
//! ([`TaskConfig`](tasks::TaskConfig): lifetimes, polling interval, the
//! [`TaskStore`](tasks::TaskStore)). Clients use
//! [`start_tool_task`](client::Client::start_tool_task),
//! [`await_tool_task`](client::Client::await_tool_task) and
//! [`call_tool_as_task`](client::Client::call_tool_as_task), the same calls
//! for the core tasks of 2025-11-25 and the tasks extension of 2026-07-28.
//!
//! # Tracing
//!
//! The engine opens a [`tracing`](https://docs.rs/tracing) span, at level
//! INFO, per session (`mcp.session`) and per request, in both roles and on
//! every transport: a SERVER span for each request received, in which its
//! handler runs, and a CLIENT span for each request sent. They are named
//! and attributed by OpenTelemetry's semantic conventions for MCP
//! (`tools/call get-weather`; `mcp.method.name`, `jsonrpc.request.id`,
//! `gen_ai.tool.name`, `error.type`, …); the [`session`] module documents
//! each field. The trace context (`traceparent`, `tracestate`, `baggage`)
//! goes out in the `_meta` of every request and notification sent, and
//! the one a request brings is its handler's parent ([`telemetry`]).
//! Install any subscriber (`tracing-subscriber`, an OpenTelemetry layer)
//! to see them; without one, nothing is recorded. The `otel` feature adds
//! the OpenTelemetry side: spans as OpenTelemetry spans with their parents
//! across processes, `mcp.{client,server}.operation.duration` histograms,
//! and `telemetry::otel::install_from_env`, the SDK with the OTLP/HTTP
//! exporter from the standard `OTEL_*` variables.
//!
//! # Limits
//!
//! Bad input is an error to the peer, never a panic or an unbounded buffer:
//! - one message is at most [`DEFAULT_MAX_MESSAGE_SIZE`](transport::DEFAULT_MAX_MESSAGE_SIZE)
//!   (4 MiB) on stdio (`with_max_message_size` on the transports);
//! - [`SessionConfig`](session::SessionConfig): request timeout (60 s,
//!   reset by progress up to 10 min) and at most 1024 inbound requests at
//!   once;
//! - [`HttpServerConfig`](http::HttpServerConfig): body (4 MiB)
//!   and header (32 KiB) sizes, at most 10,000 sessions, idle sessions
//!   ended after 30 minutes, 256 stored events per stream;
//! - input-required rounds (16,
//!   [`DEFAULT_MAX_INPUT_ROUNDS`](client::DEFAULT_MAX_INPUT_ROUNDS)) and
//!   task waits are bounded on the client.
//!
//! # Cargo features
//!
//! | feature | gives | pulls in |
//! |---|---|---|
//! | `server` | [`server`]: `Server`, `ToolDef`, `ServerHandler`, `Context`, tasks; [`skills`]: `SkillCatalog` | jsonschema, schemars, sha2, serde_norway |
//! | `client` | [`client`]: `Client`, `ClientBuilder`, the task API, skills (`ClientGroup` with `stdio` and `http-client`) | jsonschema, sha2, serde_norway |
//! | `stdio` | `transport::Stdio`, `transport::ChildProcess` | nix (Unix), tokio process/io-std |
//! | `http-server` | `http::StreamableHttpServer` (a tower `Service` and an axum router), [`store`] (implies `server`) | axum, hyper, tower |
//! | `http-client` | `transport::http::StreamableHttpClient`, `auth::AuthProvider` (implies `client`) | reqwest, rustls |
//! | `auth` | OAuth 2.1: `OAuthClient` with `http-client`, `ProtectedResource` with `http-server` | url |
//! | `redis` | `store::redis` (implies `http-server`; not default) | redis |
//! | `macros` | `#[mcp_core::handlers]` (implies `server`) | mcp-macros |
//! | `otel` | `telemetry::otel`: spans as OpenTelemetry spans with parents across processes, duration histograms, the SDK with the OTLP/HTTP (protobuf) exporter from `OTEL_*` variables (not default) | opentelemetry, opentelemetry_sdk, opentelemetry-otlp (reqwest blocking client, prost), tracing-opentelemetry, tracing-subscriber |
//! | `revision-types` | `schema::v2025_11_25`, `schema::v2026_07_28`: each revision's exact types (not default; about 50,000 generated lines) | |
//!
//! The defaults are `server`, `client`, `stdio`, `http-server`,
//! `http-client`, `auth` and `macros`. A stdio-only server needs
//! `default-features = false, features = ["server", "stdio", "macros"]`, and
//! has no HTTP client, server or TLS crate in its tree (only `http`'s request
//! types, which `Context::http_parts` returns). [`schema`], [`jsonrpc`], [`extensions`]
//! and the in-memory transport are always there.
//!
//! # Platforms
//!
//! Linux is where libmcp is built and tested; other Unix systems should
//! work (the stdio transport falls back to Tokio's stdin/stdout off Linux).
//! Windows compiles (the test suite checks `server`, `client`, `stdio`,
//! `http-server`, `auth` and `macros` together, with warnings denied; not
//! `http-client`, whose TLS crate `ring` needs a C cross compiler, nor
//! `redis`) but is not tested: a [`ChildProcess`](transport::ChildProcess) there is killed
//! on shutdown without a SIGTERM first and without its process group. The
//! runtime is whatever Tokio runtime calls the crate.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod auth;
#[cfg(any(feature = "server", feature = "client"))]
mod capability;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod error;
mod error_kind;
pub mod extensions;
#[cfg(any(feature = "server", feature = "client"))]
mod fast_map;
#[cfg(feature = "http-server")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-server")))]
pub mod http;
pub mod jsonrpc;
mod param_headers;
mod request_meta;
pub mod schema;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod server;
#[cfg(any(feature = "server", feature = "client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "client"))))]
pub mod session;
#[cfg(any(feature = "server", feature = "client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "client"))))]
pub mod skills;
#[cfg(any(feature = "server", feature = "client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "client"))))]
pub mod store;
#[cfg(any(feature = "server", feature = "client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "client"))))]
pub mod tasks;
#[cfg(any(feature = "server", feature = "client"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "server", feature = "client"))))]
pub mod telemetry;
pub mod transport;
pub mod uri_template;
mod version;

/// Entry points for the fuzz targets in `fuzz/` to internals that are not
/// public API (stdio framing, the SSE parser). Not for use elsewhere: it
/// exists only with the `fuzzing` feature and may change at any time.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
#[path = "fuzzing.rs"]
pub mod __fuzz;

/// What the code of `#[mcp_core::handlers]` uses; not API.
#[cfg(feature = "server")]
#[doc(hidden)]
#[path = "macro_support.rs"]
pub mod __private;

#[cfg(feature = "macros")]
#[doc = include_str!("handlers.md")]
pub use mcp_macros::handlers;

pub use version::ProtocolVersion;

pub use error::{Error, Result};
pub use error_kind::ErrorKind;
