//! `#[channel_role]`: a role (what a channel approves or asks, and who answers), checked into a
//! [`ResolvedRole`], generated as `impl ChannelRole` with its static `RoleDescriptor`.

use agboss_rules::codes;
use agboss_rules::distance::typo_of;
use agboss_rules::names;
use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ItemStruct, Path, Type, TypePath};

use crate::attrs::{
    doc_text, doc_unless_documented, finding_at, parse_args, private_path, source_location,
};
use crate::fields::written_type;
use crate::units::{TimeSpanValue, keep_unit_import, time_span};

/// The keys `#[channel_role]` accepts.
pub const KEYS: &[&str] = &[
    "name",
    "description",
    "answered_by",
    "approves",
    "ask",
    "answer",
    "reply_interpreter",
    "expires_after",
    "crate",
];

/// The values of `answered_by`, as `PauseAnswerer`'s variants are named.
pub const ANSWERERS: &[&str] = &["ThreadOwner", "Channel"];

/// `#[channel_role(..)]` as written; checked by [`resolve`].
#[derive(Debug, FromMeta)]
pub struct RoleArgs {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
    pub answered_by: Option<Expr>,
    pub approves: Option<TypePath>,
    pub ask: Option<TypePath>,
    pub answer: Option<TypePath>,
    pub reply_interpreter: Option<TypePath>,
    pub expires_after: Option<Expr>,
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
    /// Keys an unknown key was reported as a typo of.
    #[darling(skip)]
    pub mistyped: Vec<&'static str>,
}

/// A role attribute that passed every check.
pub struct ResolvedRole {
    pub name: String,
    /// `description = ".."`, else the struct's doc comment.
    pub description: String,
    pub answered_by: AnsweredBy,
    pub form: Form,
    pub reply_interpreter: Option<Type>,
    pub expires_after: Option<TimeSpanValue>,
    pub krate: Option<Path>,
}

/// Who answers the role's pauses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Answerer {
    ThreadOwner,
    Channel,
}

/// `answered_by` as resolved: the variant, and the path as written when it names
/// `PauseAnswerer` (emitted as is, so the user's import of `PauseAnswerer` is used).
pub struct AnsweredBy {
    pub answerer: Answerer,
    pub written: Option<Path>,
}

/// The role's form: never both (`[channel.role-form]`).
pub enum Form {
    /// `approves = Dto`: it approves calls of the tools whose input is `Dto`.
    Approval { approves: Box<Type> },
    /// `ask = Q, answer = A`: a question of its own.
    Question { ask: Box<Type>, answer: Box<Type> },
}

