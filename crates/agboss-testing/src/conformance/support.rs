//! What the cases of several suites share: appending a journal whole, and reading a refusal.

use agboss_core::journal::LoopEvent;
use agboss_core::store::{Journal, StoreError, StoreErrorKind};

/// Appends `events` to `execution` from seq 0, each expected to be taken.
pub(super) async fn append_all(store: &dyn Journal, execution: &str, events: &[LoopEvent]) {
    for (seq, event) in events.iter().enumerate() {
        store
            .append(execution, seq as u64, event)
            .await
            .unwrap_or_else(|e| panic!("append {seq} of `{execution}`: {e}"));
    }
}

/// A refusal's kind and detail.
pub(super) fn refusal(result: Result<(), StoreError>) -> (StoreErrorKind, String) {
    let error = result.expect_err("a refusal");
    (error.kind, error.detail)
}
