//! OAuth 2.1 authorization for MCP over HTTP (spec revision 2025-11-25,
//! "Authorization").
//!
//! **Client.** Build an [`OAuthClient`] for the MCP endpoint and give it to
//! the transport; the first 401 starts discovery, registration and the
//! authorization code flow, and the request is then sent again:
//!
//! ```no_run
//! # async fn f() -> mcp_core::Result<()> {
//! use mcp_core::auth::OAuthClient;
//! use mcp_core::transport::http::StreamableHttpClient;
//! let url = "https://mcp.example.com/mcp";
//! let oauth = OAuthClient::builder(url).client_name("my-tool").build()?;
//! let transport = StreamableHttpClient::new(url).auth(oauth);
//! # let _ = transport; Ok(()) }
//! ```
//!
//! The user takes part through an [`AuthorizationUserAgent`]:
//! [`HeadlessUserAgent`] (the default: follows the server's redirects, for
//! tools and tests) or [`LoopbackUserAgent`] (shows the URL and receives the
//! redirect on a loopback port, for a person at a terminal). Tokens live in a
//! [`TokenStore`] ([`InMemoryTokenStore`] by default).
//!
//! **Server.** Describe the endpoint with a [`ProtectedResource`] (resource
//! identifier, authorization servers, a [`TokenValidator`] and the scopes
//! each method or tool needs) and set it in
//! [`HttpServerConfig::protected_resource`](crate::http::HttpServerConfig::protected_resource).
//! Handlers read the caller's [`AuthInfo`] from
//! [`Context::auth`](crate::server::Context::auth).
//!
//! Tokens, secrets, codes and verifiers are [`Secret`]s: no `Debug` output
//! or log line shows them.
//!
//! Without the `auth` feature this module holds only what handlers and
//! the HTTP client see of authorization: [`AuthInfo`] (the caller's
//! identity, from [`Context::auth`](crate::server::Context::auth)),
//! [`TokenValidator`], [`Secret`] and, with `http-client`, the
//! [`AuthProvider`] trait for bearer tokens of your own.

#[cfg(any(
    feature = "http-client",
    all(feature = "auth", feature = "http-server")
))]
mod challenge;
#[cfg(all(feature = "auth", feature = "http-client"))]
mod client;
mod identity;
#[cfg(all(feature = "auth", feature = "http-client"))]
mod jwt;
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub mod metadata;
#[cfg(feature = "http-client")]
mod provider;
#[cfg(all(feature = "auth", feature = "http-server"))]
mod resource;
mod secret;

#[cfg(any(
    feature = "http-client",
    all(feature = "auth", feature = "http-server")
))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(
        feature = "http-client",
        all(feature = "auth", feature = "http-server")
    )))
)]
pub use challenge::BearerChallenge;
#[cfg(all(feature = "auth", feature = "http-client"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "auth", feature = "http-client"))))]
pub use client::{
    AssertionSource, AuthorizationResponse, AuthorizationUserAgent, ClientCredentials, DpopPolicy,
    GrantKind, HeadlessUserAgent, IdJagExchange, InMemoryTokenStore, LoopbackUserAgent,
    OAuthClient, OAuthClientBuilder, TokenEndpointAuthMethod, TokenSet, TokenStore, UrlPresenter,
};
pub use identity::{AuthInfo, TokenError, TokenValidator};
#[cfg(all(feature = "auth", feature = "http-client"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "auth", feature = "http-client"))))]
pub use jwt::{JwsAlgorithm, SigningKey};
#[cfg(feature = "auth")]
#[cfg_attr(docsrs, doc(cfg(feature = "auth")))]
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
#[cfg(feature = "http-client")]
#[cfg_attr(docsrs, doc(cfg(feature = "http-client")))]
pub use provider::{AuthChallenge, AuthProvider, MAX_AUTH_ATTEMPTS};
#[cfg(all(feature = "auth", feature = "http-server"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "auth", feature = "http-server"))))]
pub use resource::{ProtectedResource, ProtectedResourceBuilder};
pub use secret::Secret;
