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