/// Expands `#[channel_role(args)] item`. On any error the struct is emitted unchanged beside the
/// errors.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_struct = match syn::parse2::<ItemStruct>(item.clone()) {
        Ok(item_struct) => item_struct,
        Err(_) => {
            return crate::tool::on_wrong_item(
                item,
                "#[channel_role] goes on a unit struct: `pub struct RefundApprovalChannel;`",
            );
        }
    };
    let mut errors = darling::Error::accumulator();
    let args = parse_args::<RoleArgs>(args, KEYS, "channel_role", &mut errors).map(
        |(mut args, mistyped)| {
            args.mistyped = mistyped;
            args
        },
    );
    let kept_imports = args.as_ref().map(|args| match &args.expires_after {
        Some(span) => keep_unit_import(span, &["millis", "seconds", "minutes"]),
        None => TokenStream::new(),
    });
    let resolved = args.and_then(|args| resolve(args, &item_struct, &mut errors));
    match errors.finish_with(resolved) {
        Ok(Some(role)) => generate(&role, &item_struct),
        Ok(None) => quote!(#item_struct #kept_imports),
        Err(errors) => {
            let errors = errors.write_errors();
            quote!(#item_struct #errors #kept_imports)
        }
    }
}

/// Resolves `args` on `item`, pushing every problem into `errors`; `None` if any.
pub fn resolve(
    args: RoleArgs,
    item: &ItemStruct,
    errors: &mut darling::error::Accumulator,
) -> Option<ResolvedRole> {
    let mut problems: Vec<darling::Error> = Vec::new();
    let name = resolve_name(&args, item, &mut problems);
    let description = resolve_description(&args, item, &mut problems);
    let answered_by = match &args.answered_by {
        Some(expr) => answerer(expr).map_err(|e| problems.push(e)).ok(),
        None => {
            if !args.mistyped.contains(&"answered_by") {
                problems.push(darling::Error::custom(
                    "#[channel_role] needs `answered_by`, which has no default: add `answered_by = ThreadOwner` (the owner of the execution's thread answers; its pauses are listed in `RunOutcome::Paused`) or `answered_by = Channel` (whoever holds the pause id answers, through the channel's own system)",
                ));
            }
            None
        }
    };
    let form = resolve_form(&args, &mut problems);
    let expires_after = args.expires_after.as_ref().and_then(|span| {
        time_span(span, "expires_after")
            .map_err(|e| problems.push(e.into()))
            .ok()
    });
    if !matches!(item.fields, syn::Fields::Unit) {
        problems.push(
            darling::Error::custom(
                "a channel role is a unit struct (`pub struct RefundApprovalChannel;`): what it approves and who answers are in the attribute, and a `#[channel]` implements it",
            )
            .with_span(&item.fields),
        );
    }
    if !item.generics.params.is_empty() {
        problems.push(
            darling::Error::custom(
                "a channel role cannot be generic: each role is one type with one name; make a struct per role",
            )
            .with_span(&item.generics),
        );
    }
    if !problems.is_empty() {
        for problem in problems {
            errors.push(problem);
        }
        return None;
    }
    Some(ResolvedRole {
        name: name?,
        description: description?,
        answered_by: answered_by?,
        form: form?,
        reply_interpreter: args.reply_interpreter.map(Type::Path),
        expires_after,
        krate: args.krate,
    })
}

/// `name`: kebab-case ending in `-channel`.
fn resolve_name(
    args: &RoleArgs,
    item: &ItemStruct,
    problems: &mut Vec<darling::Error>,
) -> Option<String> {
    match &args.name {
        Some(name) => {
            if let Some(finding) = names::check_kind_suffix(name, "channel") {
                problems.push(finding_at(&finding, name.span()));
            }
            Some((**name).clone())
        }
        None => {
            if !args.mistyped.contains(&"name") {
                problems.push(darling::Error::custom(format!(
                    "#[channel_role] needs `name`: add `name = {:?}`",
                    names::suggest(&item.ident.to_string(), "channel")
                )));
            }
            None
        }
    }
}

/// `description = ".."` when given (not blank), else the struct's doc comment.
fn resolve_description(
    args: &RoleArgs,
    item: &ItemStruct,
    problems: &mut Vec<darling::Error>,
) -> Option<String> {
    if let Some(description) = &args.description {
        if description.trim().is_empty() {
            problems.push(
                darling::Error::custom(
                    "the description is empty: say what the role approves or asks; whoever answers reads it",
                )
                .with_span(&description.span()),
            );
        }
        return Some((**description).clone());
    }
    let doc = doc_text(&item.attrs);
    if doc.is_none() && !args.mistyped.contains(&"description") {
        problems.push(
            darling::Error::custom(
                "#[channel_role] needs a description, which says what the role approves or asks: add a doc comment (`/// Approves card refunds`) or `description = \"...\"`",
            )
            .with_span(&item.ident),
        );
    }
    doc
}

/// `approves`, or `ask` with `answer`: one form, never both, never neither.
fn resolve_form(args: &RoleArgs, problems: &mut Vec<darling::Error>) -> Option<Form> {
    let form_error = |detail: &str| {
        codes::CHANNEL_ROLE_FORM
            .finding(&[("detail", &detail)])
            .to_string()
    };
    match (&args.approves, &args.ask, &args.answer) {
        (Some(approves), None, None) => Some(Form::Approval {
            approves: Box::new(Type::Path(approves.clone())),
        }),
        (None, Some(ask), Some(answer)) => Some(Form::Question {
            ask: Box::new(Type::Path(ask.clone())),
            answer: Box::new(Type::Path(answer.clone())),
        }),
        (Some(approves), ask, answer) => {
            let other = match (ask, answer) {
                (Some(_), Some(_)) => "`ask` and `answer`",
                (Some(_), None) => "`ask`",
                _ => "`answer`",
            };
            problems.push(
                darling::Error::custom(form_error(&format!(
                    "a role approves tool calls (`approves = ..`) or asks a question (`ask = .., answer = ..`), never both: remove `approves` or {other}"
                )))
                .with_span(approves),
            );
            None
        }
        (None, Some(given), None) | (None, None, Some(given)) => {
            let (key, other) = if args.ask.is_some() {
                ("ask", "answer")
            } else {
                ("answer", "ask")
            };
            problems.push(
                darling::Error::custom(format!(
                    "`{key}` without `{other}`: a question role gives both, the type of its question (`ask`) and of its answer (`answer`)"
                ))
                .with_span(given),
            );
            None
        }
        (None, None, None) => {
            let mistyped = ["approves", "ask", "answer"]
                .iter()
                .any(|k| args.mistyped.contains(k));
            if !mistyped {
                problems.push(darling::Error::custom(form_error(
                    "#[channel_role] needs a form: `approves = YourToolInput` for a role that approves calls of the tools with that input, or `ask = Question, answer = Answer` for a question of its own",
                )));
            }
            None
        }
    }
}

/// `ThreadOwner`, `Channel`, or either as `PauseAnswerer::..` (any path ending so).
fn answerer(expr: &Expr) -> Result<AnsweredBy, darling::Error> {
    let values = "`ThreadOwner` (the owner of the execution's thread answers) or `Channel` (whoever holds the pause id answers, through the channel's own system)";
    let Expr::Path(syn::ExprPath {
        path, qself: None, ..
    }) = strip(expr)
    else {
        return Err(darling::Error::custom(format!(
            "`answered_by` is {values}, written as a name: `answered_by = ThreadOwner`"
        ))
        .with_span(expr));
    };
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let value = segments.last().map(String::as_str).unwrap_or_default();
    if segments.len() > 1 && segments[segments.len() - 2] != "PauseAnswerer" {
        return Err(darling::Error::custom(format!(
            "`answered_by` is {values}, or `PauseAnswerer::{value}`"
        ))
        .with_span(path));
    }
    let answerer = match value {
        "ThreadOwner" => Answerer::ThreadOwner,
        "Channel" => Answerer::Channel,
        other => {
            let hint = answerer_typo(other)
                .map(|v| format!("did you mean `{v}`? "))
                .unwrap_or_default();
            return Err(darling::Error::custom(format!(
                "unknown `answered_by` value `{other}`: {hint}the values are {values}"
            ))
            .with_span(path));
        }
    };
    Ok(AnsweredBy {
        answerer,
        written: (segments.len() > 1).then(|| path.clone()),
    })
}

/// The value `written` is a typo of: by edit distance, else by a word it shares with one
/// (`Owner`, `thread_owner`, `channel`).
fn answerer_typo(written: &str) -> Option<&'static str> {
    typo_of(written, ANSWERERS).or_else(|| {
        let word = written.to_lowercase();
        if word.contains("owner") || word.contains("thread") {
            Some("ThreadOwner")
        } else if word.contains("channel") {
            Some("Channel")
        } else {
            None
        }
    })
}

fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Group(group) => strip(&group.expr),
        Expr::Paren(paren) => strip(&paren.expr),
        other => other,
    }
}

/// `impl ChannelRole` with its static descriptor, and for an approval role
/// `impl Approves<Dto>`, all inside `const _: () = { .. };`.
pub fn generate(role: &ResolvedRole, item: &ItemStruct) -> TokenStream {
    let private = private_path(role.krate.as_ref());
    let ident = &item.ident;
    let descriptor = gen_descriptor(role, item, &private);
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
            TokenStream::new(),
        ),
    };
    let doc = doc_unless_documented(item, &role.description);
    quote! {
        #doc
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #[doc(hidden)]
            static __AGBOSS_ROLE: #private::RoleDescriptor = #descriptor;

            #[automatically_derived]
            impl #private::ChannelRole for #ident {
                type Question = #question;
                type Answer = #answer;
                const DESCRIPTOR: &'static #private::RoleDescriptor = &__AGBOSS_ROLE;
            }

            #approves
        };
    }
}

/// The descriptor: a `const` expression.
fn gen_descriptor(role: &ResolvedRole, item: &ItemStruct, private: &TokenStream) -> TokenStream {
    let ident = &item.ident;
    let name = &role.name;
    let description = &role.description;
    let rust_type = ident.to_string();
    let location = source_location(private);
    let answered_by = match (&role.answered_by.written, role.answered_by.answerer) {
        (Some(path), _) => quote!(#path),
        (None, Answerer::ThreadOwner) => quote!(#private::PauseAnswerer::ThreadOwner),
        (None, Answerer::Channel) => quote!(#private::PauseAnswerer::Channel),
    };
    let mut descriptor = match &role.form {
        Form::Approval { approves } => {
            let written = written_type(approves);
            quote! {
                #private::RoleDescriptor::approval::<#approves>(
                    #name, #description, #rust_type, #location, #answered_by, #written,
                )
            }
        }
        Form::Question { ask, answer } => quote! {
            #private::RoleDescriptor::question::<#ask, #answer>(
                #name, #description, #rust_type, #location, #answered_by,
            )
        },
    };
    if let Some(interpreter) = &role.reply_interpreter {
        // Spanned on the interpreter: a type that does not read this role's replies is
        // reported there.
        let spec = quote_spanned!(interpreter.span()=>
            #private::InterpreterSpec::of::<#ident, #interpreter>()
        );
        descriptor = quote!(#descriptor.with_interpreter(#spec));
    }
    if let Some(after) = &role.expires_after {
        let after = after.to_tokens();
        descriptor = quote!(#descriptor.with_expiry(#after));
    }
    descriptor
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resolved role, or every problem's message, one a line.
    fn resolve_on(args: TokenStream, item: TokenStream) -> Result<ResolvedRole, String> {
        let item: ItemStruct = syn::parse2(item).unwrap();
        let mut errors = darling::Error::accumulator();
        let resolved = parse_args::<RoleArgs>(args, KEYS, "channel_role", &mut errors).and_then(
            |(mut args, mistyped)| {
                args.mistyped = mistyped;
                resolve(args, &item, &mut errors)
            },
        );
        match errors.finish_with(resolved) {
            Ok(resolved) => Ok(resolved.expect("no problem reported, so resolved")),
            Err(e) => Err(e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }

    #[test]
    fn an_approval_role_reads_its_dto_and_answerer() {
        let role = resolve_on(
            quote!(
                name = "refund-approval-channel",
                approves = RefundInput,
                answered_by = PauseAnswerer::Channel
            ),
            quote! {
                /// Approves card refunds.
                pub struct RefundApproval;
            },
        )
        .unwrap();
        assert_eq!(role.name, "refund-approval-channel");
        assert_eq!(role.description, "Approves card refunds.");
        assert_eq!(role.answered_by.answerer, Answerer::Channel);
        assert!(role.answered_by.written.is_some(), "emitted as written");
        let Form::Approval { approves } = role.form else {
            panic!("an approval role")
        };
        assert_eq!(written_type(&approves), "RefundInput");
    }

    #[test]
    fn a_question_role_reads_both_types() {
        let role = resolve_on(
            quote!(
                name = "budget-question-channel",
                description = "Asks for a budget",
                ask = BudgetAsk,
                answer = BudgetAnswer,
                answered_by = ThreadOwner,
                reply_interpreter = BudgetReader
            ),
            quote!(
                pub struct BudgetQuestion;
            ),
        )
        .unwrap();
        assert_eq!(role.answered_by.answerer, Answerer::ThreadOwner);
        assert!(role.answered_by.written.is_none());
        assert!(role.reply_interpreter.is_some());
        let Form::Question { ask, answer } = role.form else {
            panic!("a question role")
        };
        assert_eq!(
            (written_type(&ask), written_type(&answer)),
            ("BudgetAsk".to_owned(), "BudgetAnswer".to_owned())
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let problems = resolve_on(
            quote!(
                name = "RefundApproval",
                approves = RefundInput,
                ask = Question,
                answered_by = Owner
            ),
            quote!(
                pub struct RefundApproval {
                    x: u8,
                }
            ),
        )
        .err()
        .unwrap();
        let lines: Vec<&str> = problems.lines().collect();
        assert_eq!(lines.len(), 5, "{problems}");
        assert!(lines[0].starts_with("[name.kind-suffix]"), "{problems}");
        assert!(
            lines[0].ends_with("name it \"refund-approval-channel\""),
            "{problems}"
        );
        assert!(lines[1].starts_with("#[channel_role] needs a description"));
        assert!(
            lines[2]
                .starts_with("unknown `answered_by` value `Owner`: did you mean `ThreadOwner`?"),
            "{problems}"
        );
        assert!(lines[3].starts_with("[channel.role-form]"), "{problems}");
        assert!(
            lines[3].ends_with("remove `approves` or `ask`"),
            "{problems}"
        );
        assert!(lines[4].starts_with("a channel role is a unit struct"));
    }

    #[test]
    fn neither_form_nor_answerer_says_what_to_add() {
        let problems = resolve_on(
            quote!(name = "refund-approval-channel", description = "Approves"),
            quote!(
                pub struct RefundApproval;
            ),
        )
        .err()
        .unwrap();
        let lines: Vec<&str> = problems.lines().collect();
        assert_eq!(lines.len(), 2, "{problems}");
        assert!(lines[0].starts_with("#[channel_role] needs `answered_by`, which has no default"));
        assert!(lines[0].contains("`answered_by = ThreadOwner`"));
        assert!(lines[0].contains("`answered_by = Channel`"));
        assert!(lines[1].starts_with("[channel.role-form] #[channel_role] needs a form"));
    }

    #[test]
    fn ask_without_answer_names_the_missing_key() {
        let problems = resolve_on(
            quote!(
                name = "budget-channel",
                description = "Asks",
                answered_by = ThreadOwner,
                answer = BudgetAnswer
            ),
            quote!(
                pub struct Budget;
            ),
        )
        .err()
        .unwrap();
        assert!(
            problems.starts_with("`answer` without `ask`: a question role gives both"),
            "{problems}"
        );
    }

    #[test]
    fn answered_by_must_name_a_pause_answerer() {
        let problems = resolve_on(
            quote!(
                name = "budget-channel",
                description = "Asks",
                answered_by = Who::Channel,
                approves = Input
            ),
            quote!(
                pub struct Budget;
            ),
        )
        .err()
        .unwrap();
        assert!(
            problems.contains("or `PauseAnswerer::Channel`"),
            "{problems}"
        );
        let problems = resolve_on(
            quote!(
                name = "budget-channel",
                description = "Asks",
                answered_by = "thread_owner",
                approves = Input
            ),
            quote!(
                pub struct Budget;
            ),
        )
        .err()
        .unwrap();
        // darling reads a string as the expression inside it.
        assert!(
            problems.starts_with(
                "unknown `answered_by` value `thread_owner`: did you mean `ThreadOwner`?"
            ),
            "{problems}"
        );
        let problems = resolve_on(
            quote!(
                name = "budget-channel",
                description = "Asks",
                answered_by = owner(),
                approves = Input
            ),
            quote!(
                pub struct Budget;
            ),
        )
        .err()
        .unwrap();
        assert!(
            problems.ends_with("written as a name: `answered_by = ThreadOwner`"),
            "{problems}"
        );
    }
}
