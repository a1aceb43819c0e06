//! Generates a resolved agent's descriptor, its `Agent` impl and its registration.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::ItemStruct;
use syn::spanned::Spanned;

use super::ResolvedAgent;
use crate::attrs::{doc_unless_documented, private_path, source_location};
use agboss_rules::names;

pub fn generate(agent: &ResolvedAgent, item: &ItemStruct) -> TokenStream {
    let private = private_path(agent.krate.as_ref());
    let ident = &item.ident;
    let description = &agent.description;
    let doc = doc_unless_documented(item, description);

    // Each tool type spanned where it is written: one that is not a `#[tool]` is reported there.
    let tool_count = agent.tools.len();
    let tools = agent
        .tools
        .iter()
        .map(|path| quote_spanned!(path.span()=> #private::ToolRegistration::of::<#path>()));
    // `include_str!` spanned on the literal resolves the file next to the user's source, and a
    // missing file is reported at the literal.
    let prompt_count = agent.prompts.len();
    let prompts = agent.prompts.iter().map(|lit| {
        let text = quote_spanned!(lit.span()=> ::core::include_str!(#lit));
        quote!(#private::PromptFile::new(#lit, #text))
    });
    let name = &agent.name;
    let model = &agent.model;
    let rust_type = ident.to_string();
    let location = source_location(&private);
    let thinking = syn::Ident::new(&capitalize(&agent.thinking), proc_macro2::Span::call_site());
    let turns = agent.history_turns;
    let summaries = agent.history_summaries;
    let mut descriptor = quote! {
        #private::AgentDescriptor::new(
            #name,
            #description,
            #rust_type,
            #location,
            #model,
            &__AGBOSS_PROMPTS,
            &__AGBOSS_TOOLS,
        )
        .with_thinking(#private::Thinking::#thinking)
        .with_history(#private::History::new(#turns, #summaries))
    };
    if let Some(n) = agent.max_tool_calls {
        descriptor = quote!(#descriptor.with_max_tool_calls(#n));
    }
    if let Some(choice) = &agent.tool_choice {
        descriptor = quote!(#descriptor.with_tool_choice(#choice));
    }
    if let Some(choice) = &agent.first_turn_tool_choice {
        descriptor = quote!(#descriptor.with_first_turn_tool_choice(#choice));
    }
    if let Some(n) = agent.max_turns {
        descriptor = quote!(#descriptor.with_max_turns(#n));
    }
    if let Some(n) = agent.answer_retries {
        descriptor = quote!(#descriptor.with_answer_retries(#n));
    }
    if let Some(output) = &agent.output {
        let answer = format!(
            "answer-{}",
            names::kebab(
                &output
                    .segments
                    .last()
                    .map(|s| s.ident.to_string())
                    .unwrap_or_default()
            )
        );
        let spec = quote_spanned!(output.span()=> #private::AnswerSpec::of::<#output>(#answer));
        descriptor = quote!(#descriptor.with_answer(#spec));
    }
    quote! {
        #doc
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #[doc(hidden)]
            static __AGBOSS_TOOLS: [#private::ToolRegistration; #tool_count] = [#(#tools),*];
            #[doc(hidden)]
            static __AGBOSS_PROMPTS: [#private::PromptFile; #prompt_count] = [#(#prompts),*];
            #[doc(hidden)]
            static __AGBOSS_AGENT: #private::AgentDescriptor = #descriptor;

            #[automatically_derived]
            impl #private::Agent for #ident {
                const DESCRIPTOR: &'static #private::AgentDescriptor = &__AGBOSS_AGENT;
            }

            #private::inventory::submit! {
                #private::AgentRegistration::of::<#ident>()
            }
        };
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}
