//! The metadata documents of MCP authorization and where to find them:
//! OAuth 2.0 Protected Resource Metadata (RFC 9728) and Authorization Server
//! Metadata (RFC 8414, or OpenID Connect Discovery 1.0).

use serde::{Deserialize, Serialize};
use url::Url;

/// The well-known path segment of Protected Resource Metadata (RFC 9728 §3).
pub const PROTECTED_RESOURCE_WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";
const OAUTH_AS_WELL_KNOWN: &str = "/.well-known/oauth-authorization-server";
const OPENID_WELL_KNOWN: &str = "/.well-known/openid-configuration";

/// OAuth 2.0 Protected Resource Metadata (RFC 9728 §2), as an MCP server
/// publishes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ProtectedResourceMetadata {
    /// The resource identifier: the canonical URI of the MCP server. Clients
    /// send it byte for byte as the RFC 8707 `resource` parameter.
    pub resource: String,
    /// Issuer identifiers of the authorization servers (at least one).
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource understands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// How a token may be presented; MCP uses `header` only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    /// A name for people.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    /// A page for developers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_documentation: Option<String>,
}

impl ProtectedResourceMetadata {
    /// Metadata for `resource` protected by the authorization servers named.
    pub fn new(resource: impl Into<String>, authorization_servers: Vec<String>) -> Self {
        Self {
            resource: resource.into(),
            authorization_servers,
            scopes_supported: None,
            bearer_methods_supported: Some(vec!["header".into()]),
            resource_name: None,
            resource_documentation: None,
        }
    }
}

/// OAuth 2.0 Authorization Server Metadata (RFC 8414 §2), or the same fields
/// of an OpenID Provider configuration. Only what MCP clients use is read.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuthorizationServerMetadata {
    /// The issuer identifier; it must equal the one the document was
    /// looked up with (RFC 8414 §3.3).
    pub issuer: String,
    /// Where the user agent is sent to authorize.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    /// Where codes and refresh tokens are exchanged for tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    /// Dynamic Client Registration (RFC 7591), if offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    /// Scopes the server knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    /// `code`, for the authorization code flow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_types_supported: Option<Vec<String>>,
    /// Grant types; absent means `authorization_code` and `implicit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    /// Client authentication at the token endpoint; absent means
    /// `client_secret_basic` (RFC 8414 §2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// PKCE methods; MCP clients refuse a server without `S256`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// Whether URL client ids (Client ID Metadata Documents) are accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether the authorization response carries `iss` (RFC 9207).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// The algorithms of DPoP proofs the server accepts (RFC 9449 §5.1); a
    /// server that lists one issues DPoP-bound tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl AuthorizationServerMetadata {
    /// Whether PKCE with `S256` is advertised.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m == "S256"))
    }

    /// Whether `grant` is advertised (RFC 8414 defaults when absent).
    pub fn supports_grant(&self, grant: &str) -> bool {
        match &self.grant_types_supported {
            Some(grants) => grants.iter().any(|g| g == grant),
            None => matches!(grant, "authorization_code" | "implicit"),
        }
    }
}

/// `url` with its path replaced and no query or fragment.
fn with_path(url: &Url, path: &str) -> Url {
    let mut out = url.clone();
    out.set_path(path);
    out.set_query(None);
    out.set_fragment(None);
    out
}

/// The path of `url` without a trailing slash ("" for the root).
fn trimmed_path(url: &Url) -> &str {
    url.path().trim_end_matches('/')
}

/// Where to look for the Protected Resource Metadata of the MCP endpoint
/// `endpoint` when the server's challenge names none, in the spec's order:
/// path-based (`/.well-known/oauth-protected-resource/<path>`), then root.
pub fn protected_resource_metadata_urls(endpoint: &Url) -> Vec<Url> {
    let path = trimmed_path(endpoint);
    let mut urls = Vec::with_capacity(2);
    if !path.is_empty() {
        urls.push(with_path(
            endpoint,
            &format!("{PROTECTED_RESOURCE_WELL_KNOWN}{path}"),
        ));
    }
    urls.push(with_path(endpoint, PROTECTED_RESOURCE_WELL_KNOWN));
    urls
}

/// Where a server publishes the metadata of the resource `resource` (path
/// insertion, RFC 9728 §3.1): the URL path only.
pub fn protected_resource_metadata_path(resource: &Url) -> String {
    format!("{PROTECTED_RESOURCE_WELL_KNOWN}{}", trimmed_path(resource))
}

/// Where to look for the metadata of the authorization server `issuer`, in
/// the spec's order: RFC 8414 and OpenID Connect Discovery with path
/// insertion, then OpenID Connect path appending.
pub fn authorization_server_metadata_urls(issuer: &Url) -> Vec<Url> {
    let path = trimmed_path(issuer);
    if path.is_empty() {
        vec![
            with_path(issuer, OAUTH_AS_WELL_KNOWN),
            with_path(issuer, OPENID_WELL_KNOWN),
        ]
    } else {
        vec![
            with_path(issuer, &format!("{OAUTH_AS_WELL_KNOWN}{path}")),
            with_path(issuer, &format!("{OPENID_WELL_KNOWN}{path}")),
            with_path(issuer, &format!("{path}{OPENID_WELL_KNOWN}")),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn strings(urls: Vec<Url>) -> Vec<String> {
        urls.into_iter().map(String::from).collect()
    }

    #[test]
    fn protected_resource_candidates_follow_the_spec_order() {
        assert_eq!(
            strings(protected_resource_metadata_urls(&url(
                "https://example.com/public/mcp?x=1"
            ))),
            vec![
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource",
            ]
        );
        assert_eq!(
            strings(protected_resource_metadata_urls(&url(
                "http://localhost:3000"
            ))),
            vec!["http://localhost:3000/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            protected_resource_metadata_path(&url("http://127.0.0.1:9/mcp/")),
            "/.well-known/oauth-protected-resource/mcp"
        );
    }

    #[test]
    fn authorization_server_candidates_follow_the_spec_order() {
        assert_eq!(
            strings(authorization_server_metadata_urls(&url(
                "https://auth.example.com/tenant1"
            ))),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration",
            ]
        );
        assert_eq!(
            strings(authorization_server_metadata_urls(&url(
                "https://auth.example.com/"
            ))),
            vec![
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration",
            ]
        );
    }

    #[test]
    fn pkce_and_grant_support() {
        let mut m = AuthorizationServerMetadata::default();
        assert!(!m.supports_s256());
        m.code_challenge_methods_supported = Some(vec!["plain".into()]);
        assert!(!m.supports_s256());
        m.code_challenge_methods_supported = Some(vec!["plain".into(), "S256".into()]);
        assert!(m.supports_s256());
        assert!(m.supports_grant("authorization_code"));
        assert!(!m.supports_grant("client_credentials"));
    }
}
