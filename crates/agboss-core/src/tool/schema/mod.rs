//! What a tool's arguments and output are checked against: its JSON Schemas, compiled once.
//!
//! - `check.rs`: [`CompiledSchemas`] and the check of one schema (`SchemaCheck`): the contract's
//!   step 1 (JSON text to a validated input, `{}` for empty arguments, the `null`s of optional
//!   fields read as absent) and the output's check; [`input_schema_of`], [`output_schema_of`].
//! - `tape/`: the pooled tape a JSON text or a value is written on to be checked.
//! - `conform/`: the validator `#[dto]` generates (`Conforms`, the probes and rules generated
//!   code calls, the strict reader that refuses what serde accepts beyond the schema, and where
//!   a reading or a writing stopped).
//! - `nulls.rs`: `null` for a property a caller may leave out, read as left out.
//! - `issues.rs`: [`Issues`], every problem of a value with its path.
//! - `allowlist.rs`, `allowlist_schema.rs`: [`AllowList`]s a tool holds its path and URL
//!   arguments to, judged on the tape once the schema holds.
//! - `error.rs`: [`SchemaError`], a schema that is not a usable JSON Schema.

pub(crate) mod allowlist;
pub(crate) mod allowlist_schema;
mod check;
#[doc(hidden)]
pub mod conform;
mod error;
pub(crate) mod issues;
pub(crate) mod nulls;
pub(crate) mod tape;

pub use allowlist::{AllowKind, AllowList};
pub use check::{CompiledSchemas, input_schema_of, output_schema_of};
pub(crate) use check::{SchemaCheck, read_redeemed, unwritable};
pub use error::SchemaError;
pub use issues::{Issue, Issues};
