//! Tools and agents shared by the application tests: a small support desk.

#![allow(dead_code)]

use std::sync::Arc;

use agboss::app::{Env, FromEnv};
use agboss::prelude::*;
use agboss::units::{kilobytes, seconds};
use agboss::{Application, ToolDefaults, Workflow};

/// A question.
#[dto]
pub struct Ask {
    /// What to look up.
    pub text: String,
}

/// An answer.
#[dto]
pub struct Reply {
    /// The answer's text.
    pub text: String,
}

/// The customer records.
pub trait Crm: Send + Sync {
    /// The customer's name.
    fn customer(&self, id: &str) -> String;
}

/// A CRM that knows everyone as Ada.
pub struct FixedCrm;

impl Crm for FixedCrm {
    fn customer(&self, _id: &str) -> String {
        "Ada".into()
    }
}

/// The notes file, named by `NOTES_FILE`.
pub struct NotesFile {
    pub path: String,
}

impl FromEnv for NotesFile {
    const VARIABLES: &'static [&'static str] = &["NOTES_FILE"];

    fn from_env(env: &Env) -> Result<Self, String> {
        Ok(NotesFile {
            path: env.require("NOTES_FILE")?,
        })
    }
}

/// Makes each of the tools `$ty` answer with the text it was asked.
macro_rules! echo {
    ($($ty:ty),*) => {$(
        impl ToolHandler for $ty {
            type Input = Ask;
            type Output = Reply;

            async fn run(&self, input: Ask) -> Result<Reply, ToolError> {
                Ok(Reply { text: input.text })
            }
        }
    )*};
}
#[allow(unused_imports)]
pub(crate) use echo;

#[tool(
    name = "lookup-customer-tool",
    description = "Looks a customer up in the CRM",
    timeout = seconds(5),
    max_result_size = kilobytes(256),
    result_ceiling = kilobytes(512),
    ceiling_hint = "look the customer up by id rather than by name",
    read_only = true,
)]
pub struct LookupCustomer {
    crm: Arc<dyn Crm>,
}

#[tool(
    name = "read-notes-tool",
    description = "Reads the team's notes",
    read_only = true
)]
pub struct ReadNotes {
    notes: Arc<NotesFile>,
}

#[tool(
    name = "draft-reply-tool",
    description = "Drafts a reply to the customer",
    repeated_when = arguments
)]
pub struct DraftReply;

/// Approves pages to the engineer on call; the thread's owner answers.
#[channel_role(
    name = "page-approval-channel",
    approves = Ask,
    answered_by = ThreadOwner,
)]
pub struct PageApproval;

fixtures::inbox! {
    /// Asks the incident lead, who answers later.
    #[channel(name = "lead-page-approval-channel")]
    pub struct LeadPageApproval for PageApproval;
}

#[tool(
    name = "page-oncall-tool",
    description = "Pages the engineer on call",
    channel = PageApproval
)]
pub struct PageOncall {
    execution: ExecutionContext,
}

#[tool(
    name = "archive-ticket-tool",
    description = "Archives a ticket",
    channel = agboss::channel::AutoApproveChannel
)]
pub struct ArchiveTicket;

echo!(
    LookupCustomer,
    ReadNotes,
    DraftReply,
    PageOncall,
    ArchiveTicket
);

#[agent(
    name = "triage",
    description = "Sorts incoming requests",
    prompt = "../prompts/triage.prompt.md",
    model = "moonshotai/kimi-k2.6",
    tools = [LookupCustomer, ReadNotes],
    max_tool_calls = 4,
)]
pub struct Triage;

#[agent(
    name = "writer",
    description = "Writes replies",
    prompts = ["../prompts/writer.prompt.md", "../prompts/brief.prompt.md"],
    model = "anthropic/claude-sonnet-4-5",
    tools = [DraftReply, ReadNotes],
    thinking = "high",
)]
pub struct Writer;

#[agent(
    name = "oncall",
    description = "Handles incidents",
    prompt = "../prompts/oncall.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [PageOncall, LookupCustomer],
    history_turns = 2,
    history_summaries = 0,
    history_max_size = kilobytes(8),
)]
pub struct Oncall;

/// The support desk: two workflows, three agents, one tool no agent uses, and a channel for
/// the pages to the engineer on call, which wait for approval.
pub fn support_desk() -> agboss::app::ApplicationBuilder {
    Application::builder("support-desk")
        .workflow(
            Workflow::new("support")
                .agent::<Triage>()
                .agent::<Writer>()
                .tool::<ArchiveTicket>()
                .defaults(
                    ToolDefaults::new()
                        .max_result_size(kilobytes(32))
                        .max_tool_calls(8),
                ),
        )
        .workflow(Workflow::new("ops").agent::<Oncall>())
        .provide::<dyn Crm>(Arc::new(FixedCrm))
        .provide_from_env::<NotesFile>()
        .channel::<LeadPageApproval>()
        .env(Env::from_pairs([("NOTES_FILE", "/tmp/notes.jsonl")]))
}
