//! The ASGI bridge: [`AsgiCore`] serves HTTP requests handed over by the
//! `libmcp` package's ASGI app (`Server.streamable_http_app()`) with
//! mcp-core's Streamable HTTP endpoint, driven in-process as a tower
//! service — no socket, no second HTTP server.
//!
//! Python reads the ASGI request (method, headers, body) and calls
//! [`AsgiCore::handle`]; the [`Call`] finishes with the response head and
//! the part of the body ready by then. An event stream goes on through a
//! [`ResponseBody`], whose `next()` gives the chunks ready at each wake-up
//! and whose `close()` drops the stream (the ASGI client went away): that is
//! the HTTP disconnect the endpoint turns into cancellation, exactly as
//! when served on its own socket.

use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::{Body, BodyDataStream, Bytes, HttpBody};
use futures::{FutureExt, StreamExt};
use http::{HeaderName, HeaderValue, Method, Request};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use tokio::runtime::Handle;
use tokio_util::sync::CancellationToken;

use mcp_core::http::StreamableHttpServer;

use super::call::{self, Call, Outcome, OwnedRuntime};
use super::errors::Failure;
use super::http_config::HttpOptions;
use super::server::{SERVER_WORKERS, ServerCore};

/// The Streamable HTTP endpoint of a server, for an ASGI app. Use
/// `Server.streamable_http_app()`.
#[pyclass(frozen, module = "libmcp._libmcp")]
pub(crate) struct AsgiCore {
    runtime: OwnedRuntime,
    router: Router,
    /// Kept for the sessions' lifetime (the router shares its state).
    _http: StreamableHttpServer,
}

impl std::fmt::Debug for AsgiCore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsgiCore").finish_non_exhaustive()
    }
}

#[pymethods]
impl AsgiCore {
    /// Starts the engine of `server`'s endpoint (its own Tokio runtime);
    /// the options are those of `serve_http`.
    #[new]
    #[pyo3(signature = (
        server, *, stateless = false, json_response = false, allowed_hosts = None,
        max_body_size = None, max_header_size = None, max_sessions = None, idle_timeout = None,
        cancel_on_disconnect = false
    ))]
    #[allow(
        clippy::too_many_arguments,
        reason = "mirrors the Python keyword arguments"
    )]
    fn new(
        py: Python<'_>,
        server: &ServerCore,
        stateless: bool,
        json_response: bool,
        allowed_hosts: Option<Vec<String>>,
        max_body_size: Option<usize>,
        max_header_size: Option<usize>,
        max_sessions: Option<usize>,
        idle_timeout: Option<f64>,
        cancel_on_disconnect: bool,
    ) -> PyResult<Self> {
        let config = HttpOptions {
            stateless,
            json_response,
            allowed_hosts,
            max_body_size,
            max_header_size,
            max_sessions,
            idle_timeout,
            cancel_on_disconnect,
            store: None,
        }
        .options(py)?
        .config();
        let server = server.server()?;
        let runtime = OwnedRuntime::new(SERVER_WORKERS)?;
        let http = {
            let _entered = runtime.handle().enter();
            StreamableHttpServer::new(server, config)
        };
        Ok(Self {
            router: http.router(),
            _http: http,
            runtime,
        })
    }

    /// Serves one request to the endpoint: `method`, the header fields as
    /// `(name, value)` byte pairs (as ASGI gives them) and the whole body.
    /// Finishes with `(status, headers, chunk, body)`: `chunk` is the part
    /// of the body ready now, `body` a [`ResponseBody`] for the rest, or
    /// `None` when `chunk` is all of it. Cancelling the call before it
    /// finishes is a disconnect.
    fn handle(
        &self,
        method: &str,
        headers: Vec<(Vec<u8>, Vec<u8>)>,
        body: Vec<u8>,
    ) -> PyResult<Call> {
        let method = Method::from_bytes(method.as_bytes())
            .map_err(|_| PyValueError::new_err(format!("not an HTTP method: {method:?}")))?;
        let mut request = Request::new(Body::from(body));
        *request.method_mut() = method;
        *request.uri_mut() = http::Uri::from_static("/");
        let fields = request.headers_mut();
        for (name, value) in headers {
            // The ASGI server parsed the request: a field it let through
            // that http cannot hold is left out rather than failing it.
            if let (Ok(name), Ok(value)) = (
                HeaderName::from_bytes(&name),
                HeaderValue::from_bytes(&value),
            ) {
                fields.append(name, value);
            }
        }
        let mut router = self.router.clone();
        let handle = self.runtime.handle().clone();
        Ok(call::spawn(self.runtime.handle(), None, async move {
            let response = match tower_service::Service::call(&mut router, request).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            let (parts, body) = response.into_parts();
            let whole = HttpBody::size_hint(&body).exact().is_some();
            let mut stream = body.into_data_stream();
            let (chunk, more) = if whole {
                (read_all(&mut stream).await?, false)
            } else {
                ready_chunks(&mut stream, None)
            };
            let status = parts.status.as_u16();
            let headers: Vec<(Vec<u8>, Vec<u8>)> = parts
                .headers
                .iter()
                .map(|(name, value)| (name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()))
                .collect();
            let rest = more.then(|| ResponseBody {
                shared: Arc::new(Shared {
                    stream: Mutex::new(Some(stream)),
                    closed: CancellationToken::new(),
                }),
                handle,
            });
            Ok(Box::new(move |py: Python<'_>| {
                let headers = PyList::new(
                    py,
                    headers
                        .iter()
                        .map(|(name, value)| (PyBytes::new(py, name), PyBytes::new(py, value))),
                )?;
                let rest = match rest {
                    Some(rest) => Py::new(py, rest)?.into_any(),
                    None => py.None(),
                };
                let answer = PyTuple::new(
                    py,
                    [
                        status.into_pyobject(py)?.into_any().unbind(),
                        headers.into_any().unbind(),
                        PyBytes::new(py, &chunk).into_any().unbind(),
                        rest,
                    ],
                )?;
                Ok(answer.into_any().unbind())
            }) as call::Convert)
        }))
    }

    /// Stops the engine: every session and stream ends, requests in
    /// progress are dropped. Idempotent.
    fn stop(&self) {
        self.runtime.shutdown();
    }
}

