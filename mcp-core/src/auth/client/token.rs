//! Tokens and the token endpoint: the authorization code exchange, refresh,
//! the client credentials grant and the JWT bearer grant.

use std::time::{Duration, SystemTime};

use http::header::{ACCEPT, CONTENT_TYPE};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::dpop::Dpop;
use super::http::{AuthHttp, auth_error, read_limited, without_url};
use super::registration::{
    ClientCredentials, OAuthErrorBody, TokenEndpointAuthMethod, authenticate, choose_auth_method,
    describe_refusal, form_encode,
};
use crate::Result;
use crate::auth::challenge::split_scopes;
use crate::auth::{AuthorizationServerMetadata, Secret};

/// What the token endpoint granted. `Debug` shows no token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenSet {
    /// The access token, sent as `Authorization: Bearer …`.
    pub access_token: Secret,
    /// The refresh token, if one was issued.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<Secret>,
    /// When the access token expires, if the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<SystemTime>,
    /// The granted scopes, space-separated (the requested ones when the
    /// server did not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The token is DPoP-bound (`token_type: DPoP`): it goes out as
    /// `Authorization: DPoP …` with a proof of the client's key.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop: bool,
}

/// Tokens are refreshed this long before they expire.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

impl TokenSet {
    /// A token without refresh token, expiry or scope (for tests and for
    /// tokens obtained elsewhere).
    pub fn bearer(access_token: impl Into<Secret>) -> Self {
        Self {
            access_token: access_token.into(),
            refresh_token: None,
            expires_at: None,
            scope: None,
            dpop: false,
        }
    }

    /// Whether the access token has expired or is about to.
    pub fn is_expired(&self) -> bool {
        self.expires_at
            .is_some_and(|at| SystemTime::now() + EXPIRY_MARGIN >= at)
    }

    /// The granted scopes.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }
}

/// A grant presented at the token endpoint.
#[derive(Debug)]
pub(crate) enum Grant<'a> {
    AuthorizationCode {
        code: &'a Secret,
        redirect_uri: &'a str,
        verifier: &'a Secret,
    },
    Refresh(&'a Secret),
    ClientCredentials,
    /// RFC 7523 §2.1: a JWT from elsewhere (a workload identity token, an
    /// ID-JAG) exchanged for an access token.
    JwtBearer(&'a Secret),
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: Option<Secret>,
    token_type: Option<String>,
    expires_in: Option<Value>,
    refresh_token: Option<Secret>,
    scope: Option<String>,
}

/// A token endpoint and how the client authenticates there (`audience`:
/// the server's issuer, the `aud` of a client assertion).
pub(crate) struct TokenEndpoint<'a> {
    pub(crate) url: reqwest::Url,
    pub(crate) client: &'a ClientCredentials,
    pub(crate) method: TokenEndpointAuthMethod,
    pub(crate) audience: &'a str,
    /// Sends a DPoP proof (and follows a `use_dpop_nonce` answer once).
    pub(crate) dpop: Option<&'a Dpop>,
}

