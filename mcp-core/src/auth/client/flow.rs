//! The steps of [`OAuthClient`]: discovery, the client's identity, scope
//! selection, the authorization code flow and refresh.

use reqwest::Url;

use super::dpop::Dpop;
use super::http::auth_error;
use super::pkce::{Pkce, random_string};
use super::registration::{ClientCredentials, TokenEndpointAuthMethod, register};
use super::token::{Grant, TokenSet, request_token};
use super::{AuthChallenge, GrantKind, OAuthClient, discovery};
use crate::Result;
use crate::auth::{AuthorizationServerMetadata, ProtectedResourceMetadata, Secret};

/// What the client learned, kept between challenges.
#[derive(Debug, Default)]
pub(crate) struct FlowState {
    discovered: Option<Discovered>,
}

#[derive(Clone, Debug)]
struct Discovered {
    /// The `resource_metadata` of the challenge it came from, if any.
    from: Option<String>,
    prm: ProtectedResourceMetadata,
    meta: AuthorizationServerMetadata,
    client: ClientCredentials,
    /// Tokens from this server are DPoP-bound.
    dpop: bool,
}

/// `prior` then the scopes of `more` not in it.
fn union(prior: Vec<String>, more: Vec<String>) -> Vec<String> {
    let mut out = prior;
    for scope in more {
        if !out.contains(&scope) {
            out.push(scope);
        }
    }
    out
}

