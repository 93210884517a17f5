//! Enterprise-managed authorization (SEP-990): the identity provider's
//! token exchange (RFC 8693) of the user's ID token for an Identity
//! Assertion JWT Authorization Grant (ID-JAG), which the JWT bearer grant
//! then presents to the MCP server's authorization server.

use serde::Deserialize;

use super::assertion::AssertionSource;
use super::http::{AuthHttp, auth_error};
use super::registration::ClientCredentials;
use super::token::{TokenEndpoint, post_form};
use crate::Result;
use crate::auth::{Secret, TokenEndpointAuthMethod};

const TOKEN_EXCHANGE_GRANT: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG_TYPE: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// Where an ID-JAG comes from: the identity provider's token endpoint, the
/// client registered there, and the user's ID token from single sign-on
/// (read again for every exchange, like any [`AssertionSource`]).
#[derive(Clone, Debug)]
pub struct IdJagExchange {
    token_endpoint: String,
    client: ClientCredentials,
    id_token: Box<AssertionSource>,
}

impl IdJagExchange {
    /// An exchange at `token_endpoint` of the identity provider, as `client`
    /// (with a secret it authenticates with HTTP Basic, else it sends its
    /// `client_id`), of the ID token `id_token`.
    pub fn new(
        token_endpoint: impl Into<String>,
        client: ClientCredentials,
        id_token: AssertionSource,
    ) -> Self {
        Self {
            token_endpoint: token_endpoint.into(),
            client,
            id_token: Box::new(id_token),
        }
    }

    /// Exchanges the ID token for an ID-JAG addressed to the authorization
    /// server `audience` (its issuer) for the MCP server `resource`.
    pub(crate) async fn id_jag(
        &self,
        http: &AuthHttp,
        audience: &str,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<Secret> {
        let what = "the token exchange at the identity provider";
        let url = http.check_url(
            "the identity provider's token endpoint",
            &self.token_endpoint,
        )?;
        let id_token = Box::pin(self.id_token.read(http, audience, resource, scope)).await?;
        let mut form: Vec<(&'static str, String)> = vec![
            ("grant_type", TOKEN_EXCHANGE_GRANT.into()),
            ("requested_token_type", ID_JAG_TYPE.into()),
            ("subject_token", id_token.expose().to_string()),
            ("subject_token_type", ID_TOKEN_TYPE.into()),
            ("audience", audience.into()),
            ("resource", resource.into()),
        ];
        if let Some(scope) = scope {
            form.push(("scope", scope.into()));
        }
        let endpoint = TokenEndpoint {
            url,
            client: &self.client,
            // No metadata of the identity provider is read: a secret goes
            // by HTTP Basic (RFC 6749's default), else the client id alone.
            method: if self.client.client_secret.is_some() {
                TokenEndpointAuthMethod::ClientSecretBasic
            } else {
                TokenEndpointAuthMethod::None
            },
            audience: &self.token_endpoint,
            dpop: None,
        };
        let body = post_form(http, &endpoint, form, what).await?;
        #[derive(Deserialize)]
        struct Exchanged {
            access_token: Option<Secret>,
            issued_token_type: Option<String>,
        }
        let exchanged: Exchanged = serde_json::from_slice(&body)
            .map_err(|e| auth_error(format!("{what}: malformed response: {e}")))?;
        if exchanged.issued_token_type.as_deref() != Some(ID_JAG_TYPE) {
            return Err(auth_error(format!(
                "{what}: the identity provider issued {} instead of an ID-JAG",
                exchanged
                    .issued_token_type
                    .as_deref()
                    .unwrap_or("no issued_token_type")
            )));
        }
        exchanged
            .access_token
            .filter(|t| !t.expose().is_empty())
            .ok_or_else(|| auth_error(format!("{what}: the response has no access_token")))
    }
}
