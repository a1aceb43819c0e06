//! The journal's suite: what every [`Journal`](agboss_core::store::Journal) does. Each case
//! takes a fresh backend, opens its journal, and panics with what differs from the reference
//! behaviour. Refusals are asserted to the kind and the exact detail (stores differ only in
//! their name).

mod appends;
mod pauses;
mod threads;

pub use appends::*;
pub use pauses::*;
pub use threads::*;

/// One `#[test]` per case of the journal's suite against `backend` (an expression making a
/// fresh [`Backend<dyn Journal>`](crate::conformance::Backend), evaluated once per case; a
/// whole store's backend is one). Put it in a module of its own per store.
#[macro_export]
macro_rules! journal_conformance {
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
            a_thread_belongs_to_the_owner_its_first_run_named,
            racing_first_runs_of_a_thread_leave_exactly_one_owner,
        );
    };
}
