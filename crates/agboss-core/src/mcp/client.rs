//! [`McpClient`]: what an `#[mcp_tool]` declares to call its server.

use std::marker::PhantomData;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ContentBlock, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::server::{McpConnection, Session};
use super::{McpError, McpHub, McpServer, McpServerDescriptor};
use crate::component::Requirement;
use crate::context::Signal;
use crate::deps::Unresolved;
use crate::tool::{Asker, Dependency, ResultCut, Scope, ToolError};

/// A connection to server `S`, for one tool call: declare it as a field of an `#[mcp_tool]`.
///
/// [`call`](Self::call) calls the server tool the attribute's `calls = ".."` names with the
/// input as its arguments, under the tool call's signal: when the call times out or the
/// execution is cancelled, the server is sent MCP's cancel notification. An answer with
/// `isError` is a tool error with the server's message.
///
/// When the server's `#[mcp_server]` names an `elicitation` role and the call's tool declares
/// it (every `#[mcp_tool]` of the server does), the server's requests for input during the call
/// are asked through that role, like `Questions::ask`: docs/mcp.md, "Elicitation".
pub struct McpClient<S> {
    connection: Arc<McpConnection>,
    bound: Option<&'static str>,
    signal: Signal,
    /// Where the call's result is said to be cut, when the server's answer was longer than
    /// the client reads of one message.
    cut: ResultCut,
    /// What the call asks the server's elicitation role through, when it may.
    asker: Option<Arc<dyn Asker>>,
    _server: PhantomData<fn() -> S>,
}

impl<S: McpServer> McpClient<S> {
    /// Calls the server tool this `#[mcp_tool]` is bound to (`calls = ".."`).
    pub async fn call<I: Serialize, O: DeserializeOwned>(&self, input: &I) -> Result<O, ToolError> {
        let tool = self.bound.ok_or_else(|| {
            ToolError::new(format!(
                "this tool is not bound to a tool of server `{}`: give #[mcp_tool] `calls = \"..\"`, or use call_tool",
                S::DESCRIPTOR.name()
            ))
        })?;
        self.call_tool(tool, input).await
    }

    /// Calls the server's tool `tool` (one its `#[mcp_server]` declares) with `input`.
    ///
    /// The answer becomes `O`: its structured content when the server sends some; else its
    /// text, as `{"text": ..}` (for `PlainText`) or as JSON.
    pub async fn call_tool<I: Serialize, O: DeserializeOwned>(
        &self,
        tool: &str,
        input: &I,
    ) -> Result<O, ToolError> {
        let server = S::DESCRIPTOR.name();
        if !S::DESCRIPTOR.declares(tool) {
            return Err(McpError::Undeclared {
                server,
                tool: tool.into(),
            }
            .into());
        }
        let arguments = match serde_json::to_value(input) {
            Ok(Value::Object(map)) => map,
            Ok(other) => {
                return Err(ToolError::new(format!(
                    "the arguments of `{tool}` must be a JSON object, not {other}"
                )));
            }
            Err(e) => {
                return Err(ToolError::new(format!(
                    "the arguments of `{tool}` cannot be written as JSON: {e}"
                )));
            }
        };
        let result = self.send(tool, arguments).await?;
        if let Some(read) = result
            .meta
            .as_ref()
            .and_then(|meta| meta.get(super::transport::CUT_META))
            .and_then(|cut| cut.get("bytesRead"))
            .and_then(Value::as_u64)
        {
            self.cut.record(read);
        }
        read_result(server, tool, result)
    }

