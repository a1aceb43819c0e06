//! [`ToolRegistration`]: a tool's entry in the registry of every `#[tool]` in the program, and
//! how a registered tool is made ready to call.

use std::fmt;
use std::sync::Arc;

use super::{DynTool, Tool, ToolDescriptor, ToolEnv};
use crate::component::registry;
use crate::units::ByteSize;

/// A tool's entry in the program-wide registry, submitted by `#[tool]` through `inventory`;
/// also how agents and workflows list their tools.
#[derive(Clone, Copy)]
pub struct ToolRegistration {
    descriptor: &'static ToolDescriptor,
    erase: fn(&'static ToolDescriptor, ToolEnv, ByteSize) -> Arc<dyn DynTool>,
}

impl ToolRegistration {
    /// The registration of tool `T`.
    pub const fn of<T: Tool>() -> ToolRegistration {
        ToolRegistration {
            descriptor: T::DESCRIPTOR,
            erase: super::contract::erase::<T>,
        }
    }

    /// The tool's descriptor.
    pub fn descriptor(&self) -> &'static ToolDescriptor {
        self.descriptor
    }

    /// The same tool code under another descriptor (a generated name, say). The descriptor's
    /// schemas must be those of the tool's DTOs.
    #[doc(hidden)]
    pub fn with_descriptor(self, descriptor: &'static ToolDescriptor) -> ToolRegistration {
        ToolRegistration { descriptor, ..self }
    }

    /// The tool, ready to be called in `env`, what the model reads bounded to `bound`.
    pub fn instantiate(&self, env: ToolEnv, bound: ByteSize) -> Arc<dyn DynTool> {
        (self.erase)(self.descriptor, env, bound)
    }
}

impl fmt::Debug for ToolRegistration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.descriptor.fmt(f)
    }
}

registry! {
    /// Every `#[tool]` linked into the program, sorted by name, then by Rust type.
    ///
    /// Two tools may share a name here; assembly reports that for the agents that use both.
    pub fn registered_tools() -> ToolRegistration
}
