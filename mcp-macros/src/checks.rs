//! What can be checked while compiling: tool names (SEP-986), resource URIs
//! and URI templates (the same rules as `mcp_core::uri_template`), and
//! names used twice.

use std::collections::HashSet;

use proc_macro2::Span;

/// SEP-986: 1 to 128 characters from `A-Z a-z 0-9 _ - .`.
pub(crate) fn tool_name(name: &str) -> Result<(), String> {
    if !(1..=128).contains(&name.len()) {
        return Err(format!(
            "tool name `{name}` must be 1 to 128 characters long"
        ));
    }
    match name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        Some(c) => Err(format!(
            "tool name `{name}` contains `{c}`; allowed are A-Z, a-z, 0-9, `_`, `-` and `.` (SEP-986)"
        )),
        None => Ok(()),
    }
}

/// A resource URI (no `{`) or template: `Ok(variables)` (none for a plain
/// URI). Both must start with a scheme (`name:`); a template's expressions
/// are `{` [operator] name[,name…] `}`, names of `A-Z a-z 0-9 _ . %`, each
/// optionally with `*` or `:n`.
pub(crate) fn uri(uri: &str) -> Result<Vec<String>, String> {
    let scheme_ok = uri.split_once(':').is_some_and(|(scheme, _)| {
        scheme
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if !scheme_ok {
        return Err(format!(
            "resource URI `{uri}` must be absolute (start with a scheme such as `file:`)"
        ));
    }
    let mut vars = Vec::new();
    let mut rest = uri;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(format!("stray `}}` in `{uri}`"));
        }
        let body_and_rest = &rest[open + 1..];
        let close = body_and_rest
            .find('}')
            .ok_or_else(|| format!("unclosed `{{` in `{uri}`"))?;
        let body = &body_and_rest[..close];
        let names = body
            .strip_prefix(['+', '#', '.', '/', ';', '?', '&'])
            .unwrap_or(body);
        for spec in names.split(',') {
            let name = spec.split(':').next().unwrap_or(spec).trim_end_matches('*');
            let valid = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%'));
            if !valid {
                return Err(format!("bad variable `{spec}` in `{uri}`"));
            }
            vars.push(name.to_owned());
        }
        rest = &body_and_rest[close + 1..];
    }
    Ok(vars)
}

/// Remembers names per kind and reports the second use of one.
#[derive(Default)]
pub(crate) struct Seen(HashSet<(&'static str, String)>);

impl Seen {
    /// `Err` when `name` of `what` ("tool", "prompt", "resource": its URI)
    /// came before.
    pub(crate) fn add(&mut self, what: &'static str, name: &str, span: Span) -> syn::Result<()> {
        if !self.0.insert((what, name.to_owned())) {
            // A resource is known by its URI, the others by their name.
            let message = if what == "resource" {
                format!("two resources have the URI `{name}`; each resource needs its own URI")
            } else {
                format!("two {what}s are named `{name}`; each {what} needs its own name")
            };
            return Err(syn::Error::new(span, message));
        }
        Ok(())
    }
}
