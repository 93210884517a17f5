//! `libmcp/types.py`: the classes, the aliases (unions, enums, scalars, the
//! old API's names), the decoders of unions, and the wire specs, in an order
//! Python can execute.

use std::collections::BTreeSet;

use serde_json::Value;

use super::classes::{Class, flatten};
use super::compat;
use super::object::{ObjectView, ref_name};
use super::select::{Kind, select};
use super::shape::{Shapes, decoder_name, inline};
use super::text::{docstring, string};
use super::unions;
use crate::Error;
use crate::names::defs;

const DOC: &str = "Typed MCP objects: what clients receive and what handlers may return.

Generated from the MCP schemas (the version-neutral merge of every revision
libmcp speaks). Each object is a dataclass with snake_case attributes.
``Type.from_dict(d)`` reads the wire form (camelCase keys, ``_meta``),
``obj.to_dict()`` writes it back; keys this version does not know are kept
and written back too (see :attr:`Model.extra`). Unions (``ContentBlock``,
``ResourceContents``, the elicitation schemas, …) are decoded by their
discriminator; ``decode(ContentBlock, d)`` decodes one on its own.";

const IMPORTS: &str = "from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Literal, Optional, Union

from . import _behaviour, _model
from ._model import Model, decode
";

/// An alias (`Name = hint`) and the decoder of what it names.
#[derive(Debug)]
struct Alias {
    name: String,
    hint: String,
    decode: Option<String>,
}

/// The module's source (after the `@generated` header).
pub(super) fn types(neutral: &Value) -> Result<String, Error> {
    let defs = defs(neutral).ok_or_else(|| Error::Schema("no `$defs`".into()))?;
    let kinds = select(defs)?;
    let shapes = Shapes::new(defs, &kinds)?;
    let classes = classes(&shapes)?;
    let aliases = aliases(&shapes)?;

    let mut public: Vec<&str> = classes.iter().map(|c| c.name.as_str()).collect();
    public.extend(aliases.iter().map(|a| a.name.as_str()));
    let names: BTreeSet<&str> = public.iter().copied().collect();
    if names.len() != public.len() {
        return Err(Error::Schema(
            "two Python types would have one name (check the compat tables)".into(),
        ));
    }

    let mut out = docstring(DOC, "");
    out.push('\n');
    out.push_str(IMPORTS);
    // Aliases of builtins and literals first; those naming generated types
    // once those exist.
    let (early, late): (Vec<&Alias>, Vec<&Alias>) = aliases
        .iter()
        .partition(|a| identifiers(&a.hint).all(|id| !names.contains(id)));
    out.push('\n');
    for alias in early {
        out.push_str(&format!("{} = {}\n", alias.name, alias.hint));
    }
    for class in &classes {
        out.push_str("\n\n");
        out.push_str(&class.source());
    }
    out.push_str("\n\n");
    let late: Vec<(String, Vec<String>, String)> = late
        .iter()
        .map(|a| {
            let deps = identifiers(&a.hint).map(String::from).collect();
            (a.name.clone(), deps, format!("{} = {}\n", a.name, a.hint))
        })
        .collect();
    for line in topological(late)? {
        out.push_str(&line);
    }
    out.push('\n');
    let decoders: Vec<(String, Vec<String>, String)> = aliases
        .iter()
        .filter_map(|a| {
            let expr = a.decode.as_ref()?;
            let name = decoder_name(&a.name);
            let deps = identifiers(expr).map(String::from).collect();
            Some((name.clone(), deps, format!("{name} = {expr}\n")))
        })
        .collect();
    for line in topological(decoders)? {
        out.push_str(&line);
    }
    for class in &classes {
        out.push('\n');
        out.push_str(&class.registration());
    }
    out.push('\n');
    for alias in aliases.iter().filter(|a| a.decode.is_some()) {
        out.push_str(&format!(
            "_model.register_union({}, {})\n",
            alias.name,
            decoder_name(&alias.name)
        ));
    }
    let mut all: Vec<&str> = names.into_iter().collect();
    all.extend(["Model", "decode"]);
    all.sort_unstable();
    out.push_str("\n__all__ = [\n");
    for name in all {
        out.push_str(&format!("    {},\n", string(name)));
    }
    out.push_str("]\n");
    Ok(out)
}

