//! What is made of a call's result before the model reads it: the ceiling over which it is
//! refused, the bound that cuts it, and the note a repeated call gets.
//!
//! - `ceiling.rs`: [`ResultCeiling`].
//! - `bound.rs`: the bound in effect for a tool, cutting a text to it with the marker line,
//!   and masking a bounded text's kept part.
//! - `repeat.rs`: the digests repeated calls are recognized by ([`RepeatedWhen`],
//!   [`CallDigest`], [`Repeats`]) and the note.

pub mod bound;
mod ceiling;
mod repeat;

pub use bound::{BoundedText, bound_text, mask_bounded, truncation_marker};
pub use ceiling::ResultCeiling;
pub use repeat::{CallDigest, Digest, RepeatedWhen, Repeats};
