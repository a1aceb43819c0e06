//! Elicitation: a server's request for a person's input during a call (`elicitation/create`),
//! asked through the question role its `#[mcp_server(.., elicitation = Role)]` names.
//!
//! [`ElicitationQuestion`] and [`ElicitationAnswer`] are the DTOs that role asks and is answered
//! with. A server without a role is offered no elicitation and every request of it is declined,
//! as the SDK's client does. With a role, the client offers form elicitation, and a request is
//! matched with the call that waits on the server (by the HTTP stream it came on, else the one
//! call in flight) and asked through that call's `Asker`: a journaled answer comes back at once;
//! one that comes later stops the call (the server's tool call is cancelled) and the call runs
//! again from its start once answered.

use std::sync::{Arc, Mutex};

use rmcp::ErrorData;
use rmcp::handler::client::ClientHandler;
use rmcp::model::{
    CancelledNotificationParam, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, ElicitationCapability, FormElicitationCapability, RequestId,
};
use rmcp::service::{InboundStreamOrigin, Peer, RequestContext, RoleClient};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::McpServerDescriptor;
use super::pins::Listing;
use crate::tool::{AskFailure, Asker};

/// What a server's elicitation role is asked: which server asks, its message, and the schema
/// of the fields it wants (an object of plain fields, as MCP allows).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ElicitationQuestion {
    /// The server's name, as its `#[mcp_server]` declares it.
    pub server: String,
    /// What the server says it needs, for the person who answers.
    pub message: String,
    /// The JSON Schema of the fields the server asks for (`type: object`, with `properties`).
    pub requested_schema: Value,
}

/// How a server's elicitation role is answered: the fields (accept), a refusal to give them
/// (decline), or a dismissal without a choice (cancel). The server reads it as MCP's
/// `ElicitResult`; its tool decides what each means.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum ElicitationAnswer {
    /// The person gives the fields. Fields of the requested schema left out that have a
    /// `default` there are sent with it.
    Accept {
        /// The fields, by the names of the requested schema.
        content: Map<String, Value>,
    },
    /// The person refuses to give them.
    Decline,
    /// The person dismissed the question without choosing.
    Cancel,
}

impl ElicitationAnswer {
    /// Accepts with `fields`: `ElicitationAnswer::accept([("name", json!("Ada"))])`.
    pub fn accept<K: Into<String>>(fields: impl IntoIterator<Item = (K, Value)>) -> Self {
        ElicitationAnswer::Accept {
            content: fields.into_iter().map(|(k, v)| (k.into(), v)).collect(),
        }
    }

    /// The result the server reads, the schema's defaults added to accepted content.
    fn into_result(self, requested_schema: &Value) -> ElicitResult {
        match self {
            ElicitationAnswer::Accept { mut content } => {
                let properties = requested_schema
                    .get("properties")
                    .and_then(Value::as_object);
                for (field, schema) in properties.into_iter().flatten() {
                    if let Some(default) = schema.get("default")
                        && !content.contains_key(field)
                    {
                        content.insert(field.clone(), default.clone());
                    }
                }
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        }
    }
}

/// The question and answer types of a server's elicitation role: implemented for
/// `(ElicitationQuestion, ElicitationAnswer)` only, so that `#[mcp_server(.., elicitation = R)]`
/// names a role declared with those.
#[diagnostic::on_unimplemented(
    message = "[mcp.elicitation-role] a server's elicitation role asks `ElicitationQuestion` and is answered with `ElicitationAnswer`, not `{Self}`",
    label = "this role asks or is answered with other types",
    note = "declare the role with `#[channel_role(.., ask = ElicitationQuestion, answer = ElicitationAnswer)]` (both from `agboss::mcp`)"
)]
pub trait ElicitationTypes {}

impl ElicitationTypes for (ElicitationQuestion, ElicitationAnswer) {}

/// What tells a call it stops, and why: taken by the first elicitation that stops it.
type Stop = Arc<Mutex<Option<oneshot::Sender<String>>>>;

/// A call in flight on a server whose elicitations are asked.
#[derive(Clone)]
struct InFlight {
    /// Its `tools/call` request's id.
    id: RequestId,
    /// What it asks through; none outside an agent's run, or when its tool does not declare
    /// the role.
    asker: Option<Arc<dyn Asker>>,
    /// Tells the call it stops here, and why.
    stop: Stop,
    key: u64,
}

