//! The case of a store's waits: on the application's clock, and never on a manual one.

use std::sync::Arc;
use std::time::Duration;

use agboss_core::store::StoreErrorKind;
use agboss_core::time::{Clock, ManualClock};

use super::Backend;
use super::events::*;
use super::leases::LONG;

/// A store handed a manual clock never waits on it: racing appends (which a store may try
/// again after a short pause) and racing claims complete while the clock stands still, and no
/// timer of the store waits on it.
pub async fn a_store_on_a_manual_clock_never_waits_on_it(mut backend: Box<dyn Backend>) {
    let store = backend.open().await;
    let manual = ManualClock::new();
    store.use_clock(&Clock::from(&manual));
    let work = async {
        for round in 0..4 {
            let id = format!("e-{round}");
            let racers: Vec<_> = (0..8)
                .map(|racer| {
                    let store = Arc::clone(&store);
                    let (id, event) = (id.clone(), started(&id, None, Some("ann")));
                    tokio::spawn(async move { (racer, store.append(&id, 0, &event).await) })
                })
                .collect();
            let mut won = 0;
            for racer in racers {
                match racer.await.expect("a racer") {
                    (_, Ok(())) => won += 1,
                    (racer, Err(e)) => {
                        assert_eq!(e.kind, StoreErrorKind::Conflict, "racer {racer}: {e}")
                    }
                }
            }
            assert_eq!(won, 1, "round {round}");
        }
        let claims: Vec<_> = (0..4)
            .map(|w| {
                let store = Arc::clone(&store);
                tokio::spawn(async move { store.claim(&format!("w-{w}"), LONG, 1).await })
            })
            .collect();
        let mut claimed = 0;
        for claim in claims {
            claimed += claim.await.expect("a claimer").unwrap().len();
        }
        assert_eq!(claimed, 4);
    };
    // Real time, only so that a store that does wait fails the case rather than hangs it.
    tokio::time::timeout(Duration::from_secs(120), work)
        .await
        .expect("the store waited on a clock that stands still");
    assert_eq!(manual.pending_timers(), 0, "no timer of the store");
    assert_eq!(manual.elapsed(), Duration::ZERO);
}
