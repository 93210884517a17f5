//! The Python face's generated operations:
//! - `mcp-ffi/src/python/operations.rs`: `ClientCore::start_operation`, an
//!   exhaustive `match` over the client requests that starts each generated
//!   one on the core client (`ClientCore.operation(method, *args)` in
//!   Python);
//! - `libmcp/_operations.py`: the methods `Client` (awaitable) and
//!   `SyncClient` (blocking) inherit, typed with `libmcp.types`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::operations::{HAND_WRITTEN, Operation, Returns, Shape};
use super::text::{header, rst, wrap};

/// The extension's dispatcher, relative to the workspace root.
pub(crate) const NATIVE_OUTPUT: &str = "mcp-ffi/src/python/operations.rs";

/// The package's methods, relative to the workspace root.
pub(crate) const PACKAGE_OUTPUT: &str = "bindings/python/python/libmcp/_operations.py";

/// `(path, text)` of the dispatcher; `variants` are the Rust names of every
/// client request, with their wire names.
pub(crate) fn native(operations: &[Operation], variants: &[(String, String)]) -> (String, String) {
    let mut out = header("//");
    out.push_str(
        "//! `ClientCore.operation(method, *args)`: the client requests the method\n\
         //! table generates on every face (`codegen/src/faces/operations.rs`).\n\n\
         use mcp_core::schema::ClientRequestMethod;\n\
         use pyo3::prelude::*;\n\
         use pyo3::types::PyTuple;\n\n\
         use super::call::{Call, json, none};\n\
         use super::client::{ClientCore, arguments, hand_written};\n\n\
         impl ClientCore {\n    \
         /// Starts the generated operation `method` with the positional `args`.\n    \
         pub(super) fn start_operation(\n        &self,\n        method: ClientRequestMethod,\n        \
         args: &Bound<'_, PyTuple>,\n    ) -> PyResult<Call> {\n        \
         match method {\n",
    );
    let mut by_hand = Vec::new();
    for (variant, wire) in variants {
        let Some(op) = operations.iter().find(|op| op.face.method == wire) else {
            if HAND_WRITTEN.iter().any(|(m, _)| m == wire) {
                by_hand.push(format!("ClientRequestMethod::{variant}"));
            }
            continue;
        };
        let core = op.core();
        let unit = op.result == Returns::Unit;
        let (take, call) = match op.face.shape {
            Shape::Uri { .. } => (
                "let [uri] = arguments::<1>(args, method)?;",
                format!("c.{core}(&uri)"),
            ),
            Shape::Listing | Shape::Plain { .. } => {
                ("arguments::<0>(args, method)?;", format!("c.{core}()"))
            }
        };
        let body = if unit {
            format!("{{ {call}.await?; none() }}")
        } else {
            format!("{{ json(&{call}.await?) }}")
        };
        let _ = write!(
            out,
            "            ClientRequestMethod::{variant} => {{\n                {take}\n                \
             Ok(self.spawn(|c| async move {body}))\n            }}\n"
        );
    }
    let _ = write!(
        out,
        "            {} => Err(hand_written(method)),\n        }}\n    }}\n}}\n",
        by_hand.join("\n            | ")
    );
    (NATIVE_OUTPUT.to_string(), out)
}

/// `(path, text)` of `libmcp/_operations.py`.
pub(crate) fn package(operations: &[Operation]) -> (String, String) {
    let mut types = BTreeSet::new();
    for op in operations {
        match &op.result {
            Returns::Items { item, .. } => types.insert(item.clone()),
            Returns::Result(result) => types.insert(result.clone()),
            Returns::Unit => false,
        };
    }
    let mut out = header("#");
    out.push_str(
        "\"\"\"The client requests the method table generates on every face\n\
         (``codegen/src/faces/operations.rs``): :class:`~libmcp.Client` and\n\
         :class:`~libmcp.SyncClient` inherit them.\"\"\"\n\n\
         from typing import List\n\n\
         from . import _methods\n\
         from ._client_base import _ClientBase, _list_of\n\
         from ._pending import Pending\n",
    );
    let _ = writeln!(
        out,
        "from .types import {}\n",
        types.into_iter().collect::<Vec<_>>().join(", ")
    );
    for (class, blocking) in [("_AsyncOperations", false), ("_SyncOperations", true)] {
        let _ = write!(
            out,
            "\nclass {class}(_ClientBase):\n    \"\"\"The generated requests, {}.\"\"\"\n",
            if blocking { "blocking" } else { "awaitable" }
        );
        for op in operations {
            out.push('\n');
            out.push_str(&method(op, blocking));
        }
    }
    out.push_str("\n\n__all__: List[str] = []\n");
    (PACKAGE_OUTPUT.to_string(), out)
}

fn method(op: &Operation, blocking: bool) -> String {
    let face = op.face;
    let (params, args) = match face.shape {
        Shape::Uri { .. } => (", uri: str", ", str(uri)"),
        Shape::Listing | Shape::Plain { .. } => ("", ""),
    };
    let (returns, convert) = match &op.result {
        Returns::Unit => ("None".to_string(), String::new()),
        Returns::Result(result) => (result.clone(), format!(", {result}.from_dict")),
        Returns::Items { item, .. } => (format!("List[{item}]"), format!(", _list_of({item})")),
    };
    let pending = format!(
        "Pending(self._c().operation(_methods.{}{args}){convert})",
        op.constant
    );
    let (def, body) = match (blocking, op.result == Returns::Unit) {
        (false, true) => ("async def", format!("await {pending}")),
        (false, false) => ("async def", format!("return await {pending}")),
        (true, true) => ("def", format!("{pending}.result()")),
        (true, false) => ("def", format!("return {pending}.result()")),
    };
    let mut doc = format!(
        "{} (``{}``",
        rst(face.doc).trim_end_matches('.'),
        face.method
    );
    doc.push_str(if face.shape == Shape::Listing {
        ", following pages)."
    } else {
        ")."
    });
    let doc_lines = wrap(&doc, 72);
    let docstring = if doc_lines.len() == 1 {
        format!("        \"\"\"{}\"\"\"\n", doc_lines[0])
    } else {
        let mut s = format!("        \"\"\"{}\n", doc_lines[0]);
        for line in &doc_lines[1..] {
            let _ = writeln!(s, "        {line}");
        }
        s.push_str("        \"\"\"\n");
        s
    };
    format!(
        "    {def} {}(self{params}) -> {returns}:\n{docstring}        {body}\n",
        face.name
    )
}
