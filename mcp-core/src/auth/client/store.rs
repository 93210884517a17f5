//! Where the OAuth client keeps tokens and registered clients.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard};

use async_trait::async_trait;

use super::registration::ClientCredentials;
use super::token::TokenSet;
use crate::Result;

/// Keeps tokens (per MCP endpoint URL) and dynamically registered clients
/// (per authorization server issuer). Implement it to persist them (an OS
/// keychain, an encrypted file); the default, [`InMemoryTokenStore`], forgets
/// everything when dropped.
#[async_trait]
pub trait TokenStore: Send + Sync + fmt::Debug {
    /// The tokens for the MCP endpoint `resource`.
    async fn tokens(&self, resource: &str) -> Result<Option<TokenSet>>;
    /// Keeps tokens for `resource`, replacing earlier ones.
    async fn save_tokens(&self, resource: &str, tokens: TokenSet) -> Result<()>;
    /// Forgets the tokens for `resource`.
    async fn remove_tokens(&self, resource: &str) -> Result<()>;
    /// The client registered with the authorization server `issuer`.
    async fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>>;
    /// Keeps a client registered with `issuer`.
    async fn save_client(&self, issuer: &str, client: ClientCredentials) -> Result<()>;
}

/// A [`TokenStore`] in memory. `Debug` shows only how many entries it has.
#[derive(Default)]
pub struct InMemoryTokenStore {
    tokens: Mutex<HashMap<String, TokenSet>>,
    clients: Mutex<HashMap<String, ClientCredentials>>,
}

impl InMemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl fmt::Debug for InMemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryTokenStore")
            .field("tokens", &lock(&self.tokens).len())
            .field("clients", &lock(&self.clients).len())
            .finish()
    }
}

#[async_trait]
impl TokenStore for InMemoryTokenStore {
    async fn tokens(&self, resource: &str) -> Result<Option<TokenSet>> {
        Ok(lock(&self.tokens).get(resource).cloned())
    }

    async fn save_tokens(&self, resource: &str, tokens: TokenSet) -> Result<()> {
        lock(&self.tokens).insert(resource.to_string(), tokens);
        Ok(())
    }

    async fn remove_tokens(&self, resource: &str) -> Result<()> {
        lock(&self.tokens).remove(resource);
        Ok(())
    }

    async fn client(&self, issuer: &str) -> Result<Option<ClientCredentials>> {
        Ok(lock(&self.clients).get(issuer).cloned())
    }

    async fn save_client(&self, issuer: &str, client: ClientCredentials) -> Result<()> {
        lock(&self.clients).insert(issuer.to_string(), client);
        Ok(())
    }
}
