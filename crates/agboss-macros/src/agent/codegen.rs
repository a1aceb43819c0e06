//! Generates a resolved agent's descriptor, its `Agent` impl and its registration, in the shape
//! of every component ([`emit`]).

use agboss_rules::names;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, ItemStruct};

use super::ResolvedAgent;
use crate::emit::{self, Builder, Descriptor, Members, hidden_static, submit};

/// The struct, and in an anonymous constant its tools, prompt files, descriptor, `impl Agent`
/// and registration.
pub fn generate(agent: &ResolvedAgent, item: &ItemStruct, _: &TokenStream) -> TokenStream {
    let private = agent.header.private();
    let ident = &item.ident;
    // Each tool type spanned where it is written: one that is not a `#[tool]` is reported there.
    let tool_count = agent.tools.len();
    let tools = agent
        .tools
        .iter()
        .map(|path| quote_spanned!(path.span()=> #private::ToolRegistration::of::<#path>()));
    let tools = hidden_static(
        &Ident::new("__AGBOSS_TOOLS", Span::call_site()),
        quote!([#private::ToolRegistration; #tool_count]),
        quote!([#(#tools),*]),
    );
    // Each knowledge base spanned where it is written, as the tools are.
    let knowledge_count = agent.knowledge.len();
    let knowledge = agent
        .knowledge
        .iter()
        .map(|path| quote_spanned!(path.span()=> #private::KnowledgeRegistration::of::<#path>()));
    let knowledge = match knowledge_count {
        0 => TokenStream::new(),
        _ => hidden_static(
            &Ident::new("__AGBOSS_KNOWLEDGE", Span::call_site()),
            quote!([#private::KnowledgeRegistration; #knowledge_count]),
            quote!([#(#knowledge),*]),
        ),
    };
    // `include_str!` spanned on the literal resolves the file next to the user's source, and a
    // missing file is reported at the literal.
    let prompt_count = agent.prompts.len();
    let prompts = agent.prompts.iter().map(|lit| {
        let text = quote_spanned!(lit.span()=> ::core::include_str!(#lit));
        quote!(#private::PromptFile::new(#lit, #text))
    });
    let prompts = hidden_static(
        &Ident::new("__AGBOSS_PROMPTS", Span::call_site()),
        quote!([#private::PromptFile; #prompt_count]),
        quote!([#(#prompts),*]),
    );
    let descriptor = Descriptor::new(&private, "__AGBOSS_AGENT", "AgentDescriptor", "Agent");
    let descriptor = descriptor.emit(
        gen_descriptor(agent, item, &private),
        ident,
        Members::default(),
    );
    let registration = submit(
        &private,
        quote!(#private::AgentRegistration::of::<#ident>()),
    );
    let items = [tools, knowledge, prompts, descriptor, registration];
    emit::component(agent.header.doc(item), item, &items)
}

/// The descriptor: a `const` expression.
fn gen_descriptor(agent: &ResolvedAgent, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let head = agent.header.descriptor_args(item, private);
    let model = &agent.model;
    let thinking = Ident::new(&capitalize(&agent.thinking), Span::call_site());
    let turns = agent.history_turns;
    let summaries = agent.history_summaries;
    let mut descriptor = Builder::new(quote! {
        #private::AgentDescriptor::new(
            #head,
            #model,
            &__AGBOSS_PROMPTS,
            &__AGBOSS_TOOLS,
        )
        .with_thinking(#private::Thinking::#thinking)
        .with_history(#private::History::new(#turns, #summaries))
    });
    if !agent.knowledge.is_empty() {
        descriptor.call("with_knowledge", quote!(&__AGBOSS_KNOWLEDGE));
    }
    let number = |n: u32| quote!(#n);
    descriptor.call_with("with_max_tool_calls", agent.max_tool_calls, number);
    descriptor.call_with(
        "with_tool_choice",
        agent.tool_choice.as_ref(),
        |c| quote!(#c),
    );
    descriptor.call_with(
        "with_first_turn_tool_choice",
        agent.first_turn_tool_choice.as_ref(),
        |c| quote!(#c),
    );
    descriptor.call_with(
        "with_history_max_size",
        agent.history_max_size.as_ref(),
        |size| size.to_tokens(private),
    );
    descriptor.call_with("with_max_turns", agent.max_turns, number);
    descriptor.call_with("with_answer_retries", agent.answer_retries, number);
    descriptor.call_with("with_max_duration", agent.max_duration.as_ref(), |t| {
        t.to_tokens()
    });
    descriptor.call_with("with_answer", agent.output.as_ref(), |output| {
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
        quote_spanned!(output.span()=> #private::AnswerSpec::of::<#output>(#answer))
    });
    descriptor.finish()
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}
