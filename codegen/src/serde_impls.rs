//! Our own `Serialize`/`Deserialize` for the structs typify derives them
//! for, so that a struct keeps the properties it does not name (its
//! [`catch_all`](crate::catch_all) field) and reads a whole-number float as
//! an integer.
//!
//! serde's derive can keep unknown keys only through `#[serde(flatten)]`,
//! which buffers every key and value of the object (as serde's private
//! `Content`) before handing them out, on the engine's hot path too (tool
//! calls, their results, content blocks). The impls generated here read each
//! key once: a known name (found by a `match`) goes straight into its field,
//! any other key into `extra`; they compile faster than the derives did.
//! They keep serde's behaviour otherwise: the same field names, errors
//! (`missing field`, `duplicate field`), `Option` fields absent when `None`,
//! and fields written in declaration order (then the unknown keys, in the
//! order received).

use std::collections::BTreeMap;

use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::visit_mut::VisitMut;
use syn::{Expr, File, Item, ItemStruct, Lit, Meta, Type, parse_quote};

use crate::Error;
use crate::catch_all::{denies_unknown_fields, derives_serde, serde_options};

/// Replaces the serde derives of every struct with named fields by
/// generated impls, and reads integers leniently in typify's hand-written
/// impls too (constant error codes). Adds the support module the impls use.
///
/// `read_elsewhere` names, per struct, keys its `extra` does not keep: a
/// request's `_meta` keys the engine reads itself (see
/// `request_meta_keys` in lib.rs).
pub(crate) fn rewrite(
    file: &mut File,
    read_elsewhere: &BTreeMap<String, Vec<String>>,
) -> Result<(), Error> {
    let mut impls = Vec::new();
    let mut skipped = 0;
    let taken = taken_keys(read_elsewhere);
    for item in &mut file.items {
        let Item::Struct(item) = item else {
            continue;
        };
        if !derives_serde(item) || !matches!(item.fields, syn::Fields::Named(_)) {
            continue;
        }
        let mut spec = StructSpec::read(item)?;
        if let Some(keys) = read_elsewhere.get(&spec.ident.to_string()) {
            if spec.extra.is_none() {
                return Err(Error::Schema(format!(
                    "`{}` skips keys but keeps no others",
                    spec.ident
                )));
            }
            spec.skipped = keys.clone();
            spec.taken = taken.clone();
            skipped += 1;
        }
        strip_serde(item);
        impls.push(spec.impls());
    }
    if skipped != read_elsewhere.len() {
        return Err(Error::Schema(format!(
            "{} of the {} structs that skip keys were generated",
            skipped,
            read_elsewhere.len()
        )));
    }
    IntegerReads.visit_file_mut(file);
    let support = support();
    let taken = (!read_elsewhere.is_empty()).then(|| request_meta_taken(&taken));
    let parsed: File = syn::parse2(quote! { #support #taken #(#impls)* })?;
    file.items.extend(parsed.items);
    Ok(())
}

/// How a field is read when its key is absent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Absent {
    /// An error (`missing field`).
    Missing,
    /// `None` (an `Option` field).
    None,
    /// `Default::default()` (`#[serde(default)]`).
    Default,
}

/// Whether a field is an integer (`i64`, `u64`), directly or in an
/// `Option`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Integer {
    Plain,
    Optional,
}

struct FieldSpec {
    ident: Ident,
    /// The JSON key.
    key: String,
    absent: Absent,
    /// `skip_serializing_if = "Option::is_none"`.
    skip_none: bool,
    integer: Option<Integer>,
}

struct StructSpec {
    ident: Ident,
    fields: Vec<FieldSpec>,
    /// The catch-all field; `None` when unknown keys are an error.
    extra: Option<Ident>,
    /// Keys taken aside (see [`request_meta_taken`]), not kept in `extra`.
    skipped: Vec<String>,
    /// Every key any struct takes aside, in the order of their slots
    /// (set with `skipped`).
    taken: Vec<String>,
}

