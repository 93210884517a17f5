//! The generated code: the `impl` block as written (without the helper
//! attributes) and an `impl mcp_core::server::Handlers` whose `register`
//! adds every marked method to a `ServerBuilder`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ImplItem, ItemImpl};

use crate::attrs::{HINTS, Kind};
use crate::checks::{self, Seen};
use crate::model::{self, Method, Param};

/// Expands `#[handlers]` on `item`. Errors are reported together, next to
/// the `impl` block as written, so that one mistake does not hide the rest.
pub(crate) fn handlers(attr: TokenStream, mut item: ItemImpl) -> TokenStream {
    let mut errors: Vec<syn::Error> = Vec::new();
    if !attr.is_empty() {
        errors.push(syn::Error::new(
            attr.span(),
            "`#[mcp_core::handlers]` takes no arguments",
        ));
    }
    if let Some((_, path, _)) = &item.trait_ {
        errors.push(syn::Error::new(
            path.span(),
            "`#[mcp_core::handlers]` goes on an inherent `impl` block (`impl MyServer { … }`)",
        ));
    }
    if !item.generics.params.is_empty() {
        errors.push(syn::Error::new(
            item.generics.span(),
            "`#[mcp_core::handlers]` does not support generic `impl` blocks",
        ));
    }
    let mut methods = Vec::new();
    for impl_item in &mut item.items {
        if let ImplItem::Fn(f) = impl_item {
            match model::read(f) {
                Ok(Some(method)) => methods.push(method),
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
    }
    let mut seen = Seen::default();
    let mut registrations = Vec::new();
    for method in &methods {
        match register(method, &mut seen) {
            Ok(tokens) => registrations.push(tokens),
            Err(e) => errors.push(e),
        }
    }
    if let Some(first) = errors.into_iter().reduce(|mut all, e| {
        all.combine(e);
        all
    }) {
        let errors = first.to_compile_error();
        return quote! { #item #errors };
    }
    let self_ty = &item.self_ty;
    quote! {
        #item

        impl ::mcp_core::server::Handlers for #self_ty {
            #[allow(unused_mut, clippy::redundant_clone)]
            fn register(
                self: ::std::sync::Arc<Self>,
                builder: ::mcp_core::server::ServerBuilder,
            ) -> ::mcp_core::server::ServerBuilder {
                let mut builder = builder;
                #(#registrations)*
                let _ = self;
                builder
            }
        }
    }
}

/// The statements that add `method` to `builder`.
fn register(method: &Method, seen: &mut Seen) -> syn::Result<TokenStream> {
    let mut contexts = method.params.iter().filter_map(|p| match p {
        Param::Context(span) => Some(*span),
        _ => None,
    });
    if let (Some(_), Some(second)) = (contexts.next(), contexts.next()) {
        return Err(syn::Error::new(
            second,
            format!(
                "this {} method takes `Context` twice; one `Context` parameter is all it needs",
                method.kind
            ),
        ));
    }
    match method.kind {
        Kind::Tool => tool(method, seen),
        Kind::Prompt => prompt(method, seen),
        Kind::Resource => resource(method, seen),
    }
}

/// The arguments of the call to the user's method, in its order.
fn call_args(method: &Method, args: TokenStream) -> Vec<TokenStream> {
    method
        .params
        .iter()
        .map(|p| match p {
            Param::Context(_) => quote!(__cx),
            Param::Parameters(_) => quote!(::mcp_core::server::Parameters(#args)),
            Param::Named { ident, .. } if args.is_empty() => quote!(#ident),
            Param::Named { ident, .. } => quote!(#args.#ident),
        })
        .collect()
}

/// `__this.method(args)`, awaited when the method is `async`.
fn call(method: &Method, args: &[TokenStream]) -> TokenStream {
    let ident = &method.ident;
    let wait = method.is_async.then(|| quote!(.await));
    quote_spanned!(method.span=> __this.#ident(#(#args),*) #wait)
}

fn cx_pattern(method: &Method) -> TokenStream {
    if method.params.iter().any(|p| matches!(p, Param::Context(_))) {
        quote!(__cx)
    } else {
        quote!(_)
    }
}

fn optional(call: &str, value: Option<String>) -> Option<TokenStream> {
    let ident = format_ident!("{call}");
    value.map(|v| quote!(.#ident(#v)))
}

fn tool(method: &Method, seen: &mut Seen) -> syn::Result<TokenStream> {
    let name = method.name();
    checks::tool_name(&name).map_err(|e| syn::Error::new(method.name_span(), e))?;
    seen.add("tool", &name, method.name_span())?;
    let whole = method.params.iter().find_map(|p| match p {
        Param::Parameters(ty) => Some(ty),
        _ => None,
    });
    let named = method
        .params
        .iter()
        .filter(|p| matches!(p, Param::Named { .. }))
        .count();
    let (args_struct, args_ty) = match whole {
        Some(_)
            if named > 0
                || method
                    .params
                    .iter()
                    .filter(|p| matches!(p, Param::Parameters(_)))
                    .count()
                    > 1 =>
        {
            return Err(syn::Error::new(
                method.span,
                "take the arguments either as named parameters or as one `Parameters<T>`, not both",
            ));
        }
        Some(ty) => (TokenStream::new(), quote!(#ty)),
        None => {
            let fields = method.params.iter().filter_map(|p| match p {
                Param::Named { ident, ty, doc, .. } => {
                    let doc = doc.as_ref().map(|d| quote!(#[doc = #d]));
                    Some(quote!(#doc #ident: #ty,))
                }
                _ => None,
            });
            let args_struct = quote! {
                #[derive(
                    ::mcp_core::__private::serde::Deserialize,
                    ::mcp_core::__private::schemars::JsonSchema,
                )]
                #[serde(crate = "::mcp_core::__private::serde")]
                #[schemars(crate = "::mcp_core::__private::schemars")]
                struct __McpArguments { #(#fields)* }
            };
            (args_struct, quote!(__McpArguments))
        }
    };
    let args = call_args(method, quote!(__args));
    let call = call(method, &args);
    // Checked here so that a type that is no tool result is reported at it.
    let call = quote_spanned!(method.output_span=> ::mcp_core::__private::tool_result(#call));
    let cx = cx_pattern(method);
    let description = optional("description", method.description.clone());
    let title = optional("title", method.attrs.title.as_ref().map(syn::LitStr::value));
    let annotations = annotations(method);
    Ok(quote! {
        {
            #args_struct
            let __this = ::std::sync::Arc::clone(&self);
            builder = builder.tool(
                ::mcp_core::server::ToolDef::typed(
                    ::mcp_core::tool_name!(#name),
                    move |__args: #args_ty, #cx: ::mcp_core::server::Context| {
                        let __this = ::std::sync::Arc::clone(&__this);
                        async move { #call }
                    },
                )
                #description #title #annotations
            );
        }
    })
}

fn annotations(method: &Method) -> Option<TokenStream> {
    if method.attrs.hints.iter().all(Option::is_none) {
        return None;
    }
    let fields = HINTS
        .iter()
        .zip(method.attrs.hints)
        .filter_map(|(hint, value)| {
            let field = format_ident!("{hint}_hint");
            value.map(|v| quote!(#field: ::std::option::Option::Some(#v),))
        });
    Some(quote! {
        .annotations(::mcp_core::schema::ToolAnnotations {
            #(#fields)*
            ..::mcp_core::schema::ToolAnnotations::new()
        })
    })
}

/// `let name = …;` for each named parameter, read from `source` (a map of
/// strings: a prompt's arguments, a template's variables).
fn string_args(method: &Method, source: &TokenStream) -> Vec<TokenStream> {
    method
        .params
        .iter()
        .filter_map(|p| match p {
            Param::Named {
                ident, name, ty, ..
            } => Some(quote_spanned! {ty.span()=>
                let #ident = match <#ty as ::mcp_core::__private::StringArg>::from_arg(
                    #name,
                    #source.get(#name),
                ) {
                    ::std::result::Result::Ok(value) => value,
                    ::std::result::Result::Err(e) => return ::std::result::Result::Err(e),
                };
            }),
            _ => None,
        })
        .collect()
}

fn no_parameters(method: &Method) -> syn::Result<()> {
    if method
        .params
        .iter()
        .any(|p| matches!(p, Param::Parameters(_)))
    {
        return Err(syn::Error::new(
            method.span,
            format!(
                "a {} takes its arguments as named parameters, not `Parameters<T>`",
                method.kind
            ),
        ));
    }
    Ok(())
}

fn prompt(method: &Method, seen: &mut Seen) -> syn::Result<TokenStream> {
    let name = method.name();
    if name.is_empty() {
        return Err(syn::Error::new(method.name_span(), "a prompt needs a name"));
    }
    seen.add("prompt", &name, method.name_span())?;
    no_parameters(method)?;
    let reads = string_args(method, &quote!(__args));
    let args = call_args(method, TokenStream::new());
    let call = call(method, &args);
    let into_result = quote_spanned! {method.output_span=>
        ::mcp_core::server::IntoPromptResult::into_prompt_result(#call)
    };
    let cx = cx_pattern(method);
    let description = optional("description", method.description.clone());
    let title = optional("title", method.attrs.title.as_ref().map(syn::LitStr::value));
    let arguments = method.params.iter().filter_map(|p| match p {
        Param::Named { name, ty, doc, .. } => {
            let doc = doc.clone().unwrap_or_default();
            Some(
                quote!(.argument(#name, #doc, <#ty as ::mcp_core::__private::StringArg>::REQUIRED)),
            )
        }
        _ => None,
    });
    Ok(quote! {
        {
            let __this = ::std::sync::Arc::clone(&self);
            builder = builder.prompt(
                ::mcp_core::server::PromptDef::new(
                    #name,
                    move |__args, #cx: ::mcp_core::server::Context| {
                        let __this = ::std::sync::Arc::clone(&__this);
                        async move {
                            #(#reads)*
                            #into_result
                        }
                    },
                )
                #description #title #(#arguments)*
            );
        }
    })
}

fn resource(method: &Method, seen: &mut Seen) -> syn::Result<TokenStream> {
    let Some(uri_lit) = &method.attrs.uri else {
        return Err(syn::Error::new(
            method.span,
            "a resource needs its URI: `#[resource(uri = \"scheme://…\")]` (a URI template such as `file:///{path}` for many)",
        ));
    };
    let uri = uri_lit.value();
    let vars = checks::uri(&uri).map_err(|e| syn::Error::new(uri_lit.span(), e))?;
    seen.add("resource", &uri, uri_lit.span())?;
    no_parameters(method)?;
    let is_template = uri.contains('{');
    for param in &method.params {
        if let Param::Named { ident, name, .. } = param {
            if !vars.contains(name) {
                let message = if is_template {
                    format!("`{name}` is not a variable of the URI template `{uri}`")
                } else {
                    format!(
                        "a resource at a fixed URI takes no arguments; make `{uri}` a URI template with `{{{name}}}`"
                    )
                };
                return Err(syn::Error::new(ident.span(), message));
            }
        }
    }
    let name = method.name();
    let reads = string_args(method, &quote!(__vars));
    let args = call_args(method, TokenStream::new());
    let call = call(method, &args);
    let cx = cx_pattern(method);
    let description = optional("description", method.description.clone());
    let title = optional("title", method.attrs.title.as_ref().map(syn::LitStr::value));
    let mime = method.attrs.mime_type.as_ref().map(syn::LitStr::value);
    let mime_arg = match &mime {
        Some(m) => quote!(::std::option::Option::Some(#m)),
        None => quote!(::std::option::Option::None),
    };
    let mime_type = optional("mime_type", mime);
    let into_result = quote_spanned! {method.output_span=>
        ::mcp_core::server::IntoReadResult::into_read_result(#call, &__uri, #mime_arg)
    };
    let read = quote! {
        let __this = ::std::sync::Arc::clone(&__this);
        async move {
            #(#reads)*
            #into_result
        }
    };
    let def = if is_template {
        quote! {
            ::mcp_core::server::ResourceTemplateDef::checked(
                #uri,
                #name,
                move |__uri: ::std::string::String, __vars, #cx: ::mcp_core::server::Context| { #read },
            )
        }
    } else {
        quote! {
            ::mcp_core::server::ResourceDef::new(
                #uri,
                #name,
                move |__uri: ::std::string::String, #cx: ::mcp_core::server::Context| { #read },
            )
        }
    };
    let add = if is_template {
        quote!(resource_template)
    } else {
        quote!(resource)
    };
    Ok(quote! {
        {
            let __this = ::std::sync::Arc::clone(&self);
            builder = builder.#add(#def #description #title #mime_type);
        }
    })
}
