//! `mcp-ffi/src/c/client/operations.rs`: one `extern "C"` function per
//! generated operation, each a call of the shape it shares with the others
//! (`mcp-ffi/src/c/client/shapes.rs`). cbindgen turns their doc comments
//! into `mcp.h`'s.

use std::fmt::Write as _;

use super::operations::{Operation, Returns, Shape};
use super::text::{doc_comment, header};

/// The generated file, relative to the workspace root.
pub(crate) const OUTPUT: &str = "mcp-ffi/src/c/client/operations.rs";

pub(crate) fn file(operations: &[Operation]) -> (String, String) {
    let mut out = header("//");
    out.push_str(
        "//! The client requests of the C ABI that the method table generates\n\
         //! (`codegen/src/faces/operations.rs` names them); the shapes they\n\
         //! share are in `shapes.rs`.\n\n\
         use super::shapes;\n\
         use super::*;\n",
    );
    for op in operations {
        out.push('\n');
        out.push_str(&function(op));
    }
    (OUTPUT.to_string(), out)
}

fn function(op: &Operation) -> String {
    let face = op.face;
    let name = face.name;
    let method = face.method;
    let constant = &op.constant;
    let core = op.core();
    let mut doc = format!("{} Sends `{method}`", face.doc);
    let (params, call) = match (&face.shape, &op.result) {
        (_, Returns::Items { key, item }) => {
            let _ = write!(
                doc,
                ", following cursors through all pages: `*result_json` is \
                 `{{\"{key}\":[…]}}`, each a `{item}`."
            );
            (
                "    options: *const CallOptions,\n    result_json: *mut *mut c_char,\n",
                format!(
                    "shapes::listing(client, options, result_json, methods::{constant}, \"{key}\", \
                     |core| async move {{ core.{core}().await }})"
                ),
            )
        }
        (Shape::Uri { .. }, Returns::Result(result)) => {
            let _ = write!(doc, ": `*result_json` is the `{result}`.");
            (
                "    uri: *const c_char,\n    options: *const CallOptions,\n    result_json: *mut *mut c_char,\n",
                format!(
                    "shapes::text_result(client, (uri, \"uri\"), options, result_json, methods::{constant}, \
                     |core, uri| async move {{ core.{core}(&uri).await }})"
                ),
            )
        }
        (Shape::Uri { .. }, _) => {
            doc.push('.');
            (
                "    uri: *const c_char,\n    options: *const CallOptions,\n",
                format!(
                    "shapes::text_unit(client, (uri, \"uri\"), options, methods::{constant}, \
                     |core, uri| async move {{ core.{core}(&uri).await }})"
                ),
            )
        }
        (Shape::Plain { .. } | Shape::Listing, _) => {
            doc.push('.');
            (
                "    options: *const CallOptions,\n",
                format!(
                    "shapes::plain(client, options, methods::{constant}, \
                     |core| async move {{ core.{core}().await }})"
                ),
            )
        }
    };
    if let Some(capability) = op.capability {
        let _ = write!(
            doc,
            " `MCP_ERR_CAPABILITY` if the server does not declare `{capability}`."
        );
    }
    let mut safety = String::from("`client` is NULL or a live client;");
    if params.contains("uri") {
        safety.push_str(" `uri` is NULL or NUL-terminated;");
    }
    safety.push_str(" `options` is NULL or points to a valid `mcp_call_options`");
    if params.contains("result_json") {
        safety.push_str("; `result_json` is NULL or points to writable memory for one `char *`");
    }
    safety.push('.');
    format!(
        "{}///\n/// # Safety\n{}#[unsafe(no_mangle)]\n\
         pub unsafe extern \"C\" fn mcp_client_{name}(\n    client: *const Client,\n{params}) -> McpResult {{\n    \
         // SAFETY: forwarded from the caller.\n    unsafe {{ {call} }}\n}}\n",
        doc_comment("///", &doc),
        doc_comment("///", &safety),
    )
}