impl StructSpec {
    fn read(item: &ItemStruct) -> Result<Self, Error> {
        let name = &item.ident;
        for option in serde_options(&item.attrs) {
            if !option.path().is_ident("deny_unknown_fields") {
                return Err(unsupported(name, "the struct", &option));
            }
        }
        let deny = denies_unknown_fields(item);
        let mut fields = Vec::new();
        let mut extra = None;
        for field in &item.fields {
            let Some(ident) = field.ident.clone() else {
                continue;
            };
            let mut key = ident.unraw().to_string();
            let (mut default, mut skip_none, mut nullable, mut flatten) =
                (false, false, false, false);
            for option in serde_options(&field.attrs) {
                match (&option, string_value(&option).as_deref()) {
                    (Meta::NameValue(nv), Some(v)) if nv.path.is_ident("rename") => {
                        key = v.to_string()
                    }
                    (Meta::Path(p), _) if p.is_ident("default") => default = true,
                    (Meta::Path(p), _) if p.is_ident("flatten") => flatten = true,
                    (Meta::NameValue(nv), Some("::std::option::Option::is_none"))
                        if nv.path.is_ident("skip_serializing_if") =>
                    {
                        skip_none = true
                    }
                    (Meta::NameValue(nv), Some("::std::option::Option::deserialize"))
                        if nv.path.is_ident("deserialize_with") =>
                    {
                        nullable = true
                    }
                    _ => return Err(unsupported(name, &format!("field `{ident}`"), &option)),
                }
            }
            if flatten {
                if deny || extra.is_some() || !is_json_map(&field.ty) {
                    return Err(Error::Schema(format!(
                        "`{name}.{ident}`: only one flattened `Map<String, Value>` is supported"
                    )));
                }
                extra = Some(ident);
                continue;
            }
            let option = option_inner(&field.ty);
            let absent = match (nullable, option.is_some(), default) {
                (true, _, _) => Absent::Missing,
                (false, true, _) => Absent::None,
                (false, false, true) => Absent::Default,
                (false, false, false) => Absent::Missing,
            };
            let integer = match option {
                Some(inner) => integer_type(inner).map(|_| Integer::Optional),
                None => integer_type(&field.ty).map(|_| Integer::Plain),
            };
            fields.push(FieldSpec {
                ident,
                key,
                absent,
                skip_none,
                integer,
            });
        }
        if extra.is_none() && !deny {
            return Err(Error::Schema(format!(
                "`{name}` has no catch-all field: run catch_all::add first"
            )));
        }
        Ok(Self {
            ident: name.clone(),
            fields,
            extra,
            skipped: Vec::new(),
            taken: Vec::new(),
        })
    }

