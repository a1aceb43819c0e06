//! Checks `#[agent(..)]`, reporting every problem, into a [`ResolvedAgent`].

use agboss_rules::codes::{self, Code};
use agboss_rules::model_id;
use darling::util::SpannedValue;
use syn::{Expr, ItemStruct, LitInt, LitStr, Path};

use super::args::AgentArgs;
use crate::ctxt::Ctxt;
use crate::header::{self, Describing, Header, Naming};
use crate::shape::{self, ListOf, list_of};

/// The thinking levels an agent may ask its model for.
pub const THINKING: &[&str] = &["default", "off", "low", "medium", "high"];

/// How agents are named and described.
const AGENT: header::Kind = header::Kind {
    naming: Naming::Kebab("agent"),
    describing: Some(Describing {
        says: "what the agent does",
        which: "says what the agent does",
        example: "Finds jobs that fit the user",
    }),
};

/// An agent attribute that passed every check.
pub struct ResolvedAgent {
    /// Its name, description (`description = ".."`, else the struct's doc comment) and crate.
    pub header: Header,
    pub prompts: Vec<LitStr>,
    pub model: String,
    pub tools: Vec<Path>,
    pub max_tool_calls: Option<u32>,
    pub thinking: String,
    pub history_turns: u32,
    pub history_summaries: u32,
    pub output: Option<Path>,
    pub tool_choice: Option<LitStr>,
    pub first_turn_tool_choice: Option<LitStr>,
    pub max_turns: Option<u32>,
    pub answer_retries: Option<u32>,
}

/// Checks `args` on `item`, reporting every problem into `cx`, in the order of the keys'
/// table: the header, the prompts, the model, the tools, the limits, thinking and history.
pub fn check(args: AgentArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedAgent> {
    let header = AGENT.check(args.header, item, cx);
    let prompts = check_prompts(args.prompt, args.prompts.as_ref(), cx);
    let model = check_model(args.model, cx);
    let tools = args.tools.as_ref().map_or_else(Vec::new, |list| {
        let messages = ListOf {
            not_a_list: "`tools` takes a list of tool types: `tools = [SearchIssues, FetchPage]`",
            not_an_element: "a tool is named by its type: `SearchIssues`",
        };
        list_of(list, &messages, shape::path, cx)
    });
    // The limits' findings name the agent, by its name as given even if the rules refuse it.
    let subject = header
        .name
        .as_ref()
        .map_or_else(|| "this agent".to_owned(), |name| format!("agent `{name}`"));
    let at_least_one = |lit: &Option<LitInt>, code: &'static Code, cx: &mut Ctxt| {
        lit.as_ref()
            .and_then(|lit| at_least_one(lit, code, &subject, cx))
    };
    let max_tool_calls = at_least_one(
        &args.max_tool_calls,
        &codes::AGENT_MAX_TOOL_CALLS_INVALID,
        cx,
    );
    let max_turns = at_least_one(&args.max_turns, &codes::AGENT_MAX_TURNS_INVALID, cx);
    let answer_retries = args
        .answer_retries
        .as_ref()
        .and_then(|lit| cx.handle(lit.base10_parse::<u32>()));
    let thinking = check_thinking(args.thinking.as_ref(), cx);
    let history_turns = count_or(args.history_turns.as_ref(), 5, cx);
    let history_summaries = count_or(args.history_summaries.as_ref(), 10, cx);
    if prompts.is_empty() {
        return None;
    }
    Some(ResolvedAgent {
        header: header.finish()?,
        prompts,
        model: model?,
        tools,
        max_tool_calls,
        thinking: thinking?,
        history_turns: history_turns?,
        history_summaries: history_summaries?,
        output: args.output,
        tool_choice: args.tool_choice,
        first_turn_tool_choice: args.first_turn_tool_choice,
        max_turns,
        answer_retries,
    })
}

