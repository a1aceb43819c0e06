//! The descriptors of roles and channels, and the type-erased forms the loop asks them through
//! (a channel's send, an interpreter's reading of a reply): plain data, which the traits of
//! `role.rs`, `handler.rs` and `interpret.rs` fill.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{PauseAnswerer, ReplyReading, ToolCallApprovalAsk, ToolCallApprovalDecision};
use crate::component::{
    Component, ComponentKind, DependencyError, DependencySpec, SourceLocation, derefs_to_component,
};
use crate::context::Signal;
use crate::model::ModelRouter;
use crate::tool::{Scope, ToolError, input_schema_of};
use crate::units::TimeSpan;

/// A role as `#[channel_role]` declares it. It derefs to its [`Component`] header: `name()`,
/// `description()`, `rust_type()`, `location()`.
pub struct RoleDescriptor {
    component: Component,
    answered_by: PauseAnswerer,
    form: RoleForm,
    question_schema: fn() -> Value,
    answer_schema: fn() -> Value,
    interpreter: Option<InterpreterSpec>,
    expires_after: Option<TimeSpan>,
    builtin: Option<fn() -> ChannelRegistration>,
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
    pub(super) rust_type: fn() -> &'static str,
    pub(super) type_id: fn() -> std::any::TypeId,
    pub(super) interpret: ErasedInterpret,
}

impl InterpreterSpec {
    /// The interpreter's Rust type.
    pub fn rust_type(&self) -> &'static str {
        (self.rust_type)()
    }

    /// Its type's id: one interpreter serves one role (`[channel.shared-interpreter]`).
    pub fn type_id(&self) -> std::any::TypeId {
        (self.type_id)()
    }

    pub(crate) fn interpret(&self) -> ErasedInterpret {
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
            component: Component::new(
                ComponentKind::ChannelRole,
                name,
                description,
                rust_type,
                location,
            ),
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
            component: Component::new(
                ComponentKind::ChannelRole,
                name,
                description,
                rust_type,
                location,
            ),
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
    pub const fn with_builtin(mut self, channel: fn() -> ChannelRegistration) -> Self {
        self.builtin = Some(channel);
        self
    }

    /// The channel that implements it without being listed, for a built-in channel.
    pub fn builtin(&self) -> Option<ChannelRegistration> {
        self.builtin.map(|make| make())
    }

    /// Its header: kind, name, description, Rust type, location.
    pub const fn component(&self) -> &Component {
        &self.component
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

derefs_to_component!(RoleDescriptor);

impl fmt::Debug for RoleDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RoleDescriptor")
            .field("name", &self.name())
            .field("answered_by", &self.answered_by)
            .field("form", &self.form)
            .finish_non_exhaustive()
    }
}

/// A channel as `#[channel]` declares it. It derefs to its [`Component`] header: `name()`,
/// `description()`, `rust_type()`, `location()`, `dependencies()`.
pub struct ChannelDescriptor {
    pub(super) component: Component,
    pub(super) role: fn() -> &'static RoleDescriptor,
}

impl ChannelDescriptor {
    /// With the fields `dependencies`.
    pub const fn with_dependencies(mut self, dependencies: &'static [DependencySpec]) -> Self {
        self.component = self.component.with_fields(dependencies);
        self
    }

    /// The role it implements.
    pub fn role(&self) -> &'static RoleDescriptor {
        (self.role)()
    }
}

derefs_to_component!(ChannelDescriptor);

impl fmt::Debug for ChannelDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChannelDescriptor")
            .field("name", &self.name())
            .field("role", &self.role().name())
            .finish_non_exhaustive()
    }
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
    pub(super) descriptor: &'static ChannelDescriptor,
    pub(super) send: fn(&Scope<'_>, String, Value) -> Result<SendFuture, ChannelError>,
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

/// What an interpreter may use: the application's models, and a signal that stops it. A model
/// that reads the reply records what it spent here, for the execution's budgets.
#[derive(Clone)]
pub struct InterpretContext {
    pub(crate) router: Option<Arc<ModelRouter>>,
    pub(crate) signal: Signal,
    /// Why no model may read the reply (the execution's budget is spent), when none may.
    pub(crate) no_model: Option<String>,
    reading: Arc<Mutex<Option<ReplyReading>>>,
}

impl InterpretContext {
    /// The context of an application's resume: its models, under `signal`.
    pub fn new(router: Option<Arc<ModelRouter>>, signal: Signal) -> InterpretContext {
        InterpretContext {
            router,
            signal,
            no_model: None,
            reading: Arc::default(),
        }
    }

    /// The same context, in which no model may read the reply, for reason `why`.
    pub(crate) fn without_models(mut self, why: String) -> InterpretContext {
        self.no_model = Some(why);
        self
    }

    /// Records what the model that read the reply spent.
    pub(crate) fn record(&self, reading: ReplyReading) {
        *self.reading.lock().unwrap_or_else(|e| e.into_inner()) = Some(reading);
    }

    /// What a model that read the reply spent, if one did.
    pub(crate) fn reading(&self) -> Option<ReplyReading> {
        self.reading
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A boxed, type-erased interpretation: the answer as JSON, or why there is none.
pub type InterpretFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, String>> + Send + 'a>>;

/// An interpreter, erased: the question as JSON, the reply, the context.
pub type ErasedInterpret =
    for<'a> fn(&'a Value, &'a str, &'a InterpretContext) -> InterpretFuture<'a>;
