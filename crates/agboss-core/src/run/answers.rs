//! How a run ends: the checks of the model's answers around each model call.
//!
//! - **Structured answers.** An agent with an answer DTO answers through `answer-<dto>`; each
//!   call's arguments are checked once, and the first valid one is the answer. A turn whose
//!   answers are all refused is one failed attempt; the agent's `answer_retries` bound how many
//!   go back to the model before the run fails with `answer.invalid`.
//! - **Calls beside a valid answer.** Each gets exactly one result: the other tools run, the
//!   other answer calls are refused, the answer call itself is acknowledged, and the run ends
//!   with the answer once every call has its result (read back from the journal, so a resumed
//!   run ends the same way).
//! - **The turn cap.** A run makes at most `max_turns` model calls (`agents.<name>.limits.turns`).
//! - **Empty answers.** A reply with neither text nor a tool call ends the run with
//!   `answer.empty`: it answers nothing, and asking the same conversation again is not a fix
//!   the framework can promise.
//!
//! docs/agents.md describes the policy; docs/decisions/0005 why these and not the others.

use agboss_rules::codes;
use serde_json::Value;

use super::cx::Cx;
use super::{RunError, TurnLimitError};
use crate::journal::LoopState;
use crate::model::{ChatResponse, FinishReason, Message, ToolCall};
use crate::tool::{Issues, ToolFailure, ToolOutput};

/// What a model's calls to the answer tool come to, each checked once.
#[derive(Default)]
pub(super) struct Answers {
    /// The first valid answer: its position among the calls, and its value.
    pub(super) valid: Option<(usize, Value)>,
    /// The answer calls the schema refuses, by position, with why.
    pub(super) refused: Vec<(usize, Issues)>,
    /// Valid answer calls after the first, by position.
    pub(super) extra: Vec<usize>,
}

impl Answers {
    /// Whether any call was to the answer tool.
    fn attempted(&self) -> bool {
        self.valid.is_some() || !self.refused.is_empty()
    }
}

/// What the model reads for the answer call that ends the run while other calls of its turn
/// still run.
const ACCEPTED: &str =
    "Answer accepted: the run ends once the other calls of this turn have their results.";

