//! The MCP client side of OAuth 2.1: [`OAuthClient`], an [`AuthProvider`]
//! for [`StreamableHttpClient::auth`](crate::transport::http::StreamableHttpClient::auth).

mod assertion;
mod discovery;
mod dpop;
mod exchange;
mod flow;
mod http;
mod loopback;
mod pkce;
mod registration;
mod store;
mod token;
mod user_agent;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::Url;

pub use assertion::AssertionSource;
pub use dpop::DpopPolicy;
pub use exchange::IdJagExchange;
pub use loopback::{LoopbackUserAgent, UrlPresenter};
pub use registration::{ClientCredentials, TokenEndpointAuthMethod};
pub use store::{InMemoryTokenStore, TokenStore};
pub use token::TokenSet;
pub use user_agent::{AuthorizationResponse, AuthorizationUserAgent, HeadlessUserAgent};

use self::http::AuthHttp;
use crate::auth::provider::bearer_header;
use crate::auth::{AuthChallenge, AuthProvider, Secret, SigningKey};
use crate::{Error, Result};

/// Which OAuth grant obtains tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum GrantKind {
    /// The authorization code flow with PKCE, through an
    /// [`AuthorizationUserAgent`] (the default).
    AuthorizationCode,
    /// The client credentials grant (machine to machine, the
    /// `io.modelcontextprotocol/oauth-client-credentials` extension); needs
    /// pre-registered credentials with a secret or a private key
    /// ([`ClientCredentials::with_private_key`], `private_key_jwt`).
    ClientCredentials,
    /// The JWT bearer grant (RFC 7523) with a token from an
    /// [`AssertionSource`]: workload identity federation (SEP-1933), where a
    /// platform-issued workload token is exchanged for an access token, or
    /// enterprise-managed authorization (SEP-990), where the identity
    /// provider exchanges the user's ID token for an ID-JAG
    /// ([`AssertionSource::IdJag`]);
    /// needs pre-registered credentials (the client id) and
    /// [`OAuthClientBuilder::assertion`].
    JwtBearer,
}

/// An OAuth 2.1 client for one MCP endpoint, following the MCP
/// authorization spec (2025-11-25): discovery from the challenge (RFC 9728,
/// RFC 8414, OpenID Connect), registration (pre-registered → Client ID
/// Metadata Document → Dynamic Client Registration), the authorization code
/// flow with PKCE S256, `state` and RFC 8707 `resource`, refresh, and
/// step-up on `insufficient_scope`. Build it with [`OAuthClient::builder`].
pub struct OAuthClient {
    endpoint: Url,
    key: String,
    client_name: String,
    grant: GrantKind,
    credentials: Option<ClientCredentials>,
    assertion: Option<AssertionSource>,
    client_metadata_url: Option<String>,
    scope: Option<String>,
    http: AuthHttp,
    dpop: Option<dpop::Dpop>,
    store: Arc<dyn TokenStore>,
    user_agent: Arc<dyn AuthorizationUserAgent>,
    flow: tokio::sync::Mutex<flow::FlowState>,
}

impl fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthClient")
            .field("endpoint", &self.endpoint.as_str())
            .field("client_name", &self.client_name)
            .field("grant", &self.grant)
            .field("pre_registered", &self.credentials.is_some())
            .field("assertion", &self.assertion)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("store", &self.store)
            .field("user_agent", &self.user_agent)
            .finish_non_exhaustive()
    }
}

impl OAuthClient {
    /// Starts building a client for the MCP endpoint `endpoint`.
    pub fn builder(endpoint: impl Into<String>) -> OAuthClientBuilder {
        OAuthClientBuilder {
            endpoint: endpoint.into(),
            client_name: "libmcp".into(),
            grant: GrantKind::AuthorizationCode,
            credentials: None,
            assertion: None,
            client_metadata_url: None,
            scope: None,
            store: None,
            user_agent: None,
            timeout: Duration::from_secs(30),
            allow_http: false,
            dpop_policy: DpopPolicy::Auto,
            dpop_key: None,
        }
    }

    /// The tokens held for the endpoint, if any.
    pub async fn tokens(&self) -> Result<Option<TokenSet>> {
        self.store.tokens(&self.key).await
    }

