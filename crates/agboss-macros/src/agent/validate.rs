//! Checks `#[agent(..)]`, collecting every problem, into a [`ResolvedAgent`].

use darling::util::SpannedValue;
use proc_macro2::Span;
use syn::{Expr, ItemStruct, LitStr, Path};

use super::args::AgentArgs;
use crate::names;

/// The thinking levels an agent may ask its model for.
pub const THINKING: &[&str] = &["default", "off", "low", "medium", "high"];

/// An agent attribute that passed every check.
pub struct ResolvedAgent {
    pub name: String,
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
            for problem in names::check_agent(name) {
                fail(problem, *span);
            }
        }
        None => {
            let suggested = names::kebab(&item.ident.to_string());
            if let Some(m) = missing("name", format!("add `name = {suggested:?}`")) {
                fail(m, call_site);
            }
        }
    }
    let description = args.description.as_ref().map(spanned);
    match &description {
        Some((text, span)) if text.trim().is_empty() => fail(
            "the description is empty: say what the agent does".into(),
            *span,
        ),
        None => {
            if let Some(m) = missing(
                "description",
                "add `description = \"...\"`: what the agent does".into(),
            ) {
                fail(m, call_site);
            }
        }
        _ => {}
    }
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
            if let Err(problem) = check_model(model) {
                problems.push(darling::Error::custom(problem).with_span(span));
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
    let max_tool_calls = args
        .max_tool_calls
        .as_ref()
        .and_then(|lit| positive(lit, "max_tool_calls", &mut problems));
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
        description: description?.0,
        prompts,
        model: model?.0,
        tools,
        max_tool_calls,
        thinking,
        history_turns,
        history_summaries,
        output: args.output,
        tool_choice: args.tool_choice,
        krate: args.krate,
    })
}

fn spanned(value: &SpannedValue<String>) -> (String, Span) {
    ((**value).clone(), value.span())
}

/// `vendor/model`: the router picks the provider by the vendor.
fn check_model(model: &str) -> Result<(), String> {
    match model.split_once('/') {
        Some((vendor, name))
            if !vendor.is_empty() && !name.is_empty() && !vendor.contains(char::is_whitespace) =>
        {
            Ok(())
        }
        _ => Err(format!(
            "[agent.model-invalid] model {model:?} is not `vendor/model`: write it as the router knows it, such as \"openai/gpt-5-mini\" or \"moonshotai/kimi-k2.6\""
        )),
    }
}

fn positive(lit: &syn::LitInt, key: &str, problems: &mut Vec<darling::Error>) -> Option<u32> {
    match lit.base10_parse::<u32>() {
        Ok(0) => {
            problems.push(
                darling::Error::custom(format!(
                    "`{key} = 0` would stop the agent before its first tool call: give at least 1"
                ))
                .with_span(lit),
            );
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
