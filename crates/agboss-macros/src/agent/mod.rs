//! `#[agent]`: parse, validate into a [`ResolvedAgent`], generate the descriptor and its
//! registration.

mod args;
mod codegen;
mod validate;

use proc_macro2::TokenStream;
use quote::quote;

pub use validate::ResolvedAgent;

/// Expands `#[agent(args)] item`; on error the struct is emitted unchanged beside the errors.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_struct = match syn::parse2::<syn::ItemStruct>(item.clone()) {
        Ok(item_struct) => item_struct,
        Err(_) => {
            return crate::tool::on_wrong_item(
                item,
                "#[agent] goes on a unit struct: `pub struct Scout;`",
            );
        }
    };
    let mut errors = darling::Error::accumulator();
    let resolved = args::parse(args, &mut errors)
        .and_then(|args| validate::resolve(args, &item_struct, &mut errors));
    match errors.finish_with(resolved) {
        Ok(Some(resolved)) => codegen::generate(&resolved, &item_struct),
        Ok(None) => quote!(#item_struct),
        Err(errors) => {
            let errors = errors.write_errors();
            quote!(#item_struct #errors)
        }
    }
}
