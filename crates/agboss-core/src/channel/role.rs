//! Roles: what a channel is asked and who answers, as `#[channel_role]` declares them.

use std::fmt;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::PauseAnswerer;
use crate::tool::{SourceLocation, input_schema_of};
use crate::units::TimeSpan;

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
    note = "a tool names a role whose `approves = ..` is the tool's input type; a role with `ask`/`answer` is asked by code, not by a tool"
)]
pub trait Approves<I>: ChannelRole {}

/// A role as `#[channel_role]` declares it.
pub struct RoleDescriptor {
    name: &'static str,
    description: &'static str,
    rust_type: &'static str,
    location: SourceLocation,
    answered_by: PauseAnswerer,
    form: RoleForm,
    question_schema: fn() -> Value,
    answer_schema: fn() -> Value,
    interpreter: Option<InterpreterSpec>,
    expires_after: Option<TimeSpan>,
    builtin: Option<fn() -> super::ChannelRegistration>,
}

/// The two forms of a role: never both (`[channel.role-form]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoleForm {
    /// It approves calls of tools whose input is this type.
    Approval {
        /// The Rust type of the approved tools' input.
        approves: &'static str,
    },
    /// It asks a question of its own.
    Question,
}

/// How a free-text reply to a role's pause is read: the interpreter's type, and how it is
/// built (a decision model or code).
#[derive(Clone, Copy)]
pub struct InterpreterSpec {
    rust_type: fn() -> &'static str,
    type_id: fn() -> std::any::TypeId,
    interpret: super::interpret::ErasedInterpret,
}

impl InterpreterSpec {
    /// The interpreter `T` of role `R`.
    pub const fn of<R: ChannelRole, T: super::ReplyInterpreter<R>>() -> InterpreterSpec {
        InterpreterSpec {
            rust_type: std::any::type_name::<T>,
            type_id: std::any::TypeId::of::<T>,
            interpret: super::interpret::erased::<R, T>,
        }
    }

    /// The interpreter's Rust type.
    pub fn rust_type(&self) -> &'static str {
        (self.rust_type)()
    }

    /// Its type's id: one interpreter serves one role (`[channel.shared-interpreter]`).
    pub fn type_id(&self) -> std::any::TypeId {
        (self.type_id)()
    }

    pub(crate) fn interpret(&self) -> super::interpret::ErasedInterpret {
        self.interpret
    }
}

impl RoleDescriptor {
    /// The approval role `name` for tools whose input is `A`.
    #[allow(clippy::too_many_arguments)]
    pub const fn approval<A: JsonSchema + Serialize + DeserializeOwned>(
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
        answered_by: PauseAnswerer,
        approves: &'static str,
    ) -> RoleDescriptor {
        RoleDescriptor {
            name,
            description,
            rust_type,
            location,
            answered_by,
            form: RoleForm::Approval { approves },
            question_schema: input_schema_of::<ToolCallApprovalAsk<A>>,
            answer_schema: input_schema_of::<ToolCallApprovalDecision<A>>,
            interpreter: None,
            expires_after: None,
            builtin: None,
        }
    }

    /// The question role `name`: it asks a `Q` and is answered with an `A`.
    pub const fn question<Q: JsonSchema, A: JsonSchema>(
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
        answered_by: PauseAnswerer,
    ) -> RoleDescriptor {
        RoleDescriptor {
            name,
            description,
            rust_type,
            location,
            answered_by,
            form: RoleForm::Question,
            question_schema: input_schema_of::<Q>,
            answer_schema: input_schema_of::<A>,
            interpreter: None,
            expires_after: None,
            builtin: None,
        }
    }

    /// With a reply interpreter: how `Resume::reply` text becomes an answer.
    pub const fn with_interpreter(mut self, interpreter: InterpreterSpec) -> RoleDescriptor {
        self.interpreter = Some(interpreter);
        self
    }

