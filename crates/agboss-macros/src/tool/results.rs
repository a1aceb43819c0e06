//! What a tool says about its results beyond their bound: `result_ceiling` with its
//! `ceiling_hint`, and `repeated_when`.

use agboss_rules::codes;
use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;

use crate::ctxt::Ctxt;
use crate::units::{ByteSizeValue, byte_size};

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
