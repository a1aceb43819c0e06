//! [`ToolDescriptor`]: everything known about a tool without running it, and the registry of
//! every `#[tool]` in the program.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::schema::{CompiledSchemas, SchemaError};
use super::{
    DependencyError, DependencySpec, MissingDependency, OnCrash, RemoteTool, Requirement,
    ToolApproval, ToolOrigin,
};
use super::{DynTool, ToolEnv};
use crate::deps::Unresolved;
use crate::units::{ByteSize, TimeSpan, seconds};

/// Where a tool is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLocation {
    /// `module_path!()` of the declaration.
    pub module_path: &'static str,
    /// `file!()` of the declaration.
    pub file: &'static str,
    /// `line!()` of the declaration.
    pub line: u32,
}

impl SourceLocation {
    /// The file's path with `.` and `..` resolved: `file!()` of an example is
    /// `crates/agboss/../../examples/desk/scout.rs`, its path `examples/desk/scout.rs`. Paths
    /// are relative to the workspace root for the workspace's own crates, as cargo builds them.
    ///
    /// ```
    /// use agboss_core::tool::SourceLocation;
    ///
    /// let here = SourceLocation { module_path: "desk::scout", file: "crates/agboss/../../examples/desk/./scout.rs", line: 9 };
    /// assert_eq!(here.path(), "examples/desk/scout.rs");
    /// assert_eq!(here.to_string(), "examples/desk/scout.rs:9");
    /// ```
    pub fn path(&self) -> String {
        let absolute = self.file.starts_with('/');
        let mut parts: Vec<&str> = Vec::new();
        for part in self.file.split(['/', '\\']) {
            match part {
                "" | "." => {}
                ".." if parts.last().is_some_and(|p| *p != "..") => {
                    parts.pop();
                }
                // Above a relative start, or above the root: kept as written.
                ".." if !absolute => parts.push(".."),
                ".." => {}
                part => parts.push(part),
            }
        }
        let joined = parts.join("/");
        if absolute {
            format!("/{joined}")
        } else {
            joined
        }
    }
}

impl fmt::Display for SourceLocation {
    /// `examples/desk/scout.rs:9`: the [`path`](Self::path) and the line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.path(), self.line)
    }
}

/// The static description of a tool, registered by `#[tool]`: name, description, timeout,
/// bound, fields and schemas. Assembly and `describe` read it; nothing runs.
pub struct ToolDescriptor {
    name: &'static str,
    description: &'static str,
    rust_type: &'static str,
    location: SourceLocation,
    timeout: TimeSpan,
    max_result_size: Option<ByteSize>,
    read_only: bool,
    origin: ToolOrigin,
    approval: Option<ToolApproval>,
    on_crash: OnCrash,
    dependencies: &'static [DependencySpec],
    input_schema: fn() -> Value,
    output_schema: fn() -> Value,
    compiled: OnceLock<Result<Arc<CompiledSchemas>, SchemaError>>,
}

impl ToolDescriptor {
    /// The timeout of a tool that declares none.
    pub const DEFAULT_TIMEOUT: TimeSpan = seconds(30);

