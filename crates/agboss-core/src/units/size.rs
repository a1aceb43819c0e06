//! Byte sizes of the text a model reads (1 KB = 1,024 bytes).

use std::fmt;

/// A number of bytes, such as a tool's `max_result_size`.
///
/// ```
/// use agboss_core::units::{bytes, kilobytes};
/// assert_eq!(kilobytes(256).get(), 262_144);
/// assert_eq!(kilobytes(64).to_string(), "64 KB");
/// assert_eq!(bytes(1500).to_string(), "1,500 bytes");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(u64);

/// Why a size given in kilobytes is not a usable bound.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum ByteSizeError {
    /// The size is zero or negative: nothing could be kept.
    #[error("{0} KB is not a size: a bound keeps at least 1 byte")]
    NotPositive(f64),
    /// The size is not a whole number of bytes, such as `kilobytes(0.1)` (102.4 bytes).
    #[error("{kilobytes} KB is {bytes} bytes, not a whole number of bytes")]
    Fractional {
        /// The size as written.
        kilobytes: f64,
        /// The bytes it comes to.
        bytes: f64,
    },
    /// The size does not fit in 64 bits or is not a number.
    #[error("{0} KB is out of range")]
    OutOfRange(f64),
}

impl ByteSize {
    /// The 128 KB bound a tool result gets when nothing else is configured.
    pub const DEFAULT_RESULT_BOUND: ByteSize = kilobytes(128);

    /// The number of bytes.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The number of bytes as a `usize`, saturating on 32-bit targets.
    pub const fn as_usize(self) -> usize {
        if self.0 > usize::MAX as u64 {
            usize::MAX
        } else {
            self.0 as usize
        }
    }

    /// A size given in (possibly fractional) kilobytes, as configuration files write it.
    ///
    /// `0`, negative sizes and sizes that are not a whole number of bytes (`0.1` KB is 102.4
    /// bytes) are refused.
    pub fn from_kilobytes_f64(kilobytes: f64) -> Result<ByteSize, ByteSizeError> {
        let bytes = kilobytes * 1024.0;
        if !bytes.is_finite() || bytes >= u64::MAX as f64 {
            return Err(ByteSizeError::OutOfRange(kilobytes));
        }
        if bytes.fract() != 0.0 {
            return Err(ByteSizeError::Fractional { kilobytes, bytes });
        }
        if bytes < 1.0 {
            return Err(ByteSizeError::NotPositive(kilobytes));
        }
        Ok(ByteSize(bytes as u64))
    }
}

impl fmt::Display for ByteSize {
    /// Whole kilobytes print as `256 KB`, anything else in bytes: `1,500 bytes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        if self.0 != 0 && self.0.is_multiple_of(1024) {
            super::group_thousands(self.0 / 1024, &mut s);
            s.push_str(" KB");
        } else {
            super::group_thousands(self.0, &mut s);
            s.push_str(if self.0 == 1 { " byte" } else { " bytes" });
        }
        f.write_str(&s)
    }
}

/// `n` bytes.
pub const fn bytes(n: u64) -> ByteSize {
    ByteSize(n)
}

/// `n` kilobytes of 1,024 bytes (saturating).
pub const fn kilobytes(n: u64) -> ByteSize {
    ByteSize(n.saturating_mul(1024))
}

/// `n` megabytes of 1,048,576 bytes (saturating).
pub const fn megabytes(n: u64) -> ByteSize {
    ByteSize(n.saturating_mul(1024 * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kilobytes_are_1024_bytes() {
        assert_eq!(kilobytes(1).get(), 1024);
        assert_eq!(megabytes(1).get(), 1_048_576);
        assert_eq!(ByteSize::DEFAULT_RESULT_BOUND.get(), 131_072);
    }

    #[test]
    fn fractional_kilobytes_must_be_whole_bytes() {
        assert_eq!(ByteSize::from_kilobytes_f64(0.5), Ok(bytes(512)));
        assert!(matches!(
            ByteSize::from_kilobytes_f64(0.1),
            Err(ByteSizeError::Fractional { .. })
        ));
        assert_eq!(
            ByteSize::from_kilobytes_f64(0.0),
            Err(ByteSizeError::NotPositive(0.0))
        );
        assert_eq!(
            ByteSize::from_kilobytes_f64(-1.0),
            Err(ByteSizeError::NotPositive(-1.0))
        );
        assert!(matches!(
            ByteSize::from_kilobytes_f64(f64::NAN),
            Err(ByteSizeError::OutOfRange(_))
        ));
        assert_eq!(
            ByteSize::from_kilobytes_f64(0.1).unwrap_err().to_string(),
            "0.1 KB is 102.4 bytes, not a whole number of bytes"
        );
    }

    #[test]
    fn prints_kilobytes_when_whole() {
        assert_eq!(kilobytes(128).to_string(), "128 KB");
        assert_eq!(kilobytes(2048).to_string(), "2,048 KB");
        assert_eq!(bytes(1).to_string(), "1 byte");
        assert_eq!(bytes(0).to_string(), "0 bytes");
    }
}
