//! Money in US dollars, counted in whole nano-dollars so that sums are exact.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign};
use std::str::FromStr;

/// An amount of US dollars with nano-dollar resolution (1 USD = 10^9 units).
///
/// Per-token prices are fractions of a micro-dollar (`$0.15` per million tokens is 150
/// nano-dollars a token), so nano-dollars keep them exact without floats.
///
/// ```
/// use agboss_core::units::{Usd, usd};
/// const PRICE: Usd = usd("0.0025");
/// assert_eq!(PRICE.nanos(), 2_500_000);
/// assert_eq!((PRICE + usd("1")).to_string(), "$1.0025");
/// ```
/// Serialized as its whole number of nano-dollars.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct Usd(u64);

/// A text that is not a dollar amount.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a dollar amount: {reason}")]
pub struct UsdParseError {
    text: String,
    reason: &'static str,
}

const NANOS_PER_USD: u64 = 1_000_000_000;

impl Usd {
    /// No money.
    pub const ZERO: Usd = Usd(0);

    /// Whether it is nothing.
    pub fn is_zero(&self) -> bool {
        self.0 == 0
    }

    /// An amount of nano-dollars.
    pub const fn from_nanos(nanos: u64) -> Usd {
        Usd(nanos)
    }

    /// An amount of micro-dollars (saturating).
    pub const fn from_micros(micros: u64) -> Usd {
        Usd(micros.saturating_mul(1_000))
    }

    /// The amount in nano-dollars.
    pub const fn nanos(self) -> u64 {
        self.0
    }

    /// `self + other`, saturating at the largest amount.
    pub const fn saturating_add(self, other: Usd) -> Usd {
        Usd(self.0.saturating_add(other.0))
    }

    /// `self * n`, saturating, for prices per unit.
    pub const fn saturating_mul(self, n: u64) -> Usd {
        Usd(self.0.saturating_mul(n))
    }

    /// Parses `"0.25"`, `"12"` or `"$0.0025"`: digits with at most nine decimals.
    pub fn parse(text: &str) -> Result<Usd, UsdParseError> {
        parse_nanos(text.as_bytes())
            .map(Usd)
            .map_err(|reason| UsdParseError {
                text: text.to_owned(),
                reason,
            })
    }
}

/// An amount of dollars written as a decimal text, checked at compile time in a `const`.
///
/// `usd("0.25")`, `usd("$3")`. A malformed text fails to compile in a `const` and panics
/// otherwise; use [`Usd::parse`] for text that comes from outside the program.
pub const fn usd(text: &str) -> Usd {
    match parse_nanos(text.as_bytes()) {
        Ok(nanos) => Usd(nanos),
        Err(_) => panic!("usd(..) takes a decimal dollar amount such as \"0.25\""),
    }
}

const fn parse_nanos(b: &[u8]) -> Result<u64, &'static str> {
    let mut i = 0;
    if i < b.len() && b[i] == b'$' {
        i += 1;
    }
    if i == b.len() {
        return Err("no digits");
    }
    let mut whole: u64 = 0;
    let mut digits = 0;
    while i < b.len() && b[i] != b'.' {
        let d = b[i];
        if !d.is_ascii_digit() {
            return Err("only digits and one decimal point are allowed");
        }
        whole = match whole.checked_mul(10) {
            Some(w) => match w.checked_add((d - b'0') as u64) {
                Some(w) => w,
                None => return Err("too large"),
            },
            None => return Err("too large"),
        };
        digits += 1;
        i += 1;
    }
    let mut frac: u64 = 0;
    let mut scale = NANOS_PER_USD;
    if i < b.len() {
        i += 1; // the decimal point
        if i == b.len() {
            return Err("a decimal point needs digits after it");
        }
        while i < b.len() {
            let d = b[i];
            if !d.is_ascii_digit() {
                return Err("only digits and one decimal point are allowed");
            }
            if scale == 1 {
                return Err("more than nine decimals (finer than a nano-dollar)");
            }
            scale /= 10;
            frac += (d - b'0') as u64 * scale;
            digits += 1;
            i += 1;
        }
    }
    if digits == 0 {
        return Err("no digits");
    }
    match whole.checked_mul(NANOS_PER_USD) {
        Some(w) => match w.checked_add(frac) {
            Some(n) => Ok(n),
            None => Err("too large"),
        },
        None => Err("too large"),
    }
}

impl FromStr for Usd {
    type Err = UsdParseError;
    fn from_str(s: &str) -> Result<Usd, UsdParseError> {
        Usd::parse(s)
    }
}

impl Add for Usd {
    type Output = Usd;
    fn add(self, other: Usd) -> Usd {
        self.saturating_add(other)
    }
}

impl AddAssign for Usd {
    fn add_assign(&mut self, other: Usd) {
        *self = self.saturating_add(other);
    }
}

impl Sum for Usd {
    fn sum<I: Iterator<Item = Usd>>(iter: I) -> Usd {
        iter.fold(Usd::ZERO, Add::add)
    }
}

impl fmt::Display for Usd {
    /// `$1.0025`: at least two decimals, trailing zeros past them dropped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let whole = self.0 / NANOS_PER_USD;
        let frac = format!("{:09}", self.0 % NANOS_PER_USD);
        let frac = frac.trim_end_matches('0');
        let frac = if frac.len() < 2 {
            format!("{frac:0<2}")
        } else {
            frac.to_owned()
        };
        write!(f, "${whole}.{frac}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_decimal_dollars() {
        assert_eq!(usd("1").nanos(), 1_000_000_000);
        assert_eq!(usd("$0.25").nanos(), 250_000_000);
        assert_eq!(usd("0.000000001").nanos(), 1);
        assert_eq!(Usd::parse("12.5"), Ok(Usd::from_nanos(12_500_000_000)));
    }

    #[test]
    fn refuses_what_is_not_an_amount() {
        for bad in [
            "",
            "$",
            "1.",
            ".",
            "1,5",
            "-1",
            "0.0000000001",
            "1e3",
            "99999999999999",
        ] {
            assert!(Usd::parse(bad).is_err(), "{bad:?} parsed");
        }
        assert_eq!(
            Usd::parse("1,5").unwrap_err().to_string(),
            "`1,5` is not a dollar amount: only digits and one decimal point are allowed"
        );
    }

    #[test]
    fn prints_with_two_or_more_decimals() {
        assert_eq!(usd("3").to_string(), "$3.00");
        assert_eq!(usd("0.5").to_string(), "$0.50");
        assert_eq!(usd("0.0025").to_string(), "$0.0025");
        assert_eq!(Usd::ZERO.to_string(), "$0.00");
    }

    #[test]
    fn sums_exactly() {
        let total: Usd = std::iter::repeat_n(usd("0.1"), 10).sum();
        assert_eq!(total, usd("1"));
    }
}
