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
