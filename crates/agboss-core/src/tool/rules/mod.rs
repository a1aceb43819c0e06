//! What is made of a call's result before the model reads it: the ceiling over which it is
//! refused, the bound that cuts it, the mask, the note a repeated call gets, retries of a
//! transient error, and a fatal one.
//!
//! - `ceiling.rs`: the `ceiling` rule, which refuses a result over the tool's
//!   [`ResultCeiling`](crate::tool::ResultCeiling).
//! - `artifact.rs`: a result over its tool's artifact size kept aside.
//! - `bound.rs`: the bound in effect for a tool, cutting a text to it with the marker line,
//!   and masking a bounded text's kept part.
//! - `repeat.rs`: the run's [`Repeats`], which recognizes repeated calls by their digests, and
//!   the note.
//! - `mask.rs`: the kept part masked by an agent's policy, the bound still held.
//! - `retries.rs`: a transient error tried again, with its backoff.
//! - `fatal.rs`: a fatal error that ends the run.
//!
//! Each file holds its rule's stage of the call pipeline (`bound`, `ceiling`, `notes`, `mask`,
//! `retries`, `fatal`).

mod artifact;
pub mod bound;
mod ceiling;
mod fatal;
mod mask;
mod repeat;
mod retries;

pub(crate) use artifact::ArtifactRule;
pub(crate) use bound::BoundRule;
pub use bound::{BoundedText, bound_text, mask_bounded, truncation_marker};
pub(crate) use ceiling::CeilingRule;
pub(crate) use fatal::FatalRule;
pub(crate) use mask::MaskRule;
pub(crate) use repeat::NotesRule;
pub use repeat::Repeats;
pub(crate) use retries::RetriesRule;
pub use retries::{MAX_RETRY_BACKOFF, backoff};
