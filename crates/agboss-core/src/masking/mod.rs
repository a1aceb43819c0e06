//! Masking personal data and secrets in what models, people and journals read of tool results
//! (docs/privacy.md): the built-in [`Entity`] kinds, [`MaskingPolicy`] with the application's
//! own patterns, and the engine that finds them, JSON- and URL-escaped forms included.
//!
//! Pure text in, text out: it knows nothing of tools, runs or stores, so every layer that hands
//! text on (the tool step, approvals, knowledge bases) can mask with it.

mod checks;
mod decode;
mod digits;
mod engine;
mod entity;
mod policy;
mod tail;

#[cfg(feature = "mcp")]
pub(crate) use decode::json_escape;
pub use entity::Entity;
pub use policy::{MaskingPatternError, MaskingPolicy};

#[cfg(test)]
mod tests;
