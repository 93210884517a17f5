//! `libmcp/_methods.py`: every method name as a constant, named as in the
//! Rust `methods` module, so that hand-written Python never spells one.

use serde_json::Value;

use super::text::string;
use crate::Error;
use crate::model::{self, UnionKind};
use crate::names::method_const;

/// The module's source (after the `@generated` header).
pub(super) fn module(neutral: &Value) -> Result<String, Error> {
    let mut methods: Vec<String> = model::tagged_unions(neutral)?
        .into_iter()
        .filter(|u| u.kind != UnionKind::Data)
        .flat_map(|u| u.variants.into_iter().map(|v| v.tag_value))
        .collect();
    methods.sort();
    methods.dedup();
    let mut out = String::from(
        "\"\"\"The name of every MCP method, each written once (the same names as\n\
         ``mcp_core::schema::methods``).\"\"\"\n\n\
         from typing import Final\n\n",
    );
    for m in &methods {
        out.push_str(&format!("{}: Final = {}\n", method_const(m), string(m)));
    }
    out.push_str("\n__all__ = [\n");
    for m in &methods {
        out.push_str(&format!("    {},\n", string(&method_const(m))));
    }
    out.push_str("]\n");
    Ok(out)
}
