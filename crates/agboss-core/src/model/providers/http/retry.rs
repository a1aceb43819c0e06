//! How long to wait before the next attempt: what the API's `Retry-After` says, else the
//! current backoff, never more than the policy's longest wait.

use std::time::{Duration, SystemTime};

/// The wait before the next attempt. `retry_after` is the header's value, `backoff` the
/// exponential backoff's current step, `now` the wall time an HTTP-date is measured from.
pub(super) fn wait(
    retry_after: Option<&str>,
    backoff: Duration,
    max: Duration,
    now: SystemTime,
) -> Duration {
    retry_after
        .and_then(|value| parse_retry_after(value, now))
        .unwrap_or(backoff)
        .min(max)
}

/// `Retry-After` as seconds (`7`, or `1.5` as some servers write it) or as an HTTP-date
/// (`Thu, 01 Jan 2026 00:00:07 GMT`); a date in the past means no wait. `None` when it is
/// neither.
fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    if let Ok(seconds) = value.parse::<f64>() {
        return Duration::try_from_secs_f64(seconds).ok();
    }
    let at = parse_http_date(value)?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// An IMF-fixdate, the form HTTP senders use: `Sun, 06 Nov 1994 08:49:37 GMT`.
fn parse_http_date(value: &str) -> Option<SystemTime> {
    let mut words = value.split_ascii_whitespace();
    let _weekday = words.next().filter(|w| w.len() == 4 && w.ends_with(','))?;
    let day: u32 = words.next()?.parse().ok()?;
    let month = match words.next()? {
        "Jan" => 1,
        "Feb" => 2,
        "Mar" => 3,
        "Apr" => 4,
        "May" => 5,
        "Jun" => 6,
        "Jul" => 7,
        "Aug" => 8,
        "Sep" => 9,
        "Oct" => 10,
        "Nov" => 11,
        "Dec" => 12,
        _ => return None,
    };
    let year: i64 = words.next()?.parse().ok()?;
    let mut clock = words
        .next()?
        .split(':')
        .map(|part| part.parse::<u64>().ok());
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if words.next()? != "GMT" || words.next().is_some() || clock.next().is_some() {
        return None;
    }
    if !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
        || !(1970..=9999).contains(&year)
    {
        return None;
    }
    let days = u64::try_from(days_since_epoch(year, month, day)).ok()?;
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second;
    Some(SystemTime::UNIX_EPOCH + Duration::from_secs(seconds))
}

/// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
fn days_since_epoch(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = i64::from((month + 9) % 12);
    let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[test]
    fn reads_http_dates() {
        assert_eq!(
            parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"),
            Some(at(784_111_777))
        );
        assert_eq!(
            parse_http_date("Thu, 01 Jan 2026 00:00:07 GMT"),
            Some(at(1_767_225_607))
        );
        assert_eq!(
            parse_http_date("Thu, 29 Feb 2024 12:00:00 GMT"),
            Some(at(1_709_208_000))
        );
        assert_eq!(parse_http_date("Thu, 01 Jan 2026 00:00:07 UTC"), None);
        assert_eq!(parse_http_date("Thu, 01 Foo 2026 00:00:07 GMT"), None);
        assert_eq!(parse_http_date("Thu, 01 Jan 2026 25:00:07 GMT"), None);
        assert_eq!(parse_http_date("Thu, 01 Jan 2026 00:00 GMT"), None);
        assert_eq!(parse_http_date(""), None);
    }

    #[test]
    fn the_header_wins_over_the_backoff_and_the_cap_wins_over_both() {
        let now = at(1_767_225_600);
        assert_eq!(wait(Some("7"), SECOND, 60 * SECOND, now), 7 * SECOND);
        assert_eq!(
            wait(Some(" 1.5 "), SECOND, 60 * SECOND, now),
            Duration::from_millis(1500)
        );
        assert_eq!(
            wait(
                Some("Thu, 01 Jan 2026 00:00:07 GMT"),
                SECOND,
                60 * SECOND,
                now
            ),
            7 * SECOND
        );
        assert_eq!(
            wait(
                Some("Wed, 31 Dec 2025 23:00:00 GMT"),
                SECOND,
                60 * SECOND,
                now
            ),
            Duration::ZERO
        );
        assert_eq!(wait(Some("3600"), SECOND, 60 * SECOND, now), 60 * SECOND);
        assert_eq!(wait(Some("soon"), 2 * SECOND, 60 * SECOND, now), 2 * SECOND);
        assert_eq!(wait(Some("-1"), 2 * SECOND, 60 * SECOND, now), 2 * SECOND);
        assert_eq!(
            wait(Some("1e300"), 2 * SECOND, 60 * SECOND, now),
            2 * SECOND
        );
        assert_eq!(wait(None, 90 * SECOND, 60 * SECOND, now), 60 * SECOND);
    }
}
