//! The marker line a cut result ends with, and where a text is cut: what the bound, the mask
//! and the notes share, so a cut reads the same whichever made it.
//!
//! ```text
//! \n[result truncated: 1,048,587 bytes, the first 262,144 kept]
//! ```

use crate::units::group_thousands;

/// The marker line's text around its two numbers: before the full size, between it and the
/// kept size, and after. [`truncation_marker`] writes them with `{total}` and `{kept}`.
pub(crate) const MARKER: [&str; 3] = [MARKER_START, " bytes, the first ", " kept]"];

/// How the marker line begins: where a cut text's kept part ends.
pub(crate) const MARKER_START: &str = "\n[result truncated: ";

/// The line a cut result ends with, its numbers written `{total}` and `{kept}`: a framework text
/// the model reads, and so part of every workflow's configuration hash.
///
/// ```
/// assert_eq!(
///     agboss_core::tool::bound::truncation_marker(),
///     "\n[result truncated: {total} bytes, the first {kept} kept]"
/// );
/// ```
pub fn truncation_marker() -> String {
    format!("{}{{total}}{}{{kept}}{}", MARKER[0], MARKER[1], MARKER[2])
}

/// How far back from the bound a cut looks for whitespace, in bytes.
pub const WHITESPACE_WINDOW: usize = 256;

/// What the marker's total starts with when the producer was stopped before its end.
pub(crate) const STOPPED_TOTAL: &str = "at least ";

/// Appends the marker line: `total` bytes (after `qualifier`), the first `kept` kept.
pub(crate) fn push_marker(text: &mut String, qualifier: &str, total: u64, kept: usize) {
    text.push_str(MARKER[0]);
    text.push_str(qualifier);
    group_thousands(total, text);
    text.push_str(MARKER[1]);
    group_thousands(kept as u64, text);
    text.push_str(MARKER[2]);
}

/// Where to cut `bytes` (valid UTF-8, longer than `max`) so at most `max` bytes are kept.
pub(crate) fn cut_point(bytes: &[u8], max: usize) -> usize {
    // Back off to a character boundary: continuation bytes look like 0b10xx_xxxx.
    let mut end = max;
    while end > 0 && (bytes[end] & 0b1100_0000) == 0b1000_0000 {
        end -= 1;
    }
    let window_start = end.saturating_sub(WHITESPACE_WINDOW);
    match bytes[window_start..end]
        .iter()
        .rposition(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
    {
        Some(i) => window_start + i,
        None => end,
    }
}