    /// Authorizes now, before any request (discovery through the well-known
    /// URLs). Useful before connecting when the user may take longer than a
    /// request's timeout.
    pub async fn authorize(&self) -> Result<()> {
        let challenge = AuthChallenge {
            status: 401,
            bearer: None,
            dpop_nonce: None,
        };
        self.handle_challenge(&challenge, None).await
    }

    /// Forgets the endpoint's tokens.
    pub async fn sign_out(&self) -> Result<()> {
        self.store.remove_tokens(&self.key).await
    }
}

#[async_trait]
impl AuthProvider for OAuthClient {
    async fn token(&self) -> Result<Option<Secret>> {
        let Some(tokens) = self.store.tokens(&self.key).await? else {
            return Ok(None);
        };
        if !tokens.is_expired() || tokens.refresh_token.is_none() {
            return Ok(Some(tokens.access_token));
        }
        let mut state = self.flow.lock().await;
        // Another request may have refreshed meanwhile.
        match self.store.tokens(&self.key).await? {
            Some(t) if !t.is_expired() => Ok(Some(t.access_token)),
            Some(t) => match self.refresh_known(&mut state, &t).await {
                Some(fresh) => Ok(Some(fresh.access_token)),
                // Send it anyway: the server's 401 starts the flow.
                None => Ok(Some(t.access_token)),
            },
            None => Ok(None),
        }
    }

    async fn present(
        &self,
        token: &Secret,
        method: &::http::Method,
        url: &str,
    ) -> Result<Vec<(::http::HeaderName, ::http::HeaderValue)>> {
        let bound = self
            .store
            .tokens(&self.key)
            .await?
            .is_some_and(|t| t.dpop && &t.access_token == token);
        let Some(dpop) = self.dpop.as_ref().filter(|_| bound) else {
            return Ok(bearer_header(token).into_iter().collect());
        };
        let url = Url::parse(url).map_err(|e| Error::InvalidArgument(format!("`{url}`: {e}")))?;
        let proof = dpop.proof(method.as_str(), &url, Some(token))?;
        let header = |text: String| {
            ::http::HeaderValue::from_str(&text)
                .map_err(|_| Error::Auth("the DPoP token is not a valid header value".into()))
        };
        let mut authorization = header(format!("DPoP {}", token.expose()))?;
        authorization.set_sensitive(true);
        Ok(vec![
            (::http::header::AUTHORIZATION, authorization),
            (::http::HeaderName::from_static("dpop"), header(proof)?),
        ])
    }

    async fn handle_challenge(
        &self,
        challenge: &AuthChallenge,
        used: Option<&Secret>,
    ) -> Result<()> {
        // RFC 9449 §9: the resource server wants its nonce in the proof;
        // the token is fine, so the request goes again with it.
        if let (Some(dpop), Some(nonce)) = (&self.dpop, &challenge.dpop_nonce) {
            dpop.remember_nonce(&self.endpoint, nonce);
            if challenge.is_dpop_nonce() {
                return Ok(());
            }
        }
        let mut state = self.flow.lock().await;
        self.answer(&mut state, challenge, used).await
    }
}

/// Builds an [`OAuthClient`].
#[derive(Debug)]
pub struct OAuthClientBuilder {
    endpoint: String,
    client_name: String,
    grant: GrantKind,
    credentials: Option<ClientCredentials>,
    assertion: Option<AssertionSource>,
    client_metadata_url: Option<String>,
    scope: Option<String>,
    store: Option<Arc<dyn TokenStore>>,
    user_agent: Option<Arc<dyn AuthorizationUserAgent>>,
    timeout: Duration,
    allow_http: bool,
    dpop_policy: DpopPolicy,
    dpop_key: Option<SigningKey>,
}

