//! Who the client is to the authorization server: pre-registered
//! credentials, a Client ID Metadata Document URL, or Dynamic Client
//! Registration (RFC 7591); and how it authenticates at the token endpoint.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use serde::{Deserialize, Serialize};

use super::http::{AuthHttp, auth_error, read_limited, without_url};
use crate::Result;
use crate::auth::jwt::client_assertion;
use crate::auth::{AuthorizationServerMetadata, Secret, SigningKey};

/// How the client authenticates at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TokenEndpointAuthMethod {
    /// HTTP Basic with the client id and secret (RFC 6749 §2.3.1).
    ClientSecretBasic,
    /// `client_id` and `client_secret` in the form body.
    ClientSecretPost,
    /// A public client: `client_id` only.
    None,
    /// An RFC 7523 client assertion signed with the client's private key.
    PrivateKeyJwt,
}

impl TokenEndpointAuthMethod {
    /// The registered name, e.g. `client_secret_basic`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ClientSecretBasic => "client_secret_basic",
            Self::ClientSecretPost => "client_secret_post",
            Self::None => "none",
            Self::PrivateKeyJwt => "private_key_jwt",
        }
    }

    /// The method of a registered name, if this client implements it.
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(Self::ClientSecretBasic),
            "client_secret_post" => Some(Self::ClientSecretPost),
            "none" => Some(Self::None),
            "private_key_jwt" => Some(Self::PrivateKeyJwt),
            _ => None,
        }
    }
}

impl fmt::Display for TokenEndpointAuthMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A client's identity at an authorization server: pre-registered, from
/// Dynamic Client Registration, or a Client ID Metadata Document URL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientCredentials {
    /// The client id.
    pub client_id: String,
    /// The secret of a confidential client (never shown by `Debug`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<Secret>,
    /// The token endpoint authentication registered for the client; when
    /// absent it is chosen from what the server supports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_method: Option<TokenEndpointAuthMethod>,
    /// The key of `private_key_jwt` authentication (never stored: a token
    /// store keeps the rest).
    #[serde(skip)]
    pub private_key: Option<SigningKey>,
}

impl ClientCredentials {
    /// A public client known by `client_id`.
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            auth_method: None,
            private_key: None,
        }
    }

    /// Adds the client secret.
    #[must_use]
    pub fn with_secret(mut self, secret: impl Into<Secret>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// Adds the private key that signs `private_key_jwt` client assertions
    /// (RFC 7523: `iss` and `sub` the client id, `aud` the authorization
    /// server's issuer).
    #[must_use]
    pub fn with_private_key(mut self, key: SigningKey) -> Self {
        self.private_key = Some(key);
        self
    }

    /// Fixes the token endpoint authentication method.
    #[must_use]
    pub fn with_auth_method(mut self, method: TokenEndpointAuthMethod) -> Self {
        self.auth_method = Some(method);
        self
    }
}

/// The methods the server accepts (RFC 8414 default: `client_secret_basic`).
fn supported(meta: &AuthorizationServerMetadata) -> Vec<&str> {
    match &meta.token_endpoint_auth_methods_supported {
        Some(methods) => methods.iter().map(String::as_str).collect(),
        None => vec!["client_secret_basic"],
    }
}

/// Chooses how `client` authenticates at the token endpoint of `meta`.
pub(crate) fn choose_auth_method(
    client: &ClientCredentials,
    meta: &AuthorizationServerMetadata,
) -> Result<TokenEndpointAuthMethod> {
    let has_secret = client.client_secret.is_some();
    let has_key = client.private_key.is_some();
    if let Some(method) = client.auth_method {
        let missing = match method {
            TokenEndpointAuthMethod::None => None,
            TokenEndpointAuthMethod::PrivateKeyJwt => (!has_key).then_some("private key"),
            _ => (!has_secret).then_some("client secret"),
        };
        if let Some(missing) = missing {
            return Err(auth_error(format!(
                "the client is registered for {method} but has no {missing}"
            )));
        }
        return Ok(method);
    }
    let supported = supported(meta);
    let mut preference = Vec::with_capacity(4);
    if has_key {
        preference.push(TokenEndpointAuthMethod::PrivateKeyJwt);
    }
    if has_secret {
        preference.extend([
            TokenEndpointAuthMethod::ClientSecretBasic,
            TokenEndpointAuthMethod::ClientSecretPost,
        ]);
    }
    preference.push(TokenEndpointAuthMethod::None);
    preference
        .iter()
        .copied()
        .find(|m| supported.contains(&m.as_str()))
        .ok_or_else(|| {
            auth_error(format!(
                "the authorization server supports none of the token endpoint authentication \
                 methods this client can use (it offers: {}; the client {})",
                supported.join(", "),
                match (has_key, has_secret) {
                    (true, true) => "has a private key and a secret",
                    (true, false) => "has a private key",
                    (false, true) => "has a secret",
                    (false, false) => "has neither a secret nor a private key",
                }
            ))
        })
}

