//! Generates a resolved tool's `Tool` impl, its static descriptor and its registration.
//!
//! Everything is reached through `::agboss::__private` (or the `crate = ..` override), wrapped
//! in `const _: () = { .. };` so no name leaks into the user's module.

use agboss_rules::codes;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::ItemStruct;
use syn::spanned::Spanned;

use super::ResolvedTool;
use crate::attrs::{doc_unless_documented, private_path, source_location};

pub fn generate(tool: &ResolvedTool, item: &ItemStruct) -> TokenStream {
    let private = private_path(tool.krate.as_ref());
    let descriptor = gen_descriptor(tool, item, &private);
    let dependencies = gen_dependencies(tool, &private);
    let build = gen_build(tool, item, &private);
    let mcp_check = gen_mcp_check(tool, &private);
    let ident = &item.ident;
    // A struct without a doc comment is documented with what the model reads of it.
    let doc = doc_unless_documented(item, &tool.description);
    // Spanned on the struct's name: a missing `ToolHandler` impl is reported there, once.
    let impl_header = quote_spanned! {ident.span()=>
        #[automatically_derived]
        impl #private::Tool for #ident
    };
    quote! {
        #doc
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #dependencies

            #[doc(hidden)]
            static __AGBOSS_DESCRIPTOR: #private::ToolDescriptor = #descriptor;

            #impl_header {
                const DESCRIPTOR: &'static #private::ToolDescriptor = &__AGBOSS_DESCRIPTOR;

                #build
            }

            #mcp_check

            #private::inventory::submit! {
                #private::ToolRegistration::of::<#ident>()
            }
        };
    }
}

/// For `#[mcp_tool]`: the server must declare the tool called, checked when compiling.
fn gen_mcp_check(tool: &ResolvedTool, private: &TokenStream) -> TokenStream {
    let Some((server, calls)) = &tool.mcp else {
        return TokenStream::new();
    };
    let server_name = server
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let message = codes::MCP_UNDECLARED_TOOL
        .finding(&[
            ("subject", &"this tool"),
            ("tool", &calls),
            ("server", &server_name),
        ])
        .to_string();
    quote_spanned! {server.span()=>
        const _: () = ::core::assert!(
            #private::mcp_declares(<#server as #private::McpServer>::DESCRIPTOR, #calls),
            #message
        );
    }
}

/// The descriptor: a `const` expression, as `inventory` needs.
fn gen_descriptor(tool: &ResolvedTool, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let ident = &item.ident;
    let name = &tool.name;
    let description = &tool.description;
    let rust_type = ident.to_string();
    let location = source_location(private);
    let mut descriptor = quote! {
        #private::ToolDescriptor::new(
            #name,
            #description,
            #rust_type,
            #location,
            #private::tool_input_schema::<#ident>,
            #private::tool_output_schema::<#ident>,
        )
    };
    if let Some(timeout) = &tool.timeout {
        let timeout = timeout.to_tokens();
        descriptor = quote!(#descriptor.with_timeout(#timeout));
    }
    if let Some(bound) = &tool.max_result_size {
        let bound = bound.to_tokens(private);
        descriptor = quote!(#descriptor.with_max_result_size(#bound));
    }
    if tool.read_only {
        descriptor = quote!(#descriptor.read_only());
    }
    if let Some((server, calls)) = &tool.mcp {
        let server = quote_spanned!(server.span()=> <#server as #private::McpServer>);
        descriptor =
            quote!(#descriptor.with_mcp(#private::McpBinding::new(#server::DESCRIPTOR, #calls)));
    }
    if !tool.fields.is_empty() {
        descriptor = quote!(#descriptor.with_dependencies(&__AGBOSS_DEPENDENCIES));
    }
    descriptor
}

/// The fields as a `static` array: a borrowed array literal in the descriptor would rely on
/// constant promotion, which not every field expression allows.
fn gen_dependencies(tool: &ResolvedTool, private: &TokenStream) -> TokenStream {
    if tool.fields.is_empty() {
        return TokenStream::new();
    }
    let count = tool.fields.len();
    let specs = tool.fields.iter().map(|field| {
        let name = &field.name;
        let ty = &field.ty;
        let written = written_type(ty);
        // Spanned on the field's type: a type that cannot be a dependency is reported there.
        let requirement = quote_spanned!(ty.span()=> <#ty as #private::Dependency>::requirement);
        quote!(#private::DependencySpec::new(#name, #written, #requirement))
    });
    quote! {
        #[doc(hidden)]
        static __AGBOSS_DEPENDENCIES: [#private::DependencySpec; #count] = [#(#specs),*];
    }
}

/// `fn build`: each field resolved from the call's scope, in declaration order.
fn gen_build(tool: &ResolvedTool, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let values = tool.fields.iter().enumerate().map(|(index, field)| {
        let ty = &field.ty;
        quote_spanned! {ty.span()=>
            match <#ty as #private::Dependency>::resolve(__agboss_scope) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(why) => {
                    return ::core::result::Result::Err(
                        <Self as #private::Tool>::DESCRIPTOR.unresolved(#index, why),
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
        ) -> ::core::result::Result<Self, #private::DependencyError> {
            ::core::result::Result::Ok(#construct)
        }
    }
}

/// The type as a person writes it: `Arc<dyn IssuesApi>`, not `Arc < dyn IssuesApi >`.
fn written_type(ty: &syn::Type) -> String {
    let spaced = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(spaced.len());
    let mut previous = "";
    for word in spaced.split(' ') {
        // Groups print with their delimiter stuck to the first or last token: `(u8`, `u16)`.
        let glued_to_previous = ["<", "(", "[", "&", "::"]
            .iter()
            .any(|p| previous.ends_with(p))
            || [">", "(", ")", "[", "]", ",", ";", "::", "<"]
                .iter()
                .any(|p| word.starts_with(p));
        if !out.is_empty() && !glued_to_previous {
            out.push(' ');
        }
        out.push_str(word);
        previous = word;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::written_type;

    #[test]
    fn types_read_as_written() {
        let ty: syn::Type = syn::parse_quote!(Arc<dyn IssuesApi>);
        assert_eq!(written_type(&ty), "Arc<dyn IssuesApi>");
        let ty: syn::Type = syn::parse_quote!(std::sync::Arc<dyn Fn(u8, u16) -> u32 + Send>);
        assert_eq!(
            written_type(&ty),
            "std::sync::Arc<dyn Fn(u8, u16) -> u32 + Send>"
        );
        let ty: syn::Type = syn::parse_quote!(Arc<[u8; 4]>);
        assert_eq!(written_type(&ty), "Arc<[u8; 4]>");
    }
}