/// `prompt = ".."` or `prompts = [..]`: one of them.
fn check_prompts(prompt: Option<LitStr>, prompts: Option<&Expr>, cx: &mut Ctxt) -> Vec<LitStr> {
    match (prompt, prompts) {
        (Some(prompt), None) => vec![prompt],
        (None, Some(list)) => {
            let messages = ListOf {
                not_a_list: "`prompts` takes a list: `prompts = [\"a.md\", \"b.md\"]`",
                not_an_element: "a prompt is a file name in quotes",
            };
            list_of(list, &messages, shape::text, cx)
        }
        (Some(prompt), Some(_)) => {
            cx.error_at(
                &prompt,
                "give `prompt = \"..\"` or `prompts = [..]`, not both",
            );
            Vec::new()
        }
        (None, None) => {
            cx.needs(
                "prompt",
                "add `prompt = \"scout.prompt.md\"`, a file next to this source file",
            );
            Vec::new()
        }
    }
}

/// `model = "vendor/model"`.
fn check_model(model: Option<SpannedValue<String>>, cx: &mut Ctxt) -> Option<String> {
    let Some(model) = model else {
        cx.needs(
            "model",
            "add `model = \"vendor/model\"`, such as \"openai/gpt-5-mini\"",
        );
        return None;
    };
    if let Err(finding) = model_id::check(&model) {
        cx.finding_at(&finding, &model.span());
    }
    Some(model.into_inner())
}

/// `thinking = ".."`: one of [`THINKING`]; `"default"` when not given.
fn check_thinking(thinking: Option<&SpannedValue<String>>, cx: &mut Ctxt) -> Option<String> {
    let Some(value) = thinking else {
        return Some("default".into());
    };
    if !THINKING.contains(&value.as_str()) {
        let levels: Vec<String> = THINKING.iter().map(|t| format!("\"{t}\"")).collect();
        let message = format!(
            "`{}` is not a thinking level: use one of {}",
            value.as_str(),
            levels.join(", ")
        );
        cx.error_at(&value.span(), message);
        return None;
    }
    Some((**value).clone())
}

/// A count of turns or summaries kept, `default` when not given.
fn count_or(lit: Option<&LitInt>, default: u32, cx: &mut Ctxt) -> Option<u32> {
    match lit {
        Some(lit) => cx.handle(lit.base10_parse::<u32>()),
        None => Some(default),
    }
}

/// A limit of at least 1, else `code`'s finding about `subject`.
fn at_least_one(lit: &LitInt, code: &'static Code, subject: &str, cx: &mut Ctxt) -> Option<u32> {
    match cx.handle(lit.base10_parse::<u32>())? {
        0 => {
            let finding = code.finding(&[("subject", &subject), ("from", &"")]);
            cx.finding_at(&finding, &lit.span());
            None
        }
        n => Some(n),
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::*;
    use crate::agent::Agent;
    use crate::pipeline::check_on;

    /// The resolved agent, or every problem's message.
    fn resolve_on(args: TokenStream, item: TokenStream) -> Result<ResolvedAgent, Vec<String>> {
        check_on(&Agent, args, item)
    }

    #[test]
    fn the_doc_comment_is_the_description_when_none_is_given() {
        let agent = resolve_on(
            quote!(
                name = "scout",
                prompt = "scout.prompt.md",
                model = "openai/gpt-5-mini"
            ),
            quote! {
                /// Finds jobs that fit the user.
                pub struct Scout;
            },
        )
        .unwrap();
        assert_eq!(agent.header.description, "Finds jobs that fit the user.");
        assert_eq!(agent.model, "openai/gpt-5-mini");
    }

    #[test]
    fn the_rules_report_with_their_codes() {
        let problems = resolve_on(
            quote!(
                name = "JobScout",
                prompt = "scout.prompt.md",
                model = "gpt",
                max_tool_calls = 0
            ),
            quote!(
                pub struct Scout;
            ),
        )
        .err()
        .unwrap();
        assert_eq!(
            problems,
            [
                "[name.kebab-case] agent name \"JobScout\" must be kebab-case: name it \"job-scout\"",
                "#[agent] needs a description, which says what the agent does: add a doc comment (`/// Finds jobs that fit the user`) or `description = \"...\"`",
                "[agent.model-invalid] model \"gpt\" is not `vendor/model`: write it as the router knows it, such as \"openai/gpt-5-mini\" or \"moonshotai/kimi-k2.6\"",
                "[agent.max-tool-calls-invalid] agent `JobScout`: max tool calls of 0 would stop it before its first call: give at least 1",
            ]
        );
    }
}
