//! The store conformance suite: the cases every store must pass, written once and run against
//! each store, so they all behave as [`MemoryStore`], the reference, does.
//!
//! It is made of one suite per part of a store, each a store of that kind can run on its own:
//! the journal's ([`journal_conformance!`](crate::journal_conformance)), the leases'
//! ([`leases_conformance!`](crate::leases_conformance)), the artifacts'
//! ([`artifact_store_conformance!`](crate::artifact_store_conformance)), the pins'
//! ([`pin_store_conformance!`](crate::pin_store_conformance)) and the sealed arguments'
//! ([`seal_store_conformance!`](crate::seal_store_conformance)). A part plugs in with a
//! [`Backend`] of its kind (`Backend<dyn Journal>`, ...: how to open it, and open it again on
//! the same data); a whole [`Store`] with a [`Backend`], which is a backend of each of its parts
//! too. [`store_conformance!`](crate::store_conformance) runs every suite on a whole store, and
//! the case of its waits. One line in a test file makes one `#[test]` per case:
//!
//! ```
//! mod memory {
//!     agboss_testing::store_conformance!(agboss_testing::conformance::MemoryBackend::default());
//! }
//! mod memory_journal {
//!     agboss_testing::journal_conformance!(agboss_testing::conformance::MemoryBackend::default());
//! }
//! # fn main() {}
//! ```
//!
//! (From the facade: `agboss::testing::store_conformance!`, and the others beside it.)
//!
//! [`differential`] is the state-machine property test: random sequences of appends (some at
//! wrong sequence numbers, some refused) and lease operations applied to a `MemoryStore` and
//! the store under test side by side; after every step both must have given the same result and
//! must answer every query alike.

mod artifacts;
pub mod events;
mod journal;
mod leases;
mod model;
mod parts;
mod pins;
mod sealed;
mod support;
mod waits;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agboss_core::store::{MemoryStore, Store};

pub use model::{DIFFERENTIAL_CASES, differential};

/// The cases, each an `async fn(Box<dyn Backend<..>>)` of its part's kind, and the runtime each
/// runs on: what the suites' macros call, one `#[test]` each. Not to be called by hand: a store
/// passes a suite by passing every case, through its macro.
#[doc(hidden)]
pub mod case {
    pub use super::artifacts::*;
    pub use super::journal::*;
    pub use super::leases::*;
    pub use super::pins::*;
    pub use super::run_case;
    pub use super::sealed::*;
    pub use super::waits::*;
}

/// The future of [`Backend::open`]: the store of kind `S` opened.
pub type OpenFuture<'a, S = dyn Store> = Pin<Box<dyn Future<Output = Arc<S>> + Send + 'a>>;

/// A store of kind `S` under test (a whole [`Store`] by default;
/// [`Journal`](agboss_core::store::Journal), `Leases`, `ArtifactStore` or `PinStore` for one part): each case makes its own backend, so each starts
/// empty. A backend of a whole store is a backend of each of its parts as well.
pub trait Backend<S: ?Sized = dyn Store>: Send + 'static {
    /// Opens the store. The first time it is empty; a later time (after every handle of the
    /// previous one was dropped) it holds what the previous one held. A store that cannot be
    /// opened fails the test (panic with the reason).
    fn open(&mut self) -> OpenFuture<'_, S>;
}

/// The reference: a [`MemoryStore`]. "Opening it again" hands back the same store, which is all
/// a store in memory keeps.
#[derive(Debug, Default)]
pub struct MemoryBackend {
    store: Option<Arc<MemoryStore>>,
}

impl Backend for MemoryBackend {
    fn open(&mut self) -> OpenFuture<'_> {
        let store = self.store.get_or_insert_with(Default::default).clone();
        Box::pin(std::future::ready(store as Arc<dyn Store>))
    }
}

/// Runs one case on a runtime of its own, with worker threads so concurrent appends really
/// race.
#[doc(hidden)]
pub fn run_case<F: Future<Output = ()>>(case: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .enable_all()
        .build()
        .expect("a tokio runtime")
        .block_on(case);
}

/// One `#[test]` per conformance case against the whole store `backend` (an expression making
/// a fresh [`Backend`], evaluated once per case): every part's suite, and the case of the
/// store's waits on the application's clock. Put it in a module of its own per store.
#[macro_export]
macro_rules! store_conformance {
    ($backend:expr) => {
        $crate::journal_conformance!($backend);
        $crate::leases_conformance!($backend);
        $crate::artifact_store_conformance!($backend);
        $crate::pin_store_conformance!($backend);
        $crate::seal_store_conformance!($backend);
        $crate::__store_conformance_cases!(
            $backend;
            a_store_on_a_manual_clock_never_waits_on_it,
        );
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __store_conformance_cases {
    ($backend:expr; $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                $crate::conformance::case::run_case($crate::conformance::case::$case(::std::boxed::Box::new(
                    $backend,
                )));
            }
        )*
    };
}
