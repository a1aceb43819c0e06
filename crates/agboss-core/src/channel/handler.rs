//! Channels: the code that asks a role's question somewhere (a terminal, Slack, a ticket) and
//! says whether the answer is known now or comes later.

use std::future::Future;

use serde_json::Value;

use super::{
    ChannelDescriptor, ChannelError, ChannelRegistration, ChannelRole, RoleDescriptor, SendFuture,
    SentOutcome,
};
use crate::component::{Component, ComponentKind, DependencyError, SourceLocation};
use crate::tool::{RoleRef, Scope, ToolError};

/// What a channel is asked: the pause's id and the role's question.
#[derive(Debug)]
pub struct ChannelAsk<R: ChannelRole> {
    /// The pause's id: made once, before the first send, so a send retried after a crash gets
    /// the same one. Use it as the idempotency key of what the channel posts; for a role
    /// answered by the channel, it is also what the answer must come back with
    /// (`Resume::decision(pause_id, ..)`).
    pub pause_id: String,
    /// The question: for an approval role, the tool, the call and its typed arguments.
    pub value: R::Question,
}

/// What a channel's `send` says.
#[derive(Debug)]
pub enum ChannelOutcome<R: ChannelRole> {
    /// The answer comes later, through `Application::resume`: the call pauses, and the run
    /// returns `RunOutcome::Paused` when nothing else is left to do.
    AwaitReply,
    /// The answer is known now (a rule such as "up to $50 at once"): no pause, and the answer
    /// is validated as a reply would be.
    Decided(R::Answer),
}

impl<R: ChannelRole> ChannelOutcome<R> {
    /// The answer comes later.
    pub fn await_reply() -> Self {
        ChannelOutcome::AwaitReply
    }

    /// The answer is `answer`, now.
    pub fn decided(answer: R::Answer) -> Self {
        ChannelOutcome::Decided(answer)
    }
}

/// The code of a channel: the role it implements and how it asks.
///
/// Its dependencies are the struct's fields, resolved for every ask like a tool's (the
/// approved call's `ExecutionContext`, services the application provides).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no `ChannelHandler` impl",
    label = "a `#[channel]` needs a handler",
    note = "add `impl ChannelHandler for {Self} {{ type Role = ..; async fn send(&self, ask: ChannelAsk<Self::Role>) -> Result<ChannelOutcome<Self::Role>, ToolError> {{ .. }} }}`"
)]
pub trait ChannelHandler: Send + Sync + 'static {
    /// The role it implements.
    type Role: ChannelRole;

    /// Asks the question. An error fails the call it holds back, with the error's message.
    fn send(
        &self,
        ask: ChannelAsk<Self::Role>,
    ) -> impl Future<Output = Result<ChannelOutcome<Self::Role>, ToolError>> + Send;
}

/// A channel: a [`ChannelHandler`] with a registered [`ChannelDescriptor`]. Implemented by
/// `#[channel]`; list it on the application (`ApplicationBuilder::channel::<C>()`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an agboss channel",
    label = "not a `#[channel]`",
    note = "put `#[channel(name = \"...-channel\", description = \"...\")]` on the struct"
)]
pub trait Channel: ChannelHandler + Sized {
    /// The channel as declared.
    const DESCRIPTOR: &'static ChannelDescriptor;

    /// Builds the channel for one ask from `scope`, resolving each field.
    #[doc(hidden)]
    fn build(scope: &Scope<'_>) -> Result<Self, DependencyError>;
}

impl ChannelDescriptor {
    /// Channel `name`, implementing role `R`.
    pub const fn new<R: ChannelRole>(
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
    ) -> ChannelDescriptor {
        ChannelDescriptor {
            component: Component::new(
                ComponentKind::Channel,
                name,
                description,
                rust_type,
                location,
            ),
            role: role_of::<R>,
        }
    }
}

fn role_of<R: ChannelRole>() -> &'static RoleDescriptor {
    R::DESCRIPTOR
}

/// The approval a tool's descriptor carries for role `R` (what `#[tool(channel = R)]` emits).
pub const fn approval_of<R: ChannelRole>() -> RoleRef {
    RoleRef::new(R::DESCRIPTOR.component().name(), R::DESCRIPTOR)
}

/// A question role `R` a tool declares it may ask (what `#[tool(asks = [R])]` emits).
pub const fn ask_of<R: super::Asked>() -> RoleRef {
    RoleRef::new(R::DESCRIPTOR.component().name(), R::DESCRIPTOR)
}

/// The elicitation role `R` of an MCP server (what `#[mcp_server(.., elicitation = R)]`
/// emits): a question role asking [`ElicitationQuestion`](crate::mcp::ElicitationQuestion) and
/// answered with [`ElicitationAnswer`](crate::mcp::ElicitationAnswer), or it does not compile
/// (`[mcp.elicitation-role]`, at the role).
#[cfg(feature = "mcp")]
#[doc(hidden)]
pub const fn elicitation_of<R: super::Asked>() -> [RoleRef; 1]
where
    (R::Question, R::Answer): crate::mcp::ElicitationTypes,
{
    [ask_of::<R>()]
}

/// [`approval_of`] for a tool whose input is `I`: it compiles only when `R` approves calls
/// with that input, so that `#[tool(channel = R)]` fails with `[channel.wrong-tool]` (the
/// message of [`Approves`](super::Approves)) at the `channel` key.
#[doc(hidden)]
pub const fn approval_for<R: super::Approves<I>, I>() -> RoleRef {
    approval_of::<R>()
}

/// The descriptor of channel `C`, whose role is its handler's: what `#[channel]` emits. Bound
/// by `Channel`, not `ChannelHandler`, so that a missing handler is reported once, on the
/// `impl Channel` the macro writes.
#[doc(hidden)]
pub const fn channel_descriptor<C: Channel>(
    name: &'static str,
    description: &'static str,
    rust_type: &'static str,
    location: SourceLocation,
) -> ChannelDescriptor {
    ChannelDescriptor::new::<C::Role>(name, description, rust_type, location)
}

impl ChannelRegistration {
    /// The registration of channel `C`.
    pub const fn of<C: Channel>() -> ChannelRegistration {
        ChannelRegistration {
            descriptor: C::DESCRIPTOR,
            send: send_erased::<C>,
        }
    }
}

fn send_erased<C: Channel>(
    scope: &Scope<'_>,
    pause_id: String,
    question: Value,
) -> Result<SendFuture, ChannelError> {
    let value: <C::Role as ChannelRole>::Question =
        serde_json::from_value(question).map_err(|e| ChannelError::Question(e.to_string()))?;
    let channel = C::build(scope).map_err(ChannelError::Dependency)?;
    Ok(Box::pin(async move {
        match channel.send(ChannelAsk { pause_id, value }).await? {
            ChannelOutcome::AwaitReply => Ok(SentOutcome::AwaitReply),
            ChannelOutcome::Decided(answer) => serde_json::to_value(&answer)
                .map(SentOutcome::Decided)
                .map_err(|e| ToolError::new(format!("the channel's answer has no JSON form: {e}"))),
        }
    }))
}
