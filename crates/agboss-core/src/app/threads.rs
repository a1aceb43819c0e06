//! What an agent remembers of its thread: the last turns as they were, summaries of older ones
//! (its `history` setting), read from the store's record of the thread's executions.

use agboss_rules::codes;

use super::Application;
use crate::agent::AppAgent;
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

    /// The history of `thread` for `agent`: its last `turns` answered turns as messages, and
    /// summaries of the `summaries` turns before them, each made once by the agent's model (and
    /// kept in the store) when it first falls out of the last turns.
    pub(crate) async fn history(
        &self,
        agent: &AppAgent,
        thread: &str,
        signal: &Signal,
    ) -> Result<History, RunError> {
        let setting = agent.descriptor().history();
        let (keep, summarize) = (setting.turns() as usize, setting.summaries() as usize);
        if keep == 0 && summarize == 0 {
            return Ok(History::default());
        }
        let records = self.store.thread(thread).await.map_err(RunError::Store)?;
        let answered: Vec<(&ExecutionRecord, &Answer)> = records
            .iter()
            .filter_map(|r| match &r.status {
                ExecutionStatus::Answered { answer } => Some((r, answer)),
                _ => None,
            })
            .collect();
        let verbatim_from = answered.len().saturating_sub(keep);
        let summaries_from = verbatim_from.saturating_sub(summarize);
        let mut history = History::default();
        let mut summaries = Vec::new();
        for (record, answer) in &answered[summaries_from..verbatim_from] {
            let summary = match &record.summary {
                Some(summary) => summary.clone(),
                None => {
                    self.summarize(agent, record, answer, signal, &mut history)
                        .await?
                }
            };
            summaries.push(format!("- {summary}"));
        }
        if !summaries.is_empty() {
            history.messages.push(Message::user(format!(
                "Earlier in this conversation (summarized, oldest first):\n{}",
                summaries.join("\n")
            )));
        }
        for (record, answer) in &answered[verbatim_from..] {
            history.messages.push(Message::user(record.input.clone()));
            history.messages.push(Message::Assistant {
                text: Some(answer_text(answer)),
                tool_calls: Vec::new(),
            });
        }
        Ok(history)
    }

    /// Summarizes the turn of `record` with `agent`'s model, keeps the summary in the store
    /// (after the turn's end, in its own journal) and counts what it cost in `history`.
    async fn summarize(
        &self,
        agent: &AppAgent,
        record: &ExecutionRecord,
        answer: &Answer,
        signal: &Signal,
        history: &mut History,
    ) -> Result<String, RunError> {
        let router = self.router().map_err(RunError::Model)?;
        let (model, wire) = router.resolve(agent.model()).map_err(RunError::Model)?;
        let request = ChatRequest {
            model: wire,
            system: SUMMARIZE.to_owned(),
            messages: vec![Message::user(format!(
                "The user asked:\n{}\n\nThe assistant answered:\n{}",
                record.input,
                answer_text(answer)
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
        history.usage += response.usage;
        history.cost += router.cost(agent.model(), response.usage);
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
