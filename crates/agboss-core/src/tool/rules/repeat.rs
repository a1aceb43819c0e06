//! Repeated calls: a call of a tool with the same arguments (and, by default, the same result)
//! as an earlier call of the run gets one sentence appended to what the model reads, saying it
//! repeats itself. The call still runs: nothing here suppresses one.
//!
//! What is compared is a [`CallDigest`] per finished call: 64-bit XXH3 digests of the tool's name
//! with the argument bytes (JSON whitespace outside strings ignored) and of that with the
//! result the model read. The loop journals each call's digest with its result, and the run's
//! [`Repeats`] are the fold of them, so a run resumed in another process counts the same.

use std::collections::HashSet;
use std::hash::BuildHasherDefault;

use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};
use crate::tool::{CallDigest, Digest, RepeatedWhen};

/// The `notes` rule: a call that repeats an earlier one of its run (by its tool's
/// `repeated_when`) gets the note, after the text and before the marker. The note is the
/// framework's: the bound never cuts it; the tool's text is cut back to make room for it, so
/// the model reads no more than the bound. Its digest, taken before the note, is journaled with
/// the result. Outside a run there is nothing to repeat.
pub(crate) struct NotesRule(pub(crate) RepeatedWhen);

impl Stage for NotesRule {
    fn name(&self) -> &str {
        "notes"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        let Some(history) = call.history() else {
            return Then::Keep;
        };
        let name = call.tool().name();
        let Some(digest) = self.0.digest(name, call.arguments(), &output.marked()) else {
            return Then::Keep;
        };
        output.digest = Some(digest);
        if history.repeats(&digest, self.0) {
            output.notes.push(self.0.note(name));
            if let Some(bound) = output.bound {
                let room = bound.as_usize().saturating_sub(output.notes_len());
                output.cut_to(room);
            }
        }
        Then::Keep
    }
}

/// The digests of a run's finished calls: the fold of the journaled [`CallDigest`]s.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Repeats {
    arguments: HashSet<Digest, Unhashed>,
    results: HashSet<Digest, Unhashed>,
}

/// Digests are hashes already: the sets use them as they are.
type Unhashed = BuildHasherDefault<PassThrough>;

/// A `Hasher` that keeps the one `u64` it is given.
#[derive(Default)]
struct PassThrough(u64);

impl std::hash::Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(byte);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

impl Repeats {
    /// Counts a finished call.
    pub fn record(&mut self, digest: &CallDigest) {
        self.arguments.insert(digest.arguments);
        if let Some(result) = digest.result {
            self.results.insert(result);
        }
    }

    /// Whether a call with `digest` repeats one recorded before, under `when`.
    pub fn repeats(&self, digest: &CallDigest, when: RepeatedWhen) -> bool {
        match (when, digest.result) {
            (RepeatedWhen::Never, _) => false,
            (RepeatedWhen::Arguments, _) => self.arguments.contains(&digest.arguments),
            (RepeatedWhen::ArgumentsAndResult, Some(result)) => self.results.contains(&result),
            (RepeatedWhen::ArgumentsAndResult, None) => false,
        }
    }

    /// How many distinct calls were counted.
    pub fn len(&self) -> usize {
        self.arguments.len()
    }

    /// Whether no call was counted.
    pub fn is_empty(&self) -> bool {
        self.arguments.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(tool: &str, arguments: &str, result: &str) -> CallDigest {
        RepeatedWhen::ArgumentsAndResult
            .digest(tool, arguments, result)
            .unwrap()
    }

    #[test]
    fn whitespace_between_json_tokens_does_not_count_and_inside_strings_does() {
        let a = digest("t", r#"{"q": "a b", "n": 1}"#, "r");
        assert_eq!(a, digest("t", "{\"q\":\"a b\",\n \"n\":1}", "r"));
        assert_ne!(a, digest("t", r#"{"q": "ab", "n": 1}"#, "r"));
        assert_ne!(a, digest("t", r#"{"q": "a\" b", "n": 1}"#, "r"));
    }

    #[test]
    fn the_tool_the_arguments_and_the_result_all_count() {
        let a = digest("t", "{}", "result");
        assert_ne!(a.arguments, digest("u", "{}", "result").arguments);
        assert_ne!(a.result, digest("t", "{}", "resulu").result);
        assert_eq!(a.arguments, digest("t", "{}", "resulu").arguments);
        // A boundary between name and arguments cannot move.
        assert_ne!(
            digest("ab", "{}", "").arguments,
            digest("a", "b{}", "").arguments
        );
    }

    #[test]
    fn digests_are_stable_across_builds() {
        // Journaled: a change here breaks counting in runs resumed by another build. The values
        // are XXH3-64's (the result's seeded with the arguments' digest), as any
        // implementation computes them (Python's `xxhash` agrees).
        let digest = digest("search-tool", r#"{"q":"x"}"#, "0123456789abcdef!");
        let journaled = serde_json::to_value(digest).unwrap();
        assert_eq!(
            journaled,
            serde_json::json!({"arguments": "50fcb03e57b32a68", "result": "e8665d6d25bf3a53"})
        );
        assert_eq!(
            serde_json::from_value::<CallDigest>(journaled).unwrap(),
            digest
        );
    }

    #[test]
    fn the_rule_decides_what_repeats() {
        let mut repeats = Repeats::default();
        let first = digest("t", "{}", "v1");
        repeats.record(&first);
        let stamped = digest("t", "{}", "v2");
        assert!(repeats.repeats(&first, RepeatedWhen::ArgumentsAndResult));
        assert!(!repeats.repeats(&stamped, RepeatedWhen::ArgumentsAndResult));
        let by_arguments = RepeatedWhen::Arguments.digest("t", "{}", "v2").unwrap();
        assert!(by_arguments.result.is_none());
        assert!(repeats.repeats(&by_arguments, RepeatedWhen::Arguments));
        assert!(RepeatedWhen::Never.digest("t", "{}", "v1").is_none());
    }
}
