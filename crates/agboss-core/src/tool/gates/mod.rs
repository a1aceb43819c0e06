//! What a call must pass before it runs, as a tool declares it: the capabilities a permission
//! checker may govern, a check-in with its evidence, the role that approves its calls, the
//! roles it asks questions of while it runs, and the credentials it needs.
//!
//! - `arguments.rs`: the `arguments` gate, the arguments read once as the contract accepts them.
//! - `approval.rs`: the `approval` and `questions` gates, the people a call may wait for.
//! - `check_in.rs`: the check-in's predicate typed by the tool's input, its evidence, and the
//!   `check-in` gate.
//! - `permission.rs`: [`PermissionChecker`], what an application decides about calls of tools
//!   that declare capabilities it governs, what it is told of each call, and the gate.
//! - `asker.rs`: [`Asker`], what a running call asks questions through.
//! - `needs.rs`: the credentials a tool `needs`, resolved for one call just before it runs.
//!
//! What these gates read of a tool's declaration (capabilities, the check-in, roles, decisions,
//! credentials) are plain values in `tool/values/`.

mod approval;
mod arguments;
mod asker;
mod check_in;
pub(crate) mod needs;
mod permission;

pub(crate) use approval::{ApprovalGate, QuestionsGate};
pub(crate) use arguments::{ArgumentsGate, accept};
pub use asker::{AskFailure, AskFuture, Asker};
pub(crate) use check_in::CheckInGate;
pub use check_in::{CheckInPredicate, EvidenceOf, Typed, check_in_with, evidence_with};
pub(crate) use needs::CredentialsGate;
pub(crate) use permission::PermissionGate;
pub use permission::{PermissionChecker, PermissionRequest};