    fn impls(&self) -> TokenStream {
        let name = &self.ident;
        let keys: Vec<&str> = self.fields.iter().map(|f| f.key.as_str()).collect();
        let indices = 0..keys.len();
        // Past the fields: a key taken aside, at the index of its slot.
        let skip_arm = self.skipped.iter().map(|key| {
            let slot = keys.len() + self.taken.iter().position(|k| k == key).unwrap_or(0);
            quote! {
                #key if request_meta_is_taken() => ::std::option::Option::Some(#slot),
            }
        });
        let fields_doc = format!("The JSON keys of `{name}`'s fields, in field order.");
        let key_doc: &[&str] = if self.skipped.is_empty() {
            &[
                " The index in `JSON_KEYS` of `key` (a `match`: faster than a",
                " search on every key read).",
            ]
        } else {
            &[
                " The index in `JSON_KEYS` of `key` (a `match`: faster than a",
                " search on every key read); past the end, the length plus its",
                " slot, for a key taken aside (see [`with_request_meta_taken`])",
                " rather than kept in `extra`.",
            ]
        };
        let serialize = self.serialize();
        let deserialize = self.deserialize();
        quote! {
            impl #name {
                #[doc = #fields_doc]
                const JSON_KEYS: &'static [&'static str] = &[ #(#keys),* ];

                #( #[doc = #key_doc] )*
                fn json_key(key: &str) -> ::std::option::Option<usize> {
                    match key {
                        #( #keys => ::std::option::Option::Some(#indices), )*
                        #( #skip_arm )*
                        _ => ::std::option::Option::None,
                    }
                }
            }
            #serialize
            #deserialize
        }
    }

    fn serialize(&self) -> TokenStream {
        let name = &self.ident;
        let mut count = Vec::new();
        let mut writes = Vec::new();
        for f in &self.fields {
            let (ident, key) = (&f.ident, &f.key);
            if f.skip_none {
                count.push(quote! { usize::from(self.#ident.is_some()) });
                writes.push(quote! {
                    if self.#ident.is_some() {
                        map.serialize_entry(#key, &self.#ident)?;
                    }
                });
            } else {
                count.push(quote! { 1 });
                writes.push(quote! { map.serialize_entry(#key, &self.#ident)?; });
            }
        }
        let (extra_count, extra_writes) = match &self.extra {
            // A key that names a field is the field's: written once.
            Some(extra) => (
                quote! { + serde_support::extra_len(&self.#extra, Self::JSON_KEYS) },
                quote! { serde_support::write_extra(&mut map, &self.#extra, Self::JSON_KEYS)?; },
            ),
            None => (quote! {}, quote! {}),
        };
        quote! {
            impl ::serde::Serialize for #name {
                fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                    use ::serde::ser::SerializeMap as _;
                    let len = 0 #(+ #count)* #extra_count;
                    let mut map = serializer.serialize_map(::std::option::Option::Some(len))?;
                    #(#writes)*
                    #extra_writes
                    map.end()
                }
            }
        }
    }

    fn deserialize(&self) -> TokenStream {
        let name = &self.ident;
        let expecting = format!("struct {name}");
        let locals: Vec<Ident> = self
            .fields
            .iter()
            .map(|f| format_ident!("field_{}", f.ident.unraw()))
            .collect();
        let indices: Vec<usize> = (0..self.fields.len()).collect();
        let reads = self.fields.iter().zip(&locals).map(|(f, local)| {
            let key = &f.key;
            match f.integer {
                Some(Integer::Plain) => {
                    quote! { serde_support::read_integer(&mut map, &mut #local, #key)? }
                }
                Some(Integer::Optional) => {
                    quote! { serde_support::read_optional_integer(&mut map, &mut #local, #key)? }
                }
                None => quote! { serde_support::read(&mut map, &mut #local, #key)? },
            }
        });
        let builds = self.fields.iter().zip(&locals).map(|(f, local)| {
            let (ident, key) = (&f.ident, &f.key);
            match f.absent {
                Absent::Missing => quote! { #ident: serde_support::required(#local, #key)? },
                Absent::None => quote! { #ident: serde_support::optional(#local) },
                Absent::Default => quote! { #ident: #local.unwrap_or_default() },
            }
        });
        let (extra_local, unknown, extra_build) = match &self.extra {
            Some(extra) => (
                quote! { let mut #extra = Extra::new(); },
                quote! {
                    serde_support::FieldKey::Unknown(key) => {
                        #extra.insert(key, map.next_value()?);
                    }
                },
                quote! { #extra, },
            ),
            None => (
                quote! {},
                quote! {
                    serde_support::FieldKey::Unknown(key) => {
                        return Err(<A::Error as ::serde::de::Error>::unknown_field(&key, #name::JSON_KEYS));
                    }
                },
                quote! {},
            ),
        };
        let len = self.fields.len();
        let past_fields = if self.skipped.is_empty() {
            quote! {
                serde_support::FieldKey::Known(_) => {
                    map.next_value::<::serde::de::IgnoredAny>()?;
                }
            }
        } else {
            quote! {
                serde_support::FieldKey::Known(i) => take_request_meta(&mut map, i - #len)?,
            }
        };
        quote! {
            impl<'de> ::serde::Deserialize<'de> for #name {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    struct Visitor;
                    impl<'de> ::serde::de::Visitor<'de> for Visitor {
                        type Value = #name;
                        fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                            f.write_str(#expecting)
                        }
                        fn visit_map<A: ::serde::de::MapAccess<'de>>(self, mut map: A) -> ::std::result::Result<#name, A::Error> {
                            #( let mut #locals = ::std::option::Option::None; )*
                            #extra_local
                            while let ::std::option::Option::Some(key) =
                                map.next_key_seed(serde_support::FieldKeySeed(#name::json_key))?
                            {
                                match key {
                                    #( serde_support::FieldKey::Known(#indices) => #reads, )*
                                    #past_fields
                                    #unknown
                                }
                            }
                            Ok(#name { #(#builds,)* #extra_build })
                        }
                    }
                    deserializer.deserialize_map(Visitor)
                }
            }
        }
    }
}

/// Drops the serde derives and attributes the generated impls replace.
fn strip_serde(item: &mut ItemStruct) {
    item.attrs.retain(|a| !a.path().is_ident("serde"));
    for attr in &mut item.attrs {
        if !attr.path().is_ident("derive") {
            continue;
        }
        let Ok(paths) = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        ) else {
            continue;
        };
        let kept = paths.into_iter().filter(|p| {
            !p.segments
                .last()
                .is_some_and(|s| s.ident == "Serialize" || s.ident == "Deserialize")
        });
        *attr = parse_quote!(#[derive(#(#kept),*)]);
    }
    for field in &mut item.fields {
        field.attrs.retain(|a| !a.path().is_ident("serde"));
    }
}

fn unsupported(name: &Ident, what: &str, option: &Meta) -> Error {
    Error::Schema(format!(
        "`{name}`: {what} has serde option `{}`, which the generated impls do not support",
        quote!(#option)
    ))
}

fn string_value(option: &Meta) -> Option<String> {
    match option {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(lit) => match &lit.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// `T` of `Option<T>`.
fn option_inner(ty: &Type) -> Option<&Type> {
    let segment = last_segment(ty).filter(|s| s.ident == "Option")?;
    match &segment.arguments {
        syn::PathArguments::AngleBracketed(args) => match args.args.first() {
            Some(syn::GenericArgument::Type(inner)) => Some(inner),
            _ => None,
        },
        _ => None,
    }
}

fn integer_type(ty: &Type) -> Option<&'static str> {
    let segment = last_segment(ty)?;
    ["i64", "u64"]
        .into_iter()
        .find(|int| segment.ident == int && segment.arguments.is_none())
}

fn is_json_map(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Map" || s.ident == "Extra")
}

/// typify's impls for integer newtypes (constant error codes) read with
/// `<i64>::deserialize`; this makes them read `-32020.0` too.
struct IntegerReads;

impl VisitMut for IntegerReads {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, expr);
        let Expr::Call(call) = expr else {
            return;
        };
        let Expr::Path(path) = &*call.func else {
            return;
        };
        let Some(qself) = &path.qself else {
            return;
        };
        let Some(int) = integer_type(&qself.ty) else {
            return;
        };
        if path
            .path
            .segments
            .last()
            .is_none_or(|s| s.ident != "deserialize")
        {
            return;
        }
        let int = format_ident!("{int}");
        let args = &call.args;
        *expr = parse_quote! {
            <serde_support::Integer<#int> as ::serde::Deserialize>::deserialize(#args).map(|n| n.0)
        };
    }
}

/// Every key some struct takes aside, sorted: the slots of
/// `RequestMetaTaken`.
fn taken_keys(read_elsewhere: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = read_elsewhere.values().flatten().collect();
    keys.into_iter().cloned().collect()
}

/// The field of `RequestMetaTaken` for `key`: its last path segment in
/// snake case (`io.modelcontextprotocol/clientInfo` → `client_info`).
fn taken_field(key: &str) -> Ident {
    let last = key.rsplit('/').next().unwrap_or(key);
    let mut name = String::new();
    for c in last.chars() {
        if c.is_ascii_uppercase() {
            name.push('_');
            name.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            name.push('_');
        }
    }
    format_ident!("{}", name.trim_start_matches('_'))
}

/// What a caller that reads a request's reserved `_meta` keys itself uses
/// to decode the params in the same pass (see `request_meta_keys` in
/// lib.rs): the keys are taken aside, as written, rather than kept in the
/// `_meta` structs' `extra`. A slot per thread: a decode runs on one
/// thread without yielding, and the structs' `Deserialize` impls have no
/// other way to be told.
fn request_meta_taken(keys: &[String]) -> TokenStream {
    let fields: Vec<Ident> = keys.iter().map(|k| taken_field(k)).collect();
    let docs = keys.iter().map(|k| format!("`{k}`, as written."));
    let slots = 0..keys.len();
    let list = keys
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let with_doc = format!(
        " Runs `decode` (a decoding of request params) with the request `_meta` keys of 2026-07-28 ({list}) taken aside, as written, rather than kept in the `_meta` structs' `extra`: for a caller that reads them itself and hands them on typed. A key written twice is an error of the decode. Decoded otherwise, the params keep every key."
    );
    quote! {
        ::std::thread_local! {
            static REQUEST_META_TAKEN: ::std::cell::RefCell<::std::option::Option<RequestMetaTaken>> =
                const { ::std::cell::RefCell::new(::std::option::Option::None) };
        }

        fn request_meta_is_taken() -> bool {
            REQUEST_META_TAKEN.with(|taken| taken.borrow().is_some())
        }

        /// The request `_meta` keys a decode inside [`with_request_meta_taken`]
        /// took aside.
        #[derive(Clone, Debug, Default)]
        pub struct RequestMetaTaken {
            #( #[doc = #docs] pub #fields: ::std::option::Option<::std::boxed::Box<::serde_json::value::RawValue>>, )*
        }

        /// Reads the value of the key in `slot` of [`RequestMetaTaken`] into it.
        fn take_request_meta<'de, A: ::serde::de::MapAccess<'de>>(
            map: &mut A,
            slot: usize,
        ) -> ::std::result::Result<(), A::Error> {
            let value: ::std::boxed::Box<::serde_json::value::RawValue> = map.next_value()?;
            REQUEST_META_TAKEN.with(|taken| {
                let mut taken = taken.borrow_mut();
                let ::std::option::Option::Some(taken) = taken.as_mut() else {
                    return Ok(());
                };
                let (field, key) = match slot {
                    #( #slots => (&mut taken.#fields, #keys), )*
                    _ => return Ok(()),
                };
                if field.is_some() {
                    return Err(<A::Error as ::serde::de::Error>::duplicate_field(key));
                }
                *field = ::std::option::Option::Some(value);
                Ok(())
            })
        }

        #[doc = #with_doc]
        pub fn with_request_meta_taken<T>(decode: impl FnOnce() -> T) -> (T, RequestMetaTaken) {
            /// Puts back what an enclosing call was taking, even if `decode` panics.
            struct Restore(::std::option::Option<::std::option::Option<RequestMetaTaken>>);
            impl Drop for Restore {
                fn drop(&mut self) {
                    if let ::std::option::Option::Some(outer) = self.0.take() {
                        REQUEST_META_TAKEN.with(|taken| *taken.borrow_mut() = outer);
                    }
                }
            }
            let mut restore = Restore(::std::option::Option::Some(
                REQUEST_META_TAKEN.with(|taken| taken.replace(::std::option::Option::Some(RequestMetaTaken::default()))),
            ));
            let value = decode();
            let outer = restore.0.take().flatten();
            let taken = REQUEST_META_TAKEN.with(|taken| taken.replace(outer));
            (value, taken.unwrap_or_default())
        }
    }
}

/// The module the generated impls use: reading object keys against a
/// struct's field names, and lenient integers.
fn support() -> TokenStream {
    quote! {
        mod serde_support {
            /// An object key read against a struct's fields: the index of
            /// the field it names, or a key the struct does not name.
            pub(super) enum FieldKey {
                Known(usize),
                Unknown(::std::string::String),
            }

            /// Reads a key against a struct's fields (the function gives the
            /// index of the field a key names); only an unknown key is
            /// allocated.
            pub(super) struct FieldKeySeed<F>(pub(super) F);

            impl<'de, F: Fn(&str) -> ::std::option::Option<usize>> ::serde::de::DeserializeSeed<'de> for FieldKeySeed<F> {
                type Value = FieldKey;
                fn deserialize<D: ::serde::Deserializer<'de>>(self, deserializer: D) -> ::std::result::Result<FieldKey, D::Error> {
                    deserializer.deserialize_identifier(self)
                }
            }

            impl<'de, F: Fn(&str) -> ::std::option::Option<usize>> ::serde::de::Visitor<'de> for FieldKeySeed<F> {
                type Value = FieldKey;
                fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str("an object key")
                }
                fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::std::result::Result<FieldKey, E> {
                    Ok(match (self.0)(v) {
                        Some(i) => FieldKey::Known(i),
                        None => FieldKey::Unknown(v.to_owned()),
                    })
                }
                fn visit_string<E: ::serde::de::Error>(self, v: ::std::string::String) -> ::std::result::Result<FieldKey, E> {
                    Ok(match (self.0)(&v) {
                        Some(i) => FieldKey::Known(i),
                        None => FieldKey::Unknown(v),
                    })
                }
                fn visit_bytes<E: ::serde::de::Error>(self, v: &[u8]) -> ::std::result::Result<FieldKey, E> {
                    match ::std::str::from_utf8(v) {
                        Ok(s) => self.visit_str(s),
                        Err(_) => Err(E::invalid_value(::serde::de::Unexpected::Bytes(v), &self)),
                    }
                }
            }

            /// Reads a field's value into its slot; a second value for the
            /// same key is an error, as with serde's derive.
            pub(super) fn read<'de, A, T>(
                map: &mut A,
                slot: &mut ::std::option::Option<T>,
                key: &'static str,
            ) -> ::std::result::Result<(), A::Error>
            where
                A: ::serde::de::MapAccess<'de>,
                T: ::serde::Deserialize<'de>,
            {
                if slot.is_some() {
                    return Err(<A::Error as ::serde::de::Error>::duplicate_field(key));
                }
                *slot = ::std::option::Option::Some(map.next_value()?);
                Ok(())
            }

            /// [`read`] for an integer field.
            pub(super) fn read_integer<'de, A, T>(
                map: &mut A,
                slot: &mut ::std::option::Option<T>,
                key: &'static str,
            ) -> ::std::result::Result<(), A::Error>
            where
                A: ::serde::de::MapAccess<'de>,
                T: ::std::convert::TryFrom<i64> + ::std::convert::TryFrom<u64>,
            {
                let mut integer: ::std::option::Option<Integer<T>> = ::std::option::Option::None;
                if slot.is_some() {
                    return Err(<A::Error as ::serde::de::Error>::duplicate_field(key));
                }
                read(map, &mut integer, key)?;
                *slot = integer.map(|n| n.0);
                Ok(())
            }

            /// [`read`] for an optional integer field (`null` is absent).
            pub(super) fn read_optional_integer<'de, A, T>(
                map: &mut A,
                slot: &mut ::std::option::Option<::std::option::Option<T>>,
                key: &'static str,
            ) -> ::std::result::Result<(), A::Error>
            where
                A: ::serde::de::MapAccess<'de>,
                T: ::std::convert::TryFrom<i64> + ::std::convert::TryFrom<u64>,
            {
                let mut integer: ::std::option::Option<::std::option::Option<Integer<T>>> =
                    ::std::option::Option::None;
                if slot.is_some() {
                    return Err(<A::Error as ::serde::de::Error>::duplicate_field(key));
                }
                read(map, &mut integer, key)?;
                *slot = integer.map(|n| n.map(|n| n.0));
                Ok(())
            }

            /// How many keys of a catch-all are written: a key that names a
            /// field is the field's, written once.
            pub(super) fn extra_len(
                extra: &::serde_json::Map<::std::string::String, ::serde_json::Value>,
                fields: &[&str],
            ) -> usize {
                extra.keys().filter(|k| !fields.contains(&k.as_str())).count()
            }

            /// Writes the keys of a catch-all that name no field.
            pub(super) fn write_extra<M: ::serde::ser::SerializeMap>(
                map: &mut M,
                extra: &::serde_json::Map<::std::string::String, ::serde_json::Value>,
                fields: &[&str],
            ) -> ::std::result::Result<(), M::Error> {
                for (key, value) in extra {
                    if !fields.contains(&key.as_str()) {
                        map.serialize_entry(key, value)?;
                    }
                }
                Ok(())
            }

            /// The value of a required field, or serde's `missing field`.
            pub(super) fn required<T, E: ::serde::de::Error>(
                slot: ::std::option::Option<T>,
                key: &'static str,
            ) -> ::std::result::Result<T, E> {
                slot.ok_or_else(|| E::missing_field(key))
            }

            /// The value of an optional field: absent and `null` are `None`.
            pub(super) fn optional<T>(
                slot: ::std::option::Option<::std::option::Option<T>>,
            ) -> ::std::option::Option<T> {
                slot.flatten()
            }

            /// An integer: a JSON number without a fractional part, whether
            /// written `60000` or `60000.0` (JSON Schema counts both as
            /// integers). It is written back as an integer.
            pub(super) struct Integer<T>(pub(super) T);

            struct IntegerVisitor<T>(::std::marker::PhantomData<T>);

            impl<'de, T> ::serde::Deserialize<'de> for Integer<T>
            where
                T: ::std::convert::TryFrom<i64> + ::std::convert::TryFrom<u64>,
            {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    deserializer.deserialize_any(IntegerVisitor(::std::marker::PhantomData))
                }
            }

            impl<'de, T> ::serde::de::Visitor<'de> for IntegerVisitor<T>
            where
                T: ::std::convert::TryFrom<i64> + ::std::convert::TryFrom<u64>,
            {
                type Value = Integer<T>;
                fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str("an integer")
                }
                fn visit_i64<E: ::serde::de::Error>(self, v: i64) -> ::std::result::Result<Integer<T>, E> {
                    T::try_from(v)
                        .map(Integer)
                        .map_err(|_| E::invalid_value(::serde::de::Unexpected::Signed(v), &self))
                }
                fn visit_u64<E: ::serde::de::Error>(self, v: u64) -> ::std::result::Result<Integer<T>, E> {
                    T::try_from(v)
                        .map(Integer)
                        .map_err(|_| E::invalid_value(::serde::de::Unexpected::Unsigned(v), &self))
                }
                fn visit_f64<E: ::serde::de::Error>(self, v: f64) -> ::std::result::Result<Integer<T>, E> {
                    // 2^63 and 2^64: the first whole floats out of range.
                    const I64_END: f64 = 9_223_372_036_854_775_808.0;
                    const U64_END: f64 = 18_446_744_073_709_551_616.0;
                    if v.fract() != 0.0 || !v.is_finite() {
                        Err(E::invalid_type(::serde::de::Unexpected::Float(v), &self))
                    } else if (0.0..U64_END).contains(&v) {
                        self.visit_u64(v as u64)
                    } else if (-I64_END..0.0).contains(&v) {
                        self.visit_i64(v as i64)
                    } else {
                        Err(E::invalid_value(::serde::de::Unexpected::Float(v), &self))
                    }
                }
            }
        }
    }
}
