//! Tools: the handler a user writes, the descriptor `#[tool]` registers, and the call: its
//! pipeline of gates and rules around the contract that runs it.
//!
//! A call goes through [`Invoker::invoke`] in four steps, each failure a value, never a panic:
//!
//! 1. the JSON arguments are validated against the input schema
//!    (`invalid input: jobs[2].url: ...`; `run` is not called);
//! 2. the call does not start if the execution's signal already fired (`<abort reason>`);
//! 3. `run` runs under the tool's timeout on the application's clock and the call's signal
//!    (`timed out after 10 s`, or the error's message; a panic becomes an error);
//! 4. the output is validated against the output schema (`invalid output: ...`).
//!
//! A `run` that never waits cannot be timed out from inside its own call: in an agent run the
//! tool step judges it at timeout + [`TIMEOUT_GRACE`] and drops what it returns later. Work that
//! blocks goes to [`blocking`] (a bounded pool, a [`StopFlag`]); a child process to
//! [`Subprocess`] (its own process group, stopped with the call).
//!
//! What the model reads is the output's JSON text or `Tool error: <message>`, bounded by the
//! tool's `max_result_size` (see [`bound`]). A tool with a `result_ceiling` refuses a rendered
//! output over it before bounding ([`ResultCeiling`]). A tool with a `result_kind` keeps a
//! result over its artifact size in the store and the model reads a reference instead; a tool
//! that `wants` artifacts has their references redeemed between steps 1 and 2 ([`Wanted`]).
//! A tool whose result may be huge returns a [`TextStream`]: the contract reads it up to the
//! bound, within the timeout, and drops it there, which stops the producer.
//!
//! Rooms, each a folder with its own `//!`: `contract/` (the four steps), `schema/` (what
//! arguments and outputs are checked against), `gates/` (what a tool declares a call must
//! pass), `rules/` (what is made of a result), `artifacts/` (results kept aside), `io/` (work
//! that does not stop on its own), `pipeline/` (the stages every call passes, in their order:
//! [`Pipeline`], [`Stage`], [`Middleware`]). Beside them: `descriptor.rs` ([`ToolDescriptor`]),
//! `registration.rs` (the registry of `#[tool]`s), `origin.rs` ([`ToolOrigin`]), `on_crash.rs`
//! ([`OnCrash`]), `error.rs` ([`ToolError`], [`ToolFailure`]), `call_credentials.rs` ([`Credentials`], the field a tool
//! reads the credentials it `needs` from), `values/` (what a descriptor declares and the
//! stages pass along: capabilities, the check-in, roles, decisions, the ceiling, repeats,
//! result kinds), `race.rs` (`run` against its
//! timeout and the call's signal, a panic caught), `dependency.rs` and `scope.rs` (a tool's fields and what they are resolved
//! from). How a tool is described to each provider's API is the model's (`model::definition`).

pub(crate) mod artifacts;
mod call_credentials;
pub(crate) mod contract;
mod dependency;
mod descriptor;
mod error;
pub(crate) mod gates;
pub(crate) mod io;
mod on_crash;
mod origin;
pub(crate) mod pipeline;
pub(crate) mod race;
mod registration;
pub(crate) mod rules;
pub(crate) mod schema;
mod scope;
mod values;

pub use crate::credentials::{
    CredentialError, CredentialFuture, CredentialProvider, CredentialRequest, CredentialUse,
    FileTokens, KeeperFuture, Secret, StaticCredentials, TokenKeeper, TokenKey,
};
pub use artifacts::{
    Artifact, ArtifactRef, ArtifactShelf, REFERENCE_PREFIX, REFERENCE_RANDOM_BYTES, Refusal,
    ShelfFuture, Wanted, WantsField, minted_text, refusal_text, wants_field,
};
pub use call_credentials::Credentials;
pub use contract::{
    CallFrame, CallWatch, DynTool, Invoker, Tool, ToolEnv, ToolHandler, tool_input_schema,
    tool_output_schema,
};
pub use dependency::Dependency;
pub use descriptor::ToolDescriptor;
pub use error::{ToolError, ToolFailure, ToolResult};
pub use gates::{
    AskFailure, AskFuture, Asker, CheckInPredicate, EvidenceOf, PermissionChecker,
    PermissionRequest, Typed, check_in_with, evidence_with,
};
#[cfg(feature = "mcp")]
pub(crate) use io::complete_utf8_prefix;
pub use io::{
    BlockingPool, LossyText, ResultCut, StopFlag, Stopped, StreamedText, Subprocess, TextOutput,
    TextSender, TextStream, blocking, text_from_bytes,
};
pub use on_crash::OnCrash;
pub use origin::{RemoteTool, ToolOrigin};
pub use pipeline::{
    AskPerson, CallEnd, CallHistory, CallOutcome, Check, GATE_ORDER, GateCall, MIDDLEWARE,
    Middleware, MiddlewareFuture, Part, Pipeline, Place, RULE_ORDER, Stage, StageFuture, Then,
    ToolOutput, Verdict,
};
pub use race::TIMEOUT_GRACE;
pub use registration::{ToolRegistration, registered_tools};
pub use rules::{
    BoundedText, MAX_RETRY_BACKOFF, Repeats, backoff, bound, bound_text, mask_bounded,
    truncation_marker,
};
pub(crate) use schema::SchemaCheck;
pub use schema::{
    AllowKind, AllowList, Issue, Issues, SchemaError, conform, input_schema_of, output_schema_of,
};
pub use scope::Scope;
pub use values::{
    CallDigest, CallSeen, Capability, CheckIn, CheckInFn, Digest, EvidenceFn, Permission,
    PermissionKind, RepeatedWhen, ResultCeiling, ResultKind, RoleRef, WantedArgument,
};
