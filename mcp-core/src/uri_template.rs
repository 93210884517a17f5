//! RFC 6570 URI templates, for matching a concrete URI against a resource
//! template and extracting its variables (the direction MCP servers need).
//!
//! Supported: simple `{var}`, reserved `{+var}`, fragment `{#var}`, label
//! `{.var}`, path segments `{/var}`, path parameters `{;var}`, and query
//! forms `{?a,b}` / `{&c}`; several variables per expression; the explode
//! modifier `*` (values kept joined) and prefixes `:n` (accepted, not checked).

use std::collections::HashMap;
use std::fmt;

/// A parsed URI template.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplate {
    source: String,
    parts: Vec<Part>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression { op: Op, vars: Vec<String> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Simple,
    Reserved,
    Fragment,
    Label,
    Path,
    PathParam,
    Query,
    QueryContinuation,
}

/// A template that does not parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UriTemplateError(String);

impl fmt::Display for UriTemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UriTemplateError {}

impl UriTemplate {
    /// Parses a template.
    pub fn parse(template: &str) -> Result<Self, UriTemplateError> {
        let mut parts = Vec::new();
        let mut rest = template;
        while !rest.is_empty() {
            match rest.find('{') {
                Some(0) => {
                    let end = rest.find('}').ok_or_else(|| {
                        UriTemplateError(format!("unclosed `{{` in `{template}`"))
                    })?;
                    parts.push(parse_expression(&rest[1..end], template)?);
                    rest = &rest[end + 1..];
                }
                Some(i) => {
                    parts.push(Part::Literal(rest[..i].to_string()));
                    rest = &rest[i..];
                }
                None => {
                    if rest.contains('}') {
                        return Err(UriTemplateError(format!("stray `}}` in `{template}`")));
                    }
                    parts.push(Part::Literal(rest.to_string()));
                    rest = "";
                }
            }
        }
        Ok(Self {
            source: template.to_string(),
            parts,
        })
    }

    /// A template that matches no URI (the fallback of a template that
    /// should have parsed).
    pub(crate) fn nothing(source: &str) -> Self {
        Self {
            source: source.to_string(),
            // A literal no URI contains (`matches` compares whole URIs).
            parts: vec![Part::Literal("\u{0}".into())],
        }
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// The names of the template's variables, in order.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        self.parts
            .iter()
            .flat_map(|p| match p {
                Part::Expression { vars, .. } => vars.as_slice(),
                Part::Literal(_) => &[],
            })
            .map(String::as_str)
    }

    /// Matches `uri`, returning the variables' (percent-decoded) values, or
    /// `None` if the URI does not fit the template.
    ///
    /// The work is bounded (a few million steps, plus a few per byte of the
    /// URI): a template whose
    /// expressions follow each other without a literal between them (such as
    /// `{a}{b}{c}`) could otherwise try every way of splitting a long URI,
    /// and the URI is the client's to choose. Past the bound the URI does not
    /// match.
    pub fn matches(&self, uri: &str) -> Option<HashMap<String, String>> {
        let mut values = HashMap::new();
        let mut budget = MATCH_BUDGET.saturating_add(uri.len().saturating_mul(8));
        if match_parts(&self.parts, uri, &mut values, &mut budget) {
            Some(values)
        } else {
            None
        }
    }
}

/// Units of work (about one per byte looked at) that one match may take,
/// besides 8 per byte of the URI: enough for a few passes over any URI, and
/// for real templates, which match in one or two.
const MATCH_BUDGET: usize = 1 << 22;

/// Takes `cost` from the budget; `false` once it is spent (and from then
/// on, so that every level of the search gives up).
fn spend(budget: &mut usize, cost: usize) -> bool {
    match budget.checked_sub(cost) {
        Some(left) => {
            *budget = left;
            true
        }
        None => {
            *budget = 0;
            false
        }
    }
}

fn parse_expression(body: &str, template: &str) -> Result<Part, UriTemplateError> {
    let (op, names) = match body.chars().next() {
        Some('+') => (Op::Reserved, &body[1..]),
        Some('#') => (Op::Fragment, &body[1..]),
        Some('.') => (Op::Label, &body[1..]),
        Some('/') => (Op::Path, &body[1..]),
        Some(';') => (Op::PathParam, &body[1..]),
        Some('?') => (Op::Query, &body[1..]),
        Some('&') => (Op::QueryContinuation, &body[1..]),
        _ => (Op::Simple, body),
    };
    let mut vars = Vec::new();
    for spec in names.split(',') {
        let name = spec.split(':').next().unwrap_or(spec).trim_end_matches('*');
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '%');
        if !valid {
            return Err(UriTemplateError(format!(
                "bad variable `{spec}` in `{template}`"
            )));
        }
        vars.push(name.to_string());
    }
    Ok(Part::Expression { op, vars })
}

