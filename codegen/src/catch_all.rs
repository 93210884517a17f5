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
            // typify's own catch-all (`additionalProperties: {}`) takes the
            // same compact type.
            for field in fields.named.iter_mut() {
                if is_flattened(field) && field.ident.as_ref().is_some_and(|i| i == EXTRA) {
                    field.ty = parse_quote!(Extra);
                }
            }
            continue;
        }
        fields.named.push(parse_quote! {
            /// Properties the schema does not name, kept as received: the
            /// schema admits them (forward compatibility).
            #[serde(flatten)]
            pub extra: Extra
        });
    }
    Ok(())
}

/// The type of every catch-all: a map that is one pointer wide while empty.
/// A `serde_json::Map` keeps its order (72 bytes, even when empty), and a
/// struct holds one per nested object: `CallToolRequestParams` held five,
/// 360 of its 432 bytes, copied at every step of a request's decode and
/// dispatch. Reads go through `Deref` to an empty map when there is none;
/// writes through `DerefMut` make one.
pub(crate) fn extra_type() -> proc_macro2::TokenStream {
    quote::quote! {
        /// Properties a schema does not name, kept as received (forward
        /// compatibility): a `serde_json::Map` to read and write through
        /// `Deref`/`DerefMut`, one pointer wide while empty.
        #[derive(Clone, Default)]
        pub struct Extra(
            ::std::option::Option<
                ::std::boxed::Box<::serde_json::Map<::std::string::String, ::serde_json::Value>>,
            >,
        );
        impl Extra {
            /// No properties.
            pub fn new() -> Self {
                Self(None)
            }
            /// The properties as a map.
            pub fn into_map(self) -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                self.0.map(|map| *map).unwrap_or_default()
            }
        }
        impl ::std::ops::Deref for Extra {
            type Target = ::serde_json::Map<::std::string::String, ::serde_json::Value>;
            fn deref(&self) -> &Self::Target {
                static EMPTY: ::std::sync::OnceLock<
                    ::serde_json::Map<::std::string::String, ::serde_json::Value>,
                > = ::std::sync::OnceLock::new();
                match &self.0 {
                    ::std::option::Option::Some(map) => map,
                    ::std::option::Option::None => EMPTY.get_or_init(::serde_json::Map::new),
                }
            }
        }
        impl ::std::ops::DerefMut for Extra {
            fn deref_mut(&mut self) -> &mut Self::Target {
                self.0.get_or_insert_with(::std::default::Default::default)
            }
        }
        impl ::std::cmp::PartialEq for Extra {
            fn eq(&self, other: &Self) -> bool {
                **self == **other
            }
        }
        impl ::std::cmp::Eq for Extra {}
        impl ::std::fmt::Debug for Extra {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                (**self).fmt(f)
            }
        }
        impl ::std::convert::From<::serde_json::Map<::std::string::String, ::serde_json::Value>>
            for Extra
        {
            fn from(map: ::serde_json::Map<::std::string::String, ::serde_json::Value>) -> Self {
                if map.is_empty() {
                    Self(None)
                } else {
                    Self(Some(::std::boxed::Box::new(map)))
                }
            }
        }
        impl ::std::convert::From<Extra>
            for ::serde_json::Map<::std::string::String, ::serde_json::Value>
        {
            fn from(extra: Extra) -> Self {
                extra.into_map()
            }
        }
        impl ::std::iter::FromIterator<(::std::string::String, ::serde_json::Value)> for Extra {
            fn from_iter<I: ::std::iter::IntoIterator<Item = (::std::string::String, ::serde_json::Value)>>(
                iter: I,
            ) -> Self {
                Self::from(iter.into_iter().collect::<::serde_json::Map<_, _>>())
            }
        }
        impl ::std::iter::Extend<(::std::string::String, ::serde_json::Value)> for Extra {
            fn extend<I: ::std::iter::IntoIterator<Item = (::std::string::String, ::serde_json::Value)>>(
                &mut self,
                iter: I,
            ) {
                (**self).extend(iter);
            }
        }
        impl<'a> ::std::iter::IntoIterator for &'a Extra {
            type Item = (&'a ::std::string::String, &'a ::serde_json::Value);
            type IntoIter = ::serde_json::map::Iter<'a>;
            fn into_iter(self) -> Self::IntoIter {
                (**self).iter()
            }
        }
        impl ::std::iter::IntoIterator for Extra {
            type Item = (::std::string::String, ::serde_json::Value);
            type IntoIter = ::serde_json::map::IntoIter;
            fn into_iter(self) -> Self::IntoIter {
                self.into_map().into_iter()
            }
        }
        impl ::serde::Serialize for Extra {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                (**self).serialize(serializer)
            }
        }
        impl<'de> ::serde::Deserialize<'de> for Extra {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                ::serde_json::Map::deserialize(deserializer).map(Self::from)
            }
        }
    }
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
