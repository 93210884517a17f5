//! A marked method read into what the generated code needs: its kind and
//! attributes, its parameters, whether it is `async`. Reading it also strips
//! what only the macro may see (the helper attribute, doc comments on
//! parameters) from the method the compiler gets back.

use proc_macro2::Span;
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, Ident, ImplItemFn, Pat, PathArguments, Type};

use crate::attrs::{self, Attrs, Kind};

/// A parameter of a marked method, after `&self`.
pub(crate) enum Param {
    /// `mcp_core::server::Context` (any path ending in `Context`), with
    /// where its type is written.
    Context(Span),
    /// `Parameters<T>`: the whole arguments object as one `T`.
    Parameters(Type),
    /// One argument named after the parameter.
    Named {
        ident: Ident,
        /// The argument's name (the identifier without `r#`).
        name: String,
        ty: Type,
        doc: Option<String>,
    },
}

/// A method marked `#[tool]`, `#[prompt]` or `#[resource]`.
pub(crate) struct Method {
    pub(crate) kind: Kind,
    pub(crate) attrs: Attrs,
    pub(crate) ident: Ident,
    pub(crate) is_async: bool,
    pub(crate) description: Option<String>,
    pub(crate) params: Vec<Param>,
    /// Where errors about the whole method point.
    pub(crate) span: Span,
    /// Where errors about what it returns point.
    pub(crate) output_span: Span,
}

impl Method {
    /// The name clients see: `name = "…"`, else the method's name.
    pub(crate) fn name(&self) -> String {
        self.attrs
            .name
            .as_ref()
            .map_or_else(|| self.ident.unraw().to_string(), syn::LitStr::value)
    }

    /// Where errors about the name point.
    pub(crate) fn name_span(&self) -> Span {
        self.attrs
            .name
            .as_ref()
            .map_or_else(|| self.ident.span(), syn::LitStr::span)
    }
}

/// Reads a method of the `impl` block: `Ok(None)` when it is not marked.
/// Helper attributes are removed from `item` either way.
pub(crate) fn read(item: &mut ImplItemFn) -> syn::Result<Option<Method>> {
    let mut marks = Vec::new();
    item.attrs.retain(|attr| match Kind::of(attr) {
        Some(kind) => {
            marks.push((kind, attr.clone()));
            false
        }
        None => true,
    });
    let Some((kind, attr)) = marks.first().cloned() else {
        return Ok(None);
    };
    if let Some((other, attr)) = marks.get(1) {
        return Err(syn::Error::new(
            attr.span(),
            format!("a method is one thing: `#[{kind}]` and `#[{other}]` cannot both mark it"),
        ));
    }
    let attrs = Attrs::parse(&attr, kind)?;
    let description = attrs
        .description
        .as_ref()
        .map(syn::LitStr::value)
        .or_else(|| attrs::doc(&item.attrs));
    let sig = &mut item.sig;
    if !sig.generics.params.is_empty() {
        return Err(syn::Error::new(
            sig.generics.span(),
            format!("a {kind} method cannot be generic"),
        ));
    }
    let mut inputs = sig.inputs.iter_mut();
    match inputs.next() {
        Some(FnArg::Receiver(receiver)) if takes_shared_self(receiver) => {}
        Some(FnArg::Receiver(receiver)) => {
            return Err(syn::Error::new(
                receiver.span(),
                format!(
                    "a {kind} method takes `&self`; keep state that changes behind a `Mutex` or atomics"
                ),
            ));
        }
        _ => {
            return Err(syn::Error::new(
                sig.ident.span(),
                format!("a {kind} method takes `&self` first (the server's shared state)"),
            ));
        }
    }
    let mut params = Vec::new();
    for input in inputs {
        let FnArg::Typed(typed) = input else { continue };
        let doc = attrs::doc(&typed.attrs);
        typed.attrs.retain(|a| !a.path().is_ident("doc"));
        let param = if is_context(&typed.ty) {
            Param::Context(typed.ty.span())
        } else if let Type::Reference(reference) = &*typed.ty {
            return Err(borrowed(kind, reference));
        } else if let Some(inner) = parameters_of(&typed.ty) {
            Param::Parameters(inner)
        } else {
            match &*typed.pat {
                Pat::Ident(pat) if pat.by_ref.is_none() && pat.subpat.is_none() => Param::Named {
                    ident: pat.ident.clone(),
                    name: pat.ident.unraw().to_string(),
                    ty: (*typed.ty).clone(),
                    doc,
                },
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "an argument is named by its parameter: write a plain name here \
                         (or take the whole arguments object as `Parameters<T>`)",
                    ));
                }
            }
        };
        params.push(param);
    }
    Ok(Some(Method {
        kind,
        attrs,
        ident: sig.ident.clone(),
        is_async: sig.asyncness.is_some(),
        description,
        params,
        span: sig.ident.span(),
        output_span: match &sig.output {
            syn::ReturnType::Type(_, ty) => ty.span(),
            syn::ReturnType::Default => sig.ident.span(),
        },
    }))
}

/// The error for a parameter taken by reference: the macro hands each one a
/// value of its own (decoded from the request, or the request's `Context`).
fn borrowed(kind: Kind, reference: &syn::TypeReference) -> syn::Error {
    let elem = &reference.elem;
    let message = if is_context(elem) {
        "take `Context` by value (`cx: Context`), not by reference: each call gets a \
         `Context` of its own"
            .to_owned()
    } else if matches!(&**elem, Type::Path(p) if p.qself.is_none() && p.path.is_ident("str")) {
        format!(
            "a {kind} argument cannot be borrowed from the request: take `String` instead of `&str`"
        )
    } else {
        let owned = quote::ToTokens::to_token_stream(elem).to_string();
        format!(
            "a {kind} argument cannot be borrowed from the request: take `{owned}` instead of `&{owned}`"
        )
    };
    syn::Error::new_spanned(reference, message)
}

/// `&self`, or `self: &Self`.
fn takes_shared_self(receiver: &syn::Receiver) -> bool {
    if receiver.colon_token.is_none() {
        return receiver.reference.is_some() && receiver.mutability.is_none();
    }
    match &*receiver.ty {
        Type::Reference(r) => r.mutability.is_none() && is_self(&r.elem),
        _ => false,
    }
}

fn is_self(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"))
}

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// A path ending in `Context` with no generic arguments.
fn is_context(ty: &Type) -> bool {
    last_segment(ty).is_some_and(|s| s.ident == "Context" && s.arguments.is_empty())
}

/// `T` of a path ending in `Parameters<T>`.
fn parameters_of(ty: &Type) -> Option<Type> {
    let segment = last_segment(ty)?;
    if segment.ident != "Parameters" {
        return None;
    }
    match &segment.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match args.args.first() {
            Some(GenericArgument::Type(inner)) => Some(inner.clone()),
            _ => None,
        },
        _ => None,
    }
}
