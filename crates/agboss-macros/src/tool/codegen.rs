//! Generates a resolved tool's `Tool` impl, its static descriptor and its registration, in the
//! shape of every component ([`emit`]).

use agboss_rules::codes;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::ItemStruct;
use syn::spanned::Spanned;

use super::ResolvedTool;
use super::artifacts::gen_wants;
use super::check::{McpCall, PassThrough};
use super::consent::Consent;
use super::needs::needs_tokens;
use super::results::repeated_when_tokens;
use crate::emit::{self, Builder, Descriptor, submit};
use crate::fields::{Field, dependencies_of, gen_dependent_impl_with};

/// The struct (with the pass-through's client field, if any), and in an anonymous constant its
/// dependencies, descriptor, `impl Tool`, the checks and handler of an `#[mcp_tool]`, and its
/// registration.
pub fn generate(tool: &ResolvedTool, item: &ItemStruct, _: &TokenStream) -> TokenStream {
    let private = tool.header.private();
    let item = &gen_struct(tool, item);
    let descriptor = Descriptor::new(&private, "__AGBOSS_DESCRIPTOR", "ToolDescriptor", "Tool");
    // The fields of the emitted struct, the pass-through's client among them.
    let implementation = gen_dependent_impl_with(
        &tool.fields,
        item,
        &descriptor,
        gen_descriptor(tool, item, &private),
        gen_checks(&item.ident, &private),
    );
    let mcp_check = gen_mcp_check(tool, &private);
    let handler = gen_pass_through(tool, item, &private);
    let asks = gen_asks(tool, &private);
    let ident = &item.ident;
    let wants = gen_wants(&tool.wants, ident, &private);
    let consent = consent_of(tool).items(ident, &private);
    let registration = submit(&private, quote!(#private::ToolRegistration::of::<#ident>()));
    // A struct without a doc comment is documented with what the model reads of it.
    let items = [
        asks,
        wants,
        consent,
        implementation,
        mcp_check,
        handler,
        registration,
    ];
    emit::component(tool.header.doc(item), item, &items)
}

/// `fn checks`: the generated validators of the handler's input and output, asked of their
/// types here, where they are known (a type that is not `#[dto]`, or not exact, has none).
fn gen_checks(ident: &syn::Ident, private: &TokenStream) -> TokenStream {
    let conform = quote!(#private::conform);
    let checks = quote! {
        // One of the two traits is the one a probe finds; the other is unused.
        #[allow(unused_imports)]
        fn checks() -> #conform::Checks<Self::Input, Self::Output> {
            use #conform::{Known as _, Unknown as _};
            #conform::Checks::new(
                (&&#conform::Probe::<Self::Input>::NEW).checker(),
                (&&#conform::Probe::<Self::Output>::NEW).checker(),
            )
        }
    };
    // Every token spanned on the struct's name, as the impl's header is: a missing handler
    // impl is reported there.
    spanned_at(checks, ident.span())
}

/// `tokens`, each spanned at `span`.
fn spanned_at(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), spanned_at(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            } else {
                token.set_span(span);
            }
            token
        })
        .collect()
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

/// What says when a person is asked about the tool's calls.
fn consent_of(tool: &ResolvedTool) -> Consent<'_> {
    Consent {
        capabilities: &tool.capabilities,
        untrusted_output: tool.untrusted_output,
        check_in: tool.check_in.as_ref(),
        evidence: tool.check_in_evidence.as_ref(),
    }
}

/// The question roles as a `static __AGBOSS_ASKS` array (nothing without `asks`), each
/// spanned on the role as written: a role that is not a question role is reported there.
fn gen_asks(tool: &ResolvedTool, private: &TokenStream) -> TokenStream {
    if tool.asks.is_empty() {
        return TokenStream::new();
    }
    let count = tool.asks.len();
    let roles = tool
        .asks
        .iter()
        .map(|role| quote_spanned!(role.span()=> #private::ask_of::<#role>()));
    quote! {
        #[doc(hidden)]
        static __AGBOSS_ASKS: [#private::RoleRef; #count] = [#(#roles),*];
    }
}

/// The descriptor: a `const` expression, as `inventory` needs.
fn gen_descriptor(tool: &ResolvedTool, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let ident = &item.ident;
    let head = tool.header.descriptor_args(item, private);
    let mut descriptor = Builder::new(quote! {
        #private::ToolDescriptor::new(
            #head,
            #private::tool_input_schema::<#ident>,
            #private::tool_output_schema::<#ident>,
        )
    });
    descriptor.call_with("with_timeout", tool.timeout.as_ref(), |t| t.to_tokens());
    descriptor.call_with("with_max_result_size", tool.max_result_size.as_ref(), |b| {
        b.to_tokens(private)
    });
    descriptor.call_with("with_result_ceiling", tool.result_ceiling.as_ref(), |c| {
        c.to_tokens(private)
    });
    descriptor.call_with("with_repeated_when", tool.repeated_when, |variant| {
        repeated_when_tokens(variant, private)
    });
    descriptor.call_with("with_result_kind", tool.result_kind.as_ref(), |k| {
        k.to_tokens(private)
    });
    if !tool.wants.is_empty() {
        descriptor.call("with_wants", quote!(&__AGBOSS_WANTS));
    }
    if tool.read_only {
        descriptor.call("read_only", TokenStream::new());
    }
    descriptor.call_with("with_approval", tool.channel.as_ref(), |role| {
        // Spanned on the role: a role that does not approve the tool's input (or asks a
        // question instead) fails `Approves<Input>` there, with `[channel.wrong-tool]`.
        quote_spanned! {role.span()=>
            #private::approval_for::<#role, <#ident as #private::ToolHandler>::Input>()
        }
    });
    if !tool.asks.is_empty() {
        descriptor.call("with_asks", quote!(&__AGBOSS_ASKS));
    }
    // An `#[mcp_tool]` asks its server's elicitation role, if the server has one.
    if let Some(McpCall { server, .. }) = &tool.mcp {
        let server = quote_spanned!(server.span()=> <#server as #private::McpServer>);
        descriptor.call("with_asks", quote!(#server::DESCRIPTOR.elicitation_asks()));
    }
    consent_of(tool).calls(&mut descriptor, private);
    if !tool.server_claims.is_empty() {
        let claims = &tool.server_claims;
        descriptor.call("with_server_claims", quote!(&[#(#claims),*]));
    }
    descriptor.call_with("with_on_crash", tool.on_crash, |variant| {
        let variant = syn::Ident::new(variant, Span::call_site());
        quote!(#private::OnCrash::#variant)
    });
    if !tool.allowlists.is_empty() {
        let lists = tool.allowlists.iter().map(|list| list.to_tokens(private));
        descriptor.call("with_allowlists", quote!(&[#(#lists),*]));
    }
    descriptor.call_with(
        "with_max_argument_size",
        tool.max_argument_size.as_ref(),
        |b| b.to_tokens(private),
    );
    descriptor.call_with(
        "with_remote",
        tool.mcp.as_ref(),
        |McpCall { server, calls, .. }| {
            let server = quote_spanned!(server.span()=> <#server as #private::McpServer>);
            quote!(#private::mcp_remote_tool(#server::DESCRIPTOR, #calls))
        },
    );
    if !tool.needs.is_empty() {
        descriptor.call("with_needs", needs_tokens(&tool.needs));
    }
    descriptor.call_with("with_retries", tool.retries.as_ref(), |r| r.to_tokens());
    dependencies_of(descriptor, &tool.fields)
}
