//! What a tool says about artifacts: `result_kind` with `artifact_above` (its results kept
//! aside by reference), and `wants(argument = "kind")` (the arguments that take references).

use agboss_rules::{artifact_kind, codes};
use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::punctuated::Punctuated;

use crate::ctxt::Ctxt;
use crate::units::{ByteSizeValue, byte_size};

/// `result_kind = "..", artifact_above = ..`, checked.
pub struct ResultKindValue {
    pub kind: syn::LitStr,
    pub above: Option<ByteSizeValue>,
}

impl ResultKindValue {
    /// The arguments of `ToolDescriptor::with_result_kind`.
    pub fn to_tokens(&self, private: &TokenStream) -> TokenStream {
        let kind = &self.kind;
        let above = match &self.above {
            Some(size) => {
                let size = size.to_tokens(private);
                quote!(::core::option::Option::Some(#size))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(#kind, #above)
    }
}

/// One `argument = "kind"` of `wants(..)`.
pub struct WantedValue {
    pub argument: syn::Ident,
    pub kind: syn::LitStr,
}

/// A kind is one the rule accepts; `subject` says whose (`result_kind`, `wants` argument ..).
fn check_kind(kind: &syn::LitStr, subject: &str, cx: &mut Ctxt) -> bool {
    match artifact_kind::check(&kind.value()) {
        Ok(()) => true,
        Err(reason) => {
            let finding = codes::TOOL_RESULT_KIND_INVALID.finding(&[
                ("subject", &subject),
                ("kind", &kind.value()),
                ("reason", &reason),
            ]);
            cx.finding_at(&finding, kind);
            false
        }
    }
}

/// `result_kind` is a kind; `artifact_above` a size of at least 1 byte, and only with it.
pub fn check_result_kind(
    kind: Option<&syn::LitStr>,
    above: Option<&syn::Expr>,
    cx: &mut Ctxt,
) -> Option<ResultKindValue> {
    let above = above.and_then(|above| {
        let size = cx.handle(byte_size(above, "artifact_above"))?;
        if kind.is_none() {
            let finding = codes::TOOL_ARTIFACT_ABOVE_INVALID.finding(&[
                ("owner", &"`artifact_above`"),
                (
                    "reason",
                    &"it says when a result becomes an artifact, and this tool declares no kind for its artifacts: add `result_kind = \"dataset/rows\"`, or remove it",
                ),
            ]);
            cx.finding_at(&finding, above);
            return None;
        }
        Some(size)
    });
    let kind = kind?;
    check_kind(kind, "`result_kind`", cx).then(|| ResultKindValue {
        kind: kind.clone(),
        above,
    })
}

/// `wants(argument = "kind", ..)`: each argument a field name, once, each kind a kind.
pub fn check_wants(wants: Option<&syn::Meta>, cx: &mut Ctxt) -> Vec<WantedValue> {
    let Some(wants) = wants else {
        return Vec::new();
    };
    let invalid = |detail: &str| codes::TOOL_WANTS_INVALID.finding(&[("detail", &detail)]);
    let shape = "`wants` names each argument that takes an artifact reference, with the kind it takes: `wants(dataset = \"dataset/rows\")`";
    let syn::Meta::List(list) = wants else {
        cx.finding_at(&invalid(shape), wants);
        return Vec::new();
    };
    let parsed =
        list.parse_args_with(Punctuated::<syn::MetaNameValue, syn::Token![,]>::parse_terminated);
    let Ok(pairs) = parsed else {
        cx.finding_at(&invalid(shape), list);
        return Vec::new();
    };
    if pairs.is_empty() {
        cx.finding_at(&invalid(shape), list);
    }
    let mut wanted: Vec<WantedValue> = Vec::new();
    for pair in pairs {
        let (
            Some(argument),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(kind),
                ..
            }),
        ) = (pair.path.get_ident(), &pair.value)
        else {
            cx.finding_at(&invalid(shape), &pair);
            continue;
        };
        if wanted.iter().any(|w| w.argument == *argument) {
            let twice =
                format!("`wants` names argument `{argument}` twice: an argument takes one kind");
            cx.finding_at(&invalid(&twice), argument);
            continue;
        }
        let subject = format!("the kind `wants` gives argument `{argument}`");
        if check_kind(kind, &subject, cx) {
            wanted.push(WantedValue {
                argument: argument.clone(),
                kind: kind.clone(),
            });
        }
    }
    wanted
}

/// The `static __AGBOSS_WANTS` array and, for each argument, a function that compiles only
/// when the input has that field and it is a `Wanted<T>` (or `Option<Wanted<T>>`), spanned on
/// the argument as written.
pub fn gen_wants(wants: &[WantedValue], ident: &syn::Ident, private: &TokenStream) -> TokenStream {
    if wants.is_empty() {
        return TokenStream::new();
    }
    let count = wants.len();
    let entries = wants.iter().map(|WantedValue { argument, kind }| {
        let name = argument.to_string();
        quote!(#private::WantedArgument { argument: #name, kind: #kind })
    });
    let checks = wants.iter().map(|WantedValue { argument, .. }| {
        quote_spanned! {argument.span()=>
            #private::wants_field(&input.#argument);
        }
    });
    quote! {
        #[doc(hidden)]
        static __AGBOSS_WANTS: [#private::WantedArgument; #count] = [#(#entries),*];
        #[allow(dead_code)]
        fn __agboss_wants_fields(input: &<#ident as #private::ToolHandler>::Input) {
            #(#checks)*
        }
    }
}