fn failed(e: axum::Error) -> Failure {
    Failure::Core(mcp_core::Error::Transport(std::io::Error::other(e)))
}

/// Every chunk of a body that is complete already (a JSON answer).
async fn read_all(stream: &mut BodyDataStream) -> Result<Vec<u8>, Failure> {
    let mut all = Vec::new();
    while let Some(chunk) = stream.next().await {
        all.extend_from_slice(&chunk.map_err(failed)?);
    }
    Ok(all)
}

/// `first` and the chunks that are ready after it without waiting, joined
/// (several events of a stream in one ASGI message); and whether the body
/// goes on.
fn ready_chunks(stream: &mut BodyDataStream, first: Option<Bytes>) -> (Vec<u8>, bool) {
    let mut joined = first.map(Vec::from).unwrap_or_default();
    loop {
        match stream.next().now_or_never() {
            Some(Some(Ok(chunk))) => joined.extend_from_slice(&chunk),
            // An error ends the body where it is (the client sees it cut).
            Some(Some(Err(_))) => return (joined, false),
            Some(None) => return (joined, false),
            None => return (joined, true),
        }
    }
}

struct Shared {
    /// The rest of the body; `None` while a `next()` reads it, or once
    /// closed or ended.
    stream: Mutex<Option<BodyDataStream>>,
    closed: CancellationToken,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Option<BodyDataStream>> {
        self.stream
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The rest of a streamed response body (an SSE stream).
#[pyclass(frozen, module = "libmcp._libmcp")]
pub(crate) struct ResponseBody {
    shared: Arc<Shared>,
    handle: Handle,
}

impl std::fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseBody").finish_non_exhaustive()
    }
}

#[pymethods]
impl ResponseBody {
    /// Finishes with `(chunk, more)`: the chunks ready at the next wake-up,
    /// joined, and whether the body goes on. Once closed or ended (or while
    /// another `next()` is reading), `(b"", False)`.
    fn next(&self) -> Call {
        let shared = self.shared.clone();
        call::spawn(&self.handle, None, async move {
            let Some(mut stream) = shared.lock().take() else {
                return chunk_outcome(Vec::new(), false);
            };
            let first = tokio::select! {
                biased;
                () = shared.closed.cancelled() => return chunk_outcome(Vec::new(), false),
                first = stream.next() => first,
            };
            let (chunk, more) = match first {
                Some(Ok(first)) => ready_chunks(&mut stream, Some(first)),
                Some(Err(e)) => return Err(failed(e)),
                None => (Vec::new(), false),
            };
            if more && !shared.closed.is_cancelled() {
                *shared.lock() = Some(stream);
            }
            chunk_outcome(chunk, more)
        })
    }

    /// Drops the stream (the client went away): a request it was to answer
    /// is cancelled as the endpoint's disconnect rules say. Idempotent.
    fn close(&self) {
        self.shared.closed.cancel();
        drop(self.shared.lock().take());
    }
}

fn chunk_outcome(chunk: Vec<u8>, more: bool) -> Outcome {
    Ok(Box::new(move |py: Python<'_>| {
        Ok(PyTuple::new(
            py,
            [
                PyBytes::new(py, &chunk).into_any().unbind(),
                pyo3::types::PyBool::new(py, more)
                    .to_owned()
                    .into_any()
                    .unbind(),
            ],
        )?
        .into_any()
        .unbind())
    }))
}