/// Backtracking match of `parts` against `input`, within `budget`.
fn match_parts(
    parts: &[Part],
    input: &str,
    values: &mut HashMap<String, String>,
    budget: &mut usize,
) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return input.is_empty();
    };
    match first {
        Part::Literal(lit) => input
            .strip_prefix(lit.as_str())
            .is_some_and(|tail| match_parts(rest, tail, values, budget)),
        Part::Expression { op, vars } => {
            if matches!(op, Op::Query | Op::QueryContinuation) {
                return match_query(*op, vars, rest, input, values, budget);
            }
            // The expression's text ends where what follows can start: at
            // the end of the input when nothing follows, before an
            // occurrence of the next literal, or anywhere before another
            // expression. Longest first.
            let next_literal = match rest.first() {
                Some(Part::Literal(lit)) => Some(lit.as_str()),
                _ => None,
            };
            let lowest = if rest.is_empty() { input.len() } else { 0 };
            for end in (lowest..=input.len()).rev() {
                if !spend(budget, 1) {
                    return false;
                }
                if !input.is_char_boundary(end)
                    || next_literal.is_some_and(|lit| !input[end..].starts_with(lit))
                {
                    continue;
                }
                // Looking at the text and decoding it cost about its length
                // (copying the values found so far, their length).
                if !spend(budget, end) {
                    return false;
                }
                let (text, tail) = input.split_at(end);
                let Some(found) = match_expression(*op, vars, text) else {
                    continue;
                };
                if !spend(budget, values.values().map(String::len).sum()) {
                    return false;
                }
                let mut attempt = values.clone();
                attempt.extend(found);
                if match_parts(rest, tail, &mut attempt, budget) {
                    *values = attempt;
                    return true;
                }
            }
            false
        }
    }
}

/// Matches the whole `text` as one expansion of an expression.
fn match_expression(op: Op, vars: &[String], text: &str) -> Option<HashMap<String, String>> {
    let (prefix, sep) = match op {
        Op::Simple | Op::Reserved => ("", ','),
        Op::Fragment => ("#", ','),
        Op::Label => (".", '.'),
        Op::Path => ("/", '/'),
        Op::PathParam => (";", ';'),
        Op::Query | Op::QueryContinuation => return None,
    };
    let body = text.strip_prefix(prefix)?;
    if body.is_empty() {
        return None;
    }
    let allows_reserved = matches!(op, Op::Reserved | Op::Fragment);
    let forbidden = |c: char| match op {
        Op::Simple => matches!(c, '/' | '?' | '#' | '&'),
        Op::Label => matches!(c, '/' | '?' | '#'),
        Op::Path | Op::PathParam => matches!(c, '/' | '?' | '#'),
        _ => !allows_reserved && c == '?',
    };
    let pieces: Vec<&str> = if vars.len() == 1 {
        vec![body]
    } else {
        body.splitn(vars.len(), sep).collect()
    };
    if pieces.len() != vars.len() {
        return None;
    }
    let mut out = HashMap::new();
    for (var, piece) in vars.iter().zip(pieces) {
        // A single variable keeps separators inside its value only where
        // the operator allows them (e.g. `{+path}` may hold `/`).
        if vars.len() == 1 && piece.chars().any(|c| forbidden(c) && c != sep) {
            return None;
        }
        if piece
            .chars()
            .any(|c| matches!(c, '/' | '?' | '#') && !allows_reserved && op == Op::Simple)
        {
            return None;
        }
        let value = match op {
            Op::PathParam => piece.split_once('=').map_or("", |(_, v)| v),
            _ => piece,
        };
        out.insert(var.clone(), percent_decode(value));
    }
    Some(out)
}

