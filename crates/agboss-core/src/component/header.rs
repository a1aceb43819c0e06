//! [`Component`]: the header every descriptor holds.

use std::fmt;

use super::{
    ComponentKind, DependencyError, DependencySpec, MissingDependency, Requirement, SourceLocation,
};
use crate::deps::{Providers, Unresolved};

/// The header of a component's descriptor: its kind, name, description, Rust type, where it
/// is declared and its fields. Every descriptor derefs to its header, so `descriptor.name()`
/// reads the same on each kind.
#[derive(Clone, Copy, Debug)]
pub struct Component {
    kind: ComponentKind,
    name: &'static str,
    description: &'static str,
    rust_type: &'static str,
    location: SourceLocation,
    fields: &'static [DependencySpec],
}

impl Component {
    /// A component of kind `kind` named `name`, without fields.
    pub const fn new(
        kind: ComponentKind,
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
    ) -> Component {
        Component {
            kind,
            name,
            description,
            rust_type,
            location,
            fields: &[],
        }
    }

    /// With the fields `fields`, resolved for every use.
    pub const fn with_fields(mut self, fields: &'static [DependencySpec]) -> Component {
        self.fields = fields;
        self
    }

    /// Its kind.
    pub const fn kind(&self) -> ComponentKind {
        self.kind
    }

    /// Its name: what models, configuration and `describe` call it.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// What it does (for a tool, what the model reads to decide when to call it).
    pub const fn description(&self) -> &'static str {
        self.description
    }

    /// The Rust type that declares it.
    pub const fn rust_type(&self) -> &'static str {
        self.rust_type
    }

    /// Where it is declared.
    pub const fn location(&self) -> SourceLocation {
        self.location
    }

    /// Its fields, in declaration order: its dependencies.
    pub const fn dependencies(&self) -> &'static [DependencySpec] {
        self.fields
    }

    /// The error for the field at `index` having no value (what generated `build` code says
    /// when a field cannot be resolved).
    #[doc(hidden)]
    pub fn unresolved(&self, index: usize, why: Unresolved) -> DependencyError {
        let dep = &self.fields[index];
        match why {
            Unresolved::NotProvided => DependencyError::Missing(self.missing_field(dep)),
            Unresolved::Failed(reason) => DependencyError::Unavailable {
                kind: self.kind,
                component: self.name,
                field: dep.field(),
                provided_type: dep.provided_type(),
                reason,
            },
        }
    }

    /// Its fields that `providers` cannot fill, in field order (the fields the runtime gives
    /// every use are always filled).
    pub fn missing(&self, providers: &Providers) -> Vec<MissingDependency> {
        self.fields
            .iter()
            .filter(|dep| match dep.requirement() {
                Requirement::Builtin => false,
                Requirement::Provided { type_id, .. } => !providers.contains(type_id),
            })
            .map(|dep| self.missing_field(dep))
            .collect()
    }

    fn missing_field(&self, dep: &DependencySpec) -> MissingDependency {
        MissingDependency {
            kind: self.kind,
            component: self.name,
            field: dep.field(),
            type_written: dep.type_written(),
            provided_type: dep.provided_type(),
        }
    }
}

impl fmt::Display for Component {
    /// `tool `search-issues-tool``: its kind and name, as messages name it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`", self.kind, self.name)
    }
}
