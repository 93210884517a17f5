//! Where the JWT bearer grant's assertion comes from.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use super::exchange::IdJagExchange;
use super::http::{AuthHttp, auth_error};
use crate::Result;
use crate::auth::Secret;

/// The assertion of [`GrantKind::JwtBearer`](super::GrantKind::JwtBearer):
/// a workload identity token (SEP-1933) or any JWT the authorization server
/// accepts. It is read again for every grant, so a token that the platform
/// rotates (a Kubernetes projected service account token, a CI job's OIDC
/// token) is always current.
#[derive(Clone)]
#[non_exhaustive]
pub enum AssertionSource {
    /// A fixed token.
    Token(Secret),
    /// A file holding the token (surrounding white space is ignored).
    File(PathBuf),
    /// A function that returns the current token.
    Callback(Arc<dyn Fn() -> Result<Secret> + Send + Sync>),
    /// An ID-JAG from the identity provider's token exchange
    /// (enterprise-managed authorization, SEP-990), addressed to the
    /// authorization server and the MCP server at hand.
    IdJag(IdJagExchange),
}

impl AssertionSource {
    /// The current assertion for a grant at the authorization server
    /// `audience` (its issuer) for the MCP server `resource`.
    pub(crate) async fn read(
        &self,
        http: &AuthHttp,
        audience: &str,
        resource: &str,
        scope: Option<&str>,
    ) -> Result<Secret> {
        let token = match self {
            Self::Token(token) => token.clone(),
            Self::File(path) => {
                let path = path.clone();
                let text = tokio::task::spawn_blocking(move || std::fs::read_to_string(&path))
                    .await
                    .map_err(|e| auth_error(format!("reading the assertion file: {e}")))?
                    .map_err(|e| auth_error(format!("the assertion file: {e}")))?;
                Secret::new(text.trim())
            }
            Self::Callback(callback) => callback()?,
            Self::IdJag(exchange) => exchange.id_jag(http, audience, resource, scope).await?,
        };
        if token.expose().is_empty() {
            return Err(auth_error(
                "the assertion for the JWT bearer grant is empty",
            ));
        }
        Ok(token)
    }
}

impl fmt::Debug for AssertionSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Token(token) => f.debug_tuple("Token").field(token).finish(),
            Self::File(path) => f.debug_tuple("File").field(path).finish(),
            Self::Callback(_) => f.write_str("Callback(..)"),
            Self::IdJag(exchange) => f.debug_tuple("IdJag").field(exchange).finish(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_source_is_read_when_asked() {
        let http = AuthHttp::new(std::time::Duration::from_secs(5), false).unwrap();
        let fixed = AssertionSource::Token(Secret::new("jwt-1"));
        assert_eq!(
            fixed
                .read(&http, "https://as.example", "https://mcp.example", None)
                .await
                .unwrap()
                .expose(),
            "jwt-1"
        );

        let dir = std::env::temp_dir().join(format!("mcp-assertion-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "jwt-2\n").unwrap();
        let file = AssertionSource::File(path.clone());
        assert_eq!(
            file.read(&http, "https://as.example", "https://mcp.example", None)
                .await
                .unwrap()
                .expose(),
            "jwt-2"
        );
        std::fs::write(&path, "jwt-3").unwrap();
        assert_eq!(
            file.read(&http, "https://as.example", "https://mcp.example", None)
                .await
                .unwrap()
                .expose(),
            "jwt-3",
            "rotated"
        );
        std::fs::write(&path, "  \n").unwrap();
        assert!(
            file.read(&http, "https://as.example", "https://mcp.example", None)
                .await
                .unwrap_err()
                .to_string()
                .contains("empty")
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let gone = file
            .read(&http, "https://as.example", "https://mcp.example", None)
            .await
            .unwrap_err()
            .to_string();
        assert!(gone.contains("the assertion file"), "{gone}");

        let callback = AssertionSource::Callback(Arc::new(|| Ok(Secret::new("jwt-4"))));
        assert_eq!(
            callback
                .read(&http, "https://as.example", "https://mcp.example", None)
                .await
                .unwrap()
                .expose(),
            "jwt-4"
        );
        assert_eq!(format!("{callback:?}"), "Callback(..)");
        assert!(!format!("{fixed:?}").contains("jwt-1"));
    }
}
