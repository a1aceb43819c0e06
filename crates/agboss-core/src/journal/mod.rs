//! The journal: what a run is made of, and where it is kept.
//!
//! A run is a sequence of [`LoopEvent`]s (the model answered, a call finished, the run ended);
//! its state is their fold ([`LoopState`]). The loop appends each event to a [`Store`] before it
//! acts on the next step, so any process that reads an execution's events can go on from where
//! it stopped. A store never rewrites what it holds. [`MemoryStore`] keeps journals in this
//! process; persistent stores implement [`Store`] too.
//!
//! This layer sits under both `run` (which writes journals) and `app` (which reads them to
//! resume), so neither has to import the other for it.

mod error;
mod event;
mod index;
mod lease;
mod mcp_pin;
mod memory;
mod memory_artifacts;
mod pause;
mod shelf;
mod state;
mod store;
mod thread;

pub use error::{JournalError, StoreError, StoreErrorKind, StoreFuture};
pub use event::{
    Answer, CallPermission, CallResult, INTENTS_SINCE, LoopEvent, PendingCall, PermissionDecision,
    STATE_VERSION, Spent,
};
pub use index::{
    ExecutionRecord, ExecutionStatus, PauseChange, derive_records, next_record, pause_change,
};
pub(crate) use lease::released_by_itself;
pub use lease::{Fence, JournalEntry, Lease, LeaseState, fence_refusal, renew_refusal, taken_seq};
pub(crate) use lease::{Holder, lease_holds};
pub use mcp_pin::{McpApproval, McpDefinitionSeen, McpPin, pin_after_approval, pin_after_seen};
pub use memory::MemoryStore;
pub use pause::{AskedIn, CallPause, PauseOpened, PauseQuery, PauseRecord, PauseResolution};
pub use shelf::ExecutionShelf;
pub use state::{LoopState, Next};
pub use store::Store;
pub use thread::{ThreadOwner, owner_mismatch, thread_owner_change};
