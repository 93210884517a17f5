//! Finding the authorization server: Protected Resource Metadata (RFC 9728)
//! from the challenge or the well-known URLs, then the authorization server's
//! metadata (RFC 8414 / OpenID Connect Discovery), each in the spec's order.

use reqwest::Url;

use super::http::{AuthHttp, auth_error};
use crate::Result;
use crate::auth::metadata::{authorization_server_metadata_urls, protected_resource_metadata_urls};
use crate::auth::{AuthorizationServerMetadata, ProtectedResourceMetadata};

/// Fetches the Protected Resource Metadata of `endpoint`: from the
/// challenge's `resource_metadata` when given, else from the path-based and
/// then the root well-known URL. Checks that it covers `endpoint`.
pub(crate) async fn resource_metadata(
    http: &AuthHttp,
    endpoint: &Url,
    from_challenge: Option<&str>,
) -> Result<ProtectedResourceMetadata> {
    let candidates = match from_challenge {
        Some(url) => {
            let parsed = Url::parse(url).map_err(|e| {
                auth_error(format!(
                    "the server's resource_metadata `{url}` is not a URL: {e}"
                ))
            })?;
            if !matches!(parsed.scheme(), "http" | "https") {
                return Err(auth_error(format!(
                    "the server's resource_metadata `{url}` is not an HTTP URL"
                )));
            }
            vec![parsed]
        }
        None => protected_resource_metadata_urls(endpoint),
    };
    let mut failures = Vec::new();
    for url in candidates {
        match http.get_json::<ProtectedResourceMetadata>(&url).await {
            Ok(prm) => {
                check_resource(&prm, endpoint, &url)?;
                return Ok(prm);
            }
            Err(why) => failures.push(format!("{url}: {why}")),
        }
    }
    Err(auth_error(format!(
        "no usable protected resource metadata for {endpoint} ({})",
        failures.join("; ")
    )))
}

/// The metadata must name at least one authorization server and a resource
/// that covers the MCP endpoint (same origin, a prefix of its path).
fn check_resource(prm: &ProtectedResourceMetadata, endpoint: &Url, from: &Url) -> Result<()> {
    let resource = Url::parse(&prm.resource).map_err(|e| {
        auth_error(format!(
            "the protected resource metadata at {from} has an invalid resource `{}`: {e}",
            prm.resource
        ))
    })?;
    let prefix = resource.path().trim_end_matches('/');
    let path = endpoint.path();
    let covers = resource.scheme() == endpoint.scheme()
        && resource.host_str() == endpoint.host_str()
        && resource.port_or_known_default() == endpoint.port_or_known_default()
        && resource.fragment().is_none()
        && (prefix.is_empty()
            || path == prefix
            || path
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/')));
    if !covers {
        return Err(auth_error(format!(
            "the protected resource metadata at {from} is for `{}`, which is not the MCP \
             server at {endpoint}; refusing to authorize",
            prm.resource
        )));
    }
    if prm.authorization_servers.is_empty() {
        return Err(auth_error(format!(
            "the protected resource metadata at {from} names no authorization server"
        )));
    }
    Ok(())
}

/// Fetches the metadata of the first authorization server of `prm` that
/// answers, trying each one's well-known URLs in the spec's order.
pub(crate) async fn authorization_server_metadata(
    http: &AuthHttp,
    prm: &ProtectedResourceMetadata,
) -> Result<AuthorizationServerMetadata> {
    let mut failures = Vec::new();
    for issuer in &prm.authorization_servers {
        let issuer_url = http.check_url("the authorization server", issuer)?;
        for url in authorization_server_metadata_urls(&issuer_url) {
            match http.get_json::<AuthorizationServerMetadata>(&url).await {
                Ok(meta) if meta.issuer == *issuer => return Ok(meta),
                Ok(meta) => {
                    return Err(auth_error(format!(
                        "the authorization server metadata at {url} names the issuer `{}`, \
                         not `{issuer}` (RFC 8414 §3.3); refusing to use it",
                        meta.issuer
                    )));
                }
                Err(why) => failures.push(format!("{url}: {why}")),
            }
        }
    }
    Err(auth_error(format!(
        "no authorization server metadata found ({})",
        failures.join("; ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prm(resource: &str) -> ProtectedResourceMetadata {
        ProtectedResourceMetadata::new(resource, vec!["https://as.example".into()])
    }

    #[test]
    fn the_resource_must_cover_the_endpoint() {
        let endpoint = Url::parse("http://localhost:3000/mcp").unwrap();
        let from = Url::parse("http://localhost:3000/.well-known/x").unwrap();
        for ok in [
            "http://localhost:3000/mcp",
            "http://localhost:3000",
            "http://localhost:3000/",
            "http://LOCALHOST:3000/mcp/",
        ] {
            assert!(check_resource(&prm(ok), &endpoint, &from).is_ok(), "{ok}");
        }
        for bad in [
            "http://localhost:3001/mcp",
            "https://localhost:3000/mcp",
            "http://evil.example/mcp",
            "http://localhost:3000/mc",
            "http://localhost:3000/mcp/other",
            "not a url",
        ] {
            assert!(
                check_resource(&prm(bad), &endpoint, &from).is_err(),
                "{bad}"
            );
        }
        let mut none = prm("http://localhost:3000/mcp");
        none.authorization_servers.clear();
        let e = check_resource(&none, &endpoint, &from).unwrap_err();
        assert!(e.to_string().contains("no authorization server"));
    }
}
