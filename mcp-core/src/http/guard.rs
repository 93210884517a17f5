//! DNS-rebinding protection: which `Host` and `Origin` headers are accepted.

use http::HeaderValue;

/// Which `Host` (and, when present, `Origin`) a request may carry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HostPolicy {
    /// Only loopback names: `localhost`, `127.0.0.1`, `[::1]`, any port
    /// (the default: a server on loopback cannot be reached through a
    /// rebound DNS name).
    #[default]
    Loopback,
    /// Exactly these `host[:port]` values (compared case-insensitively).
    AllowList(Vec<String>),
    /// No check (for servers behind a proxy that checks).
    Any,
}

fn is_loopback(host: &str) -> bool {
    // Compared without allocating: this runs on every request.
    let name = match host.strip_prefix('[') {
        // [::1]:port
        Some(rest) => return rest.split(']').next() == Some("::1"),
        None => memchr::memchr(b':', host.as_bytes()).map_or(host, |colon| &host[..colon]),
    };
    name.eq_ignore_ascii_case("localhost") || name == "127.0.0.1"
}

impl HostPolicy {
    fn allows(&self, host: &str) -> bool {
        match self {
            Self::Loopback => is_loopback(host),
            Self::AllowList(hosts) => hosts.iter().any(|h| h.eq_ignore_ascii_case(host)),
            Self::Any => true,
        }
    }

    /// Checks a request's `Host` and `Origin` (as found in its headers); the
    /// error says which header failed.
    pub(crate) fn check(
        &self,
        host: Option<&HeaderValue>,
        origin: Option<&HeaderValue>,
    ) -> Result<(), String> {
        if *self == Self::Any {
            return Ok(());
        }
        let host = host.and_then(|h| h.to_str().ok()).unwrap_or_default();
        if !self.allows(host) {
            return Err(format!("Host `{host}` is not allowed"));
        }
        if let Some(origin) = origin {
            let origin = origin.to_str().unwrap_or_default();
            let origin_host = origin
                .split_once("://")
                .map(|(_, rest)| rest.split('/').next().unwrap_or_default())
                .unwrap_or_default();
            if !self.allows(origin_host) {
                return Err(format!("Origin `{origin}` is not allowed"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Head(HeaderValue, Option<HeaderValue>);

    fn headers(host: &str, origin: Option<&str>) -> Head {
        Head(host.parse().unwrap(), origin.map(|o| o.parse().unwrap()))
    }

    impl HostPolicy {
        fn check_head(&self, head: &Head) -> Result<(), String> {
            self.check(Some(&head.0), head.1.as_ref())
        }
    }

    #[test]
    fn loopback_policy_blocks_rebinding() {
        let p = HostPolicy::Loopback;
        assert!(p.check_head(&headers("localhost:3000", None)).is_ok());
        assert!(
            p.check_head(&headers("127.0.0.1:3000", Some("http://127.0.0.1:3000")))
                .is_ok()
        );
        assert!(
            p.check_head(&headers("[::1]:8080", Some("http://localhost:8080")))
                .is_ok()
        );
        assert!(p.check_head(&headers("evil.example.com", None)).is_err());
        assert!(
            p.check_head(&headers("localhost:3000", Some("http://evil.example.com")))
                .is_err()
        );
        assert!(
            p.check_head(&headers("localhost.evil.com:80", None))
                .is_err()
        );
        assert!(p.check_head(&headers("LocalHost", None)).is_ok());
        assert!(p.check_head(&headers("[::1]", None)).is_ok());
        assert!(p.check_head(&headers("[::2]:80", None)).is_err());
        assert!(p.check_head(&headers("127.0.0.10", None)).is_err());
    }

    #[test]
    fn allow_list_is_exact() {
        let p = HostPolicy::AllowList(vec!["mcp.example.com".into()]);
        assert!(
            p.check_head(&headers("MCP.example.com", Some("https://mcp.example.com")))
                .is_ok()
        );
        assert!(p.check_head(&headers("localhost", None)).is_err());
    }
}
