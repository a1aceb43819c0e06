//! Roles: the traits `#[channel_role]` implements (what a channel is asked and who answers;
//! which tools a role approves).

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::RoleDescriptor;

/// A role: a question (or an approval) and who answers it. Implemented by `#[channel_role]` on
/// a unit struct; a tool names it (`#[tool(channel = Role)]`), a `#[channel]` implements it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a channel role",
    label = "not a `#[channel_role]`",
    note = "put `#[channel_role(name = \"...-channel\", description = \"...\", answered_by = ThreadOwner, approves = YourToolInput)]` on a unit struct"
)]
pub trait ChannelRole: Send + Sync + 'static {
    /// What the channel receives: `ToolCallApprovalAsk<Dto>` for an approval role.
    type Question: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// What answers it: `ToolCallApprovalDecision<Dto>` for an approval role.
    type Answer: Serialize + DeserializeOwned + JsonSchema + Send + Sync + 'static;
    /// The role as declared.
    const DESCRIPTOR: &'static RoleDescriptor;
}

/// The roles that approve calls of a tool whose input is `I`. `#[tool(channel = Role)]`
/// compiles only when `Role: Approves<Input>`; `#[channel_role(approves = I)]` implements it
/// for `I`, and the built-in channels (which approve anything) for every input.
#[diagnostic::on_unimplemented(
    message = "[channel.wrong-tool] `{Self}` does not approve calls whose input is `{I}`",
    label = "this role approves another input, or asks a question instead",
    note = "a tool names a role whose `approves = ..` is the tool's input type; a role with `ask`/`answer` is asked by the tool's code: `asks = [Role]` and a `Questions` field"
)]
pub trait Approves<I>: ChannelRole {}

/// The roles a tool may ask while it runs (`#[tool(asks = [Role])]`, `Questions::ask`): the
/// question roles (`#[channel_role(ask = Q, answer = A)]` implements it). An approval role is
/// not one: it decides whether a call runs, it is not asked by the call.
#[diagnostic::on_unimplemented(
    message = "[channel.not-a-question] `{Self}` is not a question role, so a tool cannot ask it",
    label = "a role with `approves = ..` approves calls; it is not asked by them",
    note = "a tool asks roles declared with `#[channel_role(.., ask = Question, answer = Answer)]`; a role that approves calls goes in `channel = Role`"
)]
pub trait Asked: ChannelRole {}
