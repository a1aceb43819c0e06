//! [`RoleRef`]: a role a tool names (the one its calls wait for, or one it asks questions of),
//! said without naming the channel layer's types, so that the tool layer stays under it (as
//! [`ToolOrigin`](crate::tool::ToolOrigin) does for MCP).

use std::any::Any;
use std::fmt;

/// A role a tool names: the one its calls wait for before they run (`#[tool(channel = Role)]`)
/// or one it asks while it runs (`#[tool(asks = [Role])]`). Its name, and its declaration,
/// which only the channel layer reads.
#[derive(Clone, Copy)]
pub struct RoleRef {
    role: &'static str,
    declaration: &'static (dyn Any + Send + Sync),
}

impl RoleRef {
    /// Role `role`, declared by `declaration`.
    pub const fn new(role: &'static str, declaration: &'static (dyn Any + Send + Sync)) -> Self {
        RoleRef { role, declaration }
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

impl fmt::Debug for RoleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("RoleRef").field(&self.role).finish()
    }
}
