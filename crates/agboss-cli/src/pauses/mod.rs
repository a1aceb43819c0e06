//! The subcommands that list and answer pauses: `pending`, `approve`, `refuse`, `reply`,
//! `answer` and `cancel`. They work on the application's store, so the process that answers
//! need not be the one that paused: it resumes the execution from the journal and drives it on
//! until it completes or waits again. An answer says first that it was taken and journaled,
//! then how the run went on ([`answered`]).

mod answered;

use std::time::{Duration, UNIX_EPOCH};

use agboss_core::app::{Application, Resume};
use agboss_core::base::Env;
use agboss_core::channel::{PauseAnswerer, ToolCallApprovalDecision};
use agboss_core::journal::{PauseQuery, PauseRecord};
use clap::{Args, Subcommand};
use serde_json::Value;

/// The variables [`current_user`] reads, first set first.
pub const USER_VARIABLES: [&str; 2] = ["AGBOSS_USER", "USER"];

/// Who is at this terminal: `$AGBOSS_USER`, else `$USER`. The pause subcommands answer as this
/// person unless `--as` names another, and `pending` lists this person's pauses; a program
/// that runs its agents for the person at the terminal makes them the thread's owner the same
/// way, so the two agree.
pub fn current_user(env: &Env) -> Option<String> {
    USER_VARIABLES
        .iter()
        .find_map(|variable| env.get(variable).filter(|user| !user.trim().is_empty()))
}

/// Who is at this terminal, as [`current_user`] finds it, else `fallback`: the one function a
/// program that has a user of its own when the environment names none (the desk's `desk-user`)
/// decides with, for its runs' owner and for its subcommands
/// ([`Command::run_as`](crate::Command::run_as)), so that both agree.
pub fn current_user_or(env: &Env, fallback: &str) -> String {
    current_user(env).unwrap_or_else(|| fallback.to_owned())
}

/// Who answers: `--as <who>`, or [`current_user`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Args)]
pub struct Answerer {
    /// Answer as this person (default: $AGBOSS_USER, else $USER). A pause that waits for its
    /// thread's owner takes an answer from that owner only.
    #[arg(long = "as", value_name = "WHO")]
    pub who: Option<String>,
}

impl Answerer {
    /// `--as`, else `user`: the current user.
    fn resolve(&self, user: Option<&str>) -> Option<String> {
        self.who.clone().or_else(|| user.map(str::to_owned))
    }
}

/// The subcommands about pauses.
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum PauseCommand {
    /// List the pauses waiting for an answer: yours as a thread's owner, or every one.
    Pending {
        /// The pauses this thread owner answers (default: you, from $AGBOSS_USER or $USER).
        #[arg(long, value_name = "WHO", conflicts_with = "all")]
        owner: Option<String>,
        /// Every open pause, those answered by a channel included.
        #[arg(long)]
        all: bool,
        /// Only this thread's pauses.
        #[arg(long)]
        thread: Option<String>,
        /// Only this execution's pauses.
        #[arg(long)]
        execution: Option<String>,
        /// At most this many, oldest first.
        #[arg(long, default_value_t = 50)]
        limit: usize,
        /// Print the pauses' records as JSON, one array.
        #[arg(long)]
        json: bool,
    },
    /// Approve the call a pause holds back; the run goes on in this process.
    Approve {
        /// The pause's id, as `pending` prints it.
        pause_id: String,
        /// Who answers.
        #[command(flatten)]
        answerer: Answerer,
    },
    /// Refuse the call a pause holds back; the model reads the reason.
    Refuse {
        /// The pause's id.
        pause_id: String,
        /// Why, for the model.
        reason: String,
        /// Who answers.
        #[command(flatten)]
        answerer: Answerer,
    },
    /// Answer a pause in your own words, read by its role's reply interpreter.
    Reply {
        /// The pause's id.
        pause_id: String,
        /// The reply ("yes, go ahead", "no: not this month").
        text: String,
        /// Who answers.
        #[command(flatten)]
        answerer: Answerer,
    },
    /// Answer a pause with its role's answer, as JSON (for roles that ask a question).
    Answer {
        /// The pause's id.
        pause_id: String,
        /// The answer, as JSON matching the role's answer type.
        json: String,
        /// Who answers.
        #[command(flatten)]
        answerer: Answerer,
    },
    /// Cancel an execution: its open pauses close, and later answers are refused.
    Cancel {
        /// The execution's id.
        execution_id: String,
        /// Why (kept in the journal).
        #[arg(long, default_value = "cancelled from the command line")]
        reason: String,
    },
}