impl OAuthClientBuilder {
    /// The `client_name` sent in Dynamic Client Registration.
    #[must_use]
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Pre-registered credentials: used first, and registration is skipped.
    #[must_use]
    pub fn pre_registered(mut self, credentials: ClientCredentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// The HTTPS URL of this client's Client ID Metadata Document, used as
    /// its `client_id` with servers that advertise
    /// `client_id_metadata_document_supported`.
    #[must_use]
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Which grant obtains tokens (default: authorization code).
    #[must_use]
    pub fn grant(mut self, grant: GrantKind) -> Self {
        self.grant = grant;
        self
    }

    /// Where the assertion of the [`GrantKind::JwtBearer`] grant comes from
    /// (read again for every grant).
    #[must_use]
    pub fn assertion(mut self, source: AssertionSource) -> Self {
        self.assertion = Some(source);
        self
    }

    /// When tokens are DPoP-bound (RFC 9449; default
    /// [`DpopPolicy::Auto`]: when the authorization server offers it).
    #[must_use]
    pub fn dpop(mut self, policy: DpopPolicy) -> Self {
        self.dpop_policy = policy;
        self
    }

    /// The DPoP key (default: an ES256 key generated for this client).
    #[must_use]
    pub fn dpop_key(mut self, key: SigningKey) -> Self {
        self.dpop_key = Some(key);
        self
    }

    /// Requests exactly these scopes (space-separated) instead of following
    /// the spec's scope selection.
    #[must_use]
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scope = Some(scope.into());
        self
    }

    /// Where tokens and registrations are kept (default: in memory).
    #[must_use]
    pub fn token_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = Some(store);
        self
    }

    /// How the user authorizes (default: a [`HeadlessUserAgent`], which
    /// follows the server's redirects without a person).
    #[must_use]
    pub fn user_agent(mut self, agent: Arc<dyn AuthorizationUserAgent>) -> Self {
        self.user_agent = Some(agent);
        self
    }

    /// The timeout of each request to the authorization server (default
    /// 30 s).
    #[must_use]
    pub fn http_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Allows plain-HTTP authorization servers off loopback (default false:
    /// the spec requires HTTPS; loopback is always allowed).
    #[must_use]
    pub fn allow_insecure_http(mut self, allow: bool) -> Self {
        self.allow_http = allow;
        self
    }

    /// Checks the settings and builds the client.
    pub fn build(self) -> Result<Arc<OAuthClient>> {
        let endpoint = Url::parse(&self.endpoint).map_err(|e| {
            Error::InvalidArgument(format!("MCP endpoint `{}`: {e}", self.endpoint))
        })?;
        if let Some(url) = &self.client_metadata_url {
            let parsed = Url::parse(url).ok();
            let valid = parsed
                .as_ref()
                .is_some_and(|u| u.scheme() == "https" && !u.path().trim_matches('/').is_empty());
            if !valid {
                return Err(Error::InvalidArgument(format!(
                    "client metadata URL `{url}` must be an https URL with a path"
                )));
            }
        }
        match self.grant {
            GrantKind::ClientCredentials
                if self
                    .credentials
                    .as_ref()
                    .is_none_or(|c| c.client_secret.is_none() && c.private_key.is_none()) =>
            {
                return Err(Error::InvalidArgument(
                    "the client credentials grant needs pre-registered credentials with a \
                     secret or a private key"
                        .into(),
                ));
            }
            GrantKind::JwtBearer if self.credentials.is_none() || self.assertion.is_none() => {
                return Err(Error::InvalidArgument(
                    "the JWT bearer grant needs pre-registered credentials (the client id) \
                     and an assertion source"
                        .into(),
                ));
            }
            _ => {}
        }
        let dpop = match (self.dpop_policy, self.dpop_key) {
            (DpopPolicy::Off, _) => None,
            (policy, Some(key)) => Some(dpop::Dpop::new(key, policy)),
            (policy, None) => Some(dpop::Dpop::new(
                SigningKey::generate(crate::auth::JwsAlgorithm::Es256)?,
                policy,
            )),
        };
        let user_agent: Arc<dyn AuthorizationUserAgent> = match self.user_agent {
            Some(agent) => agent,
            None => Arc::new(HeadlessUserAgent::new("http://127.0.0.1/callback")?),
        };
        Ok(Arc::new(OAuthClient {
            key: self.endpoint.clone(),
            endpoint,
            client_name: self.client_name,
            grant: self.grant,
            credentials: self.credentials,
            assertion: self.assertion,
            client_metadata_url: self.client_metadata_url,
            scope: self.scope,
            http: AuthHttp::new(self.timeout, self.allow_http)?,
            dpop,
            store: self
                .store
                .unwrap_or_else(|| Arc::new(InMemoryTokenStore::new())),
            user_agent,
            flow: tokio::sync::Mutex::new(flow::FlowState::default()),
        }))
    }
}