    async fn send(
        &self,
        tool: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<CallToolResult, McpError> {
        let server = S::DESCRIPTOR.name();
        let session = self.connection.session().await?;
        // Sent only while the tool's definition is the approved one (its pin).
        match &session.listing {
            Some(listing) => {
                if let Err(refused) = listing.admit(&session.peer, tool).await {
                    // The server stopped while its tools were listed again (it said they
                    // changed): the call says so as one that saw it stop mid-call does, and
                    // the next call starts it again.
                    if session.peer.is_transport_closed() {
                        return Err(self.stopped(&session).await);
                    }
                    return Err(refused);
                }
            }
            None => {
                return Err(McpError::Protocol {
                    server,
                    detail: format!("`{tool}` was never listed, so no call is sent"),
                });
            }
        }
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
        ));
        let elicitations = self.connection.elicitations();
        // A server with an elicitation role has its calls registered, under the lock its
        // requests for input take first, so that one that comes at once finds its call.
        let sending = match elicitations.role() {
            Some(_) => Some(elicitations.sending().await),
            None => None,
        };
        let mut handle = match session
            .peer
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
        {
            Ok(handle) => handle,
            Err(_) => return Err(self.stopped(&session).await),
        };
        let mut registered =
            sending.map(|_sending| elicitations.register(handle.id.clone(), self.asker.clone()));
        let mut guard = CancelOnDrop {
            peer: session.peer.clone(),
            id: Some(handle.id.clone()),
            signal: self.signal.clone(),
        };
        let answer = match registered.as_mut() {
            None => (&mut handle.rx).await,
            Some(registered) => tokio::select! {
                answer = &mut handle.rx => answer,
                Ok(why) = &mut registered.stopped => {
                    // The server was told the call is cancelled, before its request was answered.
                    guard.id = None;
                    return Err(McpError::Elicitation { server, detail: why });
                }
            },
        };
        guard.id = None;
        if matches!(answer, Ok(Ok(_) | Err(ServiceError::McpError(_)))) {
            self.connection.answered();
        }
        match answer {
            Ok(Ok(ServerResult::CallToolResult(result))) => Ok(result),
            Ok(Ok(_)) => Err(McpError::Protocol {
                server,
                detail: format!("`{tool}` was answered with something that is not a tool result"),
            }),
            Ok(Err(ServiceError::McpError(error))) => Err(McpError::Protocol {
                server,
                detail: format!("`{tool}` failed: {}", error.message),
            }),
            // Over HTTP the request's own failure says why (a body over `MESSAGE_CAP`, a
            // refused connection); a stdio server's end says it in its exit and stderr.
            Ok(Err(ServiceError::TransportSend(error)))
                if matches!(S::DESCRIPTOR.transport(), super::McpTransport::Http { .. }) =>
            {
                let why = super::server::without_type_names(&error.to_string());
                Err(self.stopped_because(&session, &why).await)
            }
            Ok(Err(ServiceError::TransportClosed | ServiceError::TransportSend(_))) | Err(_) => {
                Err(self.stopped(&session).await)
            }
            Ok(Err(other)) => Err(McpError::Protocol {
                server,
                detail: other.to_string(),
            }),
        }
    }

    async fn stopped(&self, session: &Session) -> McpError {
        McpError::Stopped {
            server: S::DESCRIPTOR.name(),
            reason: self.connection.broken(session).await,
        }
    }

    /// Like [`stopped`](Self::stopped), with what the request's failure said after the reason.
    async fn stopped_because(&self, session: &Session, why: &str) -> McpError {
        McpError::Stopped {
            server: S::DESCRIPTOR.name(),
            reason: format!("{}: {why}", self.connection.broken(session).await),
        }
    }
}

/// Sends the cancel notification for a call that was dropped before its answer: the contract
/// drops a call on its timeout and on the execution's cancellation.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
    signal: Signal,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let reason = self
            .signal
            .reason()
            .map_or_else(|| "the call was dropped".to_owned(), |r| r.to_string());
        let peer = self.peer.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                    .await;
            });
        }
    }
}

/// What the output type `O` reads of the server's answer.
fn read_result<O: DeserializeOwned>(
    server: &'static str,
    tool: &str,
    result: CallToolResult,
) -> Result<O, ToolError> {
    let text = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!("[image {}]", image.mime_type),
            ContentBlock::Audio(audio) => format!("[audio {}]", audio.mime_type),
            ContentBlock::Resource(resource) => format!("[resource {:?}]", resource.resource),
            ContentBlock::ResourceLink(link) => format!("[resource link {}]", link.uri),
            _ => "[content of a kind this client does not know]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    if result.is_error == Some(true) {
        let message = if text.is_empty() {
            "the server reported an error without a message".to_owned()
        } else {
            text
        };
        return Err(ToolError::new(message));
    }
    let unreadable = |what: String| -> ToolError {
        McpError::Unreadable {
            server,
            tool: tool.into(),
            what,
        }
        .into()
    };
    // Structured content when the output type reads it; servers that send both (the text for
    // models that do not read structure) are read as text otherwise.
    let mut structured_problem = None;
    if let Some(structured) = result.structured_content {
        match serde_json::from_value(structured) {
            Ok(output) => return Ok(output),
            Err(e) => structured_problem = Some(e.to_string()),
        }
    }
    if let Ok(output) = serde_json::from_value(serde_json::json!({ "text": text })) {
        return Ok(output);
    }
    if let Some(problem) = structured_problem {
        return Err(unreadable(format!(
            "structured content its output type does not read: {problem}"
        )));
    }
    serde_json::from_str(&text).map_err(|e| unreadable(format!("text its output type does not read as JSON ({e}); declare the output PlainText to take text")))
}

impl<S: McpServer> Dependency for McpClient<S> {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        let hub = scope.providers().get::<McpHub>()?;
        // The server tool this tool forwards to, when the field is of the server it is bound to.
        let bound = scope
            .descriptor()
            .origin()
            .remote()
            .filter(|remote| {
                remote
                    .declaration::<McpServerDescriptor>()
                    .is_some_and(|server| std::ptr::eq(server, S::DESCRIPTOR))
            })
            .map(|remote| remote.tool());
        Ok(McpClient {
            connection: hub.connection_for(S::DESCRIPTOR, scope.execution().owner_id()),
            bound,
            signal: scope.call_signal(),
            cut: scope.result_cut(),
            asker: elicitation_asker::<S>(scope),
            _server: PhantomData,
        })
    }
}

/// The asker of the call, when server `S` has an elicitation role and the call's tool declares
/// it; else none, and the server's requests for input during the call are declined.
fn elicitation_asker<S: McpServer>(scope: &Scope<'_>) -> Option<Arc<dyn Asker>> {
    let role = S::DESCRIPTOR.elicitation()?.role();
    let declared = scope.descriptor().asks().iter().any(|r| r.role() == role);
    if declared { scope.asker() } else { None }
}
