//! [`ToolApproval`]: the role a tool's calls wait for, said without naming the channel layer's
//! types, so that the tool layer stays under it (as [`ToolOrigin`](super::ToolOrigin) does for
//! MCP).

use std::any::Any;
use std::fmt;

/// The role a tool's calls wait for before they run (`#[tool(channel = Role)]`): its name, and
/// its declaration, which only the channel layer reads.
#[derive(Clone, Copy)]
pub struct ToolApproval {
    role: &'static str,
    declaration: &'static (dyn Any + Send + Sync),
}

impl ToolApproval {
    /// Calls wait for role `role`, declared by `declaration`.
    pub const fn new(role: &'static str, declaration: &'static (dyn Any + Send + Sync)) -> Self {
        ToolApproval { role, declaration }
    }

    /// The role's name (`refund-approval-channel`).
    pub fn role(&self) -> &'static str {
        self.role
    }

    /// The role's declaration, if it is a `D`.
    pub fn declaration<D: Any>(&self) -> Option<&'static D> {
        self.declaration.downcast_ref::<D>()
    }
}

impl fmt::Debug for ToolApproval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("ToolApproval").field(&self.role).finish()
    }
}
