//! An MCP server mounted under `/mcp` of an axum application, behind the
//! application's own tower layers: a bearer-token check that puts the
//! caller's identity into the request's extensions (tools read it through
//! `Context::http_parts`), CORS (tower-http), and request tracing
//! (tower-http's `TraceLayer` next to libmcp's own `mcp.session` /
//! `mcp.request` spans, printed by a small stderr subscriber).
//!
//! ```text
//! cargo run -p mcp-core --example axum_auth -- [ADDR] [TOKEN]
//! ```
//!
//! ADDR defaults to `127.0.0.1:3000` (port 0 picks a free one), TOKEN to
//! `secret-token`, which authenticates the user `alice`. Prints
//! `listening on http://ADDR/mcp` once it accepts connections. Without the
//! token, `/mcp` answers 401; `/health` needs none.

#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "an example program: it prints where it listens and its log"
)]

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use axum::Router;
use axum::body::Body;
use axum::routing::get;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
use mcp_core::server::{Context, Server, ToolDef};
use serde_json::{Map, Value};
use tower::{Layer, Service};
use tower_http::cors::CorsLayer;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

/// Who the bearer token belongs to; the auth layer inserts it into the
/// request's extensions.
#[derive(Clone, Debug)]
struct Identity {
    subject: String,
}

/// The tool: answers with the caller's identity, as the auth layer found it.
fn whoami(cx: &Context) -> String {
    let identity = cx
        .http_parts()
        .and_then(|parts| parts.extensions.get::<Identity>());
    let revision = cx.protocol_version().map_or("?", |v| v.as_str());
    // Inside the `mcp.request` span: the log line names the tool call.
    tracing::info!(found = identity.is_some(), "whoami");
    match identity {
        Some(identity) => format!("{} via {revision}", identity.subject),
        None => format!("nobody via {revision}"),
    }
}

fn mcp_server() -> mcp_core::Result<Server> {
    let tool = ToolDef::new(
        "whoami",
        "Tells who the authenticated caller is",
        |_: Map<String, Value>, cx| async move { Ok::<_, String>(whoami(&cx)) },
    )?;
    Ok(Server::builder("axum-auth-example", "1.0.0")
        .tool(tool)
        .build())
}

/// A tower layer checking `Authorization: Bearer TOKEN` against a table of
/// tokens: an unknown or missing token is 401 with `WWW-Authenticate`; a
/// known one puts its [`Identity`] into the request's extensions.
#[derive(Clone)]
struct BearerAuthLayer {
    tokens: Arc<HashMap<String, Identity>>,
}

impl<S> Layer<S> for BearerAuthLayer {
    type Service = BearerAuth<S>;

    fn layer(&self, inner: S) -> BearerAuth<S> {
        BearerAuth {
            inner,
            tokens: self.tokens.clone(),
        }
    }
}

#[derive(Clone)]
struct BearerAuth<S> {
    inner: S,
    tokens: Arc<HashMap<String, Identity>>,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S, B> Service<Request<B>> for BearerAuth<S>
where
    S: Service<Request<B>, Response = Response<Body>, Error = Infallible> + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Response<Body>, Infallible>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let identity = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .and_then(|token| self.tokens.get(token))
            .cloned();
        let Some(identity) = identity else {
            return Box::pin(async { Ok(unauthorized()) });
        };
        tracing::info!(subject = %identity.subject, "authenticated");
        request.extensions_mut().insert(identity);
        let response = self.inner.call(request);
        Box::pin(response)
    }
}

fn unauthorized() -> Response<Body> {
    let mut response = Response::new(Body::from("missing or unknown bearer token"));
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"mcp\""),
    );
    response
}

