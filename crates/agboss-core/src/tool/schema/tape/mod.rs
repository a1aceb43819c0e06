//! A compact JSON document for validation: one vector of entries and one string arena.
//!
//! Validating a `serde_json::Value` means building a tree of maps, vectors and strings per call
//! and dropping it again, which costs more than the validation itself. A [`Tape`] holds the same
//! document in two buffers that are reused from call to call (see [`with_tape`]), and
//! `jsonschema` validates it through its documented custom-representation traits
//! ([`json`](self::json)).
//!
//! Layout: entries in document order. A container's entry records its length and the index
//! just past its subtree, so siblings are reached without walking children; an object's members
//! are a key entry followed by the value's subtree.

mod from_serialize;
mod from_text;
mod json;

use std::cell::RefCell;

use serde_json::{Map, Number, Value};

pub(crate) use from_serialize::{TapeError, fill as fill_from_serialize};
pub(crate) use from_text::fill as fill_from_text;
pub(crate) use json::TapeJson;

/// Writes a `Value` onto `tape` (for tests).
#[cfg(test)]
pub(crate) fn fill_from_value(tape: &mut Tape, value: &Value) {
    fill_from_serialize(tape, value).expect("a Value is always JSON");
}

/// One JSON document.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    entries: Vec<Entry>,
    strings: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Entry {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str { start: u32, len: u32 },
    Array { len: u32, end: u32 },
    Object { len: u32, end: u32 },
}

/// A position in a [`Tape`]; cheap to copy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TapeNode<'a> {
    tape: &'a Tape,
    index: u32,
}

impl Tape {
    pub(crate) fn clear(&mut self) {
        self.entries.clear();
        self.strings.clear();
    }

    /// The root value; the tape must hold a document.
    pub(crate) fn root(&self) -> TapeNode<'_> {
        debug_assert!(!self.entries.is_empty());
        TapeNode {
            tape: self,
            index: 0,
        }
    }

    fn push(&mut self, entry: Entry) -> u32 {
        let index = self.entries.len() as u32;
        self.entries.push(entry);
        index
    }

    fn push_str(&mut self, s: &str) -> Result<u32, TapeError> {
        let start = u32::try_from(self.strings.len()).map_err(|_| TapeError::too_large())?;
        let len = u32::try_from(s.len()).map_err(|_| TapeError::too_large())?;
        self.strings.push_str(s);
        Ok(self.push(Entry::Str { start, len }))
    }

    fn next_index(&self) -> Result<u32, TapeError> {
        u32::try_from(self.entries.len()).map_err(|_| TapeError::too_large())
    }

    /// Writes a container's length and end once its members are on the tape.
    fn close(&mut self, index: u32, len: u32) {
        let end = self.entries.len() as u32;
        self.entries[index as usize] = match self.entries[index as usize] {
            Entry::Array { .. } => Entry::Array { len, end },
            _ => Entry::Object { len, end },
        };
    }

    fn str_at(&self, start: u32, len: u32) -> &str {
        &self.strings[start as usize..(start + len) as usize]
    }

    /// The index just past the subtree at `index`.
    fn end_of(&self, index: u32) -> u32 {
        match self.entries[index as usize] {
            Entry::Array { end, .. } | Entry::Object { end, .. } => end,
            _ => index + 1,
        }
    }
}

impl<'a> TapeNode<'a> {
    fn entry(&self) -> Entry {
        self.tape.entries[self.index as usize]
    }