    /// A tool named `name` with the default timeout, no own bound and no fields.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
        input_schema: fn() -> Value,
        output_schema: fn() -> Value,
    ) -> ToolDescriptor {
        ToolDescriptor {
            name,
            description,
            rust_type,
            location,
            timeout: Self::DEFAULT_TIMEOUT,
            max_result_size: None,
            read_only: false,
            origin: ToolOrigin::Local,
            approval: None,
            on_crash: OnCrash::Rerun,
            dependencies: &[],
            input_schema,
            output_schema,
            compiled: OnceLock::new(),
        }
    }

    /// With `timeout` instead of the default 30 s.
    pub const fn with_timeout(mut self, timeout: TimeSpan) -> ToolDescriptor {
        self.timeout = timeout;
        self
    }

    /// With its own bound on what the model reads of a result.
    pub const fn with_max_result_size(mut self, bound: ByteSize) -> ToolDescriptor {
        self.max_result_size = Some(bound);
        self
    }

    /// Declares that the tool changes nothing.
    pub const fn read_only(mut self) -> ToolDescriptor {
        self.read_only = true;
        self
    }

    /// Makes the tool forward to `remote` (what `#[mcp_tool]` declares).
    pub const fn with_remote(mut self, remote: RemoteTool) -> ToolDescriptor {
        self.origin = ToolOrigin::Remote(remote);
        self
    }

    /// Makes its calls wait for a decision of `approval`'s role before they run.
    pub const fn with_approval(mut self, approval: ToolApproval) -> ToolDescriptor {
        self.approval = Some(approval);
        self
    }

    /// What recovery does with a call a crash interrupted (`rerun` unless set).
    pub const fn with_on_crash(mut self, on_crash: OnCrash) -> ToolDescriptor {
        self.on_crash = on_crash;
        self
    }

    /// With the fields `dependencies`.
    pub const fn with_dependencies(
        mut self,
        dependencies: &'static [DependencySpec],
    ) -> ToolDescriptor {
        self.dependencies = dependencies;
        self
    }

    /// The name the model calls it by.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// What the model reads to decide when to call it.
    pub fn description(&self) -> &'static str {
        self.description
    }

    /// The Rust type that implements it.
    pub fn rust_type(&self) -> &'static str {
        self.rust_type
    }

    /// Where it is declared.
    pub fn location(&self) -> SourceLocation {
        self.location
    }

    /// How long a call may run.
    pub fn timeout(&self) -> TimeSpan {
        self.timeout
    }

    /// Its own bound on what the model reads of a result, if it sets one.
    pub fn max_result_size(&self) -> Option<ByteSize> {
        self.max_result_size
    }

    /// Whether it declared that it changes nothing. Undeclared tools are taken to write.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Where its work is done: here, or by a server's tool.
    pub fn origin(&self) -> &ToolOrigin {
        &self.origin
    }

    /// The role its calls wait for, if they wait for one.
    pub fn approval(&self) -> Option<&ToolApproval> {
        self.approval.as_ref()
    }

    /// What recovery does with a call of it that a crash interrupted.
    pub fn on_crash(&self) -> OnCrash {
        self.on_crash
    }

    /// Where it comes from: `local`, or the server's name.
    pub fn source(&self) -> &'static str {
        self.origin.source()
    }

    /// Its fields, in declaration order.
    pub fn dependencies(&self) -> &'static [DependencySpec] {
        self.dependencies
    }

    /// The JSON Schema of its input, as the model reads it (generated on each call of this
    /// method; [`schemas`](Self::schemas) caches).
    pub fn input_schema(&self) -> Value {
        (self.input_schema)()
    }

    /// The JSON Schema of its output.
    pub fn output_schema(&self) -> Value {
        (self.output_schema)()
    }

    /// Its schemas and their validators, generated and compiled once per process.
    pub fn schemas(&self) -> Result<&Arc<CompiledSchemas>, &SchemaError> {
        self.compiled
            .get_or_init(|| CompiledSchemas::compile(self).map(Arc::new))
            .as_ref()
    }

    /// The error for the field at `index` having no value.
    #[doc(hidden)]
    pub fn unresolved(&'static self, index: usize, why: Unresolved) -> DependencyError {
        let dep = &self.dependencies[index];
        let provided_type = match dep.requirement() {
            Requirement::Provided { type_name, .. } => type_name,
            Requirement::Builtin => dep.type_written(),
        };
        match why {
            Unresolved::NotProvided => DependencyError::Missing(MissingDependency {
                tool: self.name,
                field: dep.field(),
                type_written: dep.type_written(),
                provided_type,
            }),
            Unresolved::Failed(reason) => DependencyError::Unavailable {
                tool: self.name,
                field: dep.field(),
                provided_type,
                reason,
            },
        }
    }
}

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor")
            .field("name", &self.name)
            .field("rust_type", &self.rust_type)
            .field("timeout", &self.timeout)
            .field("max_result_size", &self.max_result_size)
            .field("dependencies", &self.dependencies)
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

/// A tool's entry in the program-wide registry, submitted by `#[tool]` through `inventory`;
/// also how agents and workflows list their tools.
#[derive(Clone, Copy)]
pub struct ToolRegistration {
    descriptor: &'static ToolDescriptor,
    erase: fn(&'static ToolDescriptor, ToolEnv, ByteSize) -> Arc<dyn DynTool>,
}

impl ToolRegistration {
    /// The registration of tool `T`.
    pub const fn of<T: super::Tool>() -> ToolRegistration {
        ToolRegistration {
            descriptor: T::DESCRIPTOR,
            erase: super::invoke::erase::<T>,
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

inventory::collect!(ToolRegistration);

/// Every `#[tool]` linked into the program, sorted by name, then by Rust type.
///
/// Two tools may share a name here; assembly reports that for the agents that use both.
pub fn registered_tools() -> &'static [&'static ToolRegistration] {
    static SORTED: OnceLock<Vec<&'static ToolRegistration>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut all: Vec<_> = inventory::iter::<ToolRegistration>().collect();
        all.sort_by_key(|r| (r.descriptor.name, r.descriptor.rust_type));
        all
    })
}

#[cfg(test)]
mod tests {
    use super::SourceLocation;

    fn path(file: &'static str) -> String {
        SourceLocation {
            module_path: "m",
            file,
            line: 1,
        }
        .path()
    }

    #[test]
    fn source_paths_are_normalized_lexically() {
        assert_eq!(
            path("crates/agboss/../../examples/desk/scout.rs"),
            "examples/desk/scout.rs"
        );
        assert_eq!(path("tests/common/mod.rs"), "tests/common/mod.rs");
        assert_eq!(
            path("../outside/x.rs"),
            "../outside/x.rs",
            "above the start stays"
        );
        assert_eq!(
            path("/home/u/.cargo/registry/a/../b/src/lib.rs"),
            "/home/u/.cargo/registry/b/src/lib.rs"
        );
        assert_eq!(path("src\\win\\..\\lib.rs"), "src/lib.rs");
    }
}
