//! A text with its JSON and URL escapes undone (`\u0040` and `%40` are `@`), and where each of
//! its bytes came from, so a match in the decoded text masks the escaped original.

use std::ops::Range;
use std::sync::LazyLock;

use regex::Regex;

/// How many times escapes are undone: a JSON string inside a JSON string has its escapes
/// escaped again (`\\u0040`).
const LEVELS: usize = 3;

/// What starts an escape worth undoing: a `\u` and four hex digits (`\u0040`), a `%` and two
/// (`%40`), or a JSON escape glued to a word (`\n4111...`), which hides where the word starts.
static ESCAPE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"\\u[0-9A-Fa-f]{4}|%[0-9A-Fa-f]{2}|\\[nrtbf"/][0-9A-Za-z(+]"#).ok()
});

/// Whether `text` holds an escape that could hide an entity: only then is it decoded.
pub(super) fn has_escapes(text: &str) -> bool {
    match &*ESCAPE {
        Some(escape) => escape.is_match(text),
        None => false,
    }
}

/// `text` decoded, with a map back to it.
pub(super) struct Decoded {
    /// The decoded text.
    pub(super) text: String,
    /// For each byte of `text`, the bytes of the original it came from.
    from: Vec<(usize, usize)>,
}

impl Decoded {
    /// The range of the original that decoded range `range` (not empty) came from.
    pub(super) fn original(&self, range: Range<usize>) -> Range<usize> {
        self.from[range.start].0..self.from[range.end - 1].1
    }
}

/// `text` with its escapes undone, as many times as they nest (up to [`LEVELS`]).
pub(super) fn decode(text: &str) -> Decoded {
    let mut decoded = once(text);
    for _ in 1..LEVELS {
        if !has_escapes(&decoded.text) {
            break;
        }
        let again = once(&decoded.text);
        let from = again
            .from
            .iter()
            .map(|&(start, end)| (decoded.from[start].0, decoded.from[end - 1].1))
            .collect();
        decoded = Decoded {
            text: again.text,
            from,
        };
    }
    decoded
}

/// One level of escapes undone: JSON's (`\u0040`, surrogate pairs, `\n`, `\"`, `\\`, ...) and
/// URL encoding of ASCII (`%40`). Anything else, and an escape that decodes to nothing valid,
/// stays as it is.
fn once(text: &str) -> Decoded {
    let bytes = text.as_bytes();
    let mut out = Decoded {
        text: String::with_capacity(text.len()),
        from: Vec::with_capacity(text.len()),
    };
    let mut at = 0;
    while at < bytes.len() {
        let (decoded, used) = match bytes[at] {
            b'\\' => json_escape(bytes, at),
            b'%' => url_escape(bytes, at),
            _ => (None, 0),
        };
        let (ch, used) = match decoded {
            Some(ch) => (ch, used),
            // Safe to index: `at` is always on a character boundary.
            None => match text[at..].chars().next() {
                Some(ch) => (ch, ch.len_utf8()),
                None => break,
            },
        };
        let before = out.text.len();
        out.text.push(ch);
        out.from.extend(std::iter::repeat_n(
            (at, at + used),
            out.text.len() - before,
        ));
        at += used;
    }
    out
}

/// The character a JSON escape at `at` stands for, and its length (`(None, 0)`: not one, or
/// cut short; `(None, 6)`: a lone surrogate). The MCP client reads a cut message's strings with it.
pub(crate) fn json_escape(bytes: &[u8], at: usize) -> (Option<char>, usize) {
    let simple = match bytes.get(at + 1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return unicode_escape(bytes, at),
        _ => return (None, 0),
    };
    (Some(simple), 2)
}

/// The character the `\u` escape at `at` (`\u00e9`) stands for (with its low surrogate's escape after it, if a
/// high one), and its length.
fn unicode_escape(bytes: &[u8], at: usize) -> (Option<char>, usize) {
    let Some(high) = hex(bytes, at + 2, 4) else {
        return (None, 0);
    };
    if (0xD800..0xDC00).contains(&high)
        && bytes.get(at + 6..at + 8) == Some(b"\\u")
        && let Some(low) = hex(bytes, at + 8, 4).filter(|l| (0xDC00..0xE000).contains(l))
    {
        let code = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        return (char::from_u32(code), 12);
    }
    (char::from_u32(high), 6)
}

/// The ASCII character the `%` escape at `at` (`%40`) stands for, and its length.
fn url_escape(bytes: &[u8], at: usize) -> (Option<char>, usize) {
    match hex(bytes, at + 1, 2).filter(|v| *v < 0x80) {
        Some(value) => (char::from_u32(value), 3),
        None => (None, 0),
    }
}

/// The value of the `len` hex digits at `at`.
fn hex(bytes: &[u8], at: usize, len: usize) -> Option<u32> {
    let digits = bytes.get(at..at + len)?;
    digits.iter().try_fold(0u32, |acc, b| {
        let digit = char::from(*b).to_digit(16)?;
        Some(acc * 16 + digit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_url_escapes_are_undone_and_mapped_back() {
        let text = r#"mail: ada\u0040example.com or bob%40example.org\n"#;
        let decoded = decode(text);
        assert_eq!(decoded.text, "mail: ada@example.com or bob@example.org\n");
        let at = decoded.text.find("ada@example.com").unwrap();
        let original = decoded.original(at..at + "ada@example.com".len());
        assert_eq!(&text[original], r"ada\u0040example.com");
    }

    #[test]
    fn nested_escapes_are_undone_too() {
        let text = r"ada\\u0040example.com";
        assert_eq!(decode(text).text, "ada@example.com");
    }

    #[test]
    fn broken_escapes_and_other_text_stay() {
        let text = "100% \\uZZZZ é \\ud800 end%";
        assert_eq!(decode(text).text, text);
    }
}
