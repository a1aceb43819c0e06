//! Policies over tool calls: which calls may run at once, which are refused, and which wait for
//! a person. A [`PermissionChecker`] on the application (its interface is a gate of the call
//! pipeline: `tool::gates`) governs capabilities
//! ([`Capability`](crate::tool::Capability)) tools declare; the loop asks it once per declared,
//! governed capability before a call runs, after the call's input is checked and before its
//! check-in, and journals each decision. [`UntrustedContentPolicy`] is the built-in one.
//!
//! docs/policies.md tells the whole story.
//!
//! ```
//! use agboss_core::policy::{Permission, PermissionChecker, PermissionRequest};
//! use agboss_core::tool::Capability;
//!
//! /// No money moves on its own.
//! struct MoneyNeedsAPerson;
//!
//! impl PermissionChecker for MoneyNeedsAPerson {
//!     fn name(&self) -> &str { "money-needs-a-person" }
//!     fn governs(&self) -> &[Capability] { &[Capability::Money] }
//!     fn check(&self, _request: &PermissionRequest<'_>) -> Permission {
//!         Permission::ask("money-moves", "every payment is approved by a person")
//!     }
//! }
//! ```

mod untrusted;

pub use crate::tool::gates::{PermissionChecker, PermissionRequest};
pub use crate::tool::{CallSeen, Permission, PermissionKind};
pub use untrusted::UntrustedContentPolicy;
