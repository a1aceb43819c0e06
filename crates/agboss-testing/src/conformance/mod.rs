//! The store conformance suite: one set of cases every [`Store`] must pass, written once and run
//! against each store, so they all behave as [`MemoryStore`], the reference, does.
//!
//! A store plugs in with a [`Backend`] (how to open it, and open it again on the same data) and
//! one line in a test file, which makes one `#[test]` per case:
//!
//! ```
//! mod memory {
//!     agboss_testing::store_conformance!(agboss_testing::conformance::MemoryBackend::default());
//! }
//! # fn main() {}
//! ```
//!
//! (From the facade: `agboss::testing::store_conformance!`.)
//!
//! [`differential`] is the state-machine property test: random sequences of appends (some at
//! wrong sequence numbers, some refused) applied to a `MemoryStore` and the store under test side
//! by side; after every step both must have given the same result and must answer every query
//! alike.

mod artifacts;
mod cases;
pub mod events;
mod leases;
mod model;
mod pauses;
mod pins;
mod releasing;
mod threads;
mod waits;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use agboss_core::journal::{MemoryStore, Store};

pub use model::{DIFFERENTIAL_CASES, differential};

/// The cases, each an `async fn(Box<dyn Backend>)`, and the runtime each runs on: what
/// [`store_conformance!`](crate::store_conformance) calls, one `#[test]` each. Not to be called
/// by hand: a store passes the suite by passing every case, through the macro.
#[doc(hidden)]
pub mod case {
    pub use super::artifacts::*;
    pub use super::cases::*;
    pub use super::leases::*;
    pub use super::pauses::*;
    pub use super::pins::*;
    pub use super::releasing::*;
    pub use super::run_case;
    pub use super::threads::*;
    pub use super::waits::*;
}

/// The future of [`Backend::open`].
pub type OpenFuture<'a> = Pin<Box<dyn Future<Output = Arc<dyn Store>> + Send + 'a>>;

/// A store under test: each case makes its own backend, so each starts empty.
pub trait Backend: Send + 'static {
    /// Opens the store. The first time it is empty; a later time (after every handle of the
    /// previous one was dropped) it holds what the previous one held. A store that cannot be
    /// opened fails the test (panic with the reason).
    fn open(&mut self) -> OpenFuture<'_>;
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

/// One `#[test]` per conformance case against the store `backend` (an expression making a
/// fresh [`Backend`], evaluated once per case). Put it in a module of its own per store.
#[macro_export]
macro_rules! store_conformance {
    ($backend:expr) => {
        $crate::__store_conformance_cases!(
            $backend;
            appends_in_order_and_refuses_a_stale_or_early_seq,
            refuses_what_memory_refuses,
            exactly_one_of_racing_appends_wins_each_seq,
            concurrent_executions_all_append,
            derives_the_execution_record_after_every_event,
            derives_pause_records,
            lists_open_pauses_by_filter_oldest_first_with_limit,
            lists_a_thread_in_start_order,
            keeps_everything_across_reopening,
            round_trips_every_event_byte_for_byte,
            reads_a_journal_of_the_first_layout,
            claims_an_execution_once_until_released_or_run_out,
            a_lease_that_ran_out_is_taken_over,
            fenced_appends_are_checked_against_the_current_claim,
            a_retried_append_is_taken_once_and_a_different_one_diverges,
            claims_runnable_executions_oldest_first_and_once,
            releases_at_once_each_give_up_their_own_claim,
            the_last_append_of_a_claim_releases_it,
            keeps_leases_across_reopening,
            a_thread_belongs_to_the_owner_its_first_run_named,
            racing_first_runs_of_a_thread_leave_exactly_one_owner,
            a_store_on_a_manual_clock_never_waits_on_it,
            pins_a_first_definition_and_holds_a_changed_one_for_approval,
            pins_belong_to_one_application,
            racing_first_sights_leave_one_pin,
            keeps_artifacts_per_execution_and_lists_them_by_kind,
            deletes_artifacts_with_their_execution,
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
