//! The journal: what a run is made of.
//!
//! A run is a sequence of [`LoopEvent`]s (the model answered, a call finished, the run ended);
//! its state is their fold ([`LoopState`]). The loop appends each event to a store before it
//! acts on the next step, so any process that reads an execution's events can go on from where
//! it stopped. A store never rewrites what it holds.
//!
//! Here are the events, their fold, the records a store derives from them (executions, pauses,
//! threads' owners), what a lease is ([`Lease`], [`Fence`]), and the pure rules every store
//! decides with ([`next_record`], [`pause_change`], `lease_holds`), so that each decides alike.
//! Where journals are kept is [`store`](crate::store), which imports this module, never the
//! reverse.
//!
//! This layer sits under both `run` (which writes journals) and `app` (which reads them to
//! resume), so neither has to import the other for it.

mod error;
mod event;
mod index;
mod lease;
mod pause;
mod state;
mod thread;

pub use error::JournalError;
pub use event::{
    Answer, CallPermission, CallResult, INTENTS_SINCE, LoopEvent, PendingCall, PermissionDecision,
    STATE_VERSION, Spent,
};
pub use index::{
    ExecutionRecord, ExecutionStatus, PauseChange, derive_records, next_record, pause_change,
};
pub(crate) use lease::released_by_itself;
pub use lease::{Fence, JournalEntry, Lease, LeaseState};
pub(crate) use lease::{Holder, lease_holds};
pub use pause::{AskedIn, CallPause, PauseOpened, PauseQuery, PauseRecord, PauseResolution};
pub use state::{LoopState, Next};
pub use thread::{ThreadOwner, owner_mismatch};
