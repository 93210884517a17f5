//! The server role behind Streamable HTTP: what the HTTP acceptor serves
//! (a session per client, and requests that stand alone). The rest of the
//! HTTP server knows only the [`Acceptor`] trait; this layer imports the
//! role, never the other way round.

use std::sync::Arc;

use super::{Deferred, HttpServerConfig, StreamableHttpServer};
use crate::auth::AuthInfo;
use crate::extensions::RequestMethod;
use crate::jsonrpc::{InboundRequest, RpcError};
use crate::request_meta::RequestMeta;
use crate::server::{Server, ServerHandler, attach, serve_alone};
use crate::session::{
    Acceptor, AloneFuture, Attached, OutboundSink, RequestContext, SessionConfig,
};
use crate::{ProtocolVersion, Result};

/// A server as the HTTP transport sees it.
struct ServerAcceptor {
    handler: Arc<dyn ServerHandler>,
    config: SessionConfig,
    /// The registry whose sessions hear of changes (a [`Server`]), which
    /// also keeps what requests that stand alone need of its info, worked
    /// out once per change (`None`: asked of the handler per request).
    registry: Option<Server>,
}

impl Acceptor for ServerAcceptor {
    fn open(
        &self,
        sink: Arc<dyn OutboundSink>,
        preset: Option<ProtocolVersion>,
    ) -> Result<Attached> {
        let (attached, state) = attach(self.handler.clone(), sink, self.config.clone(), preset);
        // A session of one POST (preset) hears of nothing after it.
        if let (Some(server), None) = (&self.registry, preset) {
            server.register_state(&state);
        }
        Ok(attached)
    }

    fn serve_alone(
        &self,
        request: InboundRequest<'_>,
        meta: Box<RequestMeta>,
        identity: Option<Arc<AuthInfo>>,
        ctx: RequestContext,
    ) -> std::result::Result<AloneFuture, RpcError> {
        let method = RequestMethod::resolve(&request.method, Some(meta.version))
            .ok_or_else(|| RpcError::method_not_found(&request.method))?;
        let profile = self.registry.as_ref().and_then(Server::profile);
        serve_alone(
            &self.handler,
            profile.as_ref(),
            method,
            meta,
            identity,
            request,
            ctx,
        )
    }

    fn config(&self) -> &SessionConfig {
        &self.config
    }
}

impl StreamableHttpServer {
    /// Serves a [`Server`]: each HTTP session is one session of it. Needs
    /// no Tokio runtime (background work starts with the first request).
    pub fn new(server: Server, config: HttpServerConfig) -> Self {
        // Started inside a runtime (see `with_acceptor`).
        let mut deferred: Vec<Deferred> = Vec::new();
        if let Some(bus) = config.bus.clone() {
            let server = server.clone();
            deferred.push(Box::new(move || super::replicas::bridge(&server, bus)));
        }
        if let Some(store) = config.task_store.clone() {
            // Following the bus spawns: started inside a runtime.
            let (server, bus) = (server.clone(), config.bus.clone());
            deferred.push(Box::new(move || server.share_tasks(store, bus)));
        }
        if let Some(key) = &config.request_state_key {
            server.share_request_state_key(key.clone());
        }
        server.mark_served();
        let handler: Arc<dyn ServerHandler> = Arc::new(server.clone());
        let acceptor = ServerAcceptor {
            handler,
            config: server.session_config().clone(),
            registry: Some(server),
        };
        Self::with_acceptor(Arc::new(acceptor), config, deferred)
    }

    /// Serves any [`ServerHandler`].
    pub fn with_handler(
        handler: Arc<dyn ServerHandler>,
        session: SessionConfig,
        config: HttpServerConfig,
    ) -> Self {
        let acceptor = ServerAcceptor {
            handler,
            config: session,
            registry: None,
        };
        Self::with_acceptor(Arc::new(acceptor), config, Vec::new())
    }
}
