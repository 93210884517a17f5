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
//! [`HttpServerConfig::protected_resource`](crate::transport::http::HttpServerConfig::protected_resource).
//! Handlers read the caller's [`AuthInfo`] from
//! [`Context::auth`](crate::server::Context::auth).
//!
//! Tokens, secrets, codes and verifiers are [`Secret`]s: no `Debug` output
//! or log line shows them.

mod challenge;
mod client;
pub mod metadata;
mod resource;
mod secret;

pub use challenge::BearerChallenge;
pub use client::{
    AuthChallenge, AuthProvider, AuthorizationResponse, AuthorizationUserAgent, ClientCredentials,
    GrantKind, HeadlessUserAgent, InMemoryTokenStore, LoopbackUserAgent, MAX_AUTH_ATTEMPTS,
    OAuthClient, OAuthClientBuilder, TokenEndpointAuthMethod, TokenSet, TokenStore, UrlPresenter,
};
pub use metadata::{AuthorizationServerMetadata, ProtectedResourceMetadata};
pub use resource::{
    AuthInfo, ProtectedResource, ProtectedResourceBuilder, TokenError, TokenValidator,
};
pub use secret::Secret;
