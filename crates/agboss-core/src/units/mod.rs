//! Values with units: time spans, byte sizes and money.
//!
//! A timeout is `seconds(10)`, never a bare number, and it remembers the unit it was declared
//! in so that a message can say `timed out after 10 s`. Sizes count bytes of UTF-8 text with
//! 1 KB = 1,024 bytes. Money is counted in whole nano-dollars: no floats.

mod money;
mod size;
mod time;

pub use money::{Usd, UsdParseError, usd};
pub use size::{ByteSize, ByteSizeError, bytes, kilobytes, megabytes};
pub use time::{TimeSpan, TimeUnit, days, hours, millis, minutes, seconds};

/// Writes `n` with a comma between each group of three digits: `1048587` -> `1,048,587`.
pub(crate) fn group_thousands(n: u64, out: &mut String) {
    let digits = n.to_string();
    let first = digits.len() % 3;
    for (i, d) in digits.chars().enumerate() {
        if i != 0 && (i + 3 - first).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
}

#[cfg(test)]
mod tests {
    use super::group_thousands;

    fn grouped(n: u64) -> String {
        let mut s = String::new();
        group_thousands(n, &mut s);
        s
    }

    #[test]
    fn groups_thousands_with_commas() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(262_144), "262,144");
        assert_eq!(grouped(1_048_587), "1,048,587");
        assert_eq!(grouped(12_345_678_901), "12,345,678,901");
    }
}
