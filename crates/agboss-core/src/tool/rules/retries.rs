//! The `retries` rule: a transient error of a tool that declares `retries` runs the call again,
//! after a backoff on the application's clock, with the same idempotency key, before the model
//! reads it. Each try is journaled; the budget counts tries across crashes.

use crate::tool::ToolFailure;
use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};
use crate::units::{TimeSpan, minutes};

/// The longest wait between two tries, however many came before.
pub const MAX_RETRY_BACKOFF: TimeSpan = minutes(1);

/// Tries a call again after a transient error, `retries` times at most, waiting `backoff` before
/// the first retry and twice as long before each next one (never more than
/// [`MAX_RETRY_BACKOFF`]).
pub(crate) struct RetriesRule {
    pub(crate) retries: u32,
    pub(crate) backoff: TimeSpan,
}

impl Stage for RetriesRule {
    fn name(&self) -> &str {
        "retries"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        let transient = match output.failure() {
            Some(ToolFailure::Raised(error)) => error.is_transient(),
            _ => false,
        };
        // `tries` counts this one: a budget of 2 allows tries 2 and 3.
        if !transient || call.tries() > self.retries {
            return Then::Keep;
        }
        Then::Retry(backoff(self.backoff, call.tries()))
    }
}

/// The wait before try `tries + 1`: `first`, doubled for each try after the first, at most
/// [`MAX_RETRY_BACKOFF`].
pub fn backoff(first: TimeSpan, tries: u32) -> TimeSpan {
    let factor = 1u64 << tries.saturating_sub(1).min(20);
    let wait = TimeSpan::new(first.amount().saturating_mul(factor), first.unit());
    match wait.as_duration() > MAX_RETRY_BACKOFF.as_duration() {
        true => MAX_RETRY_BACKOFF,
        false => wait,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::seconds;

    #[test]
    fn the_backoff_doubles_up_to_its_ceiling() {
        assert_eq!(backoff(seconds(1), 1), seconds(1));
        assert_eq!(backoff(seconds(1), 2), seconds(2));
        assert_eq!(backoff(seconds(1), 3), seconds(4));
        assert_eq!(backoff(seconds(1), 40), MAX_RETRY_BACKOFF);
    }
}
