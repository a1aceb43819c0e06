//! [`HttpChat`]: a model behind one of the HTTP wire formats, its answer read whole
//! ([`chat`](ChatModel::chat)) or streamed ([`chat_streaming`](ChatModel::chat_streaming)).

use serde_json::Value;

use super::http::{Client, Forced, Post};
use super::{BodyOptions, Dialect, stream};
use crate::context::Signal;
use crate::model::{
    ChatFuture, ChatModel, ChatRequest, ChatResponse, DeltaSink, ModelError, ToolChoice,
};

/// A chat model behind an HTTP API: one POST per call, in the API's wire format, its answer
/// read whole or streamed.
#[derive(Debug)]
pub(super) struct HttpChat {
    client: Client,
    wire: &'static Dialect,
    options: BodyOptions,
}

impl ChatModel for HttpChat {
    fn chat<'a>(&'a self, request: &'a ChatRequest, signal: &'a Signal) -> ChatFuture<'a> {
        Box::pin(async move {
            let body = (self.wire.body)(request, self.options);
            let path = (self.wire.path)(&request.model);
            let answer = self
                .client
                .post_json(self.post(request, &path, &body), signal)
                .await?;
            self.parse(&path, &answer)
        })
    }

    /// Over server-sent events, each API's stream folded into the body of its whole answer
    /// and read by the same parser (see `stream`).
    fn chat_streaming<'a>(
        &'a self,
        request: &'a ChatRequest,
        signal: &'a Signal,
        deltas: DeltaSink<'a>,
    ) -> ChatFuture<'a> {
        Box::pin(async move {
            let mut body = (self.wire.body)(request, self.options);
            if let Value::Object(fields) = &mut body {
                (self.wire.stream.body)(fields);
            }
            let path = (self.wire.stream.path)(&request.model);
            let mut reading = stream::StreamReading::new(self.wire.stream, deltas);
            let streamed = self
                .client
                .post(self.post(request, &path, &body), signal, &mut reading)
                .await?;
            let response = self.parse(&path, &streamed.body)?;
            if streamed.whole {
                crate::model::delta::send_whole(&response, deltas);
            }
            Ok(response)
        })
    }
}

impl HttpChat {
    pub(super) fn new(client: Client, wire: &'static Dialect, options: BodyOptions) -> HttpChat {
        HttpChat {
            client,
            wire,
            options,
        }
    }

    /// The POST of `request`'s `body` to `path`.
    fn post<'a>(&'a self, request: &'a ChatRequest, path: &'a str, body: &'a Value) -> Post<'a> {
        Post {
            path,
            model: &request.model,
            body,
            key_header: self.wire.key_header,
            headers: self.wire.headers,
            forced: forced(request),
        }
    }

    /// The answer in the body `path` answered with.
    fn parse(&self, path: &str, answer: &Value) -> Result<ChatResponse, ModelError> {
        (self.wire.parse)(self.client.provider(), answer)
            .map_err(|e| e.at_url(&self.client.url(path)))
    }
}

/// The tool choice `request` forces: `required` or a tool's name, with tools to choose from
/// (without tools, no dialect sends a tool choice).
fn forced(request: &ChatRequest) -> Option<Forced<'_>> {
    let forces = matches!(
        request.tool_choice,
        ToolChoice::Required | ToolChoice::Tool(_)
    );
    (forces && !request.tools.is_empty()).then(|| Forced {
        choice: &request.tool_choice,
        tool: request.tools.first().map(|tool| tool.name.as_str()),
    })
}
