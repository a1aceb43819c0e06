//! Context-mode knowledge: before each model call, each of the agent's knowledge bases in
//! context mode is searched with the run's input through its search tool (the same contract
//! as a tool call), and what it finds is added to this call's copy of the input message, each
//! base's block bounded by the agent's bound for tool results, then masked by the agent's
//! masking policy, if it has one.
//!
//! The blocks are not journaled: they are made again for each call from the index as it is,
//! like a prompt read from its file. What the model answered from them is journaled, so a
//! resumed run decides nothing again.

use std::sync::Arc;

use tracing::Instrument;

use super::agent_loop::AgentLoop;
use crate::context::Step;
use crate::knowledge::{KnowledgeHits, context_block};
use crate::model::Message;
use crate::tool::CallFrame;

/// The input message's place and its text as the user gave it, to put back after the call.
pub(super) type SavedInput = Option<(usize, String)>;

impl AgentLoop<'_> {
    /// Adds the blocks of the agent's context-mode knowledge bases to the input message at
    /// `input_at` of `messages`, for model call `turn`; what to put back after the call.
    pub(super) async fn add_knowledge(
        &self,
        messages: &mut [Message],
        input_at: Option<usize>,
        visit: u32,
        turn: u32,
    ) -> SavedInput {
        let searches = self.agent.context_knowledge();
        let at = input_at?;
        if searches.is_empty() {
            return None;
        }
        let Some(Message::User { text }) = messages.get(at) else {
            return None;
        };
        let input = text.clone();
        let arguments = serde_json::json!({ "query": truncate_query(&input) }).to_string();
        let bound = self.agent.max_result_size().value;
        let node: Arc<str> = Arc::from(self.agent.name());
        let mut blocks = Vec::with_capacity(searches.len());
        for search in searches {
            let name = search.descriptor().name();
            let call_id = format!("{name}-t{turn}");
            let step = Step::new(node.clone(), visit, call_id.as_str());
            let frame = CallFrame::new(self.execution.clone(), step);
            let span = tracing::info_span!(
                "agboss.knowledge_search",
                tool = name,
                turn,
                passages = tracing::field::Empty,
                truncated = tracing::field::Empty,
            );
            let outcome = search
                .tool()
                .invoke(&arguments, &frame)
                .instrument(span.clone())
                .await;
            if let Some(failure) = &outcome.failure {
                tracing::warn!(parent: &span, tool = name, error = %failure, "a context-mode knowledge search failed; the model call goes on without its block");
                continue;
            }
            let hits: KnowledgeHits = match serde_json::from_str(&outcome.content) {
                Ok(hits) => hits,
                Err(error) => {
                    tracing::warn!(parent: &span, tool = name, %error, "a context-mode knowledge search answered what is not its output");
                    continue;
                }
            };
            let base = name
                .strip_prefix("search-")
                .and_then(|n| n.strip_suffix("-tool"))
                .unwrap_or(name);
            span.record("passages", hits.passages.len());
            if let Some(mut block) = context_block(base, &hits.passages, bound) {
                span.record("truncated", block.truncated);
                // Masked after the bound, as a tool result is: the kept part, then the marker.
                if let Some(masking) = self.agent.masking() {
                    block = block.masked(&masking.value);
                }
                blocks.push(block.text);
            }
        }
        if blocks.is_empty() {
            return None;
        }
        let mut text = input.clone();
        for block in blocks {
            text.push_str("\n\n");
            text.push_str(&block);
        }
        messages[at] = Message::User { text };
        Some((at, input))
    }

    /// Puts back the input message [`add_knowledge`](Self::add_knowledge) changed.
    pub(super) fn restore_input(messages: &mut [Message], saved: SavedInput) {
        if let Some((at, text)) = saved
            && let Some(message) = messages.get_mut(at)
        {
            *message = Message::User { text };
        }
    }
}

/// The run's input as a query: at most the 2,000 characters the search tool's input takes
/// (its start: what a question is about is usually said first).
fn truncate_query(input: &str) -> &str {
    match input.char_indices().nth(2000) {
        Some((end, _)) => &input[..end],
        None => input,
    }
}
