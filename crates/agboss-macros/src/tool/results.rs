//! What a tool says about its results beyond their bound: `result_ceiling` with its
//! `ceiling_hint`, `repeated_when`, and `retries` with its `retry_backoff`.

use agboss_rules::codes;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;
use crate::units::{ByteSizeValue, TimeSpanValue, byte_size, time_span};

/// The most retries a tool may declare: past that, a failing service is better told to the
/// model, or the run ended.
const MOST_RETRIES: u32 = 10;

/// `retries = 2, retry_backoff = millis(500)`, checked.
pub struct RetriesValue {
    pub retries: u32,
    pub backoff: Option<TimeSpanValue>,
}

impl RetriesValue {
    /// The arguments of `ToolDescriptor::with_retries`.
    pub fn to_tokens(&self) -> TokenStream {
        let retries = self.retries;
        match &self.backoff {
            Some(backoff) => {
                let backoff = backoff.to_tokens();
                quote!(#retries, ::core::option::Option::Some(#backoff))
            }
            None => quote!(#retries, ::core::option::Option::None),
        }
    }
}

/// `retries` is a whole number from 1 to [`MOST_RETRIES`]; `retry_backoff` a time span, and only
/// beside `retries`.
pub fn check_retries(
    retries: Option<&syn::Expr>,
    backoff: Option<&syn::Expr>,
    cx: &mut Ctxt,
) -> Option<RetriesValue> {
    let backoff = backoff.and_then(|b| cx.handle(time_span(b, "retry_backoff")).map(|v| (b, v)));
    let Some(retries) = retries else {
        if let Some((written, _)) = backoff {
            let detail = "`retry_backoff` is the wait before a call runs again, and this tool gives no `retries`: add `retries = 2`, or remove it";
            cx.finding_at(
                &codes::TOOL_RETRIES_INVALID.finding(&[("detail", &detail)]),
                written,
            );
        }
        return None;
    };
    let count = match retries {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(n),
            ..
        }) => n.base10_parse::<u32>().ok(),
        _ => None,
    };
    match count {
        Some(n) if (1..=MOST_RETRIES).contains(&n) => Some(RetriesValue {
            retries: n,
            backoff: backoff.map(|(_, value)| value),
        }),
        _ => {
            let written = retries.to_token_stream().to_string();
            let detail = format!(
                "`retries = {written}` is not how many times a call runs again after a transient error: write a whole number from 1 to {MOST_RETRIES}, such as `retries = 2`"
            );
            cx.finding_at(
                &codes::TOOL_RETRIES_INVALID.finding(&[("detail", &detail)]),
                retries,
            );
            None
        }
    }
}

/// `result_ceiling = kilobytes(64), ceiling_hint = ".."`, checked.
pub struct CeilingValue {
    pub size: ByteSizeValue,
    pub hint: syn::LitStr,
}

impl CeilingValue {
    /// The arguments of `ToolDescriptor::with_result_ceiling`.
    pub fn to_tokens(&self, private: &TokenStream) -> TokenStream {
        let size = self.size.to_tokens(private);
        let hint = &self.hint;
        quote!(#size, #hint)
    }
}

/// A ceiling needs its hint, and a hint its ceiling; the ceiling is a size of at least 1 byte.
pub fn check_ceiling(
    ceiling: Option<&syn::Expr>,
    hint: Option<&syn::LitStr>,
    cx: &mut Ctxt,
) -> Option<CeilingValue> {
    let Some(ceiling) = ceiling else {
        if let Some(hint) = hint {
            let finding = codes::TOOL_CEILING_HINT_WITHOUT_CEILING.finding(&[]);
            cx.finding_at(&finding, hint);
        }
        return None;
    };
    let size = cx.handle(byte_size(ceiling, "result_ceiling"));
    let missing = |why: &str| {
        codes::TOOL_CEILING_HINT_MISSING.finding(&[
            (
                "example",
                &"ask for fewer rows with `limit`, or one day at a time with `since`",
            ),
            ("why", &why),
        ])
    };
    let hint = match hint {
        None => {
            cx.finding_at(&missing(""), ceiling);
            return None;
        }
        Some(hint) if hint.value().trim().is_empty() => {
            cx.finding_at(&missing(" (this one is empty)"), hint);
            return None;
        }
        Some(hint) => hint.clone(),
    };
    Some(CeilingValue { size: size?, hint })
}

/// `repeated_when = arguments_and_result | arguments | never`: the variant's name, `None` for
/// the default.
pub fn check_repeated_when(path: Option<&syn::Path>, cx: &mut Ctxt) -> Option<&'static str> {
    let path = path?;
    let written = path.to_token_stream().to_string().replace(' ', "");
    match written.as_str() {
        "arguments_and_result" => None,
        "arguments" => Some("Arguments"),
        "never" => Some("Never"),
        _ => {
            let finding = codes::TOOL_REPEATED_WHEN_INVALID.finding(&[("value", &written)]);
            cx.finding_at(&finding, &path.span());
            None
        }
    }
}

/// The argument of `ToolDescriptor::with_repeated_when`.
pub fn repeated_when_tokens(variant: &str, private: &TokenStream) -> TokenStream {
    let variant = syn::Ident::new(variant, Span::call_site());
    quote!(#private::RepeatedWhen::#variant)
}
