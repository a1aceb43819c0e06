//! Checks `#[agent(..)]`, collecting every problem, into a [`ResolvedAgent`].

use agboss_rules::{codes, model_id, names};
use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::{Expr, ItemStruct, LitStr, Path};

use super::args::AgentArgs;
use crate::attrs::{doc_text, finding_at};

/// The thinking levels an agent may ask its model for.
pub const THINKING: &[&str] = &["default", "off", "low", "medium", "high"];

/// An agent attribute that passed every check.
pub struct ResolvedAgent {
    pub name: String,
    /// `description = ".."`, else the struct's doc comment.
    pub description: String,
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
    pub krate: Option<Path>,
}

/// Resolves `args` on `item`, pushing every problem into `errors`; `None` if any.
pub fn resolve(
    args: AgentArgs,
    item: &ItemStruct,
    errors: &mut darling::error::Accumulator,
) -> Option<ResolvedAgent> {
    let mut problems: Vec<darling::Error> = Vec::new();
    let mut fail = |message: String, span: Span| {
        problems.push(darling::Error::custom(message).with_span(&span));
    };
    let call_site = Span::call_site();
    let missing = |key: &'static str, hint: String| -> Option<String> {
        (!args.mistyped.contains(&key)).then(|| format!("#[agent] needs `{key}`: {hint}"))
    };

    let name = args.name.as_ref().map(spanned);
    match &name {
        Some((name, span)) => {
            for finding in names::check_kebab(name, "agent") {
                fail(finding.to_string(), *span);
            }
        }
        None => {
            let suggested = names::kebab(&item.ident.to_string());
            if let Some(m) = missing("name", format!("add `name = {suggested:?}`")) {
                fail(m, call_site);
            }
        }
    }
    let description = match args.description.as_ref().map(spanned) {
        Some((text, span)) => {
            if text.trim().is_empty() {
                fail(
                    "the description is empty: say what the agent does".into(),
                    span,
                );
            }
            Some(text)
        }
        None => {
            let doc = doc_text(&item.attrs);
            // Already said when an unknown key was reported as a typo of `description`.
            if doc.is_none() && !args.mistyped.contains(&"description") {
                fail(
                    "#[agent] needs a description, which says what the agent does: add a doc comment (`/// Finds jobs that fit the user`) or `description = \"...\"`".into(),
                    item.ident.span(),
                );
            }
            doc
        }
    };
    let prompts = match (&args.prompt, &args.prompts) {
        (Some(prompt), None) => vec![prompt.clone()],
        (None, Some(list)) => string_list(list, "prompts").unwrap_or_else(|e| {
            problems.push(e.into());
            Vec::new()
        }),
        (Some(prompt), Some(_)) => {
            problems.push(
                darling::Error::custom("give `prompt = \"..\"` or `prompts = [..]`, not both")
                    .with_span(prompt),
            );
            Vec::new()
        }
        (None, None) => {
            if let Some(m) = missing(
                "prompt",
                "add `prompt = \"scout.prompt.md\"`, a file next to this source file".into(),
            ) {
                problems.push(darling::Error::custom(m));
            }
            Vec::new()
        }
    };
    let model = args.model.as_ref().map(spanned);
    match &model {
        Some((model, span)) => {
            if let Err(finding) = model_id::check(model) {
                problems.push(finding_at(&finding, *span));
            }
        }
        None => {
            if let Some(m) = missing(
                "model",
                "add `model = \"vendor/model\"`, such as \"openai/gpt-5-mini\"".into(),
            ) {
                problems.push(darling::Error::custom(m));
            }
        }
    }
    let tools = match &args.tools {
        Some(list) => path_list(list).unwrap_or_else(|e| {
            problems.push(e.into());
            Vec::new()
        }),
        None => Vec::new(),
    };
    let subject = name.as_ref().map_or_else(
        || "this agent".to_owned(),
        |(name, _)| format!("agent `{name}`"),
    );
    let max_tool_calls = args
        .max_tool_calls
        .as_ref()
        .and_then(|lit| at_least_one_call(lit, &subject, &mut problems));
    let max_turns = args
        .max_turns
        .as_ref()
        .and_then(|lit| at_least_one_turn(lit, &subject, &mut problems));
    let answer_retries = args.answer_retries.as_ref().and_then(|lit| {
        lit.base10_parse::<u32>()
            .map_err(|e| problems.push(e.into()))
            .ok()
    });
    let thinking = match &args.thinking {
        Some(value) if !THINKING.contains(&value.as_str()) => {
            problems.push(
                darling::Error::custom(format!(
                    "`{}` is not a thinking level: use one of {}",
                    value.as_str(),
                    THINKING
                        .iter()
                        .map(|t| format!("\"{t}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .with_span(&value.span()),
            );
            String::new()
        }
        Some(value) => (**value).clone(),
        None => "default".into(),
    };
    let history_turns = match &args.history_turns {
        Some(lit) => lit.base10_parse::<u32>().unwrap_or_else(|e| {
            problems.push(e.into());
            0
        }),
        None => 5,
    };
    let history_summaries = match &args.history_summaries {
        Some(lit) => lit.base10_parse::<u32>().unwrap_or_else(|e| {
            problems.push(e.into());
            0
        }),
        None => 10,
    };
    if !matches!(item.fields, syn::Fields::Unit) {
        problems.push(
            darling::Error::custom(
                "an agent is a unit struct (`pub struct Scout;`): its tools, prompt and model are in the attribute",
            )
            .with_span(&item.fields),
        );
    }
    if !item.generics.params.is_empty() {
        problems
            .push(darling::Error::custom("an agent cannot be generic").with_span(&item.generics));
    }
    let failed = !problems.is_empty()
        || name.is_none()
        || description.is_none()
        || model.is_none()
        || prompts.is_empty();
    for problem in problems {
        errors.push(problem);
    }
    if failed {
        return None;
    }
    Some(ResolvedAgent {
        name: name?.0,
        description: description?,
        prompts,
        model: model?.0,
        tools,
        max_tool_calls,
        thinking,
        history_turns,
        history_summaries,
        output: args.output,
        tool_choice: args.tool_choice,
        first_turn_tool_choice: args.first_turn_tool_choice,
        max_turns,
        answer_retries,
        krate: args.krate,
    })
}

fn spanned(value: &SpannedValue<String>) -> (String, Span) {
    ((**value).clone(), value.span())
}

/// `max_tool_calls`: at least 1, else `[agent.max-tool-calls-invalid]` about `subject`.
fn at_least_one_call(
    lit: &syn::LitInt,
    subject: &str,
    problems: &mut Vec<darling::Error>,
) -> Option<u32> {
    match lit.base10_parse::<u32>() {
        Ok(0) => {
            let finding = codes::AGENT_MAX_TOOL_CALLS_INVALID
                .finding(&[("subject", &subject), ("from", &"")]);
            problems.push(finding_at(&finding, lit.span()));
            None
        }
        Ok(n) => Some(n),
        Err(e) => {
            problems.push(e.into());
            None
        }
    }
}

/// `max_turns`: at least 1, else `[agent.max-turns-invalid]` about `subject`.
fn at_least_one_turn(
    lit: &syn::LitInt,
    subject: &str,
    problems: &mut Vec<darling::Error>,
) -> Option<u32> {
    match lit.base10_parse::<u32>() {
        Ok(0) => {
            let finding =
                codes::AGENT_MAX_TURNS_INVALID.finding(&[("subject", &subject), ("from", &"")]);
            problems.push(finding_at(&finding, lit.span()));
            None
        }
        Ok(n) => Some(n),
        Err(e) => {
            problems.push(e.into());
            None
        }
    }
}

fn string_list(expr: &Expr, key: &str) -> syn::Result<Vec<LitStr>> {
    let Expr::Array(array) = expr else {
        return Err(syn::Error::new_spanned(
            expr,
            format!("`{key}` takes a list: `{key} = [\"a.md\", \"b.md\"]`"),
        ));
    };
    array
        .elems
        .iter()
        .map(|e| match e {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Ok(s.clone()),
            other => Err(syn::Error::new_spanned(
                other,
                "a prompt is a file name in quotes",
            )),
        })
        .collect()
}

fn path_list(expr: &Expr) -> syn::Result<Vec<Path>> {
    let Expr::Array(array) = expr else {
        return Err(syn::Error::new_spanned(
            expr,
            "`tools` takes a list of tool types: `tools = [SearchIssues, FetchPage]`",
        ));
    };
    array
        .elems
        .iter()
        .map(|e| match e {
            Expr::Path(p) => Ok(p.path.clone()),
            other => Err(syn::Error::new_spanned(
                other,
                "a tool is named by its type: `SearchIssues`",
            )),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;
    use quote::quote;

    use super::*;
    use crate::agent::args;

    /// The resolved agent, or every problem's message.
    fn resolve_on(args: TokenStream, item: TokenStream) -> Result<ResolvedAgent, Vec<String>> {
        let item: ItemStruct = syn::parse2(item).unwrap();
        let mut errors = darling::Error::accumulator();
        let resolved = args::parse(args, &mut errors).and_then(|a| resolve(a, &item, &mut errors));
        match errors.finish_with(resolved) {
            Ok(resolved) => Ok(resolved.expect("no problem reported, so resolved")),
            Err(e) => Err(e.into_iter().map(|e| e.to_string()).collect()),
        }
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
        assert_eq!(agent.description, "Finds jobs that fit the user.");
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
