//! Channels: the code that asks a role's question somewhere (a terminal, Slack, a ticket) and
//! says whether the answer is known now or comes later.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde_json::Value;

use super::{ChannelRole, RoleDescriptor};
use crate::deps::Unresolved;
use crate::tool::{
    DependencyError, DependencySpec, MissingDependency, Requirement, Scope, SourceLocation,
    ToolApproval, ToolError,
};

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

/// A channel as `#[channel]` declares it.
pub struct ChannelDescriptor {
    name: &'static str,
    description: &'static str,
    rust_type: &'static str,
    location: SourceLocation,
    role: fn() -> &'static RoleDescriptor,
    dependencies: &'static [DependencySpec],
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
            name,
            description,
            rust_type,
            location,
            role: role_of::<R>,
            dependencies: &[],
        }
    }

    /// With the fields `dependencies`.
    pub const fn with_dependencies(mut self, dependencies: &'static [DependencySpec]) -> Self {
        self.dependencies = dependencies;
        self
    }

    /// Its name (`slack-refund-approval-channel`).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What it does.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// The Rust type that declares it.
    pub fn rust_type(&self) -> &'static str {
        self.rust_type
    }

    /// Where it is declared.
    pub fn location(&self) -> SourceLocation {
        self.location
    }

    /// The role it implements.
    pub fn role(&self) -> &'static RoleDescriptor {
        (self.role)()
    }

    /// Its fields.
    pub fn dependencies(&self) -> &'static [DependencySpec] {
        self.dependencies
    }

    /// The error for the field at `index` having no value.
    #[doc(hidden)]
    pub fn unresolved(&'static self, index: usize, why: Unresolved) -> DependencyError {
        let dep = &self.dependencies[index];
        let provided_type = match dep.requirement() {
            Requirement::Provided { type_name, .. } => type_name,
            Requirement::Builtin => dep.type_written(),
        };
        match why {
            Unresolved::NotProvided => DependencyError::Missing(MissingDependency {
                tool: self.name,
                field: dep.field(),
                type_written: dep.type_written(),
                provided_type,
            }),
            Unresolved::Failed(reason) => DependencyError::Unavailable {
                tool: self.name,
                field: dep.field(),
                provided_type,
                reason,
            },
        }
    }
}

impl fmt::Debug for ChannelDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChannelDescriptor")
            .field("name", &self.name)
            .field("role", &self.role().name())
            .finish_non_exhaustive()
    }
}

fn role_of<R: ChannelRole>() -> &'static RoleDescriptor {
    R::DESCRIPTOR
}

/// The approval a tool's descriptor carries for role `R` (what `#[tool(channel = R)]` emits).
pub const fn approval_of<R: ChannelRole>() -> ToolApproval {
    ToolApproval::new(R::DESCRIPTOR.name(), R::DESCRIPTOR)
}

/// [`approval_of`] for a tool whose input is `I`: it compiles only when `R` approves calls
/// with that input, so that `#[tool(channel = R)]` fails with `[channel.wrong-tool]` (the
/// message of [`Approves`](super::Approves)) at the `channel` key.
#[doc(hidden)]
pub const fn approval_for<R: super::Approves<I>, I>() -> ToolApproval {
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

/// What a type-erased send says.
#[derive(Clone, Debug, PartialEq)]
pub enum SentOutcome {
    /// The answer comes later.
    AwaitReply,
    /// The answer, as JSON.
    Decided(Value),
}

/// A boxed, type-erased send.
pub type SendFuture = Pin<Box<dyn Future<Output = Result<SentOutcome, ToolError>> + Send>>;

/// A channel type, erased: how the loop builds and asks it without knowing its type.
#[derive(Clone, Copy)]
pub struct ChannelRegistration {
    descriptor: &'static ChannelDescriptor,
    send: fn(&Scope<'_>, String, Value) -> Result<SendFuture, ChannelError>,
}

/// Why a channel could not be asked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChannelError {
    /// A field of the channel could not be resolved.
    #[error("{0}")]
    Dependency(DependencyError),
    /// The question does not read as the role's question type (a bug of the question's maker).
    #[error("the question does not read as the role's question: {0}")]
    Question(String),
}

impl ChannelRegistration {
    /// The registration of channel `C`.
    pub const fn of<C: Channel>() -> ChannelRegistration {
        ChannelRegistration {
            descriptor: C::DESCRIPTOR,
            send: send_erased::<C>,
        }
    }

    /// The channel's descriptor.
    pub fn descriptor(&self) -> &'static ChannelDescriptor {
        self.descriptor
    }

    /// Builds the channel from `scope` and asks it `question` (the role's question, as JSON)
    /// under pause `pause_id`.
    pub fn send(
        &self,
        scope: &Scope<'_>,
        pause_id: String,
        question: Value,
    ) -> Result<SendFuture, ChannelError> {
        (self.send)(scope, pause_id, question)
    }
}

impl fmt::Debug for ChannelRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.descriptor.fmt(f)
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
