//! Emits the method-name table, the zero-sized constant types that replace
//! `const` strings, and the exact-JSON wrapper types the patches introduce.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{TaggedUnion, UnionKind};
use crate::names::method_const;

/// Every method name of the protocol, each written exactly once.
pub(crate) fn method_table(unions: &[TaggedUnion]) -> (TokenStream, Vec<String>) {
    let mut methods: Vec<String> = unions
        .iter()
        .filter(|u| u.kind != UnionKind::Data)
        .flat_map(|u| u.variants.iter().map(|v| v.tag_value.clone()))
        .collect();
    methods.sort();
    methods.dedup();
    let items = methods.iter().map(|m| {
        let ident = format_ident!("{}", method_const(m));
        let doc = format!("`{m}`");
        quote! { #[doc = #doc] pub const #ident: &str = #m; }
    });
    let tokens = quote! {
        /// The name of every MCP method, each written once; everything else
        /// refers to these constants.
        pub mod methods {
            #(#items)*
        }
    };
    (tokens, methods)
}

/// Zero-sized types, one per string constant of the schema.
pub(crate) fn const_types(consts: &[(String, String)], methods: &[String]) -> TokenStream {
    let items = consts.iter().map(|(name, value)| {
        let ident = format_ident!("{}", name);
        let doc = format!("The constant string `\"{value}\"`: it (de)serializes as exactly that value.");
        let value_expr = if methods.contains(value) {
            let c = format_ident!("{}", method_const(value));
            quote! { methods::#c }
        } else {
            quote! { #value }
        };
        quote! {
            #[doc = #doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub struct #ident;
            impl #ident {
                /// The constant's value.
                pub const VALUE: &'static str = #value_expr;
            }
            impl ::std::fmt::Display for #ident {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(Self::VALUE)
                }
            }
            impl ::serde::Serialize for #ident {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                    serializer.serialize_str(Self::VALUE)
                }
            }
            impl<'de> ::serde::Deserialize<'de> for #ident {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    deserializer.deserialize_str(ConstStrVisitor(Self::VALUE)).map(|()| Self)
                }
            }
        }
    });
    quote! {
        /// Accepts exactly one string.
        struct ConstStrVisitor(&'static str);
        impl<'de> ::serde::de::Visitor<'de> for ConstStrVisitor {
            type Value = ();
            fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                write!(f, "the string \"{}\"", self.0)
            }
            fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::std::result::Result<(), E> {
                if v == self.0 {
                    Ok(())
                } else {
                    Err(E::invalid_value(::serde::de::Unexpected::Str(v), &self))
                }
            }
        }
        #(#items)*
    }
}

/// `JsonNumber` (exact numbers), `ObjectSchema` and `AnySchema` (exact JSON
/// Schemas).
pub(crate) fn exact_json_types() -> TokenStream {
    quote! {
        /// A JSON Schema object kept exactly as given: every keyword, including
        /// ones MCP does not list (`$defs`, `additionalProperties`, `$schema`, …),
        /// in the order given. Its `type` must be `"object"`.
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize)]
        #[serde(transparent)]
        pub struct ObjectSchema(::serde_json::Map<::std::string::String, ::serde_json::Value>);

        impl ObjectSchema {
            /// Wraps a JSON object, checking that its `type` is `"object"`.
            pub fn new(
                map: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            ) -> ::std::result::Result<Self, error::ConversionError> {
                match map.get("type") {
                    Some(::serde_json::Value::String(t)) if t == "object" => Ok(Self(map)),
                    Some(other) => Err(format!(
                        "a tool schema must have \"type\": \"object\", found {other}"
                    ).into()),
                    None => Err("a tool schema must have \"type\": \"object\"".into()),
                }
            }
            /// Wraps a JSON object, setting its `type` to `"object"` (a schema
            /// derived from a type whose values are all objects, such as an
            /// enum of structs, may not say so).
            pub fn with_object_type(
                mut map: ::serde_json::Map<::std::string::String, ::serde_json::Value>,
            ) -> Self {
                map.insert("type".into(), ::serde_json::Value::String("object".into()));
                Self(map)
            }
            /// The schema's keywords.
            pub fn as_map(&self) -> &::serde_json::Map<::std::string::String, ::serde_json::Value> {
                &self.0
            }
            /// Gives back the schema's keywords.
            pub fn into_map(self) -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                self.0
            }
        }

        impl ::std::convert::TryFrom<::serde_json::Value> for ObjectSchema {
            type Error = error::ConversionError;
            fn try_from(value: ::serde_json::Value) -> ::std::result::Result<Self, Self::Error> {
                match value {
                    ::serde_json::Value::Object(map) => Self::new(map),
                    other => Err(format!("a tool schema must be a JSON object, found {other}").into()),
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for ObjectSchema {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let map = <::serde_json::Map<::std::string::String, ::serde_json::Value>>::deserialize(deserializer)?;
                Self::new(map).map_err(::serde::de::Error::custom)
            }
        }

        /// A JSON Schema kept exactly as given, for a value of any type
        /// (2026-07-28's tool `outputSchema`): every keyword, in the order
        /// given.
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize, ::serde::Deserialize)]
        #[serde(transparent)]
        pub struct AnySchema(::serde_json::Map<::std::string::String, ::serde_json::Value>);

        impl AnySchema {
            /// Wraps a JSON object.
            pub fn new(map: ::serde_json::Map<::std::string::String, ::serde_json::Value>) -> Self {
                Self(map)
            }
            /// The schema's keywords.
            pub fn as_map(&self) -> &::serde_json::Map<::std::string::String, ::serde_json::Value> {
                &self.0
            }
            /// Gives back the schema's keywords.
            pub fn into_map(self) -> ::serde_json::Map<::std::string::String, ::serde_json::Value> {
                self.0
            }
        }

        impl ::std::convert::From<ObjectSchema> for AnySchema {
            fn from(schema: ObjectSchema) -> Self {
                Self(schema.0)
            }
        }

        impl ::std::convert::TryFrom<::serde_json::Value> for AnySchema {
            type Error = error::ConversionError;
            fn try_from(value: ::serde_json::Value) -> ::std::result::Result<Self, Self::Error> {
                match value {
                    ::serde_json::Value::Object(map) => Ok(Self(map)),
                    other => Err(format!("a tool schema must be a JSON object, found {other}").into()),
                }
            }
        }
    }
}
