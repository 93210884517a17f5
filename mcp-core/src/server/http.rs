//! The server role behind Streamable HTTP: what the HTTP acceptor serves
//! (a session per client, and requests that stand alone). The transport
//! knows only the [`Acceptor`] trait; the dependency points from the role
//! to the transport, never back.

use std::sync::Arc;

use super::service::attach;
use super::{Server, ServerHandler, stateless};
use crate::auth::AuthInfo;
use crate::extensions::RequestMethod;
use crate::jsonrpc::{InboundRequest, RpcError};
use crate::request_meta::RequestMeta;
use crate::session::{
    Acceptor, Attached, OutboundSink, RequestContext, RequestFuture, SessionConfig,
};
use crate::transport::http::{HttpServerConfig, StreamableHttpServer};
use crate::{ProtocolVersion, Result};

/// A server as the HTTP transport sees it.
struct ServerAcceptor {
    handler: Arc<dyn ServerHandler>,
    config: SessionConfig,
    /// The registry whose sessions hear of changes (a [`Server`]).
    registry: Option<Server>,
    /// What requests that stand alone need of the server's info, worked out
    /// once for a [`Server`] (its capabilities are fixed when it is built);
    /// `None`: asked of the handler per request.
    profile: Option<Arc<stateless::Profile>>,
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
        meta: RequestMeta,
        identity: Option<Arc<AuthInfo>>,
        ctx: RequestContext,
    ) -> std::result::Result<RequestFuture, RpcError> {
        let method = RequestMethod::resolve(&request.method, Some(meta.version))
            .ok_or_else(|| RpcError::method_not_found(&request.method))?;
        stateless::serve(
            &self.handler,
            self.profile.as_ref(),
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
    /// Serves a [`Server`]: each HTTP session is one session of it.
    pub fn new(server: Server, config: HttpServerConfig) -> Self {
        if let Some(bus) = &config.bus {
            super::replicas::bridge(&server, bus.clone());
        }
        if let Some(store) = &config.task_store {
            server.share_tasks(store.clone(), config.bus.clone());
        }
        if let Some(key) = &config.request_state_key {
            server.share_request_state_key(key.clone());
        }
        let handler: Arc<dyn ServerHandler> = Arc::new(server.clone());
        let acceptor = ServerAcceptor {
            profile: stateless::Profile::of(handler.as_ref()).ok(),
            handler,
            config: server.session_config().clone(),
            registry: Some(server),
        };
        Self::with_acceptor(Arc::new(acceptor), config)
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
            profile: None,
        };
        Self::with_acceptor(Arc::new(acceptor), config)
    }
}