fn match_query(
    op: Op,
    vars: &[String],
    rest: &[Part],
    input: &str,
    values: &mut HashMap<String, String>,
    budget: &mut usize,
) -> bool {
    let lead = if op == Op::Query { '?' } else { '&' };
    let Some(query) = input.strip_prefix(lead) else {
        // Query variables are optional: absent is fine.
        return match_parts(rest, input, values, budget);
    };
    if !spend(budget, input.len()) {
        return false;
    }
    // The query runs to a fragment or to the end.
    let end = query.find('#').unwrap_or(query.len());
    let (query, tail) = query.split_at(end);
    // `{?a}{&b}`: the whole query is read here, for every query variable.
    let following = rest.iter().map_while(|p| match p {
        Part::Expression {
            op: Op::QueryContinuation,
            vars,
        } => Some(vars.as_slice()),
        _ => None,
    });
    let names: Vec<&String> = vars.iter().chain(following.flatten()).collect();
    for pair in query.split('&') {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        if names.iter().any(|v| *v == key) {
            values.insert(key.to_string(), percent_decode(value));
        }
    }
    match_parts(rest, tail, values, budget)
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push(h * 16 + l);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(template: &str, uri: &str) -> Option<Vec<(String, String)>> {
        let t = UriTemplate::parse(template).unwrap();
        t.matches(uri).map(|v| {
            let mut v: Vec<_> = v.into_iter().collect();
            v.sort();
            v
        })
    }

    fn pairs(p: &[(&str, &str)]) -> Option<Vec<(String, String)>> {
        Some(
            p.iter()
                .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
                .collect(),
        )
    }

    #[test]
    fn simple_variables() {
        assert_eq!(
            m("test://template/{id}/data", "test://template/123/data"),
            pairs(&[("id", "123")])
        );
        assert_eq!(
            m("file:///{name}", "file:///a%20b"),
            pairs(&[("name", "a b")])
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template/1/2/data"),
            None
        );
        assert_eq!(
            m("test://template/{id}/data", "test://template//data"),
            None
        );
        assert_eq!(
            m("users://{a}/{b}", "users://x/y"),
            pairs(&[("a", "x"), ("b", "y")])
        );
    }

    #[test]
    fn reserved_and_path_forms() {
        assert_eq!(
            m("file:///{+path}", "file:///a/b/c.txt"),
            pairs(&[("path", "a/b/c.txt")])
        );
        assert_eq!(
            m("repo://x{/owner,name}", "repo://x/me/proj"),
            pairs(&[("name", "proj"), ("owner", "me")])
        );
        assert_eq!(
            m("doc://d{#section}", "doc://d#intro"),
            pairs(&[("section", "intro")])
        );
        assert_eq!(
            m("host://{sub}{.domain}", "host://www.example"),
            pairs(&[("domain", "example"), ("sub", "www")])
        );
    }

    #[test]
    fn query_forms() {
        assert_eq!(
            m("search://q{?term,page}", "search://q?term=rust&page=2"),
            pairs(&[("page", "2"), ("term", "rust")])
        );
        assert_eq!(m("search://q{?term}", "search://q"), pairs(&[]));
        assert_eq!(
            m("search://q{?term}{&lang}", "search://q?term=a&lang=en"),
            pairs(&[("lang", "en"), ("term", "a")])
        );
    }

    #[test]
    fn long_uris_match_in_bounded_time() {
        let long = "a".repeat(1 << 20);
        let started = std::time::Instant::now();
        // One expression before a literal: only the literal's occurrences are
        // tried.
        assert_eq!(
            m(
                "test://template/{id}/data",
                &format!("test://template/{long}/dat")
            ),
            None
        );
        assert_eq!(
            m(
                "test://template/{id}/data",
                &format!("test://template/{long}/data")
            )
            .map(|v| v[0].1.len()),
            Some(1 << 20)
        );
        assert_eq!(
            m("file:///{+path}", &format!("file:///{long}")).map(|v| v.len()),
            Some(1)
        );
        // Adjacent expressions would try every split: the budget ends it.
        assert_eq!(m("x://{a}{b}{c}", &format!("x://{long}/")), None);
        assert_eq!(m("host://{sub}{.domain}", &format!("host://{long}/")), None);
        // … while short URIs still match them.
        assert_eq!(
            m("host://{sub}{.domain}", "host://www.example"),
            pairs(&[("domain", "example"), ("sub", "www")])
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn rejects_bad_templates() {
        assert!(UriTemplate::parse("x://{open").is_err());
        assert!(UriTemplate::parse("x://}").is_err());
        assert!(UriTemplate::parse("x://{}").is_err());
        assert!(UriTemplate::parse("x://{a b}").is_err());
    }
}