/// The calls in flight on one server, for its elicitations to find theirs.
pub(crate) struct Elicitations {
    server: &'static str,
    role: Option<&'static str>,
    /// Held while a call is sent and registered, so that a request that comes at once finds it.
    sending: tokio::sync::Mutex<()>,
    calls: Mutex<(u64, Vec<InFlight>)>,
}

/// A call's registration, removed when dropped; `stopped` says why an elicitation stopped it.
pub(crate) struct Registered {
    elicitations: Arc<Elicitations>,
    key: u64,
    pub(crate) stopped: oneshot::Receiver<String>,
}

impl Drop for Registered {
    fn drop(&mut self) {
        self.elicitations.lock().1.retain(|c| c.key != self.key);
    }
}

impl Elicitations {
    pub(crate) fn new(server: &'static McpServerDescriptor) -> Arc<Elicitations> {
        Arc::new(Elicitations {
            server: server.name(),
            role: server.elicitation().map(|role| role.role()),
            sending: tokio::sync::Mutex::new(()),
            calls: Mutex::new((0, Vec::new())),
        })
    }

    /// The role its elicitations are asked through, if it has one.
    pub(crate) fn role(&self) -> Option<&'static str> {
        self.role
    }

    /// The lock to hold while a call is sent and [`register`](Self::register)ed.
    pub(crate) async fn sending(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.sending.lock().await
    }

    /// Registers the call whose request is `id`, asking through `asker`.
    pub(crate) fn register(
        self: &Arc<Self>,
        id: RequestId,
        asker: Option<Arc<dyn Asker>>,
    ) -> Registered {
        let (stop, stopped) = oneshot::channel();
        let mut calls = self.lock();
        calls.0 += 1;
        let key = calls.0;
        calls.1.push(InFlight {
            id,
            asker,
            stop: Arc::new(Mutex::new(Some(stop))),
            key,
        });
        Registered {
            elicitations: self.clone(),
            key,
            stopped,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, Vec<InFlight>)> {
        self.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The call a request that came with `origin` is for: the one whose HTTP stream it came
    /// on, else the only call in flight.
    fn call_for(&self, origin: Option<&InboundStreamOrigin>) -> Option<InFlight> {
        let calls = self.lock();
        let call = match origin {
            Some(InboundStreamOrigin::OutboundRequest(id)) => calls.1.iter().find(|c| c.id == *id),
            _ if calls.1.len() == 1 => calls.1.first(),
            _ => None,
        }?;
        Some(call.clone())
    }

    /// Answers `request`: declined without a role, for a URL, or when no call of a run asks
    /// it; else asked through the call's asker.
    async fn answer(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let declined = Ok(ElicitResult::new(ElicitationAction::Decline));
        let Some(role) = self.role else {
            return declined;
        };
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            tracing::warn!(
                server = self.server,
                "a URL elicitation is declined: only forms are offered"
            );
            return declined;
        };
        // A call being sent now is registered before the request is looked up.
        drop(self.sending().await);
        let origin = context.extensions.get::<InboundStreamOrigin>();
        let Some(InFlight {
            id, asker, stop, ..
        }) = self.call_for(origin)
        else {
            tracing::warn!(
                server = self.server,
                "an elicitation is declined: it cannot be told which call it is for (none, or several, are in flight)"
            );
            return declined;
        };
        let Some(asker) = asker else {
            tracing::info!(
                server = self.server,
                "an elicitation is declined: the call is not part of an agent's run, or its tool does not declare the role"
            );
            return declined;
        };
        let requested_schema = serde_json::to_value(&requested_schema)
            .map_err(|e| ErrorData::internal_error(format!("unreadable schema: {e}"), None))?;
        let question = ElicitationQuestion {
            server: self.server.to_owned(),
            message,
            requested_schema: requested_schema.clone(),
        };
        let question = serde_json::to_value(&question)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let why = match asker.ask(role, question).await {
            Ok(answer) => match serde_json::from_value::<ElicitationAnswer>(answer) {
                Ok(answer) => return Ok(answer.into_result(&requested_schema)),
                Err(e) => format!("the answer of role `{role}` is not an elicitation answer: {e}"),
            },
            Err(AskFailure::Waiting { role, pause_id }) => {
                format!("the call waits for an answer of role `{role}` (pause {pause_id})")
            }
            Err(AskFailure::Failed(message)) => message,
        };
        stop_call(&context.peer, id, &stop, &why).await;
        Err(ErrorData::internal_error(
            format!("the client cancelled the call: {why}"),
            None,
        ))
    }
}

