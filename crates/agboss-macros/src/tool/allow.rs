//! Where a tool's path and URL arguments may point: `allow_paths(field = "..", within = [..])`
//! and `allow_urls(..)`, each checked with the rules the runtime judges calls by.

use agboss_rules::allow::{UrlPrefix, field_path, path_root};
use agboss_rules::codes;
use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;

use crate::ctxt::Ctxt;
use crate::shape::{self, ListOf, list_of};

/// One `allow_paths(..)` or `allow_urls(..)` as written.
#[derive(Debug, FromMeta)]
pub struct AllowArgs {
    /// The input field: `"url"`, `"jobs[].url"`.
    pub field: syn::LitStr,
    /// The roots or URL prefixes: `["/srv/reports"]`.
    pub within: Written,
}

/// An expression as written: darling would read a text as the source of an expression, and a
/// `within = "/srv"` must be reported as "not a list", not parsed.
#[derive(Debug)]
pub struct Written(pub syn::Expr);

impl FromMeta for Written {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        Ok(Written(expr.clone()))
    }
}

/// One allowlist that passed its checks.
pub struct AllowValue {
    /// `paths` or `urls`: the name of `AllowList`'s constructor.
    kind: &'static str,
    field: syn::LitStr,
    within: Vec<syn::LitStr>,
}

impl AllowValue {
    /// `AllowList::paths("file", &["/srv"])`.
    pub fn to_tokens(&self, private: &TokenStream) -> TokenStream {
        let kind = syn::Ident::new(self.kind, proc_macro2::Span::call_site());
        let (field, within) = (&self.field, &self.within);
        quote!(#private::AllowList::#kind(#field, &[#(#within),*]))
    }
}

/// Checks every `allow_paths` and `allow_urls`, reporting each bad field, entry and repeat.
pub fn check_allowlists(paths: &[AllowArgs], urls: &[AllowArgs], cx: &mut Ctxt) -> Vec<AllowValue> {
    let mut out = Vec::new();
    for (key, kind, lists) in [
        ("allow_paths", "paths", paths),
        ("allow_urls", "urls", urls),
    ] {
        let mut seen: Vec<String> = Vec::new();
        for list in lists {
            out.extend(check_one(key, kind, list, &seen, cx));
            seen.push(list.field.value());
        }
    }
    out
}

fn check_one(
    key: &'static str,
    kind: &'static str,
    list: &AllowArgs,
    seen: &[String],
    cx: &mut Ctxt,
) -> Option<AllowValue> {
    let problem =
        |reason: &str| codes::TOOL_ALLOWLIST_INVALID.finding(&[("key", &key), ("reason", &reason)]);
    let field = list.field.value();
    let mut fine = true;
    if let Err(reason) = field_path(&field) {
        cx.finding_at(&problem(&reason), &list.field);
        fine = false;
    } else if seen.contains(&field) {
        let reason = format!("field `{field}` has two lists: merge them into one `within`");
        cx.finding_at(&problem(&reason), &list.field);
        fine = false;
    }
    let example = if kind == "paths" {
        "`within = [\"/srv/reports\"]`"
    } else {
        "`within = [\"https://api.example.com/\"]`"
    };
    let not_a_list = problem(&format!("`within` takes a list of texts: {example}")).to_string();
    let not_an_element =
        problem(&format!("each entry of `within` is a text: {example}")).to_string();
    let messages = ListOf {
        not_a_list: &not_a_list,
        not_an_element: &not_an_element,
    };
    let within = list_of(&list.within.0, &messages, shape::text, cx);
    match &list.within.0 {
        syn::Expr::Array(array) if array.elems.is_empty() => {
            let reason =
                format!("field `{field}` allows nothing: list at least one entry, {example}");
            cx.finding_at(&problem(&reason), &list.within.0);
            fine = false;
        }
        // `list_of` reported what is not a text, or not a list.
        syn::Expr::Array(array) if array.elems.len() == within.len() => {}
        _ => fine = false,
    }
    for entry in &within {
        let checked = match kind {
            "paths" => path_root(&entry.value()).map(drop),
            _ => UrlPrefix::parse(&entry.value()).map(drop),
        };
        if let Err(reason) = checked {
            cx.finding_at(&problem(&reason), entry);
            fine = false;
        }
    }
    fine.then(|| AllowValue {
        kind,
        field: list.field.clone(),
        within,
    })
}
