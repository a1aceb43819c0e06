//! What a call runs in: its execution, its step and its cancellation signal.
//!
//! Files: `execution.rs` ([`Execution`], [`ExecutionContext`]), `step.rs` ([`Step`]: call ids,
//! idempotency keys), `signal.rs` ([`Signal`]), `progress.rs` ([`Progress`], reported to
//! whoever watches the run).

mod execution;
mod progress;
mod signal;
mod step;

pub use execution::{Execution, ExecutionBuilder, ExecutionContext, Tenant};
pub use progress::{Progress, ProgressSink};
pub use signal::{AbortKind, AbortReason, Signal};
pub use step::Step;
