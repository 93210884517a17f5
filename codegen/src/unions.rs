//! Emits the discriminated unions (requests, notifications, content blocks,
//! elicitation params), the method enums used for exhaustive dispatch, and the
//! result enums decoded by the method of the request they answer.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::model::{TaggedUnion, UnionKind, Variant};
use crate::names::{method_const, rust_type};

/// `with_progress_token`: the params types whose `_meta` has a progress
/// token (see [`crate::postprocess::with_progress_token`]).
pub(crate) fn tagged_union(
    u: &TaggedUnion,
    const_names: &[(String, String)],
    with_progress_token: &BTreeSet<String>,
) -> TokenStream {
    let name = format_ident!("{}", rust_type(&u.name));
    let doc = u
        .description
        .clone()
        .unwrap_or_else(|| format!("One of the `{}` alternatives.", u.name));
    let tag = &u.tag;
    let variants: Vec<_> = u
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let types: Vec<_> = u
        .variants
        .iter()
        .map(|v| format_ident!("{}", rust_type(&v.def)))
        .collect();
    let held: Vec<_> = u
        .variants
        .iter()
        .zip(&types)
        .map(|(v, ty)| {
            if v.boxed {
                quote! { ::std::boxed::Box<#ty> }
            } else {
                quote! { #ty }
            }
        })
        .collect();
    let ctors: Vec<_> = u.variants.iter().map(constructor).collect();
    let froms: Vec<_> = u
        .variants
        .iter()
        .map(|v| wrap(v, &quote! { value }))
        .collect();
    let values: Vec<_> = u.variants.iter().map(|v| v.tag_value.clone()).collect();
    let value_docs: Vec<_> = values.iter().map(|v| format!("`{v}`")).collect();
    let expected = values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let unknown = format!(
        "unknown {} `{tag}` `{{}}`; expected one of {expected}",
        u.name
    );
    let not_string = format!("{} `{tag}` must be a string", u.name);
    let missing = match u.variants.iter().find(|v| v.tag_optional) {
        Some(v) => {
            let ctor = constructor(v);
            quote! { ::serde_json::from_value(value).map(#ctor) }
        }
        None => {
            let msg = format!("{} is missing its `{tag}`", u.name);
            quote! { Err(<::serde_json::Error as ::serde::de::Error>::custom(#msg)) }
        }
    };

    let mut extra = TokenStream::new();
    if u.kind != UnionKind::Data {
        extra.extend(method_enum(u, const_names));
    }
    if u.kind == UnionKind::Request {
        extra.extend(request_extras(u, with_progress_token));
    }
    if matches!(u.kind, UnionKind::Notification | UnionKind::Embedded) {
        extra.extend(notification_extras(u));
    }

    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #( #[doc = #value_docs] #variants(#held), )*
        }

        impl #name {
            /// The value of the discriminating property for this alternative.
            pub fn tag(&self) -> &'static str {
                match self { #( Self::#variants(_) => #values, )* }
            }

            /// Decodes from a JSON value, choosing the alternative by its
            /// discriminating property; errors name what was wrong.
            pub fn from_value(value: ::serde_json::Value) -> ::std::result::Result<Self, ::serde_json::Error> {
                match value.get(#tag) {
                    Some(::serde_json::Value::String(t)) => match t.as_str() {
                        #( #values => ::serde_json::from_value(value).map(#ctors), )*
                        other => Err(<::serde_json::Error as ::serde::de::Error>::custom(format!(#unknown, other))),
                    },
                    Some(_) => Err(<::serde_json::Error as ::serde::de::Error>::custom(#not_string)),
                    None => #missing,
                }
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self { #( Self::#variants(v) => v.serialize(serializer), )* }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #name {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = ::serde_json::Value::deserialize(deserializer)?;
                Self::from_value(value).map_err(::serde::de::Error::custom)
            }
        }

        #(
            impl ::std::convert::From<#types> for #name {
                fn from(value: #types) -> Self { #froms }
            }
        )*

        #extra
    }
}

/// `value` (a member) as its union's value: `Self::Variant(value)`, boxed
/// for a member held in a `Box`.
fn wrap(v: &Variant, value: &TokenStream) -> TokenStream {
    let variant = format_ident!("{}", v.name);
    if v.boxed {
        quote! { Self::#variant(::std::boxed::Box::new(#value)) }
    } else {
        quote! { Self::#variant(#value) }
    }
}

/// What makes the union value of a member: the variant, or for a member
/// held in a `Box` a closure that boxes it first.
fn constructor(v: &Variant) -> TokenStream {
    if v.boxed {
        let boxed = wrap(v, &quote! { v });
        quote! { |v| #boxed }
    } else {
        let variant = format_ident!("{}", v.name);
        quote! { Self::#variant }
    }
}

fn method_enum_ident(u: &TaggedUnion) -> proc_macro2::Ident {
    format_ident!("{}Method", rust_type(&u.name))
}

/// `ClientRequestMethod` and friends: a closed, `Copy` enum of the methods of
/// one union, for exhaustive `match`es.
fn method_enum(u: &TaggedUnion, _consts: &[(String, String)]) -> TokenStream {
    let union = format_ident!("{}", rust_type(&u.name));
    let ident = method_enum_ident(u);
    let doc = format!("The methods of [`{union}`], for exhaustive dispatch.");
    let variants: Vec<_> = u
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let consts: Vec<_> = u
        .variants
        .iter()
        .map(|v| format_ident!("{}", method_const(&v.tag_value)))
        .collect();
    let docs: Vec<_> = u
        .variants
        .iter()
        .map(|v| format!("`{}`", v.tag_value))
        .collect();
    quote! {
        #[doc = #doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum #ident {
            #( #[doc = #docs] #variants, )*
        }

        impl #ident {
            /// Every method, in schema order.
            pub const ALL: &'static [Self] = &[ #( Self::#variants, )* ];

            /// The wire name of the method.
            pub const fn as_str(self) -> &'static str {
                match self { #( Self::#variants => methods::#consts, )* }
            }

            /// Looks a wire name up; `None` when this union has no such method.
            pub fn from_name(name: &str) -> ::std::option::Option<Self> {
                match name {
                    #( methods::#consts => Some(Self::#variants), )*
                    _ => None,
                }
            }
        }

        impl ::std::fmt::Display for #ident {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl #union {
            /// The method of this message.
            pub fn method(&self) -> #ident {
                match self { #( Self::#variants(_) => #ident::#variants, )* }
            }
        }
    }
}

/// Where a message's params come from: decoded from `params` (raw JSON,
/// or absent), or the `params` a builder closure is handed, decoded from
/// the text that starts with them.
#[derive(Clone, Copy)]
enum ParamsFrom {
    Raw,
    /// Handed to the builder closure as `params` (see `boxed_at`).
    Closure,
}

/// Decodes the params into the message's params field.
fn params_expr(params: &Option<(String, bool)>, from: ParamsFrom) -> TokenStream {
    match (params, from) {
        (Some((_, true)), ParamsFrom::Raw) => quote! { required_params(params)? },
        (Some((_, false)), ParamsFrom::Raw) => quote! { optional_params(params)? },
        (Some((_, true)), ParamsFrom::Closure) => quote! { params },
        (Some((_, false)), ParamsFrom::Closure) => quote! { ::std::option::Option::Some(params) },
        (None, _) => quote! {},
    }
}

fn request_extras(u: &TaggedUnion, with_progress_token: &BTreeSet<String>) -> TokenStream {
    let union = format_ident!("{}", rust_type(&u.name));
    let method_enum = method_enum_ident(u);
    let variants: Vec<_> = u
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let builds = u
        .variants
        .iter()
        .map(|v| wrap(v, &struct_literal(v, true, ParamsFrom::Raw)));
    // The neutral module's server requests lost their id in 2026-07-28 (they
    // are embedded in results there), so the id may be absent.
    let id_always = u.variants.iter().all(|v| v.id == Some(true));
    let id_fn = if id_always {
        let tokens = u.variants.iter().map(|v| {
            let variant = format_ident!("{}", v.name);
            match &v.params {
                Some((params, true)) if with_progress_token.contains(params) => quote! {
                    Self::#variant(r) => ::std::option::Option::Some(
                        r.params.meta.as_ref().and_then(|m| m.progress_token.as_ref()),
                    )
                },
                Some((params, false)) if with_progress_token.contains(params) => quote! {
                    Self::#variant(r) => ::std::option::Option::Some(
                        r.params
                            .as_ref()
                            .and_then(|p| p.meta.as_ref())
                            .and_then(|m| m.progress_token.as_ref()),
                    )
                },
                _ => quote! { Self::#variant(_) => ::std::option::Option::None },
            }
        });
        // Only where the schema has progress tokens in typed `_meta`s.
        let progress_token_fn = if with_progress_token.is_empty() {
            quote! {}
        } else {
            quote! {
                /// The progress token the request's params `_meta` carries, read
                /// from the decoded params; `None` for a method whose params have
                /// no typed `_meta` (one sent is kept in their `extra`).
                pub fn progress_token(
                    &self,
                ) -> ::std::option::Option<::std::option::Option<&ProgressToken>> {
                    match self { #( #tokens, )* }
                }
            }
        };
        // Each request is built in its box by `boxed_at`, so that no frame
        // above it holds (and copies) the request by value. Methods without
        // params still read theirs (to count them).
        let from_text = u.variants.iter().map(|v| {
            let build = wrap(v, &struct_literal(v, true, ParamsFrom::Closure));
            if v.params.is_some() {
                quote! { boxed_at(text, &mut used, move |params| #build)? }
            } else {
                quote! { boxed_at(text, &mut used, move |_: ::serde::de::IgnoredAny| #build)? }
            }
        });
        quote! {
            /// The request id.
            pub fn id(&self) -> &RequestId {
                match self { #( Self::#variants(r) => &r.id, )* }
            }

            #progress_token_fn

            /// The request id, to set (for a request decoded before its id
            /// was read).
            pub fn id_mut(&mut self) -> &mut RequestId {
                match self { #( Self::#variants(r) => &mut r.id, )* }
            }

            /// Builds the request from its method, its id and `text`, which
            /// starts with its params object, decoding the params where they
            /// stand (not read as raw JSON first); returns the request, in a
            /// box (it is built there), and the bytes of `text` the params
            /// take. A decoding error means invalid params, or text that is
            /// not JSON.
            pub fn from_params_text(
                method: #method_enum,
                id: RequestId,
                text: &str,
            ) -> ::std::result::Result<(::std::boxed::Box<Self>, usize), ::serde_json::Error> {
                let mut used = 0;
                let request = match method {
                    #( #method_enum::#variants => #from_text, )*
                };
                Ok((request, used))
            }
        }
    } else {
        let gets = u.variants.iter().map(|v| {
            if v.id == Some(true) {
                quote! { ::std::option::Option::Some(&r.id) }
            } else {
                quote! { r.id.as_ref() }
            }
        });
        quote! {
            /// The request id (absent where the request is embedded in a
            /// result rather than sent on its own).
            pub fn id(&self) -> ::std::option::Option<&RequestId> {
                match self { #( Self::#variants(r) => #gets, )* }
            }
        }
    };
    quote! {
        impl #union {
            #id_fn

            /// Builds the request from its envelope parts, decoding `params`
            /// into the type this method takes. A decoding error means invalid
            /// params (JSON-RPC -32602).
            pub fn from_parts(
                method: #method_enum,
                id: RequestId,
                params: ::std::option::Option<&::serde_json::value::RawValue>,
            ) -> ::std::result::Result<Self, ::serde_json::Error> {
                Ok(match method {
                    #( #method_enum::#variants => #builds, )*
                })
            }
        }

    }
}

/// The struct literal that builds a message from its parts: `id` (for a
/// request sent on its own) and `params` in scope.
fn struct_literal(v: &Variant, with_id: bool, from: ParamsFrom) -> TokenStream {
    let ty = format_ident!("{}", rust_type(&v.def));
    let params = params_expr(&v.params, from);
    let params = if v.params.is_some() {
        quote! { params: #params, }
    } else {
        quote! {}
    };
    let id = match (v.id, with_id) {
        (Some(true), _) => quote! { id, },
        (Some(false), true) => quote! { id: ::std::option::Option::Some(id), },
        (Some(false), false) => quote! { id: ::std::option::Option::None, },
        (None, _) => quote! {},
    };
    let jsonrpc = match (v.jsonrpc, with_id) {
        (Some(true), _) => quote! { jsonrpc: ::std::default::Default::default(), },
        (Some(false), true) => {
            quote! { jsonrpc: ::std::option::Option::Some(::std::default::Default::default()), }
        }
        (Some(false), false) => quote! { jsonrpc: ::std::option::Option::None, },
        (None, _) => quote! {},
    };
    quote! {
        #ty {
            #id #jsonrpc method: ::std::default::Default::default(), #params
            extra: ::std::default::Default::default(),
        }
    }
}

fn notification_extras(u: &TaggedUnion) -> TokenStream {
    let union = format_ident!("{}", rust_type(&u.name));
    let method_enum = method_enum_ident(u);
    let variants: Vec<_> = u
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let builds = u
        .variants
        .iter()
        .map(|v| wrap(v, &struct_literal(v, false, ParamsFrom::Raw)));
    let what = if u.kind == UnionKind::Embedded {
        "request"
    } else {
        "notification"
    };
    let doc = format!(
        "Builds the {what} from its method and `params`, decoding `params` into the type this method takes."
    );
    quote! {
        impl #union {
            #[doc = #doc]
            pub fn from_parts(
                method: #method_enum,
                params: ::std::option::Option<&::serde_json::value::RawValue>,
            ) -> ::std::result::Result<Self, ::serde_json::Error> {
                Ok(match method {
                    #( #method_enum::#variants => #builds, )*
                })
            }
        }

    }
}

/// `McpRequest` / `McpNotification` impls, once per message type even when
/// both sides may send it (ping, progress, cancellation, tasks).
pub(crate) fn message_traits(unions: &[TaggedUnion]) -> TokenStream {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = TokenStream::new();
    for u in unions
        .iter()
        .filter(|u| matches!(u.kind, UnionKind::Request | UnionKind::Notification))
    {
        for v in &u.variants {
            if !seen.insert(v.def.clone()) {
                continue;
            }
            let ty = format_ident!("{}", rust_type(&v.def));
            let c = format_ident!("{}", method_const(&v.tag_value));
            let params = match &v.params {
                Some((p, true)) => {
                    let p = format_ident!("{}", p);
                    quote! { #p }
                }
                Some((p, false)) => {
                    let p = format_ident!("{}", p);
                    quote! { ::std::option::Option<#p> }
                }
                None => quote! { () },
            };
            out.extend(if u.kind == UnionKind::Request {
                let result = format_ident!(
                    "{}",
                    rust_type(v.result.as_deref().unwrap_or("EmptyResult"))
                );
                quote! {
                    impl McpRequest for #ty {
                        const METHOD: &'static str = methods::#c;
                        type Params = #params;
                        type Result = #result;
                    }
                }
            } else {
                quote! {
                    impl McpNotification for #ty {
                        const METHOD: &'static str = methods::#c;
                        type Params = #params;
                    }
                }
            });
        }
    }
    out
}

/// `ServerResult` / `ClientResult`: one alternative per request method of the
/// other side, decoded by that method since results carry no discriminator.
pub(crate) fn result_union(result: &str, requests: &TaggedUnion) -> TokenStream {
    let name = format_ident!("{}", rust_type(result));
    let method_enum = method_enum_ident(requests);
    let doc = format!(
        "A result answering a [`{}`], decoded by the method of the request it answers.",
        rust_type(&requests.name)
    );
    let variants: Vec<_> = requests
        .variants
        .iter()
        .map(|v| format_ident!("{}", v.name))
        .collect();
    let types: Vec<_> = requests
        .variants
        .iter()
        .map(|v| {
            format_ident!(
                "{}",
                rust_type(v.result.as_deref().unwrap_or("EmptyResult"))
            )
        })
        .collect();
    let docs: Vec<_> = requests
        .variants
        .iter()
        .map(|v| format!("The result of `{}`.", v.tag_value))
        .collect();
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub enum #name {
            #( #[doc = #docs] #variants(#types), )*
        }

        impl #name {
            /// The method whose result this is.
            pub fn method(&self) -> #method_enum {
                match self { #( Self::#variants(_) => #method_enum::#variants, )* }
            }

            /// Decodes the result of a request of method `method`.
            pub fn from_value(method: #method_enum, value: ::serde_json::Value) -> ::std::result::Result<Self, ::serde_json::Error> {
                Ok(match method {
                    #( #method_enum::#variants => Self::#variants(::serde_json::from_value(value)?), )*
                })
            }

            /// Decodes the result of a request of method `method` from JSON text.
            pub fn from_json_str(method: #method_enum, json: &str) -> ::std::result::Result<Self, ::serde_json::Error> {
                Ok(match method {
                    #( #method_enum::#variants => Self::#variants(::serde_json::from_str(json)?), )*
                })
            }
        }

        impl ::serde::Serialize for #name {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self { #( Self::#variants(v) => v.serialize(serializer), )* }
            }
        }
    }
}

/// The traits tying a request or notification type to its method, params and
/// result, plus the params helpers used by `from_parts`.
pub(crate) fn method_traits() -> TokenStream {
    quote! {
        /// A request type: its method name, params and result, written once.
        pub trait McpRequest: ::serde::Serialize + ::serde::de::DeserializeOwned {
            /// The wire name of the method.
            const METHOD: &'static str;
            /// What `params` holds (`Option<…>` where the schema makes it optional).
            type Params: ::serde::Serialize + ::serde::de::DeserializeOwned;
            /// What a successful response's `result` holds.
            type Result: ::serde::Serialize + ::serde::de::DeserializeOwned;
        }

        /// A notification type: its method name and params, written once.
        pub trait McpNotification: ::serde::Serialize + ::serde::de::DeserializeOwned {
            /// The wire name of the method.
            const METHOD: &'static str;
            /// What `params` holds (`Option<…>` where the schema makes it optional).
            type Params: ::serde::Serialize + ::serde::de::DeserializeOwned;
        }

        fn required_params<T: ::serde::de::DeserializeOwned>(
            params: ::std::option::Option<&::serde_json::value::RawValue>,
        ) -> ::std::result::Result<T, ::serde_json::Error> {
            match params {
                Some(raw) => ::serde_json::from_str(raw.get()),
                None => Err(<::serde_json::Error as ::serde::de::Error>::missing_field("params")),
            }
        }

        /// Decodes the params object `text` starts with, adding the bytes
        /// it takes to `used`.
        #[allow(dead_code, reason = "used only by the unions whose requests all have an id")]
        fn params_at<T: ::serde::de::DeserializeOwned>(
            text: &str,
            used: &mut usize,
        ) -> ::std::result::Result<T, ::serde_json::Error> {
            let mut stream = ::serde_json::Deserializer::from_str(text).into_iter::<T>();
            match stream.next() {
                Some(Ok(value)) => {
                    *used += stream.byte_offset();
                    Ok(value)
                }
                Some(Err(e)) => Err(e),
                None => Err(<::serde_json::Error as ::serde::de::Error>::missing_field("params")),
            }
        }

        /// Decodes the params object `text` starts with (adding the bytes it
        /// takes to `used`) and builds the message from them in its box. Not
        /// inlined: this is the one frame that holds the params and the
        /// message by value, and the callers only pass a pointer on.
        #[inline(never)]
        #[allow(dead_code, reason = "used only by the unions whose requests all have an id")]
        fn boxed_at<T: ::serde::de::DeserializeOwned, M>(
            text: &str,
            used: &mut usize,
            build: impl FnOnce(T) -> M,
        ) -> ::std::result::Result<::std::boxed::Box<M>, ::serde_json::Error> {
            let params = params_at(text, used)?;
            Ok(::std::boxed::Box::new(build(params)))
        }

        fn optional_params<T: ::serde::de::DeserializeOwned>(
            params: ::std::option::Option<&::serde_json::value::RawValue>,
        ) -> ::std::result::Result<::std::option::Option<T>, ::serde_json::Error> {
            match params {
                Some(raw) => ::serde_json::from_str(raw.get()).map(Some),
                None => Ok(None),
            }
        }
    }
}
