//! The fault plan's tests that run in the README's test command (the short lane): each checks
//! what must hold and reports its figures, printed and kept in `target/faults/<T>.txt` (the
//! docs quote them).

#[path = "faults/clock_jumps.rs"]
mod clock_jumps;
#[path = "faults/paused_restart.rs"]
mod paused_restart;
#[path = "faults/pauses.rs"]
mod pauses;

#[path = "faults/report.rs"]
mod reporting;
pub use reporting::report;