    fn at(&self, index: u32) -> TapeNode<'a> {
        TapeNode {
            tape: self.tape,
            index,
        }
    }

    /// The node as a `serde_json::Value`: for error messages, off the hot path.
    pub(crate) fn to_json_value(self) -> Value {
        match self.entry() {
            Entry::Null => Value::Null,
            Entry::Bool(b) => Value::Bool(b),
            Entry::U64(n) => Value::Number(n.into()),
            Entry::I64(n) => Value::Number(n.into()),
            Entry::F64(n) => Number::from_f64(n).map_or(Value::Null, Value::Number),
            Entry::Str { start, len } => Value::String(self.tape.str_at(start, len).to_owned()),
            Entry::Array { .. } => {
                Value::Array(self.elements().map(TapeNode::to_json_value).collect())
            }
            Entry::Object { .. } => Value::Object(
                self.members()
                    .map(|(k, v)| (k.to_owned(), v.to_json_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }

    /// The text of a string node.
    pub(crate) fn text(self) -> Option<&'a str> {
        match self.entry() {
            Entry::Str { start, len } => Some(self.tape.str_at(start, len)),
            _ => None,
        }
    }

    /// The values of every member named `name` of an object node: a text with a key twice
    /// has two (which one a type reads is its own affair).
    pub(crate) fn members_named(self, name: &str) -> impl Iterator<Item = TapeNode<'a>> {
        self.members()
            .filter(move |(key, _)| *key == name)
            .map(|(_, value)| value)
    }

    /// The elements of an array node (none for another node).
    pub(crate) fn items(self) -> Elements<'a> {
        self.elements()
    }

    fn elements(self) -> Elements<'a> {
        let left = match self.entry() {
            Entry::Array { len, .. } => len,
            _ => 0,
        };
        Elements {
            node: self,
            next: self.index + 1,
            left,
        }
    }

    fn members(self) -> Members<'a> {
        let left = match self.entry() {
            Entry::Object { len, .. } => len,
            _ => 0,
        };
        Members {
            node: self,
            next: self.index + 1,
            left,
        }
    }
}

/// The elements of an array node.
#[derive(Clone)]
pub(crate) struct Elements<'a> {
    node: TapeNode<'a>,
    next: u32,
    left: u32,
}

impl<'a> Iterator for Elements<'a> {
    type Item = TapeNode<'a>;

    fn next(&mut self) -> Option<TapeNode<'a>> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let element = self.node.at(self.next);
        self.next = self.node.tape.end_of(self.next);
        Some(element)
    }
}

/// The members of an object node: name and value.
#[derive(Clone)]
pub(crate) struct Members<'a> {
    node: TapeNode<'a>,
    next: u32,
    left: u32,
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, TapeNode<'a>);

    fn next(&mut self) -> Option<(&'a str, TapeNode<'a>)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let tape: &'a Tape = self.node.tape;
        let name = match tape.entries[self.next as usize] {
            Entry::Str { start, len } => tape.str_at(start, len),
            _ => "",
        };
        let value = self.node.at(self.next + 1);
        self.next = tape.end_of(self.next + 1);
        Some((name, value))
    }
}

/// Runs `f` with an empty tape from this thread's pool; the tape's buffers are kept for the next
/// call, so steady-state validation allocates nothing.
pub(crate) fn with_tape<T>(f: impl FnOnce(&mut Tape) -> T) -> T {
    thread_local! {
        static POOL: RefCell<Vec<Tape>> = const { RefCell::new(Vec::new()) };
    }
    // Bigger documents than this give their buffers back to the allocator instead of the pool.
    const KEEP_BYTES: usize = 64 * 1024;
    let mut tape = POOL
        .with(|pool| pool.borrow_mut().pop())
        .unwrap_or_default();
    let result = f(&mut tape);
    if tape.strings.capacity() <= KEEP_BYTES
        && tape.entries.capacity() * std::mem::size_of::<Entry>() <= KEEP_BYTES
    {
        tape.clear();
        POOL.with(|pool| pool.borrow_mut().push(tape));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_values_round_trip() {
        let document = json!({
            "a": [1, -2, 2.5, "x", null, true, {"b": []}],
            "c": {"d": {"e": "f"}},
            "": "empty key",
            "unicode": "é ü 日本"
        });
        let mut tape = Tape::default();
        from_text::fill(&mut tape, &document.to_string()).unwrap();
        assert_eq!(tape.root().to_json_value(), document);

        let mut tape = Tape::default();
        from_serialize::fill(&mut tape, &document).unwrap();
        assert_eq!(tape.root().to_json_value(), document);
    }

    #[test]
    fn a_tape_grown_past_64_kib_is_not_kept() {
        let big = format!("\"{}\"", "x".repeat(64 * 1024 + 1));
        with_tape(|tape| from_text::fill(tape, &big).unwrap());
        with_tape(|tape| assert_eq!(tape.strings.capacity(), 0));
        let small = format!("\"{}\"", "x".repeat(64 * 1024));
        with_tape(|tape| from_text::fill(tape, &small).unwrap());
        with_tape(|tape| assert!(tape.strings.capacity() >= 64 * 1024));
    }

    #[test]
    fn the_pool_hands_out_empty_tapes() {
        with_tape(|tape| from_text::fill(tape, "[1,2,3]").unwrap());
        with_tape(|tape| {
            assert!(tape.entries.is_empty() && tape.strings.is_empty());
        });
    }
}
