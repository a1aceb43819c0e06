//! [`UntrustedContentPolicy`]: once content nobody vouches for has entered a run, a person
//! approves each call that moves money, destroys, or sends something out, so a tool result
//! cannot talk the model into one on its own.

use super::{Permission, PermissionChecker, PermissionRequest};
use crate::tool::Capability;

/// The built-in checker against prompt injection. It governs `Destructive`, `Money` and
/// `ExternalNet`; a call of a tool that declares one of them is asked about (`Ask`, rule
/// `untrusted-content`) when a result of an MCP tool, or of a tool declared `untrusted_output`,
/// entered the run since the last message of a person, and allowed (rule `trusted-run`) before.
#[derive(Clone, Copy, Debug, Default)]
pub struct UntrustedContentPolicy;

impl UntrustedContentPolicy {
    /// The rule that asks a person.
    pub const ASKS: &'static str = "untrusted-content";
    /// The rule that lets a call run.
    pub const ALLOWS: &'static str = "trusted-run";
}

impl PermissionChecker for UntrustedContentPolicy {
    fn name(&self) -> &str {
        "untrusted-content-policy"
    }

    fn governs(&self) -> &[Capability] {
        &[
            Capability::Destructive,
            Capability::Money,
            Capability::ExternalNet,
        ]
    }

    fn check(&self, request: &PermissionRequest<'_>) -> Permission {
        if request.untrusted_since_person {
            Permission::ask(
                Self::ASKS,
                format!(
                    "content nobody vouches for entered this run before the model called `{}`, which touches {}: a person approves it",
                    request.tool, request.capability
                ),
            )
        } else {
            Permission::allow(Self::ALLOWS)
        }
    }
}
