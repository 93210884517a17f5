//! The attribute macros of libmcp. Use them through `mcp_core` (its `macros`
//! feature, on by default), which documents them: `#[mcp_core::handlers]`
//! on an `impl` block turns its `#[tool]`, `#[prompt]` and `#[resource]`
//! methods into a server's tools, prompts and resources.
//!
//! The generated code names `::mcp_core`, so the crate using the macro must
//! depend on `mcp-core` under that name.

use proc_macro::TokenStream;

mod attrs;
mod checks;
mod expand;
mod model;

/// Turns the `#[tool]`, `#[prompt]` and `#[resource(uri = "…")]` methods of
/// an `impl` block into an implementation of `mcp_core::server::Handlers`,
/// which registers them all on a `ServerBuilder` in one call. See
/// `mcp_core::handlers` for the full description.
#[proc_macro_attribute]
pub fn handlers(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = syn::parse_macro_input!(item as syn::ItemImpl);
    expand::handlers(attr.into(), item).into()
}
