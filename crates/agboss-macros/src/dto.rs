//! `#[dto]`: serde and schemars derives with their crate paths pointed at agboss's re-exports.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::header::private_path;
use crate::pipeline::{Attribute, Misplaced, keep_nothing};

const KEYS: &[&str] = &["open", "crate"];

/// `#[dto]`: on a struct or an enum; its arguments need no check.
pub const DTO: Attribute<DeriveInput, DtoArgs, DtoArgs> = Attribute {
    name: "dto",
    keys: KEYS,
    misplaced: Misplaced::ParserError,
    check: |args, _, _| Some(args),
    check_shape: |item, cx| {
        if let syn::Data::Union(union) = &item.data {
            cx.error_at(
                &union.union_token,
                "#[dto] goes on a struct or an enum, not a union",
            );
        }
    },
    generate,
    keep_on_error: keep_nothing,
};

/// `#[dto(..)]` as written.
#[derive(Debug, Default, FromMeta)]
pub struct DtoArgs {
    /// Accept fields the type does not declare instead of refusing them.
    #[darling(default)]
    open: bool,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

/// The derives, their crate paths pointed at agboss's re-exports; a struct refuses fields it
/// does not declare unless `open`.
fn generate(args: &DtoArgs, input: &DeriveInput, written: &TokenStream) -> TokenStream {
    let private = private_path(args.krate.as_ref());
    let serde_crate = format!("{}::serde", private.to_string().replace(' ', ""));
    let schemars_crate = format!("{}::schemars", private.to_string().replace(' ', ""));
    let closed = (!args.open && matches!(input.data, syn::Data::Struct(_)))
        .then(|| quote!(#[serde(deny_unknown_fields)]));
    let conforms = crate::conform::generate(&private, input);
    quote! {
        #conforms

        #[derive(#private::serde::Serialize, #private::serde::Deserialize, #private::schemars::JsonSchema)]
        #[serde(crate = #serde_crate)]
        #[schemars(crate = #schemars_crate)]
        #closed
        #written
    }
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::*;

    #[test]
    fn a_dto_reads_open_and_its_crate() {
        let args = DTO.resolve(
            quote!(open, crate = my::agboss),
            quote!(
                pub struct Query {
                    q: String,
                }
            ),
        );
        assert!(args.open);
        assert!(args.krate.unwrap().segments.len() == 2);
        let args = DTO.resolve(
            quote!(),
            quote!(
                pub enum Verdict {
                    Yes,
                }
            ),
        );
        assert!(!args.open && args.krate.is_none());
    }

    #[test]
    fn a_union_is_refused_with_every_problem_of_the_arguments() {
        let problems = DTO.problems(
            quote!(opn),
            quote!(
                pub union Bits {
                    a: u8,
                }
            ),
        );
        assert_eq!(
            problems,
            "unknown #[dto] key `opn` (did you mean `open`?); the keys are `open`, `crate`\n#[dto] goes on a struct or an enum, not a union"
        );
    }
}
