//! Approval channels: roles (what is approved or asked, and who answers), the channels that
//! implement them, and the questions and answers they carry.
//!
//! A tool that needs a decision before it runs names a role (`#[tool(channel = Role)]`). When
//! the model calls it, the loop checks the arguments, opens a pause, journals it, and asks the
//! role's channel; the channel answers at once ([`ChannelOutcome::decided`]) or later
//! ([`ChannelOutcome::await_reply`]), when someone answers through `Application::resume`.
//! docs/pauses.md tells the whole story.
//!
//! Files: `descriptor.rs` (the descriptors of roles and channels, with their type-erased sends
//! and interpreters: plain data), `role.rs` and `handler.rs` (the traits that fill them;
//! `ChannelDescriptor::new` lives beside its users in `handler.rs`), `interpret.rs` (reply
//! interpreters), `questions.rs` (approval questions and decisions), `asking.rs`
//! ([`Questions`]), `answerer.rs`, `reading.rs`, `builtin.rs` (the channels agboss ships).

mod answerer;
mod asking;
mod builtin;
mod descriptor;
mod handler;
mod interpret;
mod questions;
mod reading;
mod role;

pub use answerer::PauseAnswerer;
pub use asking::{QuestionError, Questions};
pub use builtin::{AutoApproveChannel, AutoRejectChannel, TerminalUserChannel};
pub use descriptor::{
    ChannelDescriptor, ChannelError, ChannelRegistration, ErasedInterpret, InterpretContext,
    InterpretFuture, InterpreterSpec, RoleDescriptor, RoleForm, SendFuture, SentOutcome,
};
#[cfg(feature = "mcp")]
pub use handler::elicitation_of;
pub use handler::{
    Channel, ChannelAsk, ChannelHandler, ChannelOutcome, approval_for, approval_of, ask_of,
    channel_descriptor,
};
pub use interpret::{DecisionModel, ReplyInterpretation, ReplyInterpreter};
pub use questions::{Interrupted, ToolCallApprovalAsk, ToolCallApprovalDecision};
pub use reading::ReplyReading;
pub use role::{Approves, Asked, ChannelRole};