/// The method to ask for in Dynamic Client Registration: a public client
/// when the server allows it, else a secret.
fn registration_method(meta: &AuthorizationServerMetadata) -> TokenEndpointAuthMethod {
    let Some(methods) = &meta.token_endpoint_auth_methods_supported else {
        return TokenEndpointAuthMethod::None;
    };
    [
        TokenEndpointAuthMethod::None,
        TokenEndpointAuthMethod::ClientSecretBasic,
        TokenEndpointAuthMethod::ClientSecretPost,
    ]
    .into_iter()
    .find(|m| methods.iter().any(|s| s == m.as_str()))
    .unwrap_or(TokenEndpointAuthMethod::None)
}

/// `application/x-www-form-urlencoded` encoding of one value (RFC 6749 App. B).
pub(crate) fn form_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Adds client authentication to a token request of the authorization
/// server `issuer`: a Basic header, `client_id` (and `client_secret`) in the
/// form, or a signed client assertion.
pub(crate) fn authenticate(
    request: reqwest::RequestBuilder,
    form: &mut Vec<(&'static str, String)>,
    client: &ClientCredentials,
    method: TokenEndpointAuthMethod,
    issuer: &str,
) -> Result<reqwest::RequestBuilder> {
    if let (TokenEndpointAuthMethod::PrivateKeyJwt, Some(key)) = (method, &client.private_key) {
        let assertion = client_assertion(key, &client.client_id, issuer)?;
        form.push(("client_id", client.client_id.clone()));
        form.push(("client_assertion_type", CLIENT_ASSERTION_TYPE.into()));
        form.push(("client_assertion", assertion));
        return Ok(request);
    }
    let secret = client.client_secret.as_ref().map(Secret::expose);
    Ok(match (method, secret) {
        (TokenEndpointAuthMethod::ClientSecretBasic, Some(secret)) => {
            let pair = format!("{}:{}", form_encode(&client.client_id), form_encode(secret));
            let mut value =
                match http::HeaderValue::from_str(&format!("Basic {}", STANDARD.encode(pair))) {
                    Ok(v) => v,
                    Err(_) => return Ok(request),
                };
            value.set_sensitive(true);
            request.header(AUTHORIZATION, value)
        }
        (TokenEndpointAuthMethod::ClientSecretPost, Some(secret)) => {
            form.push(("client_id", client.client_id.clone()));
            form.push(("client_secret", secret.to_string()));
            request
        }
        _ => {
            form.push(("client_id", client.client_id.clone()));
            request
        }
    })
}

/// RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion.
const CLIENT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

#[derive(Serialize)]
struct RegistrationRequest<'a> {
    client_name: &'a str,
    redirect_uris: [&'a str; 1],
    grant_types: [&'a str; 2],
    response_types: [&'a str; 1],
    token_endpoint_auth_method: &'a str,
    application_type: &'a str,
}

#[derive(Deserialize)]
struct RegistrationResponse {
    client_id: String,
    client_secret: Option<Secret>,
    token_endpoint_auth_method: Option<String>,
}

/// The `error` and `error_description` of an OAuth error response.
#[derive(Deserialize)]
pub(crate) struct OAuthErrorBody {
    pub(crate) error: Option<String>,
    pub(crate) error_description: Option<String>,
}

/// Describes a refusal: the OAuth error if the body has one, else the status.
pub(crate) fn describe_refusal(status: reqwest::StatusCode, body: &[u8]) -> String {
    match serde_json::from_slice::<OAuthErrorBody>(body) {
        Ok(OAuthErrorBody {
            error: Some(error),
            error_description,
        }) => match error_description {
            Some(d) => format!("HTTP {status}, {error}: {d}"),
            None => format!("HTTP {status}, {error}"),
        },
        _ => format!("HTTP {status}"),
    }
}

/// Registers a client for the authorization code flow (RFC 7591).
pub(crate) async fn register(
    http: &AuthHttp,
    meta: &AuthorizationServerMetadata,
    client_name: &str,
    redirect_uri: &str,
) -> Result<ClientCredentials> {
    let Some(endpoint) = meta.registration_endpoint.as_deref() else {
        return Err(auth_error(format!(
            "no client credentials for `{}`: it offers neither Client ID Metadata Documents \
             (or none is configured) nor Dynamic Client Registration; configure \
             pre-registered credentials",
            meta.issuer
        )));
    };
    let url = http.check_url("the registration endpoint", endpoint)?;
    let method = registration_method(meta);
    let body = RegistrationRequest {
        client_name,
        redirect_uris: [redirect_uri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: method.as_str(),
        application_type: "native",
    };
    let body = serde_json::to_vec(&body)?;
    let response = http
        .client
        .post(url)
        .header(CONTENT_TYPE, "application/json")
        .header(ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|e| auth_error(format!("client registration {}", without_url(&e))))?;
    let status = response.status();
    let body = read_limited(response)
        .await
        .map_err(|e| auth_error(format!("client registration: {e}")))?;
    if !status.is_success() {
        return Err(auth_error(format!(
            "client registration was refused: {}",
            describe_refusal(status, &body)
        )));
    }
    let registered: RegistrationResponse = serde_json::from_slice(&body)
        .map_err(|e| auth_error(format!("malformed client registration response: {e}")))?;
    if registered.client_id.is_empty() {
        return Err(auth_error(
            "the client registration response has an empty client_id",
        ));
    }
    let auth_method = match registered.token_endpoint_auth_method.as_deref() {
        None => None,
        Some(name) => Some(TokenEndpointAuthMethod::parse(name).ok_or_else(|| {
            auth_error(format!(
                "the server registered the client for the unsupported token endpoint \
                 authentication `{name}`"
            ))
        })?),
    };
    Ok(ClientCredentials {
        client_id: registered.client_id,
        client_secret: registered.client_secret,
        auth_method,
        private_key: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(methods: Option<&[&str]>) -> AuthorizationServerMetadata {
        AuthorizationServerMetadata {
            token_endpoint_auth_methods_supported: methods
                .map(|m| m.iter().map(|s| (*s).to_string()).collect()),
            ..Default::default()
        }
    }

    #[test]
    fn method_follows_what_the_server_supports() {
        use TokenEndpointAuthMethod as M;
        let confidential = ClientCredentials::new("c").with_secret("s");
        let public = ClientCredentials::new("c");
        assert_eq!(
            choose_auth_method(&confidential, &meta(None)).unwrap(),
            M::ClientSecretBasic
        );
        assert_eq!(
            choose_auth_method(&confidential, &meta(Some(&["client_secret_post"]))).unwrap(),
            M::ClientSecretPost
        );
        assert_eq!(
            choose_auth_method(&confidential, &meta(Some(&["none"]))).unwrap(),
            M::None
        );
        assert_eq!(
            choose_auth_method(&public, &meta(Some(&["none"]))).unwrap(),
            M::None
        );
        let e = choose_auth_method(&public, &meta(Some(&["private_key_jwt"]))).unwrap_err();
        assert!(e.to_string().contains("private_key_jwt"), "{e}");
        // A registered method wins, but needs its secret.
        let fixed = confidential.clone().with_auth_method(M::ClientSecretPost);
        assert_eq!(
            choose_auth_method(&fixed, &meta(None)).unwrap(),
            M::ClientSecretPost
        );
        let broken = public.with_auth_method(M::ClientSecretBasic);
        assert!(choose_auth_method(&broken, &meta(None)).is_err());
    }

    #[test]
    fn a_private_key_means_private_key_jwt_where_the_server_takes_it() {
        use TokenEndpointAuthMethod as M;
        let key = SigningKey::generate(crate::auth::JwsAlgorithm::Es256).unwrap();
        let signed = ClientCredentials::new("c").with_private_key(key);
        assert_eq!(
            choose_auth_method(
                &signed,
                &meta(Some(&["client_secret_basic", "private_key_jwt"]))
            )
            .unwrap(),
            M::PrivateKeyJwt
        );
        // The RFC 8414 default (client_secret_basic only) leaves it a public client.
        assert_eq!(
            choose_auth_method(&signed, &meta(None))
                .unwrap_err()
                .to_string(),
            "authorization failed: the authorization server supports none of the token \
             endpoint authentication methods this client can use (it offers: \
             client_secret_basic; the client has a private key)"
        );
        let fixed = ClientCredentials::new("c").with_auth_method(M::PrivateKeyJwt);
        let e = choose_auth_method(&fixed, &meta(None)).unwrap_err();
        assert!(
            e.to_string()
                .contains("private_key_jwt but has no private key"),
            "{e}"
        );
        assert!(!format!("{signed:?}").contains("\"d\""));
        assert_eq!(M::parse("private_key_jwt"), Some(M::PrivateKeyJwt));
    }

    #[test]
    fn registration_asks_for_a_public_client_when_possible() {
        use TokenEndpointAuthMethod as M;
        assert_eq!(registration_method(&meta(None)), M::None);
        assert_eq!(
            registration_method(&meta(Some(&["none", "client_secret_basic"]))),
            M::None
        );
        assert_eq!(
            registration_method(&meta(Some(&["client_secret_post"]))),
            M::ClientSecretPost
        );
    }

    #[test]
    fn form_encoding_and_debug() {
        assert_eq!(form_encode("a b+c:d/é"), "a+b%2Bc%3Ad%2F%C3%A9");
        let c = ClientCredentials::new("id").with_secret("top-secret");
        assert!(!format!("{c:?}").contains("top-secret"));
    }
}
