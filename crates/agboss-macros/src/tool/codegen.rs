//! Generates a resolved tool's `Tool` impl, its static descriptor and its registration.
//!
//! Everything is reached through `::agboss::__private` (or the `crate = ..` override), wrapped
//! in `const _: () = { .. };` so no name leaks into the user's module.

use agboss_rules::codes;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ItemStruct;
use syn::spanned::Spanned;

use super::ResolvedTool;
use super::validate::{McpCall, PassThrough};
use crate::attrs::{doc_unless_documented, private_path, source_location};
use crate::fields::{Field, gen_build, gen_dependencies};

pub fn generate(tool: &ResolvedTool, item: &ItemStruct) -> TokenStream {
    let private = private_path(tool.krate.as_ref());
    let item = &gen_struct(tool, item);
    let descriptor = gen_descriptor(tool, item, &private);
    let dependencies = gen_dependencies(&tool.fields, &private);
    // The fields of the emitted struct, the pass-through's client among them.
    let build = gen_build(
        &tool.fields,
        item,
        &private,
        &syn::Ident::new("__AGBOSS_DESCRIPTOR", Span::call_site()),
    );
    let mcp_check = gen_mcp_check(tool, &private);
    let handler = gen_pass_through(tool, item, &private);
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

            #handler

            #private::inventory::submit! {
                #private::ToolRegistration::of::<#ident>()
            }
        };
    }
}

/// The struct as the user wrote it, plus, for a pass-through `#[mcp_tool]`, the hidden field
/// of its server's client (a unit struct gets braces for it).
fn gen_struct(tool: &ResolvedTool, item: &ItemStruct) -> ItemStruct {
    let mut item = item.clone();
    let Some((_, Field { ident, ty, .. })) = tool.pass_through() else {
        return item;
    };
    let field = syn::Field {
        attrs: vec![syn::parse_quote!(#[doc(hidden)])],
        vis: syn::Visibility::Inherited,
        mutability: syn::FieldMutability::None,
        ident: ident.clone(),
        colon_token: ident.as_ref().map(|_| Default::default()),
        ty: ty.clone(),
    };
    match &mut item.fields {
        syn::Fields::Named(fields) => fields.named.push(field),
        syn::Fields::Unnamed(fields) => fields.unnamed.push(field),
        syn::Fields::Unit => {
            item.fields = syn::Fields::Named(syn::parse_quote!({ #field }));
            item.semi_token = None;
        }
    }
    item
}

/// For `#[mcp_tool(.., input = .., output = ..)]`: the handler that passes the input to the
/// server's tool and its answer back.
fn gen_pass_through(tool: &ResolvedTool, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let Some((PassThrough { input, output }, client)) = tool.pass_through() else {
        return TokenStream::new();
    };
    let ident = &item.ident;
    // Located at `output` (with the hygiene of the call site): an output type the server's
    // answer cannot be read into is reported there.
    let at_output = Span::call_site().located_at(output.span());
    let client = match &client.ident {
        Some(field) => quote_spanned!(at_output=> self.#field),
        None => {
            let index = syn::Index {
                index: (tool.fields.len() - 1) as u32,
                span: at_output,
            };
            quote_spanned!(at_output=> self.#index)
        }
    };
    let call = quote_spanned! {at_output=>
        #client.call::<#input, #output>(&input).await
    };
    // A hand-written handler beside this one is reported as a conflicting implementation, at
    // the attribute that wrote it.
    quote! {
        #[automatically_derived]
        impl #private::ToolHandler for #ident {
            type Input = #input;
            type Output = #output;

            async fn run(
                &self,
                input: #input,
            ) -> ::core::result::Result<#output, #private::ToolError> {
                #call
            }
        }
    }
}

/// For `#[mcp_tool]`: the server must declare the tool called, checked when compiling.
fn gen_mcp_check(tool: &ResolvedTool, private: &TokenStream) -> TokenStream {
    let Some(McpCall { server, calls, .. }) = &tool.mcp else {
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
    if let Some(role) = &tool.channel {
        // Spanned on the role: a role that does not approve the tool's input (or asks a
        // question instead) fails `Approves<Input>` there, with `[channel.wrong-tool]`.
        let approval = quote_spanned! {role.span()=>
            #private::approval_for::<#role, <#ident as #private::ToolHandler>::Input>()
        };
        descriptor = quote!(#descriptor.with_approval(#approval));
    }
    if let Some(variant) = tool.on_crash {
        let variant = syn::Ident::new(variant, proc_macro2::Span::call_site());
        descriptor = quote!(#descriptor.with_on_crash(#private::OnCrash::#variant));
    }
    if let Some(McpCall { server, calls, .. }) = &tool.mcp {
        let server = quote_spanned!(server.span()=> <#server as #private::McpServer>);
        descriptor =
            quote!(#descriptor.with_remote(#private::mcp_remote_tool(#server::DESCRIPTOR, #calls)));
    }
    if !tool.fields.is_empty() {
        descriptor = quote!(#descriptor.with_dependencies(&__AGBOSS_DEPENDENCIES));
    }
    descriptor
}
