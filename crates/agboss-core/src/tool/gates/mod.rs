//! What a call must pass before it runs, as a tool declares it: the capabilities a permission
//! checker may govern, a check-in with its evidence, the role that approves its calls, the
//! roles it asks questions of while it runs, and the credentials it needs.
//!
//! - `arguments.rs`: the `arguments` gate, the arguments read once as the contract accepts them.
//! - `approval.rs`: the `approval` and `questions` gates, the people a call may wait for.
//! - `capability.rs`: [`Capability`].
//! - `check_in.rs`: [`CheckIn`], the predicate typed by the tool's input, and its evidence.
//! - `permission.rs`: [`PermissionChecker`], what an application decides about calls of tools
//!   that declare capabilities it governs, and what it is told of each call.
//! - `role_ref.rs`: [`RoleRef`], a role a tool names (approval or questions).
//! - `asker.rs`: [`Asker`], what a running call asks questions through.
//! - `credentials.rs`, `needs.rs`: [`Credentials`], the field a tool reads the credentials it
//!   `needs` from, and their resolution for one call just before it runs.

mod approval;
mod arguments;
mod asker;
mod capability;
mod check_in;
mod credentials;
pub(crate) mod needs;
mod permission;
mod role_ref;

pub(crate) use approval::{ApprovalGate, QuestionsGate};
pub(crate) use arguments::{ArgumentsGate, accept};
pub use asker::{AskFailure, AskFuture, Asker};
pub use capability::Capability;
pub(crate) use check_in::CheckInGate;
pub use check_in::{
    CheckIn, CheckInFn, CheckInPredicate, EvidenceFn, EvidenceOf, Typed, check_in_with,
    evidence_with,
};
pub use credentials::Credentials;
pub(crate) use needs::CredentialsGate;
pub(crate) use permission::PermissionGate;
pub use permission::{CallSeen, Permission, PermissionChecker, PermissionKind, PermissionRequest};
pub use role_ref::RoleRef;
