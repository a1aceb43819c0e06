//! [`Gate`]: the faults a [`FaultyStore`](super::FaultyStore) is told to show, which every
//! operation of it and of its sub-stores passes through first.

use std::sync::Mutex;

use agboss_core::journal::LoopEvent;
use agboss_core::store::{StoreError, StoreErrorKind, StoreFuture};
use tokio::sync::Notify;

type Matcher = Box<dyn Fn(&LoopEvent) -> bool + Send + Sync>;

/// What the test told the store, and what it did of it.
#[derive(Default)]
pub(super) struct Gate {
    freeze: Mutex<Option<Matcher>>,
    frozen: Mutex<bool>,
    froze: Notify,
    unavailable: Mutex<bool>,
    refused: Mutex<u64>,
}

impl Gate {
    pub(super) fn freeze_before(&self, matches: Matcher) {
        *self.freeze.lock().unwrap_or_else(|p| p.into_inner()) = Some(matches);
    }

    pub(super) async fn frozen(&self) {
        loop {
            let notified = self.froze.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if *self.frozen.lock().unwrap_or_else(|p| p.into_inner()) {
                return;
            }
            notified.await;
        }
    }

    pub(super) fn set_unavailable(&self, unavailable: bool) {
        *self.unavailable.lock().unwrap_or_else(|p| p.into_inner()) = unavailable;
    }

    pub(super) fn refused(&self) -> u64 {
        *self.refused.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `op`, once the gate lets it through: `Err` when the store is set unavailable, pending
    /// forever once frozen (an append of `event` that matches freezes it). `op` is not even
    /// called before, so a wrapped store that works when called does nothing.
    pub(super) fn gated<'a, T: Send + 'a>(
        &'a self,
        event: Option<&'a LoopEvent>,
        op: impl FnOnce() -> StoreFuture<'a, T> + Send + 'a,
    ) -> StoreFuture<'a, T> {
        Box::pin(async move {
            self.pass(event).await?;
            op().await
        })
    }

    /// `Err` when the store is set unavailable; pending forever once frozen.
    async fn pass(&self, event: Option<&LoopEvent>) -> Result<(), StoreError> {
        let freeze_now = {
            let mut frozen = self.frozen.lock().unwrap_or_else(|p| p.into_inner());
            let matched = event.is_some_and(|event| {
                self.freeze
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .as_ref()
                    .is_some_and(|m| m(event))
            });
            *frozen |= matched;
            *frozen
        };
        if freeze_now {
            self.froze.notify_waiters();
            std::future::pending::<()>().await;
        }
        if *self.unavailable.lock().unwrap_or_else(|p| p.into_inner()) {
            *self.refused.lock().unwrap_or_else(|p| p.into_inner()) += 1;
            return Err(StoreError::new(
                "faulty",
                StoreErrorKind::Unavailable,
                "the store is out of reach (set so by the test)",
            ));
        }
        Ok(())
    }
}
