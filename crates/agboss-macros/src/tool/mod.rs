//! `#[tool]`: parse the attribute, validate it into a [`ResolvedTool`], generate the `Tool` impl
//! and its registration.

mod args;
mod codegen;
mod validate;

use proc_macro2::TokenStream;
use quote::quote;

pub use args::Kind;
pub use validate::ResolvedTool;

/// Expands `#[tool(args)] item`. On any error the struct is emitted unchanged beside the
/// errors, so the user's `impl ToolHandler` still compiles and only the real problems show.
pub fn expand(args: TokenStream, item: TokenStream, kind: Kind) -> TokenStream {
    let item_struct = match syn::parse2::<syn::ItemStruct>(item.clone()) {
        Ok(item_struct) => item_struct,
        Err(_) => {
            return on_wrong_item(
                item,
                &format!(
                    "#[{}] goes on a struct: its fields are the tool's dependencies, and its `ToolHandler` impl is the code",
                    kind.attribute()
                ),
            );
        }
    };
    let mut errors = darling::Error::accumulator();
    let args = args::parse(args, kind, &mut errors);
    let kept_imports = args.as_ref().map(args::keep_unit_imports);
    let resolved = args.and_then(|args| validate::resolve(args, kind, &item_struct, &mut errors));
    match errors.finish_with(resolved) {
        Ok(Some(resolved)) => codegen::generate(&resolved, &item_struct),
        Ok(None) => quote!(#item_struct #kept_imports),
        Err(errors) => {
            let errors = errors.write_errors();
            quote!(#item_struct #errors #kept_imports)
        }
    }
}

/// `item` unchanged, with `message` reported on its name: the attribute is on the wrong kind of
/// item.
pub(crate) fn on_wrong_item(item: TokenStream, message: &str) -> TokenStream {
    let error = syn::Error::new_spanned(item_name(&item), message).to_compile_error();
    quote!(#item #error)
}

/// The part of an item that names it (`fn search_issues`), for an error about the item.
fn item_name(item: &TokenStream) -> TokenStream {
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(f)) => {
            let (token, ident) = (f.sig.fn_token, f.sig.ident);
            quote!(#token #ident)
        }
        Ok(syn::Item::Enum(e)) => {
            let (token, ident) = (e.enum_token, e.ident);
            quote!(#token #ident)
        }
        Ok(syn::Item::Trait(t)) => {
            let (token, ident) = (t.trait_token, t.ident);
            quote!(#token #ident)
        }
        Ok(syn::Item::Impl(i)) => {
            let token = i.impl_token;
            quote!(#token)
        }
        _ => item.clone().into_iter().take(1).collect(),
    }
}
