//! `#[dto]`: serde and schemars derives with their crate paths pointed at agboss's re-exports.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::DeriveInput;

use crate::ctxt::Ctxt;
use crate::header::private_path;
use crate::pipeline::{Attribute, Misplaced};

const KEYS: &[&str] = &["open", "crate"];

/// The `#[dto]` attribute.
pub struct Dto;

/// `#[dto(..)]` as written.
#[derive(Debug, Default, FromMeta)]
pub struct DtoArgs {
    /// Accept fields the type does not declare instead of refusing them.
    #[darling(default)]
    open: bool,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

impl Attribute for Dto {
    type Item = DeriveInput;
    type Args = DtoArgs;
    type Resolved = DtoArgs;

    fn name(&self) -> &'static str {
        "dto"
    }

    fn keys(&self) -> &'static [&'static str] {
        KEYS
    }

    fn misplaced(&self) -> Misplaced {
        Misplaced::ParserError
    }

    fn check(&self, args: DtoArgs, _: &DeriveInput, _: &mut Ctxt) -> Option<DtoArgs> {
        Some(args)
    }

    fn check_shape(&self, item: &DeriveInput, cx: &mut Ctxt) {
        if let syn::Data::Union(union) = &item.data {
            cx.error_at(
                &union.union_token,
                "#[dto] goes on a struct or an enum, not a union",
            );
        }
    }

    fn generate(&self, args: DtoArgs, input: &DeriveInput) -> TokenStream {
        let private = private_path(args.krate.as_ref());
        let serde_crate = format!("{}::serde", private.to_string().replace(' ', ""));
        let schemars_crate = format!("{}::schemars", private.to_string().replace(' ', ""));
        let closed = (!args.open && matches!(input.data, syn::Data::Struct(_)))
            .then(|| quote!(#[serde(deny_unknown_fields)]));
        quote! {
            #[derive(#private::serde::Serialize, #private::serde::Deserialize, #private::schemars::JsonSchema)]
            #[serde(crate = #serde_crate)]
            #[schemars(crate = #schemars_crate)]
            #closed
            #input
        }
    }
}
