//! The MCP server side of OAuth 2.1: a protected resource (RFC 9728) that
//! publishes its metadata, answers requests without a valid token with 401
//! and a `WWW-Authenticate` challenge, and requests that lack a scope with
//! 403 `insufficient_scope`.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::response::{IntoResponse, Response};
use http::header::{AUTHORIZATION, CACHE_CONTROL, CONTENT_TYPE, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderValue, StatusCode};
use url::Url;

use crate::auth::metadata::protected_resource_metadata_path;
use crate::auth::{
    AuthInfo, BearerChallenge, ProtectedResourceMetadata, TokenError, TokenValidator,
};
use crate::jsonrpc::{ErrorCode, RpcError, encode_error};
use crate::schema::methods;
use crate::{Error, Result};

/// How long a [`TokenValidator`] may take.
const VALIDATION_TIMEOUT: Duration = Duration::from_secs(10);

/// A protected MCP endpoint: its Protected Resource Metadata, the token
/// validator and the scopes each operation needs. Give it to
/// [`HttpServerConfig::protected_resource`](crate::http::HttpServerConfig::protected_resource).
#[derive(Clone)]
pub struct ProtectedResource {
    inner: Arc<Inner>,
}

struct Inner {
    metadata: ProtectedResourceMetadata,
    metadata_path: String,
    metadata_url: String,
    validator: Arc<dyn TokenValidator>,
    required: Vec<String>,
    by_method: HashMap<String, Vec<String>>,
    by_tool: HashMap<String, Vec<String>>,
}

impl fmt::Debug for ProtectedResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtectedResource")
            .field("resource", &self.inner.metadata.resource)
            .field("metadata_url", &self.inner.metadata_url)
            .field("required_scopes", &self.inner.required)
            .field("method_scopes", &self.inner.by_method)
            .field("tool_scopes", &self.inner.by_tool)
            .finish_non_exhaustive()
    }
}

/// Builds a [`ProtectedResource`].
pub struct ProtectedResourceBuilder {
    metadata: ProtectedResourceMetadata,
    validator: Arc<dyn TokenValidator>,
    required: Vec<String>,
    by_method: HashMap<String, Vec<String>>,
    by_tool: HashMap<String, Vec<String>>,
}

impl fmt::Debug for ProtectedResourceBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtectedResourceBuilder")
            .field("metadata", &self.metadata)
            .finish_non_exhaustive()
    }
}

fn owned(scopes: impl IntoIterator<Item = impl Into<String>>) -> Vec<String> {
    scopes.into_iter().map(Into::into).collect()
}

impl ProtectedResourceBuilder {
    /// The scopes published in the metadata (`scopes_supported`).
    #[must_use]
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.metadata.scopes_supported = Some(owned(scopes));
        self
    }

    /// Scopes every request needs.
    #[must_use]
    pub fn required_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.required = owned(scopes);
        self
    }

    /// Scopes a JSON-RPC method (e.g. `tools/list`) needs, besides the
    /// required ones.
    #[must_use]
    pub fn method_scopes(
        mut self,
        method: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.by_method.insert(method.into(), owned(scopes));
        self
    }

    /// Scopes calling the tool `tool` needs, besides those of `tools/call`.
    #[must_use]
    pub fn tool_scopes(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.by_tool.insert(tool.into(), owned(scopes));
        self
    }

    /// A name for people, published in the metadata.
    #[must_use]
    pub fn resource_name(mut self, name: impl Into<String>) -> Self {
        self.metadata.resource_name = Some(name.into());
        self
    }

    /// Checks the resource identifier and builds.
    pub fn build(self) -> Result<ProtectedResource> {
        let resource = &self.metadata.resource;
        let url = Url::parse(resource)
            .map_err(|e| Error::InvalidArgument(format!("resource `{resource}`: {e}")))?;
        if url.fragment().is_some() || !matches!(url.scheme(), "http" | "https") {
            return Err(Error::InvalidArgument(format!(
                "resource `{resource}` must be an http(s) URI without a fragment"
            )));
        }
        if self.metadata.authorization_servers.is_empty() {
            return Err(Error::InvalidArgument(
                "a protected resource needs at least one authorization server".into(),
            ));
        }
        let metadata_path = protected_resource_metadata_path(&url);
        let mut metadata_url = url.clone();
        metadata_url.set_path(&metadata_path);
        metadata_url.set_query(None);
        Ok(ProtectedResource {
            inner: Arc::new(Inner {
                metadata_url: metadata_url.to_string(),
                metadata_path,
                metadata: self.metadata,
                validator: self.validator,
                required: self.required,
                by_method: self.by_method,
                by_tool: self.by_tool,
            }),
        })
    }
}

/// A refusal: 401, 403 or 503 with its challenge.
#[derive(Debug)]
pub(crate) struct Rejection {
    status: StatusCode,
    challenge: Option<Box<BearerChallenge>>,
    message: String,
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        let body = encode_error(None, &RpcError::new(ErrorCode::SERVER_ERROR, self.message));
        let mut response =
            (self.status, [(CONTENT_TYPE, "application/json")], body).into_response();
        if let Some(challenge) = self.challenge {
            if let Ok(value) = HeaderValue::from_str(&challenge.to_header_value()) {
                response.headers_mut().insert(WWW_AUTHENTICATE, value);
            }
        }
        response
    }
}

/// Compares resource identifiers, ignoring one trailing slash.
fn same_resource(a: &str, b: &str) -> bool {
    a.trim_end_matches('/') == b.trim_end_matches('/')
}