/// Posts `form` with the client's authentication (and a DPoP proof) to a
/// token endpoint and returns the body of a successful answer; `what` names
/// the request in errors. A `use_dpop_nonce` refusal is retried once with
/// the server's nonce (RFC 9449 §8).
pub(crate) async fn post_form(
    http: &AuthHttp,
    endpoint: &TokenEndpoint<'_>,
    form: Vec<(&'static str, String)>,
    what: &str,
) -> Result<Vec<u8>> {
    let mut nonce_retried = false;
    loop {
        let mut form = form.clone();
        let mut request = http
            .client
            .post(endpoint.url.clone())
            .header(ACCEPT, "application/json")
            .header(CONTENT_TYPE, "application/x-www-form-urlencoded");
        if let Some(dpop) = endpoint.dpop {
            request = request.header("dpop", dpop.proof("POST", &endpoint.url, None)?);
        }
        let request = authenticate(
            request,
            &mut form,
            endpoint.client,
            endpoint.method,
            endpoint.audience,
        )?;
        let body: Vec<String> = form
            .iter()
            .map(|(k, v)| format!("{k}={}", form_encode(v)))
            .collect();
        let response = request
            .body(body.join("&"))
            .send()
            .await
            .map_err(|e| auth_error(format!("{what} {}", without_url(&e))))?;
        let status = response.status();
        let nonce = response
            .headers()
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let body = read_limited(response)
            .await
            .map_err(|e| auth_error(format!("{what}: {e}")))?;
        if let (Some(dpop), Some(nonce)) = (endpoint.dpop, &nonce) {
            dpop.remember_nonce(&endpoint.url, nonce);
            if !nonce_retried && !status.is_success() && is_nonce_error(&body) {
                nonce_retried = true;
                continue;
            }
        }
        if !status.is_success() {
            return Err(auth_error(format!(
                "{what} was refused by the token endpoint: {}",
                describe_refusal(status, &body)
            )));
        }
        return Ok(body);
    }
}

/// Whether an OAuth error body is `use_dpop_nonce`.
fn is_nonce_error(body: &[u8]) -> bool {
    serde_json::from_slice::<OAuthErrorBody>(body)
        .is_ok_and(|b| b.error.as_deref() == Some("use_dpop_nonce"))
}

/// RFC 7523 §2.1: the `grant_type` of the JWT bearer grant.
pub(crate) const JWT_BEARER_GRANT: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Asks the token endpoint of `meta` for tokens for `resource` (sent as is).
pub(crate) async fn request_token(
    http: &AuthHttp,
    meta: &AuthorizationServerMetadata,
    client: &ClientCredentials,
    grant: Grant<'_>,
    resource: &str,
    scope: Option<&str>,
    dpop: Option<&Dpop>,
) -> Result<TokenSet> {
    let Some(endpoint) = meta.token_endpoint.as_deref() else {
        return Err(auth_error(format!(
            "the authorization server `{}` has no token endpoint",
            meta.issuer
        )));
    };
    let url = http.check_url("the token endpoint", endpoint)?;
    let method = choose_auth_method(client, meta)?;
    let mut form: Vec<(&'static str, String)> = Vec::new();
    let what = match &grant {
        Grant::AuthorizationCode {
            code,
            redirect_uri,
            verifier,
        } => {
            form.push(("grant_type", "authorization_code".into()));
            form.push(("code", code.expose().to_string()));
            form.push(("redirect_uri", (*redirect_uri).to_string()));
            form.push(("code_verifier", verifier.expose().to_string()));
            "the authorization code exchange"
        }
        Grant::Refresh(token) => {
            form.push(("grant_type", "refresh_token".into()));
            form.push(("refresh_token", token.expose().to_string()));
            "the token refresh"
        }
        Grant::ClientCredentials => {
            form.push(("grant_type", "client_credentials".into()));
            if let Some(scope) = scope {
                form.push(("scope", scope.to_string()));
            }
            "the client credentials grant"
        }
        Grant::JwtBearer(assertion) => {
            form.push(("grant_type", JWT_BEARER_GRANT.into()));
            form.push(("assertion", assertion.expose().to_string()));
            if let Some(scope) = scope {
                form.push(("scope", scope.to_string()));
            }
            "the JWT bearer grant"
        }
    };
    form.push(("resource", resource.to_string()));
    let endpoint = TokenEndpoint {
        url,
        client,
        method,
        audience: &meta.issuer,
        dpop,
    };
    let body = post_form(http, &endpoint, form, what).await?;
    let parsed: TokenResponse = serde_json::from_slice(&body)
        .map_err(|e| auth_error(format!("{what}: malformed token response: {e}")))?;
    let access_token = parsed
        .access_token
        .filter(|t| !t.expose().is_empty())
        .ok_or_else(|| auth_error(format!("{what}: the token response has no access_token")))?;
    // RFC 9449 §5: a DPoP proof asks for a DPoP-bound token, and a Bearer
    // token in its place would go out without the proof the client meant.
    let expected = if dpop.is_some() { "DPoP" } else { "Bearer" };
    match parsed.token_type.as_deref() {
        Some(t) if t.eq_ignore_ascii_case(expected) => {}
        Some(other) => {
            return Err(auth_error(format!(
                "{what}: the token endpoint issued a `{other}` token where a {expected} token \
                 was asked for"
            )));
        }
        None => {
            return Err(auth_error(format!(
                "{what}: the token response has no token_type"
            )));
        }
    }
    let expires_in = match parsed.expires_in {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    };
    Ok(TokenSet {
        access_token,
        refresh_token: parsed.refresh_token,
        expires_at: expires_in.map(|s| SystemTime::now() + Duration::from_secs(s)),
        scope: parsed
            .scope
            .filter(|s| !s.trim().is_empty())
            .or_else(|| scope.map(str::to_string)),
        dpop: dpop.is_some(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_has_a_margin_and_debug_hides_tokens() {
        let mut t = TokenSet::bearer("at-123");
        t.refresh_token = Some(Secret::new("rt-456"));
        assert!(!t.is_expired());
        t.expires_at = Some(SystemTime::now() + Duration::from_secs(10));
        assert!(t.is_expired());
        t.expires_at = Some(SystemTime::now() + Duration::from_secs(3600));
        assert!(!t.is_expired());
        let shown = format!("{t:?}");
        assert!(
            !shown.contains("at-123") && !shown.contains("rt-456"),
            "{shown}"
        );
    }
}
