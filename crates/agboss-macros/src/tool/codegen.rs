//! Generates a resolved tool's `Tool` impl, its static descriptor and its registration.
//!
//! Everything is reached through `::agboss::__private` (or the `crate = ..` override), wrapped
//! in `const _: () = { .. };` so no name leaks into the user's module.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::ItemStruct;
use syn::spanned::Spanned;

use super::ResolvedTool;
use crate::attrs::private_path;

pub fn generate(tool: &ResolvedTool, item: &ItemStruct) -> TokenStream {
    let private = private_path(tool.krate.as_ref());
    let descriptor = gen_descriptor(tool, item, &private);
    let build = gen_build(tool, item, &private);
    let ident = &item.ident;
    quote! {
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #[doc(hidden)]
            static __AGBOSS_DESCRIPTOR: #private::ToolDescriptor = #descriptor;

            #[automatically_derived]
            impl #private::Tool for #ident {
                const DESCRIPTOR: &'static #private::ToolDescriptor = &__AGBOSS_DESCRIPTOR;

                #build
            }

            #private::inventory::submit! {
                #private::ToolRegistration::of::<#ident>()
            }
        };
    }
}

/// The descriptor: a `const` expression, as `inventory` needs.
fn gen_descriptor(tool: &ResolvedTool, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let ident = &item.ident;
    let name = &tool.name;
    let description = &tool.description;
    let rust_type = ident.to_string();
    // Spanned on the struct's name, so a missing `ToolHandler` impl is reported there.
    let handler = quote_spanned!(ident.span()=> <#ident as #private::ToolHandler>);
    let mut descriptor = quote! {
        #private::ToolDescriptor::new(
            #name,
            #description,
            #rust_type,
            #private::SourceLocation {
                module_path: ::core::module_path!(),
                file: ::core::file!(),
                line: ::core::line!(),
            },
            #private::input_schema_of::<#handler::Input>,
            #private::output_schema_of::<#handler::Output>,
        )
    };
    if let Some(timeout) = &tool.timeout {
        let timeout = timeout.to_tokens(private);
        descriptor = quote!(#descriptor.with_timeout(#timeout));
    }
    if let Some(bound) = &tool.max_result_size {
        let bound = bound.to_tokens(private);
        descriptor = quote!(#descriptor.with_max_result_size(#bound));
    }
    if !tool.fields.is_empty() {
        let specs = tool.fields.iter().map(|field| {
            let name = &field.name;
            let ty = &field.ty;
            let written = written_type(ty);
            // Spanned on the field's type: a type that cannot be a dependency is reported there.
            let requirement = quote_spanned!(ty.span()=> <#ty as #private::Dependency>::requirement);
            quote!(#private::DependencySpec::new(#name, #written, #requirement))
        });
        descriptor = quote!(#descriptor.with_dependencies(&[#(#specs),*]));
    }
    descriptor
}

/// `fn build`: each field resolved from the call's scope, in declaration order.
fn gen_build(tool: &ResolvedTool, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let values = tool.fields.iter().enumerate().map(|(index, field)| {
        let ty = &field.ty;
        quote_spanned! {ty.span()=>
            match <#ty as #private::Dependency>::resolve(__agboss_scope) {
                ::core::option::Option::Some(value) => value,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(
                        <Self as #private::Tool>::DESCRIPTOR.missing(#index),
                    );
                }
            }
        }
    });
    let construct = match &item.fields {
        syn::Fields::Named(_) => {
            let idents = tool.fields.iter().map(|f| &f.ident);
            quote!(Self { #(#idents: #values),* })
        }
        syn::Fields::Unnamed(_) => quote!(Self ( #(#values),* )),
        syn::Fields::Unit => quote!(Self),
    };
    let scope_name = if tool.fields.is_empty() {
        quote!(_)
    } else {
        quote!(__agboss_scope)
    };
    quote! {
        fn build(
            #scope_name: &#private::Scope<'_>,
        ) -> ::core::result::Result<Self, #private::MissingDependency> {
            ::core::result::Result::Ok(#construct)
        }
    }
}

/// The type as a person writes it: `Arc<dyn IssuesApi>`, not `Arc < dyn IssuesApi >`.
fn written_type(ty: &syn::Type) -> String {
    let spaced = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(spaced.len());
    let chars: Vec<char> = spaced.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c == ' ' {
            let before = out.chars().last().unwrap_or(' ');
            let after = chars.get(i + 1).copied().unwrap_or(' ');
            let tight = |c: char| matches!(c, '<' | '>' | ':' | ',' | '&' | '(' | ')' | '[' | ']' | ';');
            if (tight(before) && !(before == ',' || before == ';')) || tight(after) {
                continue;
            }
        }
        out.push(c);
    }
    out.replace(',', ", ").replace(";", "; ")
}

#[cfg(test)]
mod tests {
    use super::written_type;

    #[test]
    fn types_read_as_written() {
        let ty: syn::Type = syn::parse_quote!(Arc<dyn IssuesApi>);
        assert_eq!(written_type(&ty), "Arc<dyn IssuesApi>");
        let ty: syn::Type = syn::parse_quote!(std::sync::Arc<dyn Fn(u8, u16) -> u32 + Send>);
        assert_eq!(written_type(&ty), "std::sync::Arc<dyn Fn(u8, u16) -> u32 + Send>");
        let ty: syn::Type = syn::parse_quote!(Arc<[u8; 4]>);
        assert_eq!(written_type(&ty), "Arc<[u8; 4]>");
    }
}
