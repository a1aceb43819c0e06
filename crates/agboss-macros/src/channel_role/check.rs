//! Checks `#[channel_role(..)]`, reporting every problem, into a [`ResolvedRole`].

use agboss_rules::codes;
use agboss_rules::distance::typo_of;
use syn::{Expr, ItemStruct, Path, Type, TypePath};

use super::args::RoleArgs;
use crate::ctxt::{Ctxt, error_at};
use crate::header::{self, Describing, Header, Naming};
use crate::units::{TimeSpanValue, strip, time_span};

/// The values of `answered_by`, as `PauseAnswerer`'s variants are named.
pub const ANSWERERS: &[&str] = &["ThreadOwner", "Channel"];

/// How roles are named and described.
const ROLE: header::Kind = header::Kind {
    naming: Naming::Suffixed("channel"),
    describing: Some(Describing {
        says: "what the role approves or asks; whoever answers reads it",
        which: "says what the role approves or asks",
        example: "Approves card refunds",
    }),
};

/// A role attribute that passed every check.
pub struct ResolvedRole {
    /// Its name, description (`description = ".."`, else the struct's doc comment) and crate.
    pub header: Header,
    pub answered_by: AnsweredBy,
    pub form: Form,
    pub reply_interpreter: Option<Type>,
    pub expires_after: Option<TimeSpanValue>,
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

/// Checks `args` on `item`, reporting every problem into `cx`: the header, who answers, the
/// form, the expiry.
pub fn check(args: RoleArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedRole> {
    let header = ROLE.check(args.header, item, cx);
    let answered_by = match &args.answered_by {
        Some(expr) => cx.handle(answerer(expr)),
        None => {
            cx.missing(
                "answered_by",
                "#[channel_role] needs `answered_by`, which has no default: add `answered_by = ThreadOwner` (the owner of the execution's thread answers; its pauses are listed in `RunOutcome::Paused`) or `answered_by = Channel` (whoever holds the pause id answers, through the channel's own system)",
            );
            None
        }
    };
    let form = check_form(
        args.approves.as_ref(),
        args.ask.as_ref(),
        args.answer.as_ref(),
        cx,
    );
    let expires_after = args
        .expires_after
        .as_ref()
        .and_then(|span| cx.handle(time_span(span, "expires_after")));
    Some(ResolvedRole {
        header: header.finish()?,
        answered_by: answered_by?,
        form: form?,
        reply_interpreter: args.reply_interpreter.map(Type::Path),
        expires_after,
    })
}

/// `approves`, or `ask` with `answer`: one form, never both, never neither.
fn check_form(
    approves: Option<&TypePath>,
    ask: Option<&TypePath>,
    answer: Option<&TypePath>,
    cx: &mut Ctxt,
) -> Option<Form> {
    let form_error = |detail: &str| {
        codes::CHANNEL_ROLE_FORM
            .finding(&[("detail", &detail)])
            .to_string()
    };
    match (approves, ask, answer) {
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
            cx.error_at(
                approves,
                form_error(&format!(
                    "a role approves tool calls (`approves = ..`) or asks a question (`ask = .., answer = ..`), never both: remove `approves` or {other}"
                )),
            );
            None
        }
        (None, Some(given), None) | (None, None, Some(given)) => {
            let (key, other) = if ask.is_some() {
                ("ask", "answer")
            } else {
                ("answer", "ask")
            };
            cx.error_at(
                given,
                format!(
                    "`{key}` without `{other}`: a question role gives both, the type of its question (`ask`) and of its answer (`answer`)"
                ),
            );
            None
        }
        (None, None, None) => {
            let mistyped = ["approves", "ask", "answer"].iter().any(|k| cx.mistyped(k));
            if !mistyped {
                cx.error(form_error(
                    "#[channel_role] needs a form: `approves = YourToolInput` for a role that approves calls of the tools with that input, or `ask = Question, answer = Answer` for a question of its own",
                ));
            }
            None
        }
    }
}

/// `ThreadOwner`, `Channel`, or either as `PauseAnswerer::..` (any path ending so).
fn answerer(expr: &Expr) -> darling::Result<AnsweredBy> {
    let values = "`ThreadOwner` (the owner of the execution's thread answers) or `Channel` (whoever holds the pause id answers, through the channel's own system)";
    let Expr::Path(syn::ExprPath {
        path, qself: None, ..
    }) = strip(expr)
    else {
        return Err(error_at(
            expr,
            format!("`answered_by` is {values}, written as a name: `answered_by = ThreadOwner`"),
        ));
    };
    let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let value = segments.last().map(String::as_str).unwrap_or_default();
    if segments.len() > 1 && segments[segments.len() - 2] != "PauseAnswerer" {
        return Err(error_at(
            &path,
            format!("`answered_by` is {values}, or `PauseAnswerer::{value}`"),
        ));
    }
    let answerer = match value {
        "ThreadOwner" => Answerer::ThreadOwner,
        "Channel" => Answerer::Channel,
        other => {
            let hint = answerer_typo(other)
                .map(|v| format!("did you mean `{v}`? "))
                .unwrap_or_default();
            return Err(error_at(
                &path,
                format!("unknown `answered_by` value `{other}`: {hint}the values are {values}"),
            ));
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

#[cfg(test)]
mod tests;
