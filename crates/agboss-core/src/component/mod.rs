//! The machinery every component kind shares: tools, agents, channel roles, channels and MCP
//! servers (and the kinds to come: knowledge bases, policies) are each a descriptor built from
//! one [`Component`] header (kind, name, description, Rust type, source location, fields), a
//! list of fields resolved from the application's providers ([`DependencySpec`], with one way
//! to say a field has no value: [`Component::unresolved`]), and a [`Registry`] over
//! `inventory` for the kinds the attributes register.
//!
//! A new kind adds a descriptor that holds a `Component` and derefs to it, and, if its
//! attribute registers it, one `static` [`Registry`]; nothing else is written again.
//!
//! ```
//! use agboss_core::component::{Component, ComponentKind, SourceLocation};
//!
//! const HERE: SourceLocation = SourceLocation { module_path: "desk", file: "src/desk.rs", line: 3 };
//! let header = Component::new(ComponentKind::Tool, "search-issues-tool", "Searches issues", "SearchIssues", HERE);
//! assert_eq!(header.name(), "search-issues-tool");
//! assert_eq!(header.to_string(), "tool `search-issues-tool`");
//! ```

mod fields;
mod header;
mod kind;
mod location;
mod registry;

pub use fields::{DependencyError, DependencySpec, MissingDependency, Requirement};
pub use header::Component;
pub use kind::ComponentKind;
pub use location::SourceLocation;
pub use registry::{Registered, Registration, Registry};
pub(crate) use registry::{derefs_to_component, registry};
