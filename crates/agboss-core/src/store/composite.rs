//! [`Store`]: the one seam an application is given, made of a journal with its leases and the
//! sub-stores beside them.

use super::{ArtifactStore, Leases, PinStore, SealStore};
use crate::time::Clock;

/// A store, as an application, the loop and the command line hold it (`Arc<dyn Store>`): a
/// [`Journal`](super::Journal) with its [`Leases`], and the sub-stores of what is kept beside
/// the journals ([`artifacts`](Self::artifacts), [`pins`](Self::pins),
/// [`sealed`](Self::sealed)).
///
/// The journal's and the leases' methods are called on the store itself (they are its
/// supertraits); a sub-store's through the method that hands it out:
///
/// ```
/// # async fn example(store: &dyn agboss_core::store::Store) -> Result<(), agboss_core::store::StoreError> {
/// let events = store.events("e-1").await?;
/// let deleted = store.artifacts().delete("e-1").await?;
/// let pins = store.pins().list("desk").await?;
/// # let _ = (events, deleted, pins);
/// # Ok(()) }
/// ```
///
/// A new kind of record kept beside the journals is a new sub-store: one trait, and one method
/// here that hands it out, not a method on every store.
pub trait Store: Leases {
    /// The artifacts it keeps beside the journals.
    fn artifacts(&self) -> &dyn ArtifactStore;

    /// The pinned MCP definitions it keeps.
    fn pins(&self) -> &dyn PinStore;

    /// The arguments it keeps unmasked while their calls may still run, where the journal
    /// keeps them masked.
    fn sealed(&self) -> &dyn SealStore;

    /// Hands the store the application's clock, for the waits the store makes on its own: the
    /// pause between tries of an operation that failed for a moment, how long it waits for its
    /// server. `ApplicationBuilder::build` calls it with the application's clock (a store
    /// shared by several applications waits on the last one's). On a
    /// [`ManualClock`](crate::time::ManualClock) a store does not wait on time only the test
    /// moves: it tries again at once, and waits for its server without a deadline
    /// (docs/stores.md). Whether a *lease* ran out is the store's own clock's to say, never
    /// this one's. The default ignores it: a store that never waits.
    ///
    /// It is the whole store's, not one part's: the journal, the leases and every sub-store
    /// wait on the same clock.
    fn use_clock(&self, clock: &Clock) {
        let _ = clock;
    }
}

crate::infrastructure!(dyn Store, "a store");
