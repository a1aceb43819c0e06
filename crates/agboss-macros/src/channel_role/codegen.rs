//! Generates a resolved role's `impl ChannelRole` with its static descriptor, and for an
//! approval role `impl Approves<Dto>` (for a question role `impl Asked`), in the shape of every component ([`emit`]).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::ItemStruct;
use syn::spanned::Spanned;

use super::check::{Answerer, Form, ResolvedRole};
use crate::emit::{self, Builder, Descriptor, Members};
use crate::fields::written_type;

/// The struct, and in an anonymous constant its descriptor and impls.
pub fn generate(role: &ResolvedRole, item: &ItemStruct, _: &TokenStream) -> TokenStream {
    let private = role.header.private();
    let ident = &item.ident;
    let (question, answer, approves) = match &role.form {
        Form::Approval { approves } => {
            // Spanned on the DTO: an input that is not one is reported there.
            let question =
                quote_spanned!(approves.span()=> #private::ToolCallApprovalAsk<#approves>);
            let answer =
                quote_spanned!(approves.span()=> #private::ToolCallApprovalDecision<#approves>);
            let approves = quote! {
                #[automatically_derived]
                impl #private::Approves<#approves> for #ident {}
            };
            (question, answer, approves)
        }
        Form::Question { ask, answer } => (
            ask.to_token_stream(),
            answer.to_token_stream(),
            quote! {
                #[automatically_derived]
                impl #private::Asked for #ident {}
            },
        ),
    };
    let descriptor = Descriptor::new(&private, "__AGBOSS_ROLE", "RoleDescriptor", "ChannelRole");
    let members = Members {
        before: quote! {
            type Question = #question;
            type Answer = #answer;
        },
        ..Members::default()
    };
    let descriptor = descriptor.emit(gen_descriptor(role, item, &private), ident, members);
    emit::component(role.header.doc(item), item, &[descriptor, approves])
}

/// The descriptor: a `const` expression.
fn gen_descriptor(role: &ResolvedRole, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let ident = &item.ident;
    let head = role.header.descriptor_args(item, private);
    let answered_by = match (&role.answered_by.written, role.answered_by.answerer) {
        (Some(path), _) => quote!(#path),
        (None, Answerer::ThreadOwner) => quote!(#private::PauseAnswerer::ThreadOwner),
        (None, Answerer::Channel) => quote!(#private::PauseAnswerer::Channel),
    };
    let mut descriptor = Builder::new(match &role.form {
        Form::Approval { approves } => {
            let written = written_type(approves);
            quote! {
                #private::RoleDescriptor::approval::<#approves>(
                    #head, #answered_by, #written,
                )
            }
        }
        Form::Question { ask, answer } => quote! {
            #private::RoleDescriptor::question::<#ask, #answer>(
                #head, #answered_by,
            )
        },
    });
    descriptor.call_with(
        "with_interpreter",
        role.reply_interpreter.as_ref(),
        |interpreter| {
            // Spanned on the interpreter: a type that does not read this role's replies is
            // reported there.
            quote_spanned!(interpreter.span()=>
                #private::InterpreterSpec::of::<#ident, #interpreter>()
            )
        },
    );
    descriptor.call_with("with_expiry", role.expires_after.as_ref(), |after| {
        after.to_tokens()
    });
    descriptor.finish()
}
