//! Checks `#[agent(..)]`, reporting every problem, into a [`ResolvedAgent`].

use agboss_rules::codes::{self, Code};
use agboss_rules::model_id;
use darling::util::SpannedValue;
use syn::{Expr, ItemStruct, LitInt, LitStr, Path};

use super::args::AgentArgs;
use crate::ctxt::Ctxt;
use crate::header::{self, Describing, Header, Naming};
use crate::shape::{self, ListOf, list_of};
use crate::units::{ByteSizeValue, TimeSpanValue, byte_size, time_span};

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
    /// At least one file name, each read with `include_str!` at its literal.
    pub prompts: Vec<LitStr>,
    /// `vendor/model`, checked.
    pub model: String,
    /// Tool types, each checked to be a tool where it is written.
    pub tools: Vec<Path>,
    /// Knowledge base types, each checked to be a `#[knowledge]` where it is written.
    pub knowledge: Vec<Path>,
    /// The limits given, each at least 1; `None` takes the workflow's or the application's.
    pub max_tool_calls: Option<u32>,
    pub max_turns: Option<u32>,
    pub answer_retries: Option<u32>,
    /// One of [`THINKING`].
    pub thinking: String,
    /// Turns and summaries of its thread it remembers (5 and 10 unless given).
    pub history_turns: u32,
    pub history_summaries: u32,
    /// Its own bound on the history it reads, checked to be a size of at least 1 byte.
    pub history_max_size: Option<ByteSizeValue>,
    /// The DTO it answers with, through the tool `answer-<dto>`.
    pub output: Option<Path>,
    /// As written: the runtime checks a tool's name against its tools.
    pub tool_choice: Option<LitStr>,
    pub first_turn_tool_choice: Option<LitStr>,
    /// Its time budget per run, checked to be a span of at least 1 unit.
    pub max_duration: Option<TimeSpanValue>,
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
    let knowledge = args.knowledge.as_ref().map_or_else(Vec::new, |list| {
        let messages = ListOf {
            not_a_list: "`knowledge` takes a list of knowledge base types: `knowledge = [DocsRag]`",
            not_an_element: "a knowledge base is named by its type: `DocsRag`",
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
    let history_max_size = args
        .history_max_size
        .as_ref()
        .and_then(|size| cx.handle(byte_size(size, "history_max_size")));
    let max_duration = args
        .max_duration
        .as_ref()
        .and_then(|span| cx.handle(time_span(span, "max_duration")));
    if prompts.is_empty() {
        return None;
    }
    Some(ResolvedAgent {
        header: header.finish()?,
        prompts,
        model: model?,
        tools,
        knowledge,
        max_tool_calls,
        thinking: thinking?,
        history_turns: history_turns?,
        history_summaries: history_summaries?,
        history_max_size,
        output: args.output,
        tool_choice: args.tool_choice,
        first_turn_tool_choice: args.first_turn_tool_choice,
        max_turns,
        answer_retries,
        max_duration,
    })
}

/// `prompt = ".."` or `prompts = [..]`: one of them.
fn check_prompts(prompt: Option<LitStr>, prompts: Option<&Expr>, cx: &mut Ctxt) -> Vec<LitStr> {
    match (prompt, prompts) {
        (Some(prompt), None) => vec![prompt],
        (None, Some(Expr::Array(list))) if list.elems.is_empty() => {
            cx.error_at(
                list,
                "`prompts` lists no file: give at least one, `prompts = [\"scout.prompt.md\"]`",
            );
            Vec::new()
        }
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
    use quote::quote;

    use crate::agent::AGENT;

    #[test]
    fn the_doc_comment_is_the_description_when_none_is_given() {
        let agent = AGENT.resolve(
            quote!(
                name = "scout",
                prompt = "scout.prompt.md",
                model = "openai/gpt-5-mini"
            ),
            quote! {
                /// Finds jobs that fit the user.
                pub struct Scout;
            },
        );
        assert_eq!(agent.header.description, "Finds jobs that fit the user.");
        assert_eq!(agent.model, "openai/gpt-5-mini");
    }

    #[test]
    fn the_rules_report_with_their_codes() {
        let problems = AGENT.problems(
            quote!(
                name = "JobScout",
                prompt = "scout.prompt.md",
                model = "gpt",
                max_tool_calls = 0
            ),
            quote!(
                pub struct Scout;
            ),
        );
        assert_eq!(
            problems.lines().collect::<Vec<_>>(),
            [
                "[name.kebab-case] agent name \"JobScout\" must be kebab-case: name it \"job-scout\"",
                "#[agent] needs a description, which says what the agent does: add a doc comment (`/// Finds jobs that fit the user`) or `description = \"...\"`",
                "[agent.model-invalid] model \"gpt\" is not `vendor/model`: write it as the router knows it, such as \"openai/gpt-5-mini\" or \"moonshotai/kimi-k2.6\"",
                "[agent.max-tool-calls-invalid] agent `JobScout`: max tool calls of 0 would stop it before its first call: give at least 1",
            ]
        );
    }

    #[test]
    fn every_key_is_resolved() {
        let agent = AGENT.resolve(
            quote!(
                name = "job-scout",
                description = "Finds jobs",
                prompts = ["scout.prompt.md", "rules.prompt.md"],
                model = "openai/gpt-5-mini",
                tools = [SearchIssues, web::FetchPage],
                max_tool_calls = 12,
                thinking = "low",
                history_turns = 3,
                history_max_size = kilobytes(8),
                output = JobList,
                tool_choice = "required",
                max_turns = 9,
                answer_retries = 0
            ),
            quote!(
                pub struct Scout;
            ),
        );
        let prompts: Vec<String> = agent.prompts.iter().map(|p| p.value()).collect();
        assert_eq!(prompts, ["scout.prompt.md", "rules.prompt.md"]);
        let tools: Vec<String> = agent.tools.iter().map(|p| quote!(#p).to_string()).collect();
        assert_eq!(tools, ["SearchIssues", "web :: FetchPage"]);
        assert_eq!(
            (agent.max_tool_calls, agent.max_turns, agent.answer_retries),
            (Some(12), Some(9), Some(0))
        );
        assert_eq!(agent.thinking, "low");
        assert_eq!((agent.history_turns, agent.history_summaries), (3, 10));
        assert!(agent.history_max_size.is_some());
        assert!(agent.output.unwrap().is_ident("JobList"));
        assert_eq!(agent.tool_choice.unwrap().value(), "required");
        assert!(agent.first_turn_tool_choice.is_none());
        assert!(agent.header.krate.is_none());
    }

    #[test]
    fn defaults_fill_what_is_not_given() {
        let agent = AGENT.resolve(
            quote!(name = "notes", prompt = "notes.prompt.md", model = "a/b"),
            quote! {
                /// Keeps notes.
                pub struct Notes;
            },
        );
        assert_eq!(agent.prompts.len(), 1);
        assert!(agent.tools.is_empty());
        assert_eq!(agent.thinking, "default");
        assert_eq!((agent.history_turns, agent.history_summaries), (5, 10));
        assert!(agent.history_max_size.is_none());
        assert_eq!(
            (agent.max_tool_calls, agent.max_turns, agent.answer_retries),
            (None, None, None)
        );
    }

    #[test]
    fn a_history_bound_is_a_size_of_at_least_one_byte() {
        let problems = |size| {
            AGENT.problems(
                quote!(
                    name = "notes",
                    description = "Keeps notes",
                    prompt = "notes.prompt.md",
                    model = "a/b",
                    history_max_size = #size
                ),
                quote!(
                    pub struct Notes;
                ),
            )
        };
        assert_eq!(
            problems(quote!(8192)),
            "[agent.history-max-size-invalid] `history_max_size`: a bare number is not a size: write it with its unit, `kilobytes(8)` or `bytes(1000)`"
        );
        assert_eq!(
            problems(quote!(kilobytes(0))),
            "[agent.history-max-size-invalid] `history_max_size`: `kilobytes(0)` keeps nothing: a bound keeps at least 1 byte, such as `kilobytes(8)`"
        );
    }

    #[test]
    fn every_element_of_a_list_that_is_not_one_is_reported() {
        let problems = AGENT.problems(
            quote!(
                name = "scout",
                description = "Finds",
                prompts = ["a.md", 1, 2],
                model = "a/b",
                tools = [Search, "fetch"]
            ),
            quote!(
                pub struct Scout;
            ),
        );
        assert_eq!(
            problems,
            "a prompt is a file name in quotes\na prompt is a file name in quotes\na tool is named by its type: `SearchIssues`"
        );
    }

    #[test]
    fn an_empty_list_of_prompts_is_reported_not_ignored() {
        let problems = AGENT.problems(
            quote!(
                name = "scout",
                description = "Finds",
                prompts = [],
                model = "a/b"
            ),
            quote!(
                pub struct Scout;
            ),
        );
        assert_eq!(
            problems,
            "`prompts` lists no file: give at least one, `prompts = [\"scout.prompt.md\"]`"
        );
    }
}
