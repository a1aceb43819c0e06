//! What a call runs in: its execution, its step and its cancellation signal.

mod execution;
mod progress;
mod signal;
mod step;

pub use execution::{Execution, ExecutionBuilder, ExecutionContext, Tenant};
pub use progress::{Progress, ProgressSink};
pub use signal::{AbortKind, AbortReason, Signal};
pub use step::Step;
