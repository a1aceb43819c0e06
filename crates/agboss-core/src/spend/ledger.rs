//! [`SpendLedger`] and [`SpendRecorder`]: costs as they are recorded.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::units::Usd;

/// One cost, as recorded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpendEntry {
    /// The service paid (`"geocoding"`, or a model id).
    pub service: String,
    /// What it cost.
    pub cost: Usd,
    /// The tool that paid it, if a tool did.
    pub tool: Option<&'static str>,
    /// The call that paid it, if a tool call did.
    pub call_id: Option<String>,
}

/// The costs of one execution, in the order they were recorded. Cloning shares it.
#[derive(Clone, Default)]
pub struct SpendLedger {
    entries: Arc<Mutex<Vec<SpendEntry>>>,
    recorded: Arc<tokio::sync::Notify>,
}

impl SpendLedger {
    /// An empty ledger.
    pub fn new() -> SpendLedger {
        SpendLedger::default()
    }

    /// Adds `entry`.
    pub fn push(&self, entry: SpendEntry) {
        self.lock().push(entry);
        self.recorded.notify_waiters();
    }

    /// Completes once an entry is pushed after it is created (or, once `enable`d, after that):
    /// the loop journals what running calls spend as they spend it.
    pub fn recorded(&self) -> tokio::sync::futures::Notified<'_> {
        self.recorded.notified()
    }

    /// The entries at or after position `mark`, and the length they end at.
    pub fn since(&self, mark: usize) -> (Vec<SpendEntry>, usize) {
        let entries = self.lock();
        (
            entries.get(mark..).unwrap_or_default().to_vec(),
            entries.len(),
        )
    }

    /// Everything recorded so far.
    pub fn entries(&self) -> Vec<SpendEntry> {
        self.lock().clone()
    }

    /// The sum of every cost.
    pub fn total(&self) -> Usd {
        self.lock().iter().map(|e| e.cost).sum()
    }

    /// The entries recorded by call `call_id`.
    pub fn of_call(&self, call_id: &str) -> Vec<SpendEntry> {
        self.of_call_since(0, call_id)
    }

    /// The entries recorded by call `call_id` at or after position `mark` (a [`len`](Self::len)
    /// taken before the call began), without reading older ones.
    pub fn of_call_since(&self, mark: usize, call_id: &str) -> Vec<SpendEntry> {
        let entries = self.lock();
        entries
            .get(mark..)
            .unwrap_or_default()
            .iter()
            .filter(|e| e.call_id.as_deref() == Some(call_id))
            .cloned()
            .collect()
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<SpendEntry>> {
        // Pushing one entry cannot be interrupted half-way, so a poisoned lock is consistent.
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl fmt::Debug for SpendLedger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SpendLedger")
            .field("entries", &self.lock().len())
            .field("total", &self.total())
            .finish()
    }
}

/// Records what a tool call pays to services that are not models; declare it as a field.
///
/// ```
/// use agboss_core::spend::{SpendLedger, SpendRecorder};
/// use agboss_core::units::usd;
///
/// let ledger = SpendLedger::new();
/// let recorder = SpendRecorder::new(ledger.clone(), Some("geocode-tool"), Some("call_1".into()));
/// recorder.record("geocoding", usd("0.005"));
/// assert_eq!(ledger.total(), usd("0.005"));
/// assert_eq!(ledger.entries()[0].tool, Some("geocode-tool"));
/// ```
#[derive(Clone, Debug)]
pub struct SpendRecorder {
    ledger: SpendLedger,
    tool: Option<&'static str>,
    call_id: Option<String>,
}

impl SpendRecorder {
    /// A recorder writing to `ledger` on behalf of `tool`'s call `call_id`.
    pub fn new(
        ledger: SpendLedger,
        tool: Option<&'static str>,
        call_id: Option<String>,
    ) -> SpendRecorder {
        SpendRecorder {
            ledger,
            tool,
            call_id,
        }
    }

    /// Records that the call paid `cost` to `service`.
    pub fn record(&self, service: impl Into<String>, cost: Usd) {
        self.ledger.push(SpendEntry {
            service: service.into(),
            cost,
            tool: self.tool,
            call_id: self.call_id.clone(),
        });
    }
}
