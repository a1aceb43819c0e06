//! Time spans that keep the unit they were written in.

use std::fmt;
use std::time::Duration;

/// The unit a [`TimeSpan`] was declared in; it is the unit its messages use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Milliseconds, written `ms`.
    Millis,
    /// Seconds, written `s`.
    Seconds,
    /// Minutes, written `min`.
    Minutes,
    /// Hours, written `h`.
    Hours,
    /// Days, written `d`.
    Days,
}

impl TimeUnit {
    /// The symbol messages print after the amount.
    pub const fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Millis => "ms",
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "min",
            TimeUnit::Hours => "h",
            TimeUnit::Days => "d",
        }
    }

    const fn millis_per_unit(self) -> u64 {
        match self {
            TimeUnit::Millis => 1,
            TimeUnit::Seconds => 1_000,
            TimeUnit::Minutes => 60_000,
            TimeUnit::Hours => 3_600_000,
            TimeUnit::Days => 86_400_000,
        }
    }
}

/// A span of time with its unit, such as a tool's timeout.
///
/// ```
/// use agboss_core::units::{millis, seconds};
/// assert_eq!(seconds(10).to_string(), "10 s");
/// assert_eq!(millis(500).as_duration(), std::time::Duration::from_millis(500));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeSpan {
    amount: u64,
    unit: TimeUnit,
}

impl TimeSpan {
    /// A span of `amount` `unit`s.
    pub const fn new(amount: u64, unit: TimeUnit) -> Self {
        TimeSpan { amount, unit }
    }

    /// The number of units.
    pub const fn amount(self) -> u64 {
        self.amount
    }

    /// The unit it was declared in.
    pub const fn unit(self) -> TimeUnit {
        self.unit
    }

    /// The span as a [`Duration`] (saturating at the largest duration).
    pub const fn as_duration(self) -> Duration {
        Duration::from_millis(self.amount.saturating_mul(self.unit.millis_per_unit()))
    }

    /// Whether the span is zero long.
    pub const fn is_zero(self) -> bool {
        self.amount == 0
    }
}

impl From<TimeSpan> for Duration {
    fn from(span: TimeSpan) -> Duration {
        span.as_duration()
    }
}

impl fmt::Display for TimeSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.amount, self.unit.symbol())
    }
}

/// `n` milliseconds.
pub const fn millis(n: u64) -> TimeSpan {
    TimeSpan::new(n, TimeUnit::Millis)
}

/// `n` seconds.
pub const fn seconds(n: u64) -> TimeSpan {
    TimeSpan::new(n, TimeUnit::Seconds)
}

/// `n` minutes.
pub const fn minutes(n: u64) -> TimeSpan {
    TimeSpan::new(n, TimeUnit::Minutes)
}

/// `n` hours: how long a pause may wait for its answer, say.
pub const fn hours(n: u64) -> TimeSpan {
    TimeSpan::new(n, TimeUnit::Hours)
}

/// `n` days.
pub const fn days(n: u64) -> TimeSpan {
    TimeSpan::new(n, TimeUnit::Days)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_in_the_declared_unit() {
        assert_eq!(seconds(10).to_string(), "10 s");
        assert_eq!(millis(500).to_string(), "500 ms");
        assert_eq!(minutes(2).to_string(), "2 min");
    }

    #[test]
    fn converts_to_durations() {
        assert_eq!(seconds(10).as_duration(), Duration::from_secs(10));
        assert_eq!(minutes(2).as_duration(), Duration::from_secs(120));
        assert_eq!(hours(72).to_string(), "72 h");
        assert_eq!(days(3).as_duration(), hours(72).as_duration());
        assert_eq!(millis(7).as_duration(), Duration::from_millis(7));
        assert_eq!(
            minutes(u64::MAX).as_duration(),
            Duration::from_millis(u64::MAX)
        );
    }
}
