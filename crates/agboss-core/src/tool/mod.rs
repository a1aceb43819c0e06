//! Tools: the handler a user writes, the descriptor `#[tool]` registers, and the call contract.
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

mod allowlist;
mod allowlist_schema;
mod artifact;
mod artifact_call;
mod asker;
mod blocking;
pub mod bound;
mod capability;
mod ceiling;
mod check_in;
#[doc(hidden)]
pub mod conform;
mod credentials;
pub mod definition;
mod dependency;
mod descriptor;
mod error;
mod handler;
mod invoke;
mod issues;
mod lossy;
mod needs;
mod nulls;
mod oauth_tokens;
mod on_crash;
mod origin;
mod outcome;
mod race;
mod registration;
mod repeat;
mod role_ref;
mod schema;
mod scope;
mod secret;
mod static_credentials;
mod subprocess;
mod tape;
mod text_stream;
mod wanted;

pub use allowlist::{AllowKind, AllowList};
pub use artifact::{
    Artifact, ArtifactRef, ArtifactShelf, REFERENCE_PREFIX, REFERENCE_RANDOM_BYTES, Refusal,
    ResultKind, ShelfFuture, WantedArgument, minted_text, refusal_text,
};
pub use asker::{AskFailure, AskFuture, Asker};
pub use blocking::{BlockingPool, StopFlag, blocking};
pub use bound::{BoundedText, bound_text, mask_bounded, truncation_marker};
pub use capability::Capability;
pub use ceiling::ResultCeiling;
pub use check_in::{
    CheckIn, CheckInFn, CheckInPredicate, EvidenceFn, EvidenceOf, Typed, check_in_with,
    evidence_with,
};
pub use credentials::{
    CredentialError, CredentialFuture, CredentialProvider, CredentialRequest, CredentialUse,
    Credentials,
};
pub use definition::{ToolDefinition, WireFormat, tool_definition_of};
pub use dependency::Dependency;
pub use descriptor::ToolDescriptor;
pub use error::{SchemaError, ToolError, ToolFailure, ToolResult};
pub use handler::{Tool, ToolHandler, tool_input_schema, tool_output_schema};
pub use invoke::{CallFrame, CallWatch, DynTool, Invoker, ToolEnv};
pub use issues::{Issue, Issues};
pub use lossy::{LossyText, TextOutput, text_from_bytes};
pub use oauth_tokens::{FileTokens, KeeperFuture, TokenKeeper, TokenKey};
pub use on_crash::OnCrash;
pub use origin::{RemoteTool, ToolOrigin};
pub use outcome::CallOutcome;
pub use race::TIMEOUT_GRACE;
pub use registration::{ToolRegistration, registered_tools};
pub use repeat::{CallDigest, Digest, RepeatedWhen, Repeats};
pub use role_ref::RoleRef;
pub(crate) use schema::SchemaCheck;
pub use schema::{input_schema_of, output_schema_of};
pub use scope::Scope;
pub use secret::Secret;
pub use static_credentials::StaticCredentials;
pub use subprocess::Subprocess;
#[cfg(feature = "mcp")]
pub(crate) use text_stream::complete_utf8_prefix;
pub use text_stream::{ResultCut, Stopped, StreamedText, TextSender, TextStream};
pub use wanted::{Wanted, WantsField, wants_field};