    /// With a limit: after `after`, its pauses take no answer (`[pause.expired]`).
    pub const fn with_expiry(mut self, after: TimeSpan) -> RoleDescriptor {
        self.expires_after = Some(after);
        self
    }

    /// For a built-in channel that is its own role: the channel that answers it, with no need
    /// to list it on the application.
    pub const fn with_builtin(mut self, channel: fn() -> super::ChannelRegistration) -> Self {
        self.builtin = Some(channel);
        self
    }

    /// The channel that implements it without being listed, for a built-in channel.
    pub fn builtin(&self) -> Option<super::ChannelRegistration> {
        self.builtin.map(|make| make())
    }

    /// Its name: kebab-case ending in `-channel`.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// What it asks, in words.
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

    /// Who answers its pauses.
    pub fn answered_by(&self) -> PauseAnswerer {
        self.answered_by
    }

    /// Approval or question.
    pub fn form(&self) -> RoleForm {
        self.form
    }

    /// The JSON Schema of its question.
    pub fn question_schema(&self) -> Value {
        (self.question_schema)()
    }

    /// The JSON Schema of its answer: what `Resume::decision` must match.
    pub fn answer_schema(&self) -> Value {
        (self.answer_schema)()
    }

    /// Its reply interpreter, if it has one.
    pub fn interpreter(&self) -> Option<&InterpreterSpec> {
        self.interpreter.as_ref()
    }

    /// How long its pauses take answers, if it limits that.
    pub fn expires_after(&self) -> Option<TimeSpan> {
        self.expires_after
    }
}

impl fmt::Debug for RoleDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoleDescriptor")
            .field("name", &self.name)
            .field("answered_by", &self.answered_by)
            .field("form", &self.form)
            .finish_non_exhaustive()
    }
}

/// What an approval role's channel is asked: which tool, which call, with which arguments.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolCallApprovalAsk<A> {
    /// The tool's name (`refund-card-tool`).
    pub tool: String,
    /// The call's id.
    pub call_id: String,
    /// The arguments, as the model sent them, typed by the tool's input.
    pub arguments: A,
    /// The SHA-256 of the argument bytes, hex: a decision may carry it back
    /// (`Resume::for_arguments`) to prove it saw these arguments.
    pub arguments_digest: String,
    /// Set when the call started before and a crash interrupted it before its result was saved
    /// (its tool says `on_crash = ask`): it may have taken effect. Approving runs it again with
    /// the same idempotency key; refusing gives the model the reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
}

/// A call that started and was interrupted before its result was saved.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Interrupted {
    /// How many times it started.
    pub starts: u32,
}

/// An approval role's answer: approve (with other arguments, if need be), or refuse with a
/// reason the model reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum ToolCallApprovalDecision<A> {
    /// Run the call.
    Approve {
        /// Arguments to run it with instead of the model's; validated like the model's.
        // No `default`: serde reads a missing `Option` as `None` anyway, and schemars would
        // ask `A: Default` for it.
        #[serde(skip_serializing_if = "Option::is_none")]
        override_arguments: Option<A>,
    },
    /// Do not run it; the model reads `Tool error: refused: <reason>`.
    Refuse {
        /// Why, for the model.
        reason: String,
    },
}

impl<A> ToolCallApprovalDecision<A> {
    /// Approve the call as the model asked for it.
    pub fn approve() -> Self {
        ToolCallApprovalDecision::Approve {
            override_arguments: None,
        }
    }

    /// Approve the call with `arguments` instead of the model's.
    pub fn approve_with(arguments: A) -> Self {
        ToolCallApprovalDecision::Approve {
            override_arguments: Some(arguments),
        }
    }

    /// Refuse the call; the model reads `reason`.
    pub fn refuse(reason: impl Into<String>) -> Self {
        ToolCallApprovalDecision::Refuse {
            reason: reason.into(),
        }
    }

    /// Whether it approves.
    pub fn is_approved(&self) -> bool {
        matches!(self, ToolCallApprovalDecision::Approve { .. })
    }
}
