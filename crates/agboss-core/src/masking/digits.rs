//! Where in a text the entities made of digits (cards, phones, IBANs) can be: the windows
//! around runs of at least [`MIN_DIGITS`] digits with at most two other characters between
//! each two. Their patterns run in these windows only: most text has few such runs, and
//! finding them is a vectorized scan, much cheaper than the patterns' own search.

use std::ops::Range;

/// The fewest digits a card, phone number or IBAN has.
const MIN_DIGITS: usize = 7;

/// Bytes before a run a window reaches back: an IBAN's country, check digits and a group of
/// letters (`GB82 WEST `), or a phone's `+` and `(`.
const BEFORE: usize = 24;

/// Bytes after a run a window reaches: the rest of an IBAN whose account ends in letters and
/// digits apart (`FR76 ... 95WC UJ7L DXQG X55`), up to its 34 characters and 8 spaces.
const AFTER: usize = 42;

/// Windows closer than this are searched as one: each search has a cost of its own.
const JOIN: usize = 128;

/// The windows of `text` to search, sorted and disjoint, each on character boundaries.
pub(super) fn windows(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut windows: Vec<Range<usize>> = Vec::new();
    let mut at = 0;
    while let Some(first) = next_digit(bytes, at) {
        let (mut last, mut digits, mut i) = (first, 1, first + 1);
        while i < bytes.len() && i - last <= 3 {
            if bytes[i].is_ascii_digit() {
                last = i;
                digits += 1;
            }
            i += 1;
        }
        if digits >= MIN_DIGITS {
            let start = floor(text, first.saturating_sub(BEFORE));
            let end = ceil(text, (last + 1 + AFTER).min(bytes.len()));
            match windows.last_mut() {
                Some(previous) if start <= previous.end + JOIN => previous.end = end,
                _ => windows.push(start..end),
            }
        }
        at = last + 1;
    }
    windows
}

/// The first digit at or after `at`: 32 bytes at a time, which the compiler vectorizes.
fn next_digit(bytes: &[u8], mut at: usize) -> Option<usize> {
    const CHUNK: usize = 32;
    while at + CHUNK <= bytes.len() {
        let chunk = &bytes[at..at + CHUNK];
        if chunk.iter().fold(false, |any, b| any | b.is_ascii_digit()) {
            break;
        }
        at += CHUNK;
    }
    bytes[at.min(bytes.len())..]
        .iter()
        .position(u8::is_ascii_digit)
        .map(|i| at + i)
}

fn floor(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_runs_of_enough_digits_make_windows() {
        assert!(windows("no digits, or 2024 and 12 345").is_empty());
        let text = "call (415) 555-0100 now";
        assert_eq!(windows(text), vec![0..text.len()]);
        let far = format!("{}4111 1111 1111 1111{}", "x".repeat(100), "y".repeat(100));
        assert_eq!(windows(&far), vec![76..161]);
    }
}