/// What a subcommand printed: its output, then its error (`error: ..`), and whether it failed.
pub(crate) struct Printed {
    /// For standard output.
    pub(crate) text: String,
    /// For standard error.
    pub(crate) error: String,
    pub(crate) failed: bool,
}

impl Printed {
    pub(crate) fn ok(text: String) -> Printed {
        Printed {
            text,
            error: String::new(),
            failed: false,
        }
    }

    pub(crate) fn error(text: impl std::fmt::Display) -> Printed {
        Printed {
            text: String::new(),
            error: format!("error: {text}\n"),
            failed: true,
        }
    }
}

impl PauseCommand {
    /// Runs the subcommand for `user`, the current user: whose pauses `pending` lists and who
    /// answers, unless `--owner`, `--all` or `--as` say otherwise.
    pub(crate) async fn run(&self, app: &Application, user: Option<&str>) -> Printed {
        let resume = match self {
            PauseCommand::Pending {
                owner,
                all,
                thread,
                execution,
                limit,
                json,
            } => {
                let owner = match (all, owner) {
                    (true, _) => None,
                    (false, Some(owner)) => Some(owner.clone()),
                    (false, None) => match user {
                        Some(user) => Some(user.to_owned()),
                        None => {
                            return Printed::error(
                                "whose pauses? Set AGBOSS_USER or USER, or say --owner <who>, or --all",
                            );
                        }
                    },
                };
                let query = PauseQuery {
                    owner,
                    thread: thread.clone(),
                    execution: execution.clone(),
                    limit: Some(*limit),
                };
                return pending(app, &query, *json).await;
            }
            PauseCommand::Cancel {
                execution_id,
                reason,
            } => {
                return match app.cancel(execution_id, reason).await {
                    Ok(()) => Printed::ok(format!("execution {execution_id} cancelled\n")),
                    Err(error) => Printed::error(format!("[{}] {error}", error.code())),
                };
            }
            PauseCommand::Approve { pause_id, answerer } => (
                Resume::decision(pause_id, ToolCallApprovalDecision::<Value>::approve()),
                answerer,
                pause_id,
            ),
            PauseCommand::Refuse {
                pause_id,
                reason,
                answerer,
            } => (
                Resume::decision(
                    pause_id,
                    ToolCallApprovalDecision::<Value>::refuse(reason.clone()),
                ),
                answerer,
                pause_id,
            ),
            PauseCommand::Reply {
                pause_id,
                text,
                answerer,
            } => (Resume::reply(pause_id, text.clone()), answerer, pause_id),
            PauseCommand::Answer {
                pause_id,
                json,
                answerer,
            } => match serde_json::from_str::<Value>(json) {
                Ok(answer) => (Resume::decision(pause_id, answer), answerer, pause_id),
                Err(e) => return Printed::error(format!("the answer is not JSON: {e}")),
            },
        };
        let (mut resume, answerer, pause_id) = resume;
        if let Some(who) = answerer.resolve(user) {
            resume = resume.answered_by(who);
        }
        answered::answer(app, pause_id, resume).await
    }
}

async fn pending(app: &Application, query: &PauseQuery, json: bool) -> Printed {
    let pauses = match app.store().open_pauses(query).await {
        Ok(pauses) => pauses,
        Err(error) => return Printed::error(error),
    };
    if json {
        let mut text = serde_json::to_string_pretty(&pauses).unwrap_or_default();
        text.push('\n');
        return Printed::ok(text);
    }
    if pauses.is_empty() {
        return Printed::ok("no pause waits for an answer\n".into());
    }
    let now = wall_ms(app);
    Printed::ok(pauses.iter().map(|pause| render(pause, now)).collect())
}

pub(crate) fn wall_ms(app: &Application) -> u64 {
    app.clock()
        .wall_time()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_millis() as u64)
}

