//! The standalone server's service per connection: a request for `/mcp`
//! goes straight to the endpoint, anything else to the metadata router.
//!
//! Why not one axum `Router` (as before): on the path every request takes
//! it matched a route, inserted its URL parameters, went through the layer
//! that adds the client's address, and boxed the endpoint's future. Here
//! that is one comparison of the path, and the endpoint's future is held in
//! the connection's own (no allocation per request). Handlers see the same
//! head: the client's address as `ConnectInfo` (see
//! [`peer_addr`](super::peer_addr)).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::task::{Context, Poll};

use axum::Router;
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use axum::serve::{IncomingStream, Listener};
use futures::future::{Either, Ready, ready};

/// Where the standalone server answers MCP.
const ENDPOINT_PATH: &str = "/mcp";

/// Makes a [`Connection`] for each accepted connection.
#[derive(Clone, Debug)]
pub(super) struct Connections<E> {
    /// The MCP endpoint (see `endpoint`).
    pub(super) endpoint: E,
    /// Every other path: the Protected Resource Metadata, else 404.
    pub(super) others: Router,
}

impl<L, E> tower::Service<IncomingStream<'_, L>> for Connections<E>
where
    L: Listener<Addr = SocketAddr>,
    E: Clone,
{
    type Response = Connection<E>;
    type Error = Infallible;
    type Future = Ready<Result<Connection<E>, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, incoming: IncomingStream<'_, L>) -> Self::Future {
        ready(Ok(Connection {
            endpoint: self.endpoint.clone(),
            others: self.others.clone(),
            peer: *incoming.remote_addr(),
        }))
    }
}

/// The service of one connection, from the client at `peer`.
#[derive(Clone, Debug)]
pub(super) struct Connection<E> {
    endpoint: E,
    others: Router,
    peer: SocketAddr,
}

impl<E> tower::Service<Request> for Connection<E>
where
    E: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<E::Future, <Router as tower::Service<Request>>::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // Either may take the request: ready when both are (a service_fn
        // and a router always are).
        match self.endpoint.poll_ready(cx) {
            Poll::Ready(Ok(())) => tower::Service::<Request>::poll_ready(&mut self.others, cx),
            other => other,
        }
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        request.extensions_mut().insert(ConnectInfo(self.peer));
        if request.uri().path() == ENDPOINT_PATH {
            Either::Left(self.endpoint.call(request))
        } else {
            Either::Right(tower::Service::call(&mut self.others, request))
        }
    }
}
