//! Results kept aside as artifacts of their execution, and references to them redeemed.
//!
//! - `artifact.rs`: [`Artifact`], the texts the model reads,
//!   and [`ArtifactShelf`], the port a call reaches its execution's artifacts through.
//! - `artifact_call.rs`: keeping a result aside, redeeming the references a call passes.
//! - `wanted.rs`: [`Wanted<T>`](Wanted), the field a tool reads redeemed data from.

mod artifact;
pub(crate) mod artifact_call;
pub(crate) mod wanted;

pub use artifact::{
    Artifact, ArtifactRef, ArtifactShelf, REFERENCE_PREFIX, REFERENCE_RANDOM_BYTES, Refusal,
    ShelfFuture, minted_text, refusal_text,
};
pub use wanted::{Wanted, WantsField, wants_field};
