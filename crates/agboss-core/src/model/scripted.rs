//! [`ScriptedModel`]: a chat model that replays a script, for tests and for running without a
//! provider.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::context::Signal;
use crate::model::{
    ChatFuture, ChatModel, ChatRequest, ChatResponse, FinishReason, Message, ModelError, ToolCall,
    ToolChoice, Usage,
};

type Check = Arc<dyn Fn(&ChatRequest) -> Result<(), String> + Send + Sync>;

/// One scripted answer, with what the request it answers must look like.
#[derive(Clone)]
pub struct Turn {
    response: ChatResponse,
    checks: Vec<(String, Check)>,
}

impl Turn {
    /// Answers with `text` and no tool call.
    pub fn text(text: impl Into<String>) -> Turn {
        Turn::respond(ChatResponse {
            text: Some(text.into()),
            finish: FinishReason::Stop,
            ..ChatResponse::default()
        })
    }

    /// Asks for one call of `tool` with `arguments` (a JSON value), id `call_0`.
    pub fn call(tool: &str, arguments: serde_json::Value) -> Turn {
        Turn::calls([(tool, arguments)])
    }

    /// Asks for several calls in one answer (ids `call_0`, `call_1`, ...).
    pub fn calls<'a>(calls: impl IntoIterator<Item = (&'a str, serde_json::Value)>) -> Turn {
        let calls = calls
            .into_iter()
            .enumerate()
            .map(|(i, (name, arguments))| ToolCall {
                provider_id: Some(format!("call_{i}")),
                name: name.into(),
                arguments: arguments.to_string(),
            })
            .collect();
        Turn::tool_calls(calls)
    }

    /// Asks for exactly these calls: any ids (or none), any argument text, malformed included.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Turn {
        Turn::respond(ChatResponse {
            tool_calls: calls,
            finish: FinishReason::ToolCalls,
            ..ChatResponse::default()
        })
    }

    /// Answers with `response` as it is.
    pub fn respond(response: ChatResponse) -> Turn {
        Turn {
            response,
            checks: Vec::new(),
        }
    }

    /// Reports this usage.
    pub fn usage(mut self, input_tokens: u64, output_tokens: u64) -> Turn {
        self.response.usage = Usage {
            input_tokens,
            output_tokens,
        };
        self
    }

    /// The request's last message must be a tool result containing `text`.
    pub fn expect_tool_result(self, text: &str) -> Turn {
        let wanted = text.to_owned();
        self.expect(
            &format!("the last message is a tool result containing {text:?}"),
            move |r| match r.messages.last() {
                Some(Message::Tool { content, .. }) if content.contains(&wanted) => Ok(()),
                other => Err(format!("the last message is {other:?}")),
            },
        )
    }

    /// The request must offer the model `choice`.
    pub fn expect_tool_choice(self, choice: ToolChoice) -> Turn {
        self.expect(&format!("tool choice {choice:?}"), move |r| {
            if r.tool_choice == choice {
                Ok(())
            } else {
                Err(format!("the tool choice is {:?}", r.tool_choice))
            }
        })
    }

    /// The request must satisfy `check`, described as `what` in the error when it does not.
    pub fn expect(
        mut self,
        what: &str,
        check: impl Fn(&ChatRequest) -> Result<(), String> + Send + Sync + 'static,
    ) -> Turn {
        self.checks.push((what.to_owned(), Arc::new(check)));
        self
    }
}

impl fmt::Debug for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Turn")
            .field("response", &self.response)
            .field(
                "checks",
                &self.checks.iter().map(|(w, _)| w).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// A model that answers each request with the next [`Turn`] of its script, and fails the call
/// with a clear error when the script has run out or a turn's expectations do not hold. It
/// records every request it was sent.
///
/// ```
/// use agboss_core::model::{ScriptedModel, Turn};
///
/// let model = ScriptedModel::new([
///     Turn::call("note-search-tool", serde_json::json!({"words": "dentist"})),
///     Turn::text("Tuesday at 9.").expect_tool_result("Dentist"),
/// ]);
/// assert_eq!(model.remaining(), 2);
/// ```
#[derive(Clone, Default)]
pub struct ScriptedModel {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<ChatRequest>>,
}

impl ScriptedModel {
    /// A model that answers with `turns`, in order.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> ScriptedModel {
        ScriptedModel {
            inner: Arc::new(Inner {
                turns: Mutex::new(turns.into_iter().collect()),
                requests: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Adds turns at the end of the script.
    pub fn then(&self, turns: impl IntoIterator<Item = Turn>) {
        lock(&self.inner.turns).extend(turns);
    }

    /// Turns not yet played.
    pub fn remaining(&self) -> usize {
        lock(&self.inner.turns).len()
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.inner.requests).clone()
    }

    fn answer(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let asked = {
            let mut requests = lock(&self.inner.requests);
            requests.push(request.clone());
            requests.len()
        };
        let turn = lock(&self.inner.turns).pop_front().ok_or_else(|| {
            ModelError::Script(format!(
                "the script has no turn left for request {asked} (model {}); its last message: {}",
                request.model,
                last_message(request)
            ))
        })?;
        for (what, check) in &turn.checks {
            check(request).map_err(|found| {
                ModelError::Script(format!("request {asked} should have {what}, but {found}"))
            })?;
        }
        Ok(turn.response)
    }
}

impl ChatModel for ScriptedModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, signal: &'a Signal) -> ChatFuture<'a> {
        let result = match signal.reason() {
            Some(reason) => Err(ModelError::Aborted(reason)),
            None => self.answer(request),
        };
        Box::pin(std::future::ready(result))
    }

    /// The scripted text a word at a time (each piece with the spaces after it), as a
    /// provider's stream would bring it; then the calls begun.
    fn chat_streaming<'a>(
        &'a self,
        request: &'a ChatRequest,
        signal: &'a Signal,
        deltas: super::DeltaSink<'a>,
    ) -> ChatFuture<'a> {
        Box::pin(async move {
            let response = self.chat(request, signal).await?;
            for piece in response
                .text
                .as_deref()
                .unwrap_or_default()
                .split_inclusive(' ')
            {
                deltas(super::ChatDelta::Text(piece));
            }
            for call in &response.tool_calls {
                deltas(super::ChatDelta::ToolCall {
                    id: call.provider_id.as_deref().unwrap_or_default(),
                    name: &call.name,
                });
            }
            Ok(response)
        })
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("remaining", &self.remaining())
            .field("requests", &lock(&self.inner.requests).len())
            .finish()
    }
}

fn last_message(request: &ChatRequest) -> String {
    let text = format!("{:?}", request.messages.last());
    if text.chars().count() > 160 {
        text.chars().take(157).collect::<String>() + "..."
    } else {
        text
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}
