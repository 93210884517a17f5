//! The helper attributes (`#[tool(…)]`, `#[prompt(…)]`, `#[resource(…)]`)
//! and doc comments, read into plain values.

use std::fmt;

use syn::{Attribute, Expr, ExprLit, Lit, LitBool, LitStr, Meta, Token};

/// Which helper attribute marks a method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Tool,
    Prompt,
    Resource,
}

impl Kind {
    pub(crate) fn of(attr: &Attribute) -> Option<Self> {
        let path = attr.path();
        if path.is_ident("tool") {
            Some(Self::Tool)
        } else if path.is_ident("prompt") {
            Some(Self::Prompt)
        } else if path.is_ident("resource") {
            Some(Self::Resource)
        } else {
            None
        }
    }

    fn keys(self) -> &'static str {
        match self {
            Self::Tool => {
                "`name`, `title`, `description`, `read_only`, `destructive`, `idempotent`, `open_world`"
            }
            Self::Prompt => "`name`, `title`, `description`",
            Self::Resource => "`uri`, `name`, `title`, `description`, `mime_type`",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::Resource => "resource",
        })
    }
}

/// The tool annotations' hints, in the order of [`HINTS`].
pub(crate) const HINTS: [&str; 4] = ["read_only", "destructive", "idempotent", "open_world"];

/// What a helper attribute says (each kind takes some of the keys).
#[derive(Default)]
pub(crate) struct Attrs {
    pub(crate) name: Option<LitStr>,
    pub(crate) title: Option<LitStr>,
    pub(crate) description: Option<LitStr>,
    pub(crate) uri: Option<LitStr>,
    pub(crate) mime_type: Option<LitStr>,
    pub(crate) hints: [Option<bool>; 4],
}

impl Attrs {
    /// Reads `#[kind]` or `#[kind(key = "value", flag, flag = false, …)]`.
    pub(crate) fn parse(attr: &Attribute, kind: Kind) -> syn::Result<Self> {
        let mut attrs = Self::default();
        if matches!(attr.meta, Meta::Path(_)) {
            return Ok(attrs);
        }
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let slot = match (kind, key.as_str()) {
                (_, "name") => &mut attrs.name,
                (_, "title") => &mut attrs.title,
                (_, "description") => &mut attrs.description,
                (Kind::Resource, "uri") => &mut attrs.uri,
                (Kind::Resource, "mime_type") => &mut attrs.mime_type,
                (Kind::Tool, hint) if HINTS.contains(&hint) => {
                    let value = if meta.input.peek(Token![=]) {
                        meta.value()?.parse::<LitBool>()?.value
                    } else {
                        true
                    };
                    let index = HINTS.iter().position(|h| *h == hint).unwrap_or_default();
                    attrs.hints[index] = Some(value);
                    return Ok(());
                }
                _ => {
                    return Err(meta.error(format!(
                        "unknown key `{key}` in `#[{kind}]`; it takes {}",
                        kind.keys()
                    )));
                }
            };
            if slot.is_some() {
                return Err(meta.error(format!("`{key}` is given twice")));
            }
            *slot = Some(meta.value()?.parse()?);
            Ok(())
        })?;
        Ok(attrs)
    }
}

/// The text of the `///` comments among `attrs`, one line each with the
/// space after `///` removed, trimmed; `None` when there is none.
pub(crate) fn doc(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| {
            line.strip_prefix(' ')
                .unwrap_or(&line)
                .trim_end()
                .to_owned()
        })
        .collect();
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}
