//! The endpoint as a plain `tower::Service<http::Request<B>>`, for any
//! tower-compatible server (hyper directly, or another framework), with a
//! response body type of its own so that no axum type is part of it.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use super::StreamableHttpServer;

/// An error of a request or response body.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The body of a response of the MCP endpoint: a JSON document, or an
/// event stream that ends with the request's answer (or the session).
#[derive(Debug)]
pub struct ResponseBody(axum::body::Body);

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        Pin::new(&mut self.0).poll_frame(cx).map_err(Into::into)
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.size_hint()
    }
}

/// The MCP endpoint answers every request it is given, whatever its path
/// (route to it), and never fails: every refusal is an HTTP response.
/// Request extensions inserted by outer layers reach handlers through
/// [`Context::http_parts`](crate::server::Context::http_parts).
///
/// ```no_run
/// # async fn run(server: mcp_core::server::Server) -> std::io::Result<()> {
/// use mcp_core::http::{HttpServerConfig, StreamableHttpServer};
/// use tower::Service;
///
/// let mut endpoint = StreamableHttpServer::new(server, HttpServerConfig::default());
/// let request = http::Request::post("/mcp").body(String::new()).unwrap();
/// let response = endpoint.call(request).await.unwrap();
/// # Ok(()) }
/// ```
impl<B> tower::Service<http::Request<B>> for StreamableHttpServer
where
    B: Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    type Response = http::Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let state = self.state.clone();
        let (parts, body) = request.into_parts();
        let answer = super::handle(
            state,
            std::sync::Arc::new(parts),
            axum::body::Body::new(body),
        );
        Box::pin(async move { answer.await.map(|response| response.map(ResponseBody)) })
    }
}

/// The address of the HTTP client, if the server that accepted the
/// connection put it in the request's extensions: axum's
/// `ConnectInfo<SocketAddr>` (as [`StreamableHttpServer::serve`] does), or a
/// plain `SocketAddr` (for hyper used directly).
pub fn peer_addr(parts: &http::request::Parts) -> Option<SocketAddr> {
    crate::server::peer_addr_of(parts)
}
