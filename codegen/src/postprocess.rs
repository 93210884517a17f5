//! Rewrites of typify's output that no typify setting offers.

use syn::punctuated::Punctuated;
use syn::visit_mut::VisitMut;
use syn::{Expr, Field, File, Lit, Meta, Token, parse_quote};

/// typify gives optional arrays and objects a `default` and skips them when
/// empty, so `"logging": {}` or `"_meta": {}` vanish on serialize and absent
/// cannot be told from empty (which breaks capability negotiation). Such a
/// field becomes `Option<T>`: absent is `None`, empty stays empty. Other serde
/// options of the field (`rename`, …) are kept.
pub(crate) fn optional_containers(file: &mut File) {
    OptionalContainers.visit_file_mut(file);
}

struct OptionalContainers;

impl VisitMut for OptionalContainers {
    fn visit_field_mut(&mut self, field: &mut Field) {
        let mut rewritten = false;
        for attr in &mut field.attrs {
            if !attr.path().is_ident("serde") {
                continue;
            }
            let Ok(mut options) =
                attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            else {
                continue;
            };
            for option in options.iter_mut() {
                if let Meta::NameValue(nv) = option {
                    if nv.path.is_ident("skip_serializing_if") && skips_when_empty(&nv.value) {
                        nv.value = parse_quote!("::std::option::Option::is_none");
                        rewritten = true;
                    }
                }
            }
            if rewritten {
                *attr = parse_quote!(#[serde(#options)]);
            }
        }
        if rewritten {
            let ty = &field.ty;
            field.ty = parse_quote!(::std::option::Option<#ty>);
        }
    }
}

fn skips_when_empty(value: &Expr) -> bool {
    matches!(value, Expr::Lit(lit) if matches!(&lit.lit, Lit::Str(s) if s.value().ends_with("::is_empty")))
}

/// Adds `new(required fields…)` to every struct with named fields, so that
/// code building a message names what it must and nothing else: optional
/// fields start as `None`, constant fields (`jsonrpc`, `method`, `type`) at
/// their value, flattened catch-all maps empty. Arguments come in field
/// order; `String` ones take `impl Into<String>`.
pub(crate) fn constructors(file: &mut File, const_types: &[String]) {
    let mut impls = Vec::new();
    for item in &file.items {
        let syn::Item::Struct(item) = item else {
            continue;
        };
        let syn::Fields::Named(fields) = &item.fields else {
            continue;
        };
        let mut args = Vec::new();
        let mut inits = Vec::new();
        let mut docs = Vec::new();
        for field in &fields.named {
            let Some(name) = &field.ident else {
                continue;
            };
            let ty = &field.ty;
            if is_option(ty) {
                inits.push(quote::quote! { #name: ::std::option::Option::None });
            } else if is_flattened_or_defaulted(field) || is_const_type(ty, const_types) {
                inits.push(quote::quote! { #name: ::std::default::Default::default() });
            } else if is_string(ty) {
                args.push(
                    quote::quote! { #name: impl ::std::convert::Into<::std::string::String> },
                );
                inits.push(quote::quote! { #name: #name.into() });
                docs.push(format!("`{name}`"));
            } else {
                args.push(quote::quote! { #name: #ty });
                inits.push(quote::quote! { #name });
                docs.push(format!("`{name}`"));
            }
        }
        let ident = &item.ident;
        let doc = if docs.is_empty() {
            "With every optional field absent.".to_string()
        } else {
            format!(
                "From the required fields ({}); every optional field absent.",
                docs.join(", ")
            )
        };
        impls.push(parse_quote! {
            impl #ident {
                #[doc = #doc]
                #[allow(clippy::too_many_arguments, clippy::new_without_default)]
                pub fn new(#(#args),*) -> Self {
                    Self { #(#inits),* }
                }
            }
        });
    }
    file.items.extend(impls);
}

/// The structs whose `meta` (`_meta`) is an `Option` of a struct with a
/// `progress_token: Option<ProgressToken>` field: the params types that
/// carry a progress token.
pub(crate) fn with_progress_token(file: &File) -> std::collections::BTreeSet<String> {
    let structs: std::collections::BTreeMap<String, &syn::ItemStruct> = file
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some((s.ident.to_string(), s)),
            _ => None,
        })
        .collect();
    fn field<'a>(s: &'a syn::ItemStruct, name: &str) -> Option<&'a syn::Type> {
        s.fields
            .iter()
            .find(|f| f.ident.as_ref().is_some_and(|i| i == name))
            .map(|f| &f.ty)
    }
    structs
        .iter()
        .filter(|(_, s)| {
            field(s, "meta")
                .and_then(option_inner)
                .and_then(|seg| structs.get(&seg.ident.to_string()))
                .and_then(|m| field(m, "progress_token"))
                .is_some_and(|ty| option_of(ty, "ProgressToken"))
        })
        .map(|(name, _)| name.clone())
        .collect()
}

fn last_segment(ty: &syn::Type) -> Option<&syn::PathSegment> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The last path segment of `T` in `ty`, an `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::PathSegment> {
    last_segment(ty)
        .filter(|seg| seg.ident == "Option")
        .and_then(|seg| match &seg.arguments {
            syn::PathArguments::AngleBracketed(args) => args.args.first(),
            _ => None,
        })
        .and_then(|arg| match arg {
            syn::GenericArgument::Type(ty) => last_segment(ty),
            _ => None,
        })
}

/// Whether `ty` is `Option<{inner}>`.
fn option_of(ty: &syn::Type, inner: &str) -> bool {
    option_inner(ty).is_some_and(|seg| seg.ident == inner)
}

fn is_option(ty: &syn::Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Option")
}

fn is_string(ty: &syn::Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "String")
}

fn is_const_type(ty: &syn::Type, const_types: &[String]) -> bool {
    last_segment(ty).is_some_and(|s| const_types.iter().any(|c| s.ident == c))
}

/// `#[serde(flatten)]` catch-alls and `#[serde(default)]` fields.
fn is_flattened_or_defaulted(field: &Field) -> bool {
    field.attrs.iter().any(|attr| {
        attr.path().is_ident("serde")
            && attr
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .is_ok_and(|options| {
                    options.iter().any(|o| {
                        o.path().is_ident("flatten")
                            || (o.path().is_ident("default") && matches!(o, Meta::Path(_)))
                    })
                })
    })
}

/// For each `(target, part)` where the schema composes `target` with
/// `allOf` from `part` (`GetTaskResult` = `Result` ∧ `Task`), adds
/// `From<part> for target` when every field of `part` is a field of `target`
/// with the same type and every other field of `target` is optional, so that
/// code stops copying `Task`'s fields one by one.
pub(crate) fn compositions(file: &mut File, pairs: &[(String, String)], const_types: &[String]) {
    use quote::ToTokens;
    let fields_of = |name: &str| -> Option<Vec<Field>> {
        file.items.iter().find_map(|item| match item {
            syn::Item::Struct(s) if s.ident == name => match &s.fields {
                syn::Fields::Named(f) => Some(f.named.iter().cloned().collect()),
                _ => None,
            },
            _ => None,
        })
    };
    let mut impls = Vec::new();
    for (target, part) in pairs {
        let (Some(target_fields), Some(part_fields)) = (fields_of(target), fields_of(part)) else {
            continue;
        };
        let same = |a: &Field, b: &Field| {
            a.ident == b.ident
                && a.ty.to_token_stream().to_string() == b.ty.to_token_stream().to_string()
        };
        if !part_fields
            .iter()
            .all(|p| target_fields.iter().any(|t| same(t, p)))
        {
            continue;
        }
        let mut inits = Vec::new();
        let mut fits = true;
        for field in &target_fields {
            let name = &field.ident;
            if part_fields.iter().any(|p| same(field, p)) {
                inits.push(quote::quote! { #name: part.#name });
            } else if is_option(&field.ty) {
                inits.push(quote::quote! { #name: ::std::option::Option::None });
            } else if is_flattened_or_defaulted(field) || is_const_type(&field.ty, const_types) {
                inits.push(quote::quote! { #name: ::std::default::Default::default() });
            } else {
                fits = false;
            }
        }
        if !fits {
            continue;
        }
        let (target, part) = (
            syn::Ident::new(target, proc_macro2::Span::call_site()),
            syn::Ident::new(part, proc_macro2::Span::call_site()),
        );
        impls.push(parse_quote! {
            impl ::std::convert::From<#part> for #target {
                fn from(part: #part) -> Self {
                    Self { #(#inits),* }
                }
            }
        });
    }
    file.items.extend(impls);
}
