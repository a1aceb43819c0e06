//! What an agent remembers of its thread: its own last turns as they were, summaries of older
//! ones (its `history` setting), within its `history_max_size`, read from the store's record of
//! the thread's executions.

use std::sync::{Mutex, PoisonError};

use agboss_rules::codes;

use super::Application;
use crate::agent::{AppAgent, PastTurn, fit_history, fit_turn};
use crate::base::Problem;
use crate::context::Signal;
use crate::journal::{Answer, ExecutionRecord, ExecutionStatus, LoopEvent, owner_mismatch};
use crate::model::{ChatRequest, Message, ModelError, Thinking, ToolChoice, Usage};
use crate::run::RunError;
use crate::units::Usd;

/// The history a run starts with, and what its summaries cost.
#[derive(Debug, Default)]
pub(crate) struct History {
    pub(crate) messages: Vec<Message>,
    pub(crate) usage: Usage,
    pub(crate) cost: Usd,
}

/// What the agent's model is told when it summarizes a turn.
const SUMMARIZE: &str = "You keep the memory of a conversation. Summarize the exchange you are given in one or two sentences, for the assistant's later turns: keep names, numbers, dates and decisions; do not add anything.";

impl Application {
    /// Whether whoever names `owner` may act in `thread` (start a run in it, read its history):
    /// the thread keeps the owner its first run named; anyone else is refused with
    /// `[thread.owner-mismatch]`, before anything of the thread is read. A run that races past
    /// this check is refused by the store when it journals its start.
    pub(crate) async fn admit(&self, thread: &str, owner: Option<&str>) -> Result<(), RunError> {
        let held = self
            .store
            .thread_owner(thread)
            .await
            .map_err(RunError::Store)?;
        match owner_mismatch(thread, held.as_ref(), owner) {
            Some(message) => Err(RunError::Refused(Problem::new(
                &codes::THREAD_OWNER_MISMATCH,
                message,
            ))),
            None => Ok(()),
        }
    }

    /// The history of `thread` for `agent`, from the turns of the thread that `agent` ran (never
    /// another agent's, whose answers may name tools it does not have): its last `turns`
    /// answered turns as messages, and summaries of the `summaries` turns before them, each made
    /// once by the agent's model (and kept in the store) when it is first read; all within its
    /// `history_max_size`, newest first (`agent::history` says what drops out first).
    pub(crate) async fn history(
        &self,
        agent: &AppAgent,
        thread: &str,
        signal: &Signal,
    ) -> Result<History, RunError> {
        let setting = agent.descriptor().history();
        if setting.turns() == 0 && setting.summaries() == 0 {
            return Ok(History::default());
        }
        let records = self.store.thread(thread).await.map_err(RunError::Store)?;
        let answered: Vec<(&ExecutionRecord, &Answer)> = records
            .iter()
            .filter(|r| r.agent == agent.name())
            .filter_map(|r| match &r.status {
                ExecutionStatus::Answered { answer } => Some((r, answer)),
                _ => None,
            })
            .collect();
        let turns: Vec<PastTurn<'_>> = answered
            .iter()
            .map(|(record, answer)| PastTurn {
                input: &record.input,
                answer: answer_text(answer),
                summary: record.summary.as_deref(),
            })
            .collect();
        let bound = agent.history_max_size().value;
        let spent = Mutex::new((Usage::default(), Usd::ZERO));
        let messages = fit_history(&turns, setting, bound, |i| {
            let (record, answer) = (answered[i].0, turns[i].answer.as_str());
            let spent = &spent;
            async move {
                let (summary, usage, cost) = self.summarize(agent, record, answer, signal).await?;
                let mut spent = spent.lock().unwrap_or_else(PoisonError::into_inner);
                spent.0 += usage;
                spent.1 += cost;
                Ok(summary)
            }
        })
        .await?;
        let (usage, cost) = spent.into_inner().unwrap_or_else(PoisonError::into_inner);
        Ok(History {
            messages,
            usage,
            cost,
        })
    }

    /// Summarizes the turn of `record`, which `answer`ed, with `agent`'s model (what it was
    /// asked and answered, within the agent's `history_max_size`), keeps the summary in the store
    /// (after the turn's end, in its own journal); the summary and what it cost.
    async fn summarize(
        &self,
        agent: &AppAgent,
        record: &ExecutionRecord,
        answer: &str,
        signal: &Signal,
    ) -> Result<(String, Usage, Usd), RunError> {
        let router = self.router().map_err(RunError::Model)?;
        let (model, wire) = router.resolve(agent.model()).map_err(RunError::Model)?;
        let (input, answer) = fit_turn(&record.input, answer, agent.history_max_size().value)
            .unwrap_or_else(|| (record.input.clone(), answer.to_owned()));
        let request = ChatRequest {
            model: wire,
            system: SUMMARIZE.to_owned(),
            messages: vec![Message::user(format!(
                "The user asked:\n{input}\n\nThe assistant answered:\n{answer}"
            ))],
            tools: Vec::new(),
            tool_choice: ToolChoice::None,
            thinking: Thinking::Off,
            max_output_tokens: Some(300),
        };
        let response = model
            .chat(&request, signal)
            .await
            .map_err(RunError::Model)?;
        let cost = router.cost(agent.model(), response.usage);
        let summary = response
            .text
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                RunError::Model(ModelError::MalformedResponse {
                    provider: agent.model().to_owned(),
                    detail: "the model gave an empty summary of an earlier turn".into(),
                    url: String::new(),
                })
            })?;
        let summary = self.keep_summary(record, summary).await?;
        Ok((summary, response.usage, cost))
    }

    /// Keeps `summary` with the turn of `record` (a `summarized` event after its end); the
    /// summary another run kept first, if one did.
    async fn keep_summary(
        &self,
        record: &ExecutionRecord,
        summary: String,
    ) -> Result<String, RunError> {
        let event = LoopEvent::Summarized {
            summary: summary.clone(),
        };
        // A run of the same thread may have summarized it meanwhile: the first summary stays.
        match self
            .store
            .append(&record.execution_id, record.events, &event)
            .await
        {
            Ok(()) => Ok(summary),
            Err(error) if error.is_conflict() => {
                let kept = self
                    .store
                    .execution(&record.execution_id)
                    .await
                    .map_err(RunError::Store)?
                    .and_then(|r| r.summary);
                Ok(kept.unwrap_or(summary))
            }
            Err(error) => {
                tracing::warn!(
                    execution_id = %record.execution_id,
                    code = codes::STORE.id(),
                    %error,
                    "a turn's summary could not be kept; later runs will make it again"
                );
                Ok(summary)
            }
        }
    }
}

/// What the assistant said: its text, or its structured answer as JSON.
fn answer_text(answer: &Answer) -> String {
    match answer {
        Answer::Text(text) => text.clone(),
        Answer::Structured(value) => value.to_string(),
    }
}
