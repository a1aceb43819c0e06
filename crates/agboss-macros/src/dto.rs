//! `#[dto]`: serde and schemars derives with their crate paths pointed at agboss's re-exports.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;

use crate::attrs::{parse_args, private_path};

const KEYS: &[&str] = &["open", "crate"];

#[derive(Debug, Default, FromMeta)]
struct DtoArgs {
    /// Accept fields the type does not declare instead of refusing them.
    #[darling(default)]
    open: bool,
    #[darling(rename = "crate")]
    krate: Option<syn::Path>,
}

pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = darling::Error::accumulator();
    let parsed = syn::parse2::<syn::DeriveInput>(item.clone())
        .map_err(|e| errors.push(e.into()))
        .ok();
    let args = parse_args::<DtoArgs>(args, KEYS, "dto", &mut errors).map(|(args, _)| args);
    if let Some(syn::DeriveInput {
        data: syn::Data::Union(u),
        ..
    }) = &parsed
    {
        errors.push(
            darling::Error::custom("#[dto] goes on a struct or an enum, not a union")
                .with_span(&u.union_token),
        );
    }
    let (Some(input), Some(args)) = (parsed, args) else {
        let errors = errors.finish().err().map(|e| e.write_errors());
        return quote!(#item #errors);
    };
    if let Err(e) = errors.finish() {
        let errors = e.write_errors();
        return quote!(#item #errors);
    }
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
