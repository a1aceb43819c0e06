//! Context-mode knowledge: the agent's knowledge bases in context mode searched once per run,
//! before its first model call, with the run's input through each base's search tool (the same
//! contract as a tool call); what they find is journaled (`ContextAdded`), each base's block
//! bounded by the agent's bound for tool results, then masked by its masking policy, if it has
//! one. Every model call of the run, and of the run resumed in another process, adds the
//! journaled blocks to its copy of the input message: the model reads what the first call
//! read, whatever the index says now.
//!
//! A block of a base not declared `trusted` is content nobody vouches for: the permission
//! checker is told so, though it rides the person's message (`history.rs`).

use std::sync::Arc;

use tracing::Instrument;

use super::RunError;
use super::cx::Cx;
use crate::agent::AppTool;
use crate::context::Step;
use crate::journal::{LoopEvent, LoopState};
use crate::knowledge::{KnowledgeHits, context_block};
use crate::model::Message;
use crate::tool::CallFrame;

/// The input message's place and its text as the user gave it, to put back after the call.
pub(super) type SavedInput = Option<(usize, String)>;

impl Cx<'_> {
    /// Searches the agent's knowledge bases in context mode and journals what they found, the
    /// first time the run needs it; nothing for an agent without any, or a run that has them.
    pub(super) async fn ensure_context(&self, state: &mut LoopState) -> Result<(), RunError> {
        let searches = self.agent.context_knowledge();
        if state.context.is_some() || searches.is_empty() {
            return Ok(());
        }
        let Some(Message::User { text }) = state.input_at.and_then(|at| state.messages.get(at))
        else {
            return Ok(());
        };
        let arguments = serde_json::json!({ "query": truncate_query(text) }).to_string();
        let mut blocks = Vec::with_capacity(searches.len());
        let mut untrusted = false;
        for search in searches {
            if let Some(block) = self.search(search, &arguments, state.visit).await {
                untrusted |= search.descriptor().has_untrusted_output();
                blocks.push(block);
            }
        }
        self.record(state, LoopEvent::ContextAdded { blocks, untrusted })
            .await
    }

    /// What knowledge base `search` finds for `arguments`, as its block (bounded, masked); a
    /// search that fails or finds nothing gives none, and the run goes on without it.
    async fn search(&self, search: &AppTool, arguments: &str, visit: u32) -> Option<String> {
        let name = search.descriptor().name();
        let call_id = format!("{name}-context");
        let step = Step::new(Arc::from(self.agent.name()), visit, call_id.as_str());
        let frame = CallFrame::new(self.execution.clone(), step);
        let span = tracing::info_span!(
            "agboss.knowledge_search",
            tool = name,
            passages = tracing::field::Empty,
            truncated = tracing::field::Empty,
        );
        let outcome = search
            .tool()
            .invoke(arguments, &frame)
            .instrument(span.clone())
            .await;
        if let Some(failure) = &outcome.failure {
            tracing::warn!(parent: &span, tool = name, error = %failure, "a context-mode knowledge search failed; the run goes on without its block");
            return None;
        }
        let hits: KnowledgeHits = match serde_json::from_str(&outcome.content) {
            Ok(hits) => hits,
            Err(error) => {
                tracing::warn!(parent: &span, tool = name, %error, "a context-mode knowledge search answered what is not its output");
                return None;
            }
        };
        let base = name
            .strip_prefix("search-")
            .and_then(|n| n.strip_suffix("-tool"))
            .unwrap_or(name);
        span.record("passages", hits.passages.len());
        let bound = self.agent.max_result_size().value;
        let mut block = context_block(base, &hits.passages, bound)?;
        span.record("truncated", block.truncated);
        // Masked after the bound, as a tool result is: the kept part, then the marker.
        if let Some(masking) = self.agent.masking() {
            block = block.masked(&masking.value);
        }
        Some(block.text)
    }
}

/// Adds `blocks` to the input message at `input_at` of `messages`, for one model call; what to
/// put back after it.
pub(super) fn add_context(
    messages: &mut [Message],
    input_at: Option<usize>,
    blocks: &[String],
) -> SavedInput {
    let at = input_at?;
    if blocks.is_empty() {
        return None;
    }
    let Some(Message::User { text }) = messages.get(at) else {
        return None;
    };
    let input = text.clone();
    let mut text = input.clone();
    for block in blocks {
        text.push_str("\n\n");
        text.push_str(block);
    }
    messages[at] = Message::User { text };
    Some((at, input))
}

/// Puts back the input message [`add_context`] changed.
pub(super) fn restore_input(messages: &mut [Message], saved: SavedInput) {
    if let Some((at, text)) = saved
        && let Some(message) = messages.get_mut(at)
    {
        *message = Message::User { text };
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
