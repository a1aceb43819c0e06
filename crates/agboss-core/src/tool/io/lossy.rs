//! Text from bytes no one vouches for (a child process's output, a file): invalid UTF-8 replaced
//! and counted, and what would act on a terminal or disguise the text for a person reading it
//! taken out and counted: ANSI escape sequences, other control characters, byte order marks and
//! bidirectional overrides.

use std::process::ExitStatus;

/// Text made from bytes by [`text_from_bytes`], with what was done to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LossyText {
    /// The text: valid UTF-8, with no escape sequence, control character (C0 or C1, but tab,
    /// line feed and carriage return), byte order mark or bidirectional override or isolate.
    pub text: String,
    /// How many invalid UTF-8 sequences became U+FFFD (`�`), one each.
    pub replaced: usize,
    /// How many escape sequences, control characters, byte order marks and bidirectional
    /// controls were taken out.
    pub neutralized: usize,
}

/// A finished child process's status and its output as text (`Subprocess::output_text`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextOutput {
    /// How it ended.
    pub status: ExitStatus,
    /// Its standard output.
    pub stdout: LossyText,
    /// Its standard error.
    pub stderr: LossyText,
}

/// Where the reader is in an escape sequence.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    None,
    /// After `ESC`.
    Started,
    /// In a control sequence, `ESC [ ... final`.
    Control,
    /// In an operating system command, `ESC ] ... BEL` or `ESC ] ... ESC \`.
    Command,
    /// After `ESC` inside a command.
    CommandEnd,
}

/// `bytes` as text a model or a person may read: each invalid UTF-8 sequence replaced by
/// U+FFFD (as `String::from_utf8_lossy` does) and counted; ANSI escape sequences (colours,
/// cursor moves, window titles), control characters other than tab, line feed and carriage
/// return (C1's among them: U+009B is a terminal's `ESC [`), byte order marks and the bidirectional overrides and isolates (U+202A to U+202E,
/// U+2066 to U+2069) taken out and counted. Zero-width joiners and spaces stay: scripts and
/// emoji need them.
///
/// ```
/// use agboss_core::tool::text_from_bytes;
///
/// let read = text_from_bytes(b"\xef\xbb\xbf\x1b[31mred\x1b[0m \xff ok\0");
/// assert_eq!(read.text, "red \u{FFFD} ok");
/// assert_eq!((read.replaced, read.neutralized), (1, 4));
/// ```
pub fn text_from_bytes(bytes: &[u8]) -> LossyText {
    let mut out = LossyText {
        text: String::with_capacity(bytes.len()),
        ..LossyText::default()
    };
    let mut escape = Escape::None;
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            escape = step(escape, c, &mut out);
        }
        if !chunk.invalid().is_empty() {
            escape = Escape::None;
            out.text.push(char::REPLACEMENT_CHARACTER);
            out.replaced += 1;
        }
    }
    out
}

/// Reads `c` in state `escape`: keeps it, or takes it out; the state after it.
fn step(escape: Escape, c: char, out: &mut LossyText) -> Escape {
    match (escape, c) {
        (Escape::Started, '[') => Escape::Control,
        (Escape::Started, ']') => Escape::Command,
        // A two-character sequence (`ESC c`, `ESC M`, ...).
        (Escape::Started, '@'..='_') => Escape::None,
        (Escape::Control, '\u{20}'..='\u{3f}') => Escape::Control,
        (Escape::Control, '\u{40}'..='\u{7e}') => Escape::None,
        (Escape::Command, '\u{7}') => Escape::None,
        (Escape::Command, '\u{1b}') => Escape::CommandEnd,
        (Escape::Command, c) if c != '\n' => Escape::Command,
        (Escape::CommandEnd, '\\') => Escape::None,
        // Anything else ends a sequence, and is read as text.
        (Escape::None, c) => keep(c, out),
        (_, c) => keep(c, out),
    }
}

/// Keeps `c`, or takes it out if it acts rather than reads; the state after it.
fn keep(c: char, out: &mut LossyText) -> Escape {
    match c {
        '\u{1b}' => {
            out.neutralized += 1;
            Escape::Started
        }
        '\t' | '\n' | '\r' => {
            out.text.push(c);
            Escape::None
        }
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{feff}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => {
            out.neutralized += 1;
            Escape::None
        }
        c => {
            out.text.push(c);
            Escape::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequences_controls_and_overrides_are_taken_out() {
        let read = text_from_bytes("a\u{1b}]0;title\u{7}b\u{202e}c\u{2066}d\u{1b}Me".as_bytes());
        assert_eq!(read.text, "abcde");
        assert_eq!(read.neutralized, 4, "one per sequence, one per character");
        let read = text_from_bytes("zero\u{200b}width\u{200d}joiner".as_bytes());
        assert_eq!(read.text, "zero\u{200b}width\u{200d}joiner");
    }

    #[test]
    fn invalid_sequences_are_replaced_one_each_like_the_standard_library() {
        let bytes = b"ok \xe2\x82 \xff\xfe \xf0\x9f\x98 end \xe2\x82\xac";
        let read = text_from_bytes(bytes);
        assert_eq!(read.text, String::from_utf8_lossy(bytes));
        assert_eq!(read.replaced, read.text.matches('\u{FFFD}').count());
    }

    #[test]
    fn an_unfinished_sequence_does_not_swallow_the_next_line() {
        let read = text_from_bytes(b"\x1b]never ends\nnext line");
        assert_eq!(read.text, "\nnext line");
    }
}
