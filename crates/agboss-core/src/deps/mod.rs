//! Dependencies: the values an application provides to its tools, one per type, made ready or on
//! first use, and which types only the application may provide.
//!
//! A tool declares what it needs as fields (see [`crate::tool::Dependency`]); assembly checks
//! that every field of every tool has a provider before anything runs.

mod infrastructure;
mod providers;

pub use infrastructure::{InfrastructureType, infrastructure_type};
pub use providers::{ErasedValue, MakeValue, Providers, Unresolved};