impl ProtectedResource {
    /// A protected MCP endpoint whose canonical URI is `resource` (e.g.
    /// `https://mcp.example.com/mcp`), trusting tokens of the authorization
    /// servers named (issuer identifiers) as `validator` judges them.
    pub fn builder(
        resource: impl Into<String>,
        authorization_servers: impl IntoIterator<Item = impl Into<String>>,
        validator: impl TokenValidator,
    ) -> ProtectedResourceBuilder {
        ProtectedResourceBuilder {
            metadata: ProtectedResourceMetadata::new(resource, owned(authorization_servers)),
            validator: Arc::new(validator),
            required: Vec::new(),
            by_method: HashMap::new(),
            by_tool: HashMap::new(),
        }
    }

    /// The published metadata document.
    pub fn metadata(&self) -> &ProtectedResourceMetadata {
        &self.inner.metadata
    }

    /// Where the metadata is published (`resource_metadata` of challenges).
    pub fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// The URL path of the metadata, to route at the server's root.
    pub fn metadata_path(&self) -> &str {
        &self.inner.metadata_path
    }

    /// The metadata document as an HTTP response.
    pub(crate) fn metadata_response(&self) -> Response {
        match serde_json::to_string(&self.inner.metadata) {
            Ok(json) => (
                StatusCode::OK,
                [
                    (CONTENT_TYPE, "application/json"),
                    (CACHE_CONTROL, "max-age=3600"),
                ],
                json,
            )
                .into_response(),
            Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        }
    }

    fn challenge(
        &self,
        error: Option<&str>,
        scopes: &[String],
        description: Option<&str>,
    ) -> BearerChallenge {
        let scopes = if scopes.is_empty() {
            self.inner
                .metadata
                .scopes_supported
                .as_deref()
                .unwrap_or_default()
        } else {
            scopes
        };
        BearerChallenge {
            resource_metadata: Some(self.inner.metadata_url.clone()),
            scope: (!scopes.is_empty()).then(|| scopes.join(" ")),
            error: error.map(str::to_string),
            error_description: description.map(str::to_string),
            dpop: false,
        }
    }

    fn unauthorized(&self, error: Option<&str>, why: &str) -> Rejection {
        Rejection {
            status: StatusCode::UNAUTHORIZED,
            challenge: Some(Box::new(self.challenge(
                error,
                &self.inner.required,
                error.map(|_| why),
            ))),
            message: format!("Unauthorized: {why}"),
        }
    }

    fn insufficient(&self, needed: &[String]) -> Rejection {
        let why = format!("this request needs the scopes `{}`", needed.join(" "));
        Rejection {
            status: StatusCode::FORBIDDEN,
            challenge: Some(Box::new(self.challenge(
                Some("insufficient_scope"),
                needed,
                Some(&why),
            ))),
            message: format!("Forbidden: {why}"),
        }
    }

    /// Validates the request's bearer token: present, accepted by the
    /// validator, for this resource, unexpired, with the required scopes.
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
    ) -> Result<Arc<AuthInfo>, Rejection> {
        let value = headers.get(AUTHORIZATION).and_then(|v| v.to_str().ok());
        let token = value.and_then(|v| {
            let (scheme, token) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        });
        let Some(token) = token.filter(|t| !t.is_empty()) else {
            return Err(self.unauthorized(None, "a bearer token is required"));
        };
        let validated =
            tokio::time::timeout(VALIDATION_TIMEOUT, self.inner.validator.validate(token)).await;
        let info = match validated {
            Ok(Ok(info)) => info,
            Ok(Err(TokenError::Invalid(why))) => {
                return Err(self.unauthorized(Some("invalid_token"), &why));
            }
            Ok(Err(TokenError::Unavailable(why))) => {
                tracing::warn!("token validation unavailable: {why}");
                return Err(unavailable());
            }
            Err(_) => {
                tracing::warn!("token validation took longer than {VALIDATION_TIMEOUT:?}");
                return Err(unavailable());
            }
        };
        let resource = &self.inner.metadata.resource;
        if !info.audience.iter().any(|a| same_resource(a, resource)) {
            return Err(self.unauthorized(
                Some("invalid_token"),
                "the token was not issued for this resource",
            ));
        }
        if info.expires_at.is_some_and(|at| at <= SystemTime::now()) {
            return Err(self.unauthorized(Some("invalid_token"), "the token has expired"));
        }
        if !info.has_scopes(&self.inner.required) {
            return Err(self.insufficient(&self.inner.required));
        }
        Ok(Arc::new(info))
    }

    /// Checks the scopes of one JSON-RPC request: those of its method and,
    /// for `tools/call`, of the tool.
    pub(crate) fn authorize(
        &self,
        info: &AuthInfo,
        method: &str,
        tool: Option<&str>,
    ) -> Result<(), Rejection> {
        let mut needed = self.inner.required.clone();
        let by_method = self.inner.by_method.get(method);
        let by_tool = (method == methods::TOOLS_CALL)
            .then(|| tool.and_then(|t| self.inner.by_tool.get(t)))
            .flatten();
        for scope in by_method.into_iter().chain(by_tool).flatten() {
            if !needed.contains(scope) {
                needed.push(scope.clone());
            }
        }
        if info.has_scopes(&needed) {
            Ok(())
        } else {
            Err(self.insufficient(&needed))
        }
    }

    /// Whether any method or tool has its own scopes (then the server reads
    /// the request's method before deciding).
    pub(crate) fn has_operation_scopes(&self) -> bool {
        !self.inner.by_method.is_empty() || !self.inner.by_tool.is_empty()
    }
}

fn unavailable() -> Rejection {
    Rejection {
        status: StatusCode::SERVICE_UNAVAILABLE,
        challenge: None,
        message: "Service Unavailable: the token could not be validated".into(),
    }
}