/// Cancels call `id` on the server (before the request that stopped it is answered, so that
/// the server's tool sees the cancellation first), then tells the call why it stops. A call
/// that already ended (its timeout) was cancelled by its end.
async fn stop_call(
    peer: &Peer<RoleClient>,
    id: RequestId,
    stop: &Mutex<Option<oneshot::Sender<String>>>,
    why: &str,
) {
    let sender = stop.lock().unwrap_or_else(|p| p.into_inner()).take();
    let Some(sender) = sender.filter(|sender| !sender.is_closed()) else {
        return;
    };
    let _ = peer
        .notify_cancelled(CancelledNotificationParam::new(
            Some(id),
            Some(why.to_owned()),
        ))
        .await;
    let _ = sender.send(why.to_owned());
}

/// The client's side of a session: offers form elicitation when the server has a role, and
/// answers the server's requests for input through it.
#[derive(Clone)]
pub(crate) struct Elicitor {
    elicitations: Option<Arc<Elicitations>>,
    /// The session's tool definitions, listed again when the server says they changed.
    listing: Option<Arc<Listing>>,
}

impl Elicitor {
    /// The handler of a server's session, asking through `elicitations`, its tools' changes
    /// taken by `listing`.
    pub(crate) fn of(elicitations: Arc<Elicitations>, listing: Arc<Listing>) -> Elicitor {
        Elicitor {
            elicitations: Some(elicitations),
            listing: Some(listing),
        }
    }

    /// A handler that offers nothing and declines every request (listing a server's tools).
    pub(crate) fn declining() -> Elicitor {
        Elicitor {
            elicitations: None,
            listing: None,
        }
    }
}

impl ClientHandler for Elicitor {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        match &self.elicitations {
            Some(elicitations) => elicitations.answer(request, context).await,
            None => Ok(ElicitResult::new(ElicitationAction::Decline)),
        }
    }

    /// `notifications/tools/list_changed`: the next call lists the tools again first, and they
    /// are listed again now (off the session's loop), so a change is judged, recorded and
    /// warned of even when no call follows.
    async fn on_tool_list_changed(&self, context: rmcp::service::NotificationContext<RoleClient>) {
        let Some(listing) = self.listing.clone() else {
            return;
        };
        listing.mark_stale();
        let peer = context.peer.clone();
        tokio::spawn(async move {
            let _ = listing.refresh(&peer).await;
        });
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.elicitations.as_ref().and_then(|e| e.role()).is_some() {
            capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        super::transport::client_config(capabilities)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn accepted_content_gets_the_defaults_of_the_fields_left_out() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string"},
            "size": {"type": "integer", "default": 42},
            "colour": {"type": "string", "default": "red"},
        }});
        let answer = ElicitationAnswer::accept([("name", json!("Ada")), ("colour", json!("blue"))]);
        let result = answer.into_result(&schema);
        assert_eq!(result.action, ElicitationAction::Accept);
        assert_eq!(
            result.content,
            Some(json!({"name": "Ada", "colour": "blue", "size": 42}))
        );
        let declined = ElicitationAnswer::Decline.into_result(&schema);
        assert_eq!(declined.action, ElicitationAction::Decline);
        assert_eq!(declined.content, None);
    }

    #[test]
    fn answers_are_written_as_mcp_writes_them() {
        assert_eq!(
            serde_json::to_value(ElicitationAnswer::accept([("n", json!(1))])).unwrap(),
            json!({"action": "accept", "content": {"n": 1}})
        );
        assert_eq!(
            serde_json::to_value(ElicitationAnswer::Decline).unwrap(),
            json!({"action": "decline"})
        );
        assert_eq!(
            serde_json::from_value::<ElicitationAnswer>(json!({"action": "cancel"})).unwrap(),
            ElicitationAnswer::Cancel
        );
    }
}