/// Every class: the object defs, the named inline objects and the flattened
/// unions, by name.
fn classes(shapes: &Shapes<'_>) -> Result<Vec<Class>, Error> {
    let defs = shapes.defs;
    let description = |s: &Value| {
        s.get("description")
            .and_then(Value::as_str)
            .map(String::from)
    };
    let mut classes = Vec::new();
    for (name, kind) in shapes.kinds {
        if *kind == Kind::Class {
            let def = &defs[name];
            let view = ObjectView::of(def, defs)?;
            classes.push(Class::new(
                name,
                description(def).as_deref(),
                &view,
                shapes,
            )?);
        }
    }
    for (name, def, prop) in compat::NAMED_OBJECTS {
        let schema = inline(defs, def, prop)?;
        let view = ObjectView::of(schema, defs)?;
        let doc = description(schema).unwrap_or_else(|| format!("The ``{prop}`` of a ``{def}``."));
        classes.push(Class::new(name, Some(&doc), &view, shapes)?);
    }
    for (name, def, prop, doc) in compat::FLATTENED {
        let schema = inline(defs, def, prop)?;
        let members = schema
            .get("anyOf")
            .and_then(Value::as_array)
            .ok_or_else(|| Error::Schema(format!("compat::FLATTENED: `{def}` is no union")))?;
        let views = members
            .iter()
            .map(|m| ObjectView::of(m, defs))
            .collect::<Result<Vec<_>, _>>()?;
        classes.push(Class::new(name, Some(doc), &flatten(&views), shapes)?);
    }
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(classes)
}

/// Every alias: union and alias defs, the named inline unions and the old
/// API's names for classes.
fn aliases(shapes: &Shapes<'_>) -> Result<Vec<Alias>, Error> {
    let mut aliases = Vec::new();
    for (name, kind) in shapes.kinds {
        match kind {
            Kind::Class => {}
            Kind::Union(members) => {
                let classes = shapes.expand(members)?;
                let decode = match classes.as_slice() {
                    [one] => format!("_model.model_of({one})"),
                    _ => unions::decoder(&classes, shapes.defs)?,
                };
                let hint = match members.as_slice() {
                    [one] => one.clone(),
                    _ => format!("Union[{}]", members.join(", ")),
                };
                aliases.push(Alias {
                    name: name.clone(),
                    hint,
                    decode: Some(decode),
                });
            }
            Kind::Alias => {
                let ty = shapes.def_alias(name)?;
                // Another def's name: fields decode as that def does.
                let is_ref = ref_name(&shapes.defs[name]).is_some();
                aliases.push(Alias {
                    name: name.clone(),
                    hint: if ty.nullable {
                        format!("Optional[{}]", ty.hint)
                    } else {
                        ty.hint
                    },
                    decode: ty.decode.filter(|_| !is_ref),
                });
            }
        }
    }
    for (name, def, prop) in compat::NAMED_UNIONS {
        let ty = shapes.unnamed(inline(shapes.defs, def, prop)?, name)?;
        aliases.push(Alias {
            name: (*name).to_string(),
            hint: ty.hint,
            decode: ty.decode,
        });
    }
    for (name, target) in compat::ALIASES {
        if shapes.kinds.get(*target) != Some(&Kind::Class) {
            return Err(Error::Schema(format!(
                "compat::ALIASES: `{target}` is not a generated class"
            )));
        }
        aliases.push(Alias {
            name: (*name).to_string(),
            hint: (*target).to_string(),
            decode: None,
        });
    }
    Ok(aliases)
}

/// The identifiers in a Python expression.
fn identifiers(source: &str) -> impl Iterator<Item = &str> {
    source
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|s| s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// `(name, identifiers it uses, text)` in an order where each comes after
/// the others it uses (otherwise as given).
fn topological(mut items: Vec<(String, Vec<String>, String)>) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    while !items.is_empty() {
        let pending: BTreeSet<&str> = items.iter().map(|(n, _, _)| n.as_str()).collect();
        let ready = items.iter().position(|(name, deps, _)| {
            deps.iter()
                .all(|d| d == name || !pending.contains(d.as_str()))
        });
        let Some(ready) = ready else {
            return Err(Error::Schema(format!(
                "Python aliases refer to each other in a cycle: {pending:?}"
            )));
        };
        out.push(items.remove(ready).2);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_come_after_what_they_use() {
        let items = vec![
            (
                "A".to_string(),
                vec!["Union".into(), "B".into()],
                "A\n".to_string(),
            ),
            ("B".to_string(), vec!["C".into()], "B\n".to_string()),
            ("C".to_string(), vec!["str".into()], "C\n".to_string()),
        ];
        assert_eq!(topological(items).unwrap(), ["C\n", "B\n", "A\n"]);
        let cycle = vec![
            ("A".to_string(), vec!["B".into()], String::new()),
            ("B".to_string(), vec!["A".into()], String::new()),
        ];
        assert!(topological(cycle).is_err());
    }

    #[test]
    fn identifiers_of_a_hint() {
        let ids: Vec<&str> = identifiers("Dict[str, List[_decode_x]]").collect();
        assert_eq!(ids, ["Dict", "str", "List", "_decode_x"]);
    }
}