/// The application: `/health` open, `/mcp` behind the auth layer, CORS and
/// tracing around both.
fn app(token: String) -> mcp_core::Result<Router> {
    let mcp = StreamableHttpServer::new(mcp_server()?, HttpServerConfig::default());
    let identity = Identity {
        subject: "alice".into(),
    };
    let auth = BearerAuthLayer {
        tokens: Arc::new(HashMap::from([(token, identity)])),
    };
    // A browser client on another origin may call the endpoint; it must
    // see the session id header.
    let cors = CorsLayer::new()
        .allow_origin(HeaderValue::from_static("http://localhost:5173"))
        .allow_methods([Method::GET, Method::POST, Method::DELETE])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::ACCEPT,
            header::HeaderName::from_static("mcp-session-id"),
            header::HeaderName::from_static("mcp-protocol-version"),
            header::HeaderName::from_static("last-event-id"),
        ])
        .expose_headers([header::HeaderName::from_static("mcp-session-id")]);
    Ok(Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest_service("/mcp", mcp.router().layer(auth))
        .layer(cors)
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing::subscriber::set_global_default(log::StderrLog::default())?;
    let mut args = std::env::args().skip(1);
    let addr: SocketAddr = args.next().as_deref().unwrap_or("127.0.0.1:3000").parse()?;
    let token = args.next().unwrap_or_else(|| "secret-token".into());
    let listener = tokio::net::TcpListener::bind(addr).await?;
    println!("listening on http://{}/mcp", listener.local_addr()?);
    std::io::stdout().flush()?;
    let app = app(token)?.into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, app).await?;
    Ok(())
}

/// A minimal `tracing` subscriber printing to stderr: each event with the
/// names and fields of the spans it happened in. An application would use
/// `tracing-subscriber` (its `fmt` layer) instead.
mod log {
    use std::collections::HashMap;
    use std::fmt::{Debug, Write as _};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Level, Metadata, Subscriber};

    #[derive(Default)]
    pub(super) struct StderrLog {
        next: AtomicU64,
        /// Each open span's handles and its name and fields, as text.
        spans: Mutex<HashMap<u64, (usize, String)>>,
    }

    thread_local! {
        static CURRENT: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }

    struct Text<'a>(&'a mut String);

    impl Visit for Text<'_> {
        fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
            let _ = write!(self.0, " {}={value:?}", field.name());
        }
    }

    impl Subscriber for StderrLog {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            *metadata.level() <= Level::INFO
        }

        fn new_span(&self, attrs: &Attributes<'_>) -> Id {
            let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
            let mut text = attrs.metadata().name().to_string();
            attrs.record(&mut Text(&mut text));
            if let Ok(mut spans) = self.spans.lock() {
                spans.insert(id, (1, text));
            }
            Id::from_u64(id)
        }

        fn record(&self, span: &Id, values: &Record<'_>) {
            if let Ok(mut spans) = self.spans.lock() {
                if let Some((_, text)) = spans.get_mut(&span.into_u64()) {
                    values.record(&mut Text(text));
                }
            }
        }

        fn record_follows_from(&self, _: &Id, _: &Id) {}

        fn event(&self, event: &Event<'_>) {
            let mut line = format!("{} ", event.metadata().level());
            if let Ok(spans) = self.spans.lock() {
                CURRENT.with(|current| {
                    for id in current.borrow().iter() {
                        if let Some((_, text)) = spans.get(id) {
                            let _ = write!(line, "[{text}] ");
                        }
                    }
                });
            }
            event.record(&mut Text(&mut line));
            eprintln!("{line}");
        }

        fn enter(&self, span: &Id) {
            CURRENT.with(|current| current.borrow_mut().push(span.into_u64()));
        }

        fn exit(&self, span: &Id) {
            CURRENT.with(|current| {
                let mut current = current.borrow_mut();
                if let Some(at) = current.iter().rposition(|s| *s == span.into_u64()) {
                    current.remove(at);
                }
            });
        }

        fn clone_span(&self, span: &Id) -> Id {
            if let Ok(mut spans) = self.spans.lock() {
                if let Some((handles, _)) = spans.get_mut(&span.into_u64()) {
                    *handles += 1;
                }
            }
            span.clone()
        }

        fn try_close(&self, span: Id) -> bool {
            let Ok(mut spans) = self.spans.lock() else {
                return false;
            };
            let id = span.into_u64();
            let last = spans.get_mut(&id).is_some_and(|(handles, _)| {
                *handles -= 1;
                *handles == 0
            });
            if last {
                spans.remove(&id);
            }
            last
        }
    }
}
