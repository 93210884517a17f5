//! Gives every generated struct a catch-all for the properties its schema
//! does not name.
//!
//! An MCP object schema admits properties it does not list (none says
//! `additionalProperties: false`, the JSON Schema default admits them), and
//! peers use that: vendor keys on a `Tool`, newer fields from a later
//! revision, `capabilities.extensions` read by an older type. A struct that
//! dropped them would lose data on its way through (a proxy, a gateway, a
//! server echoing a tool list). typify adds a flattened `extra` map only
//! where the schema says `additionalProperties: {}`; this adds the same
//! field everywhere else. [`crate::serde_impls`] then reads and writes it
//! without serde's `flatten`, which would buffer every field.

use syn::punctuated::Punctuated;
use syn::{Field, File, Item, ItemStruct, Meta, Token, parse_quote};

use crate::Error;

/// The name of the catch-all field.
pub(crate) const EXTRA: &str = "extra";

/// Adds `extra` to every struct with named fields that (de)serializes and
/// has none, unless it denies unknown fields.
pub(crate) fn add(file: &mut File) -> Result<(), Error> {
    for item in &mut file.items {
        let Item::Struct(item) = item else {
            continue;
        };
        if !derives_serde(item) || denies_unknown_fields(item) {
            continue;
        }
        let syn::Fields::Named(fields) = &mut item.fields else {
            continue;
        };
        let clash = fields
            .named
            .iter()
            .any(|f| f.ident.as_ref().is_some_and(|i| i == EXTRA) && !is_flattened(f));
        if clash {
            return Err(Error::Schema(format!(
                "`{}` has a property named `{EXTRA}`: the catch-all needs another name",
                item.ident
            )));
        }
        if fields.named.iter().any(is_flattened) {
            continue;
        }
        fields.named.push(parse_quote! {
            /// Properties the schema does not name, kept as received: the
            /// schema admits them (forward compatibility).
            #[serde(flatten)]
            pub extra: ::serde_json::Map<::std::string::String, ::serde_json::Value>
        });
    }
    Ok(())
}

/// Whether the struct derives serde's traits (typify's structs do; newtypes
/// with hand-written impls do not).
pub(crate) fn derives_serde(item: &ItemStruct) -> bool {
    item.attrs.iter().any(|attr| {
        attr.path().is_ident("derive")
            && attr
                .parse_args_with(Punctuated::<syn::Path, Token![,]>::parse_terminated)
                .is_ok_and(|paths| {
                    paths
                        .iter()
                        .any(|p| p.segments.last().is_some_and(|s| s.ident == "Deserialize"))
                })
    })
}

/// `#[serde(deny_unknown_fields)]`: typify's rendering of
/// `additionalProperties: false`.
pub(crate) fn denies_unknown_fields(item: &ItemStruct) -> bool {
    serde_options(&item.attrs)
        .iter()
        .any(|o| o.path().is_ident("deny_unknown_fields"))
}

pub(crate) fn is_flattened(field: &Field) -> bool {
    serde_options(&field.attrs)
        .iter()
        .any(|o| o.path().is_ident("flatten"))
}

/// The options of every `#[serde(…)]` attribute.
pub(crate) fn serde_options(attrs: &[syn::Attribute]) -> Vec<Meta> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("serde"))
        .filter_map(|a| {
            a.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()
        })
        .flatten()
        .collect()
}