impl Cx<'_> {
    /// Checks each call to the answer tool among `calls`, once.
    pub(super) fn check_answers(&self, calls: &[ToolCall]) -> Answers {
        let mut answers = Answers::default();
        let Some(answer) = &self.answer else {
            return answers;
        };
        for (index, call) in calls.iter().enumerate() {
            if call.name != answer.name {
                continue;
            }
            match answer.check.decode::<Value>(&call.arguments) {
                Ok(value) if answers.valid.is_none() => answers.valid = Some((index, value)),
                Ok(_) => answers.extra.push(index),
                Err(issues) => answers.refused.push((index, issues)),
            }
        }
        answers
    }

    /// The answer of the last turn, when it gave a valid one beside other calls that now all
    /// have their results: the run ends with it instead of asking the model again.
    pub(super) fn journaled_answer(&self, state: &LoopState) -> Option<Value> {
        let answer = self.answer.as_ref()?;
        let last = state
            .messages
            .iter()
            .rev()
            .find(|m| !matches!(m, Message::Tool { .. }))?;
        let Message::Assistant { tool_calls, .. } = last else {
            return None;
        };
        tool_calls
            .iter()
            .filter(|call| call.name == answer.name)
            .find_map(|call| answer.check.decode::<Value>(&call.arguments).ok())
    }

    /// The turn cap, checked before each model call.
    pub(super) fn turn_cap_reached(&self, state: &LoopState) -> Option<RunError> {
        let cap = self.agent.max_turns();
        (state.turn >= cap.value).then(|| {
            RunError::TurnLimit(TurnLimitError {
                agent: self.agent.name().into(),
                limit: cap.value,
                set_by: cap.source.to_string(),
            })
        })
    }

    /// `answer.invalid` when this turn's answers were all refused and the run has now had more
    /// such turns than the agent's answer retries allow. Counted from the journaled
    /// conversation: every earlier turn that called the answer tool and did not end the run
    /// was refused.
    pub(super) fn answers_exhausted(
        &self,
        state: &LoopState,
        answers: &Answers,
    ) -> Option<RunError> {
        let answer = self.answer.as_ref()?;
        if answers.valid.is_some() || !answers.attempted() {
            return None;
        }
        let attempts = state
            .messages
            .iter()
            .filter(|m| {
                matches!(m, Message::Assistant { tool_calls, .. }
                    if tool_calls.iter().any(|c| c.name == answer.name))
            })
            .count();
        let retries = self.agent.answer_retries();
        if attempts <= retries.value as usize {
            return None;
        }
        let issues = answers
            .refused
            .last()
            .map_or_else(String::new, |(_, issues)| issues.to_string());
        Some(RunError::InvalidAnswer(codes::ANSWER_INVALID.fill(&[
            ("agent", &self.agent.name()),
            ("attempts", &attempts),
            ("tool", &answer.name),
            ("retries", &retries.value),
            ("from", &retries.source),
            ("issues", &issues),
        ])))
    }

    /// The results the answer calls of a turn get, by position: refused ones say why; beside a
    /// valid answer, that one is acknowledged and any later valid one refused.
    pub(super) fn answer_results(&self, answers: Answers) -> Vec<(usize, ToolOutput)> {
        let mut results: Vec<(usize, ToolOutput)> = answers
            .refused
            .into_iter()
            .map(|(index, issues)| (index, refused_answer(issues)))
            .collect();
        results.extend(answers.extra.into_iter().map(|index| {
            let second = "a turn gives one answer: this one came after the first";
            (index, refused_answer(Issues::one(None, second)))
        }));
        if let Some((index, _)) = answers.valid {
            results.push((index, ToolOutput::answered(ACCEPTED.to_owned())));
        }
        results.sort_by_key(|(index, _)| *index);
        results
    }

    /// The result of the answer call at `index` of the pending calls, left without one by a run
    /// that stopped right after its turn was journaled: checked again, as the turn checked it.
    pub(super) fn pending_answer(&self, state: &LoopState, index: usize) -> ToolOutput {
        let calls: Vec<ToolCall> = state.pending.iter().map(|p| p.call.clone()).collect();
        let answers = self.check_answers(&calls);
        match answers.valid {
            Some((first, _)) if first == index => ToolOutput::answered(ACCEPTED.to_owned()),
            _ => {
                let issues = match answers.refused.into_iter().find(|(i, _)| *i == index) {
                    Some((_, issues)) => issues,
                    None if self.answer.is_none() => {
                        Issues::one(None, "this agent gives no structured answer")
                    }
                    None => Issues::one(
                        None,
                        "a turn gives one answer: this one came after the first",
                    ),
                };
                refused_answer(issues)
            }
        }
    }

    /// `answer.empty` for a reply with neither text nor a tool call.
    pub(super) fn empty_answer(&self, turn: u32, response: &ChatResponse) -> Option<RunError> {
        let empty = response.tool_calls.is_empty()
            && response.text.as_deref().is_none_or(|t| t.trim().is_empty());
        empty.then(|| {
            RunError::EmptyAnswer(codes::ANSWER_EMPTY.fill(&[
                ("agent", &self.agent.name()),
                ("model", &self.agent.model()),
                ("turn", &turn),
                ("finish", &finish_reason(&response.finish)),
            ]))
        })
    }
}

/// An answer the model sent that its schema refuses (`issues`), said as a tool's invalid input
/// is.
fn refused_answer(issues: Issues) -> ToolOutput {
    ToolOutput::failed(ToolFailure::InvalidInput(issues))
}

/// The finish reason as the APIs write it, with what `length` means.
fn finish_reason(finish: &FinishReason) -> String {
    match finish {
        FinishReason::Stop => "stop".into(),
        FinishReason::ToolCalls => "tool_calls".into(),
        FinishReason::Length => "length: it reached its output limit".into(),
        FinishReason::ContentFilter => "content_filter: the provider filtered it".into(),
        FinishReason::Other(other) => other.clone(),
    }
}