fn joined(scopes: &[String]) -> Option<String> {
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

impl OAuthClient {
    /// The DPoP key when tokens from `discovered` are to be DPoP-bound.
    fn dpop_for(&self, discovered: &Discovered) -> Option<&Dpop> {
        self.dpop.as_ref().filter(|_| discovered.dpop)
    }

    /// Answers a challenge: nothing if a newer token already satisfies it,
    /// else a refresh (for 401), else a new grant.
    pub(super) async fn answer(
        &self,
        state: &mut FlowState,
        challenge: &AuthChallenge,
        used: Option<&Secret>,
    ) -> Result<()> {
        let current = self.store.tokens(&self.key).await?;
        if let Some(current) = &current {
            let newer = used != Some(&current.access_token) && !current.is_expired();
            let granted = current.scopes();
            if newer
                && (!challenge.is_insufficient_scope()
                    || challenge.scopes().iter().all(|s| granted.contains(s)))
            {
                return Ok(());
            }
        }
        let previous = state.discovered.as_ref().map(|d| d.meta.issuer.clone());
        // A rejected token may mean the resource moved to another
        // authorization server: look at its metadata again.
        let recheck = challenge.status == 401 && used.is_some();
        let discovered = self.discover(state, challenge, recheck).await?;
        // Tokens of one authorization server are never shown to another.
        let same_server = previous.is_none_or(|p| p == discovered.meta.issuer);
        if !challenge.is_insufficient_scope() && same_server {
            if let Some(current) = &current {
                if let Some(fresh) = self.refresh(&discovered, current).await {
                    tracing::debug!("authorization: refreshed the access token");
                    return self.store.save_tokens(&self.key, fresh).await;
                }
            }
        }
        let scope = self.choose_scope(challenge, &discovered.prm, current.as_ref());
        let tokens = match self.grant {
            GrantKind::AuthorizationCode => {
                self.authorization_code(&discovered, scope.as_deref())
                    .await?
            }
            GrantKind::ClientCredentials => {
                request_token(
                    &self.http,
                    &discovered.meta,
                    &discovered.client,
                    Grant::ClientCredentials,
                    &discovered.prm.resource,
                    scope.as_deref(),
                    self.dpop_for(&discovered),
                )
                .await?
            }
            GrantKind::JwtBearer => {
                let Some(source) = &self.assertion else {
                    return Err(auth_error("the JWT bearer grant has no assertion source"));
                };
                let assertion = source
                    .read(
                        &self.http,
                        &discovered.meta.issuer,
                        &discovered.prm.resource,
                        scope.as_deref(),
                    )
                    .await?;
                request_token(
                    &self.http,
                    &discovered.meta,
                    &discovered.client,
                    Grant::JwtBearer(&assertion),
                    &discovered.prm.resource,
                    scope.as_deref(),
                    self.dpop_for(&discovered),
                )
                .await?
            }
        };
        tracing::debug!("authorization: obtained an access token");
        self.store.save_tokens(&self.key, tokens).await
    }

    /// Refreshes with what is already known (no discovery); `None` if that
    /// is not possible or fails.
    pub(super) async fn refresh_known(
        &self,
        state: &mut FlowState,
        tokens: &TokenSet,
    ) -> Option<TokenSet> {
        let discovered = state.discovered.clone()?;
        let fresh = self.refresh(&discovered, tokens).await?;
        self.store
            .save_tokens(&self.key, fresh.clone())
            .await
            .ok()?;
        Some(fresh)
    }

    /// Uses the refresh token of `tokens`, if any; `None` when there is none
    /// or the server refuses it (the caller then authorizes anew).
    async fn refresh(&self, discovered: &Discovered, tokens: &TokenSet) -> Option<TokenSet> {
        let refresh_token = tokens.refresh_token.as_ref()?;
        let refreshed = request_token(
            &self.http,
            &discovered.meta,
            &discovered.client,
            Grant::Refresh(refresh_token),
            &discovered.prm.resource,
            None,
            self.dpop_for(discovered),
        )
        .await;
        match refreshed {
            Ok(mut fresh) => {
                // A server that does not rotate keeps the old refresh token.
                if fresh.refresh_token.is_none() {
                    fresh.refresh_token = Some(refresh_token.clone());
                }
                if fresh.scope.is_none() {
                    fresh.scope.clone_from(&tokens.scope);
                }
                Some(fresh)
            }
            Err(e) => {
                tracing::debug!("authorization: the refresh failed, authorizing anew: {e}");
                None
            }
        }
    }

    /// The spec's scope selection: the challenge's `scope`, else the
    /// resource's `scopes_supported`, else none; on a step-up (or any new
    /// grant after an earlier one) together with the scopes held before.
    fn choose_scope(
        &self,
        challenge: &AuthChallenge,
        prm: &ProtectedResourceMetadata,
        current: Option<&TokenSet>,
    ) -> Option<String> {
        if let Some(fixed) = &self.scope {
            return Some(fixed.clone());
        }
        let challenged = challenge.scopes();
        let wanted = if challenged.is_empty() {
            prm.scopes_supported.clone().unwrap_or_default()
        } else {
            challenged
        };
        let prior = current.map(TokenSet::scopes).unwrap_or_default();
        joined(&union(prior, wanted))
    }

    /// Discovery and the client's identity, reused while the server points
    /// at the same metadata (and, with `recheck`, while that metadata is
    /// unchanged).
    async fn discover(
        &self,
        state: &mut FlowState,
        challenge: &AuthChallenge,
        recheck: bool,
    ) -> Result<Discovered> {
        let from = challenge
            .bearer
            .as_ref()
            .and_then(|b| b.resource_metadata.clone());
        let mut fetched = None;
        if let Some(known) = &state.discovered {
            if from.is_none() || known.from == from {
                if !recheck {
                    return Ok(known.clone());
                }
                let prm =
                    discovery::resource_metadata(&self.http, &self.endpoint, known.from.as_deref())
                        .await?;
                if prm == known.prm {
                    return Ok(known.clone());
                }
                tracing::debug!("authorization: the protected resource metadata changed");
                fetched = Some(prm);
            }
        }
        let prm = match fetched {
            Some(prm) => prm,
            None => {
                discovery::resource_metadata(&self.http, &self.endpoint, from.as_deref()).await?
            }
        };
        let meta = discovery::authorization_server_metadata(&self.http, &prm).await?;
        let client = self.client_for(&meta).await?;
        let challenged = challenge.bearer.as_ref().is_some_and(|b| b.dpop);
        let dpop = self
            .dpop
            .as_ref()
            .is_some_and(|d| d.applies_to(&meta, challenged));
        let discovered = Discovered {
            from,
            prm,
            meta,
            client,
            dpop,
        };
        state.discovered = Some(discovered.clone());
        Ok(discovered)
    }

    /// The spec's registration order: pre-registered, then a Client ID
    /// Metadata Document, then a client registered earlier, then Dynamic
    /// Client Registration.
    async fn client_for(&self, meta: &AuthorizationServerMetadata) -> Result<ClientCredentials> {
        if let Some(credentials) = &self.credentials {
            return Ok(credentials.clone());
        }
        if self.grant == GrantKind::ClientCredentials {
            return Err(auth_error(
                "the client credentials grant needs pre-registered credentials",
            ));
        }
        if let (Some(url), Some(true)) = (
            &self.client_metadata_url,
            meta.client_id_metadata_document_supported,
        ) {
            return Ok(
                ClientCredentials::new(url.clone()).with_auth_method(TokenEndpointAuthMethod::None)
            );
        }
        let redirect_uri = self.user_agent.redirect_uri();
        let key = format!("{} {redirect_uri}", meta.issuer);
        if let Some(known) = self.store.client(&key).await? {
            return Ok(known);
        }
        let registered = register(&self.http, meta, &self.client_name, &redirect_uri).await?;
        tracing::debug!(
            "authorization: registered client `{}`",
            registered.client_id
        );
        self.store.save_client(&key, registered.clone()).await?;
        Ok(registered)
    }

    /// The authorization code flow with PKCE S256, `state` and `resource`.
    async fn authorization_code(
        &self,
        discovered: &Discovered,
        scope: Option<&str>,
    ) -> Result<TokenSet> {
        let meta = &discovered.meta;
        if !meta.supports_s256() {
            return Err(auth_error(format!(
                "the authorization server `{}` does not advertise PKCE with S256 \
                 (code_challenge_methods_supported: {}); refusing to proceed",
                meta.issuer,
                meta.code_challenge_methods_supported
                    .as_ref()
                    .map_or_else(|| "absent".to_string(), |m| format!("{m:?}"))
            )));
        }
        let Some(endpoint) = meta.authorization_endpoint.as_deref() else {
            return Err(auth_error(format!(
                "the authorization server `{}` has no authorization endpoint",
                meta.issuer
            )));
        };
        let mut url: Url = self
            .http
            .check_url("the authorization endpoint", endpoint)?;
        let pkce = Pkce::new()?;
        let state = random_string(32)?;
        let redirect_uri = self.user_agent.redirect_uri();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &discovered.client.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &pkce.challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
            }
            query.append_pair("resource", &discovered.prm.resource);
        }
        let response = self.user_agent.authorize(&url).await?;
        if let Some(error) = &response.error {
            return Err(auth_error(format!(
                "the authorization server refused: {error}{}",
                response
                    .error_description
                    .as_ref()
                    .map(|d| format!(": {d}"))
                    .unwrap_or_default()
            )));
        }
        if response.state.as_deref() != Some(state.as_str()) {
            return Err(auth_error(
                "the authorization response's state does not match the request; discarded",
            ));
        }
        match (
            &response.iss,
            meta.authorization_response_iss_parameter_supported,
        ) {
            (Some(iss), _) if *iss != meta.issuer => {
                return Err(auth_error(format!(
                    "the authorization response comes from issuer `{iss}`, not `{}` (RFC 9207); \
                     discarded",
                    meta.issuer
                )));
            }
            (None, Some(true)) => {
                return Err(auth_error(
                    "the authorization response lacks the `iss` its server advertises (RFC 9207); \
                     discarded",
                ));
            }
            _ => {}
        }
        let Some(code) = &response.code else {
            return Err(auth_error("the authorization response has no code"));
        };
        request_token(
            &self.http,
            meta,
            &discovered.client,
            Grant::AuthorizationCode {
                code,
                redirect_uri: &redirect_uri,
                verifier: &pkce.verifier,
            },
            &discovered.prm.resource,
            scope,
            self.dpop_for(discovered),
        )
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_keeps_order_and_drops_duplicates() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        assert_eq!(union(s(&["a", "b"]), s(&["b", "c"])), s(&["a", "b", "c"]));
        assert_eq!(joined(&[]), None);
    }
}
