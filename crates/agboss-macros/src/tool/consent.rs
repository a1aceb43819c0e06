//! The keys that say when a person is asked about a tool's calls: `capabilities = [..]` (what
//! it touches, for the application's permission checker), `check_in = always | predicate` and
//! `check_in_evidence = function`. Checked here, every problem at its token; generated as the
//! descriptor's `with_capabilities`, `with_check_in` and `with_evidence`.

use agboss_rules::codes;
use agboss_rules::distance::nearest;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Path};

use crate::ctxt::Ctxt;
use crate::emit::Builder;
use crate::shape::{ListOf, list_of};

/// A capability as written: a built-in one by name, or `Custom("name")`.
pub enum CapabilityValue {
    BuiltIn(Ident),
    Custom(syn::LitStr),
}

/// `check_in` as written.
pub enum CheckInValue {
    Always,
    When(Path),
}

/// The built-in capabilities, as written in `capabilities = [..]`.
const BUILT_IN: [&str; 4] = ["ExternalNet", "UserData", "Money", "Destructive"];

/// Reads `capabilities = [..]`: each element a built-in name or `Custom("..")`.
pub fn check_capabilities(list: Option<&Expr>, cx: &mut Ctxt) -> Vec<CapabilityValue> {
    let Some(list) = list else {
        return Vec::new();
    };
    let finding = |detail: String| codes::TOOL_CAPABILITY_UNKNOWN.finding(&[("detail", &detail)]);
    let messages = ListOf {
        not_a_list: &finding(format!(
            "`capabilities` takes a list: `capabilities = [ExternalNet, Money]`; the capabilities are {}",
            known()
        ))
        .to_string(),
        not_an_element: &finding(format!(
            "a capability is one of {}, written as a name",
            known()
        ))
        .to_string(),
    };
    let read = list_of(list, &messages, read_capability, cx);
    let mut capabilities = Vec::new();
    for value in read {
        match value {
            Ok(capability) => capabilities.push(capability),
            Err((node, detail)) => cx.finding_at(&finding(detail), &node),
        }
    }
    capabilities
}

fn known() -> String {
    format!(
        "{}, or `Custom(\"name\")`",
        BUILT_IN.map(|c| format!("`{c}`")).join(", ")
    )
}

/// One element of `capabilities`; an unknown name is an error naming the nearest one.
fn read_capability(expr: &Expr) -> Option<Result<CapabilityValue, (TokenStream, String)>> {
    match expr {
        Expr::Path(path) => {
            let ident = path.path.get_ident()?;
            let name = ident.to_string();
            if BUILT_IN.contains(&name.as_str()) {
                return Some(Ok(CapabilityValue::BuiltIn(ident.clone())));
            }
            let hint = match nearest(&name, BUILT_IN, 4) {
                Some(near) => format!(" (did you mean `{near}`?)"),
                None => String::new(),
            };
            Some(Err((
                ident.to_token_stream(),
                format!(
                    "unknown capability `{name}`{hint}: the capabilities are {}",
                    known()
                ),
            )))
        }
        Expr::Call(call) => {
            let Expr::Path(function) = &*call.func else {
                return None;
            };
            if !function.path.is_ident("Custom") || call.args.len() != 1 {
                return None;
            }
            match call.args.first() {
                Some(Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(name),
                    ..
                })) if !name.value().trim().is_empty() => {
                    Some(Ok(CapabilityValue::Custom(name.clone())))
                }
                _ => Some(Err((
                    call.args.to_token_stream(),
                    "a custom capability is named in quotes: `Custom(\"prod-database\")`".into(),
                ))),
            }
        }
        _ => None,
    }
}

/// Reads `check_in = always | path::to::predicate`.
pub fn check_check_in(value: Option<&Expr>, cx: &mut Ctxt) -> Option<CheckInValue> {
    let value = value?;
    let Expr::Path(path) = value else {
        let detail = "`check_in` is `always`, or the path of a predicate `fn(&Input, &ExecutionContext) -> bool` (e.g. `check_in = over_1000`)";
        cx.finding_at(
            &codes::TOOL_CHECK_IN_INVALID.finding(&[("detail", &detail)]),
            value,
        );
        return None;
    };
    if path.path.is_ident("always") {
        return Some(CheckInValue::Always);
    }
    Some(CheckInValue::When(path.path.clone()))
}

/// The descriptor's `with_capabilities`, `untrusted_output`, `with_check_in` and
/// `with_evidence`, for a tool `ident`.
pub struct Consent<'a> {
    pub capabilities: &'a [CapabilityValue],
    pub untrusted_output: bool,
    pub check_in: Option<&'a CheckInValue>,
    pub evidence: Option<&'a Path>,
}

impl Consent<'_> {
    /// The static arrays and functions the descriptor points at.
    pub fn items(&self, ident: &Ident, private: &TokenStream) -> TokenStream {
        let input = quote!(<#ident as #private::ToolHandler>::Input);
        let capabilities = match self.capabilities.len() {
            0 => TokenStream::new(),
            count => {
                let values = self.capabilities.iter().map(|c| match c {
                    CapabilityValue::BuiltIn(name) => quote!(#private::Capability::#name),
                    CapabilityValue::Custom(name) => quote!(#private::Capability::Custom(#name)),
                });
                quote! {
                    #[doc(hidden)]
                    static __AGBOSS_CAPABILITIES: [#private::Capability; #count] = [#(#values),*];
                }
            }
        };
        // Spanned on the path: a predicate of another signature is reported there.
        let check_in = match self.check_in {
            Some(CheckInValue::When(path)) => quote_spanned! {path.span()=>
                fn __agboss_check_in(
                    arguments: &str,
                    context: &#private::ExecutionContext,
                ) -> ::core::result::Result<bool, ::std::string::String> {
                    #private::check_in_with::<#input, _>(arguments, context, #path)
                }
            },
            _ => TokenStream::new(),
        };
        let evidence = match self.evidence {
            Some(path) => quote_spanned! {path.span()=>
                fn __agboss_evidence(
                    arguments: &str,
                ) -> ::core::result::Result<::std::string::String, ::std::string::String> {
                    #private::evidence_with::<#input, _>(arguments, #path)
                }
            },
            None => TokenStream::new(),
        };
        quote!(#capabilities #check_in #evidence)
    }

    /// The descriptor's calls.
    pub fn calls(&self, descriptor: &mut Builder, private: &TokenStream) {
        if !self.capabilities.is_empty() {
            descriptor.call("with_capabilities", quote!(&__AGBOSS_CAPABILITIES));
        }
        if self.untrusted_output {
            descriptor.call("untrusted_output", TokenStream::new());
        }
        match self.check_in {
            Some(CheckInValue::Always) => {
                descriptor.call("with_check_in", quote!(#private::CheckIn::Always))
            }
            Some(CheckInValue::When(path)) => {
                let name = path.to_token_stream().to_string().replace(' ', "");
                descriptor.call(
                    "with_check_in",
                    quote!(#private::CheckIn::When(__agboss_check_in, #name)),
                )
            }
            None => {}
        }
        if self.evidence.is_some() {
            descriptor.call("with_evidence", quote!(__agboss_evidence));
        }
    }
}
