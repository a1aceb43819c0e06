//! Saving a note waits for the user's approval: the role, the channel that leaves the question
//! in the desk's pending list, and the code that reads a yes or a no.

use agboss::channel::{InterpretContext, ReplyInterpretation, ReplyInterpreter};
use agboss::prelude::*;
use agboss::units::days;

use crate::notes::Note;

/// Approves the notes the agent saves; the thread's owner answers, within a week.
#[channel_role(
    name = "note-approval-channel",
    description = "The user approves each note before it is saved",
    approves = Note,
    answered_by = ThreadOwner,
    reply_interpreter = YesOrNo,
    expires_after = days(7),
)]
pub struct NoteApproval;

/// Leaves the question where `desk pending` finds it (the store): nothing to post, the answer
/// comes later, from `desk approve | refuse | reply`, in this process or another.
#[channel(
    name = "desk-pending-channel",
    description = "Keeps the question in the desk's pending list"
)]
pub struct DeskPending;

impl ChannelHandler for DeskPending {
    type Role = NoteApproval;

    async fn send(
        &self,
        _ask: ChannelAsk<NoteApproval>,
    ) -> Result<ChannelOutcome<NoteApproval>, ToolError> {
        Ok(ChannelOutcome::await_reply())
    }
}

/// Reads `yes`, `ok`, `go ahead` as approval and `no ...` as a refusal (what follows the no is
/// the reason the model reads); anything else is unclear, and the pause stays open.
#[derive(Default)]
pub struct YesOrNo;

const YES: &[&str] = &[
    "yes", "y", "ok", "okay", "sure", "approve", "approved", "go",
];
const NO: &[&str] = &["no", "n", "nope", "refuse", "refused", "don't", "dont"];

impl ReplyInterpreter<NoteApproval> for YesOrNo {
    async fn interpret(
        &self,
        _question: &ToolCallApprovalAsk<Note>,
        reply: &str,
        _context: &InterpretContext,
    ) -> ReplyInterpretation<ToolCallApprovalDecision<Note>> {
        let reply = reply.trim();
        let (first, rest) = reply
            .split_once(|c: char| c.is_whitespace() || c == ',' || c == ':' || c == '.')
            .unwrap_or((reply, ""));
        let first = first.to_lowercase();
        let rest = rest.trim_matches(|c: char| c.is_whitespace() || c == ',' || c == ':');
        if YES.contains(&first.as_str()) {
            return ReplyInterpretation::Answer(ToolCallApprovalDecision::approve());
        }
        if NO.contains(&first.as_str()) {
            let reason = if rest.is_empty() {
                "the user said no".to_owned()
            } else {
                rest.to_owned()
            };
            return ReplyInterpretation::Answer(ToolCallApprovalDecision::refuse(reason));
        }
        ReplyInterpretation::Unclear(format!(
            "say yes or no (a no may give the reason: \"no, wrong day\"), not {reply:?}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agboss::context::Signal;

    /// What `reply` reads as: `Ok(None)` approves, `Ok(Some(reason))` refuses, `Err` is unclear.
    async fn read(reply: &str) -> Result<Option<String>, String> {
        let question = ToolCallApprovalAsk {
            tool: "note-save-tool".into(),
            call_id: "c-1".into(),
            arguments: Note {
                text: "dentist".into(),
            },
            arguments_digest: String::new(),
            interrupted: None,
            why: None,
            evidence: None,
        };
        let context = InterpretContext::new(None, Signal::new());
        match YesOrNo.interpret(&question, reply, &context).await {
            ReplyInterpretation::Answer(ToolCallApprovalDecision::Approve { .. }) => Ok(None),
            ReplyInterpretation::Answer(ToolCallApprovalDecision::Refuse { reason }) => {
                Ok(Some(reason))
            }
            ReplyInterpretation::Unclear(why) => Err(why),
        }
    }

    #[tokio::test]
    async fn yes_approves_and_no_refuses_with_its_reason() {
        for yes in ["yes", "Yes.", " ok", "go ahead", "Sure, save it"] {
            assert_eq!(read(yes).await, Ok(None), "{yes}");
        }
        assert_eq!(read("no, wrong day").await, Ok(Some("wrong day".into())));
        assert_eq!(read("No").await, Ok(Some("the user said no".into())));
        let unclear = read("maybe later").await.unwrap_err();
        assert!(unclear.contains("say yes or no"), "{unclear}");
    }
}
