//! What a model says while it answers: [`ChatDelta`]s, handed to a [`DeltaSink`] by
//! [`ChatModel::chat_streaming`](super::ChatModel::chat_streaming) as they come.
//!
//! A streamed call still ends with the whole [`ChatResponse`](super::ChatResponse), the one the
//! loop acts on and the journal records: deltas are for whoever watches, never what runs. A tool
//! call runs only once the stream has ended and its arguments are whole.

/// A piece of an answer, as it came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatDelta<'a> {
    /// Text the model wrote.
    Text(&'a str),
    /// The model began a tool call: its id and the tool's name (its arguments follow on the
    /// wire and are assembled into the whole call).
    ToolCall {
        /// The call's id, as the model gave it (empty when the API gives none).
        id: &'a str,
        /// The tool's name.
        name: &'a str,
    },
    /// The attempt failed after some of it came, and the call is tried again: what came
    /// since the call began (or since the last `Restart`) is void.
    Restart,
}

/// Where deltas go: called in order, from the task making the call; it must not block.
pub type DeltaSink<'a> = &'a (dyn Fn(ChatDelta<'_>) + Send + Sync);

/// Sends a whole answer as its deltas: its text in one piece (none when empty), then each
/// tool call begun. What a model that does not stream (or an answer read whole) tells.
pub(crate) fn send_whole(response: &super::ChatResponse, deltas: DeltaSink<'_>) {
    if let Some(text) = response.text.as_deref().filter(|t| !t.is_empty()) {
        deltas(ChatDelta::Text(text));
    }
    for call in &response.tool_calls {
        deltas(ChatDelta::ToolCall {
            id: call.provider_id.as_deref().unwrap_or_default(),
            name: &call.name,
        });
    }
}
