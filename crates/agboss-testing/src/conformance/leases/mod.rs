//! The leases' suite: what every [`Leases`](agboss_core::store::Leases) does, on the journal it
//! fences. Each case takes a fresh backend, opens its store, and panics with what differs from
//! the reference behaviour.
//!
//! A ttl of zero runs out at once (by the next operation, on any clock); [`LONG`] never runs
//! out within a case.

mod claims;
mod releasing;

use std::time::Duration;

use agboss_core::store::StoreErrorKind;

pub use claims::*;
pub use releasing::*;

/// A lease that outlives any case.
pub const LONG: Duration = Duration::from_secs(3_600);

/// The refusal of a write of claim `epoch` to `execution`, for `why`.
fn fenced(execution: &str, epoch: u64, why: &str) -> (StoreErrorKind, String) {
    (
        StoreErrorKind::Fenced,
        format!("execution `{execution}`: claim {epoch} may not write: {why}"),
    )
}

/// One `#[test]` per case of the leases' suite against `backend` (an expression making a fresh
/// [`Backend<dyn Leases>`](crate::conformance::Backend), evaluated once per case; a whole
/// store's backend is one). A lease store is a journal too: run
/// [`journal_conformance!`](crate::journal_conformance) on it as well.
#[macro_export]
macro_rules! leases_conformance {
    ($backend:expr) => {
        $crate::__store_conformance_cases!(
            $backend;
            claims_an_execution_once_until_released_or_run_out,
            a_lease_that_ran_out_is_taken_over,
            fenced_appends_are_checked_against_the_current_claim,
            a_retried_append_is_taken_once_and_a_different_one_diverges,
            claims_runnable_executions_oldest_first_and_once,
            releases_at_once_each_give_up_their_own_claim,
            the_last_append_of_a_claim_releases_it,
            keeps_leases_across_reopening,
        );
    };
}