/// A pause in a few lines, as `pending` prints it: its id, the tool and its arguments (or the
/// question; with why a person is asked and the tool's evidence, when the pause has them), who
/// answers it, how old it is and when it expires, and where it belongs.
///
/// ```text
/// 3f9c0a...  note-save-tool waits for note-approval-channel, answered by alice (its thread's owner)
///     arguments: {"text":"The dentist is on Tuesday at 9"}
///     opened 2 min ago; expires in 6 d 23 h
///     execution 0193..., thread desk/alice/notes
/// ```
pub fn render(pause: &PauseRecord, now_ms: u64) -> String {
    let opened = &pause.opened;
    let question = &opened.question;
    let tool = question.get("tool").and_then(Value::as_str);
    let who = match (&opened.answered_by, &opened.owner) {
        (PauseAnswerer::ThreadOwner, Some(owner)) => format!("{owner} (its thread's owner)"),
        (PauseAnswerer::ThreadOwner, None) => "its thread's owner (none is known)".to_owned(),
        (PauseAnswerer::Channel, _) => format!("whoever {} gave the id to", opened.channel),
    };
    let mut text = match tool {
        Some(tool) => format!(
            "{}  {tool} waits for {}, answered by {who}\n",
            opened.pause_id, opened.role
        ),
        None => match &opened.asked {
            Some(asked) => format!(
                "{}  {} asks {} (question {} of its call), answered by {who}\n",
                opened.pause_id,
                asked.tool,
                opened.role,
                asked.index + 1
            ),
            None => format!(
                "{}  {} asks, answered by {who}\n",
                opened.pause_id, opened.role
            ),
        },
    };
    match (tool, question.get("arguments")) {
        (Some(_), Some(arguments)) => text.push_str(&format!("    arguments: {arguments}\n")),
        _ => text.push_str(&format!("    question: {question}\n")),
    }
    // Why a person is asked (a check-in, a permission's rule) and what the tool shows.
    for key in ["why", "evidence"] {
        if let (Some(_), Some(said)) = (tool, question.get(key).and_then(Value::as_str)) {
            text.push_str(&format!("    {key}: {said}\n"));
        }
    }
    let age = span(now_ms.saturating_sub(opened.opened_at_ms));
    match opened.expires_at_ms {
        // What is left is rounded up to the minute: a week's limit reads `7 d` when it opens.
        Some(expires) if expires > now_ms => text.push_str(&format!(
            "    opened {age} ago; expires in {}\n",
            span((expires - now_ms).div_ceil(60_000) * 60_000)
        )),
        Some(_) => text.push_str(&format!("    opened {age} ago; expired\n")),
        None => text.push_str(&format!("    opened {age} ago\n")),
    }
    text.push_str(&format!(
        "    execution {}, thread {}\n",
        pause.execution_id, pause.thread_id
    ));
    text
}

/// `42 s`, `2 min`, `3 h 5 min`, `6 d 23 h`: the two largest units.
fn span(ms: u64) -> String {
    let seconds = Duration::from_millis(ms).as_secs();
    let (days, hours, minutes) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60);
    match (days, hours, minutes) {
        (0, 0, 0) => format!("{seconds} s"),
        (0, 0, m) => format!("{m} min"),
        (0, h, 0) => format!("{h} h"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, 0, _) => format!("{d} d"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_keep_their_two_largest_units() {
        assert_eq!(span(42_000), "42 s");
        assert_eq!(span(120_000), "2 min");
        assert_eq!(span(3 * 3_600_000), "3 h");
        assert_eq!(span(3 * 3_600_000 + 5 * 60_000 + 7_000), "3 h 5 min");
        assert_eq!(
            span(6 * 86_400_000 + 23 * 3_600_000 + 59 * 60_000),
            "6 d 23 h"
        );
        assert_eq!(span(2 * 86_400_000 + 59 * 60_000), "2 d");
    }

    #[test]
    fn the_current_user_is_agboss_user_then_user() {
        let env = Env::from_pairs([("USER", "bob"), ("AGBOSS_USER", "alice")]);
        assert_eq!(current_user(&env).as_deref(), Some("alice"));
        let env = Env::from_pairs([("USER", "bob"), ("AGBOSS_USER", " ")]);
        assert_eq!(
            current_user(&env).as_deref(),
            Some("bob"),
            "a blank one is skipped"
        );
        let env = Env::from_pairs([("USER", "bob")]);
        assert_eq!(current_user(&env).as_deref(), Some("bob"));
        assert_eq!(current_user(&Env::from_pairs::<&str, &str>([])), None);
        assert_eq!(
            current_user_or(&Env::from_pairs::<&str, &str>([]), "desk-user"),
            "desk-user"
        );
        assert_eq!(
            current_user_or(&Env::from_pairs([("USER", "bob")]), "desk-user"),
            "bob"
        );
    }
}
