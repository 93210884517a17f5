//! The `Bearer` (or `DPoP`, RFC 9449 §7.1) challenge of a
//! `WWW-Authenticate` header (RFC 6750 §3, RFC 9728 §5.1): parsed by the
//! client, written by the server.

use http::HeaderMap;
use http::header::WWW_AUTHENTICATE;

/// The parameters of a `Bearer` challenge that MCP authorization uses.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct BearerChallenge {
    /// `resource_metadata`: where the Protected Resource Metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs, space-separated.
    pub scope: Option<String>,
    /// `error`, e.g. `invalid_token` or `insufficient_scope`.
    pub error: Option<String>,
    /// `error_description`, for people.
    pub error_description: Option<String>,
    /// The challenge's scheme is `DPoP` (the server wants DPoP-bound
    /// tokens) rather than `Bearer`.
    pub dpop: bool,
}

impl BearerChallenge {
    /// The first `Bearer` or `DPoP` challenge among the response's
    /// `WWW-Authenticate` headers, if any.
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        headers
            .get_all(WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .find_map(Self::parse)
    }

    /// The first `Bearer` or `DPoP` challenge in one header value.
    pub fn parse(value: &str) -> Option<Self> {
        let challenges = parse_challenges(value);
        let (scheme, params) = challenges.into_iter().find(|(scheme, _)| {
            scheme.eq_ignore_ascii_case("bearer") || scheme.eq_ignore_ascii_case("dpop")
        })?;
        let mut challenge = Self {
            dpop: scheme.eq_ignore_ascii_case("dpop"),
            ..Self::default()
        };
        for (name, value) in params {
            let slot = match name.to_ascii_lowercase().as_str() {
                "resource_metadata" => &mut challenge.resource_metadata,
                "scope" => &mut challenge.scope,
                "error" => &mut challenge.error,
                "error_description" => &mut challenge.error_description,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        Some(challenge)
    }

    /// Whether this is an `insufficient_scope` challenge (step-up).
    pub fn is_insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }

    /// The challenged scopes, split on spaces.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }

    /// The header value, `Bearer name="value", …`.
    pub fn to_header_value(&self) -> String {
        let params = [
            ("error", &self.error),
            ("error_description", &self.error_description),
            ("resource_metadata", &self.resource_metadata),
            ("scope", &self.scope),
        ];
        let rendered: Vec<String> = params
            .iter()
            .filter_map(|(name, value)| value.as_ref().map(|v| format!("{name}={}", quote(v))))
            .collect();
        let scheme = if self.dpop { "DPoP" } else { "Bearer" };
        if rendered.is_empty() {
            scheme.to_string()
        } else {
            format!("{scheme} {}", rendered.join(", "))
        }
    }
}

/// Splits a space-separated scope string into its scopes.
pub(crate) fn split_scopes(scope: Option<&str>) -> Vec<String> {
    scope
        .unwrap_or_default()
        .split_ascii_whitespace()
        .map(str::to_string)
        .collect()
}

fn quote(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        // Header values cannot carry control characters.
        if c.is_control() {
            continue;
        }
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

type Challenge = (String, Vec<(String, String)>);

/// Parses `scheme param=value, param="value", scheme2 …` (RFC 9110 §11.6.1),
/// tolerantly: what cannot be read is skipped.
fn parse_challenges(input: &str) -> Vec<Challenge> {
    let mut out: Vec<Challenge> = Vec::new();
    let mut rest = input;
    loop {
        rest = rest.trim_start_matches(|c: char| c == ',' || c.is_ascii_whitespace());
        if rest.is_empty() {
            break;
        }
        let (word, after) = take_token(rest);
        if word.is_empty() {
            // An unexpected character: skip it.
            let mut chars = rest.chars();
            chars.next();
            rest = chars.as_str();
            continue;
        }
        let after_ws = after.trim_start();
        if let Some(value_start) = after_ws.strip_prefix('=') {
            if value_start.starts_with('=') || out.is_empty() {
                // token68 (`abc==`) or a parameter before any scheme: skip.
                rest = value_start.trim_start_matches('=');
                continue;
            }
            let (value, after_value) = take_value(value_start.trim_start());
            if let Some((_, params)) = out.last_mut() {
                params.push((word.to_string(), value));
            }
            rest = after_value;
        } else {
            out.push((word.to_string(), Vec::new()));
            rest = after;
        }
    }
    out
}

fn take_token(input: &str) -> (&str, &str) {
    let end = input
        .find(|c: char| c.is_ascii_whitespace() || matches!(c, ',' | '=' | '"'))
        .unwrap_or(input.len());
    input.split_at(end)
}

fn take_value(input: &str) -> (String, &str) {
    let Some(quoted) = input.strip_prefix('"') else {
        let (token, rest) = take_token(input);
        return (token.to_string(), rest);
    };
    let mut value = String::new();
    let mut chars = quoted.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                if let Some((_, escaped)) = chars.next() {
                    value.push(escaped);
                }
            }
            '"' => return (value, &quoted[i + 1..]),
            c => value.push(c),
        }
    }
    // Unterminated: take what there is.
    (value, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spec_examples() {
        let c = BearerChallenge::parse(
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource",
                         scope="files:read""#,
        )
        .unwrap();
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(c.scopes(), vec!["files:read"]);
        assert!(!c.is_insufficient_scope());

        let c = BearerChallenge::parse(
            r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://x/y", error_description="Additional \"write\" needed""#,
        )
        .unwrap();
        assert!(c.is_insufficient_scope());
        assert_eq!(c.scopes(), vec!["files:read", "files:write"]);
        assert_eq!(
            c.error_description.as_deref(),
            Some(r#"Additional "write" needed"#)
        );
    }

    #[test]
    fn finds_bearer_among_other_schemes_and_tokens() {
        let c = BearerChallenge::parse(
            r#"Basic realm="x", Negotiate abc==, bearer realm=api, scope=mcp error="invalid_token""#,
        )
        .unwrap();
        assert_eq!(c.scope.as_deref(), Some("mcp"));
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert!(BearerChallenge::parse(r#"Basic realm="x""#).is_none());
        assert_eq!(
            BearerChallenge::parse("Bearer"),
            Some(BearerChallenge::default())
        );
        // Garbage does not panic.
        for junk in [
            "",
            "=",
            "\"",
            "Bearer =,=",
            "Bearer a=\"unterminated",
            ",,,",
        ] {
            let _ = BearerChallenge::parse(junk);
        }
    }

    #[test]
    fn renders_what_it_parses() {
        let c = BearerChallenge {
            resource_metadata: Some(
                "http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp".into(),
            ),
            scope: Some("a b".into()),
            error: Some("insufficient_scope".into()),
            error_description: Some("needs \"b\"".into()),
            dpop: false,
        };
        let header = c.to_header_value();
        assert!(header.starts_with("Bearer error=\"insufficient_scope\""));
        assert_eq!(BearerChallenge::parse(&header), Some(c.clone()));
        let dpop = BearerChallenge { dpop: true, ..c };
        let header = dpop.to_header_value();
        assert!(header.starts_with("DPoP error=\"insufficient_scope\""));
        assert_eq!(BearerChallenge::parse(&header), Some(dpop));
    }
}
