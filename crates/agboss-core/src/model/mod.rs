//! Chat models: the messages an agent exchanges with a model, the [`ChatModel`] trait the
//! providers implement, the router that picks a provider for a model id, and tools as a model
//! sees them ([`ToolDefinition`], written in each provider's [`WireFormat`]).
//!
//! A model id is `vendor/model`: `openai/...`, `anthropic/...` and `google/...` go to those
//! vendors' own APIs; any other vendor (`moonshotai/kimi-k2.6`) goes to an OpenAI-compatible
//! endpoint such as OpenRouter, or to a local server configured under `[models.<name>]`.
//!
//! Files: `message.rs`, `request.rs`, `reasoning.rs`, `error.rs` (what goes to a model and
//! back); `delta.rs` (a streamed answer's deltas and their sink); `spans.rs` (the span of one
//! model call); `router.rs`, `route.rs`, `settings.rs` (which provider answers a model id);
//! `providers/` (the HTTP providers, by feature); `definition/` (tools as a model sees them);
//! `scripted.rs` ([`ScriptedModel`]); `client.rs` ([`ModelClient`], a tool's own access).

mod client;
mod definition;
mod delta;
mod error;
mod message;
pub mod providers;
mod reasoning;
mod request;
mod route;
mod router;
#[cfg(test)]
mod router_tests;
mod scripted;
mod settings;
pub(crate) mod spans;

pub use client::ModelClient;
pub use definition::{ToolDefinition, WireFormat, tool_definition_of};
pub use delta::{ChatDelta, DeltaSink};
pub use error::{ModelError, ToolChoiceFailure};
pub use message::{Message, ToolCall};
pub use reasoning::{Reasoning, SignedPart};
pub use request::{ChatRequest, ChatResponse, FinishReason, Thinking, ToolChoice, Usage};
pub use route::{ModelRoute, Prices};
pub use router::ModelRouter;
pub use scripted::{ScriptedModel, Turn};
pub use settings::{ModelSettings, PriceSettings};

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::context::Signal;

/// A boxed future of a model's answer.
pub type ChatFuture<'a> =
    Pin<Box<dyn Future<Output = Result<ChatResponse, ModelError>> + Send + 'a>>;

/// A chat model behind some API. Implementations stop when `signal` fires and never panic on
/// what the API sends.
pub trait ChatModel: Send + Sync {
    /// Sends `request` and returns the model's answer.
    fn chat<'a>(&'a self, request: &'a ChatRequest, signal: &'a Signal) -> ChatFuture<'a>;

    /// The same, handing `deltas` the answer's pieces as they come (text, tool calls begun;
    /// see [`ChatDelta`]) and returning the whole answer at the end. Providers that stream
    /// override it; the default sends the whole text as one piece once the answer is in.
    fn chat_streaming<'a>(
        &'a self,
        request: &'a ChatRequest,
        signal: &'a Signal,
        deltas: DeltaSink<'a>,
    ) -> ChatFuture<'a> {
        Box::pin(async move {
            let response = self.chat(request, signal).await?;
            delta::send_whole(&response, deltas);
            Ok(response)
        })
    }
}

static FORBIDDEN: AtomicBool = AtomicBool::new(false);

/// Forbids (or allows again) every real model request in this process: each fails with
/// [`ModelError::Forbidden`]. Tests call it so that a forgotten
/// scripted model never reaches an API. The variable `AGBOSS_FORBID_REAL_MODELS=1` does the
/// same for a whole test run.
pub fn forbid_real_requests(forbidden: bool) {
    FORBIDDEN.store(forbidden, Ordering::SeqCst);
}

/// Whether real model requests are forbidden now.
pub fn real_requests_forbidden() -> bool {
    FORBIDDEN.load(Ordering::SeqCst)
        || std::env::var("AGBOSS_FORBID_REAL_MODELS").is_ok_and(|v| v == "1" || v == "true")
}
