//! `needs = ["github", ..]`: the credentials a tool's calls need, by name, checked when
//! compiling (a list of texts, each a kebab-case name, none twice).

use agboss_rules::codes;
use agboss_rules::names::check_credential;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;
use crate::shape::{self, ListOf, list_of};

/// The names `needs` lists, each spanned as written; every problem reported into `cx`.
pub fn check_needs(list: Option<&syn::Expr>, cx: &mut Ctxt) -> Vec<syn::LitStr> {
    let Some(list) = list else {
        return Vec::new();
    };
    let finding = |detail: &str| {
        codes::TOOL_NEEDS_INVALID
            .finding(&[("detail", &detail)])
            .to_string()
    };
    let messages = ListOf {
        not_a_list: &finding("`needs` takes a list of credential names: `needs = [\"github\"]`"),
        not_an_element: &finding(
            "`needs` names each credential in quotes, in kebab-case: `needs = [\"github\"]`",
        ),
    };
    let names = list_of(list, &messages, shape::text, cx);
    let mut kept: Vec<syn::LitStr> = Vec::with_capacity(names.len());
    for name in names {
        let value = name.value();
        let problems = check_credential(&value);
        if !problems.is_empty() {
            for problem in problems {
                cx.finding_at(&problem, &name);
            }
            continue;
        }
        if kept.iter().any(|k| k.value() == value) {
            let detail = format!("`needs` lists the credential `{value}` twice: list it once");
            let twice = codes::TOOL_NEEDS_INVALID.finding(&[("detail", &detail)]);
            cx.finding_at(&twice, &name);
            continue;
        }
        kept.push(name);
    }
    kept
}

/// The argument of `ToolDescriptor::with_needs`.
pub fn needs_tokens(needs: &[syn::LitStr]) -> TokenStream {
    quote!(&[#(#needs),*])
}
