//! [`Tape`] as a `jsonschema` instance representation (`jsonschema::json`), checked against the
//! library's conformance kit in the tests below.

use std::borrow::Cow;

use jsonschema::JsonType;
use jsonschema::json::{Array, Json, JsonNumber, Node, NodeIdentity, Object, cmp};
use serde_json::{Number, Value};

use super::{Elements, Entry, Members, Tape, TapeNode};

/// The marker type validators over tapes are built for: `options_for::<TapeJson>()`.
pub(crate) struct TapeJson;

impl Json for TapeJson {
    type Node<'a> = TapeNode<'a>;
    type PreparedKey = String;
    type StringBuffer = Tape;

    // `get` scans the members, so one pass over them beats several lookups.
    const KEYS_PER_LOOKUP: usize = 8;
    // A tape is a tree: no node contains itself.
    const ACYCLIC: bool = true;

    fn prepare_key(key: &str) -> String {
        key.to_owned()
    }

    fn with_string_node<T>(
        buffer: &mut Tape,
        string: &str,
        f: impl FnOnce(TapeNode<'_>) -> T,
    ) -> T {
        buffer.clear();
        if buffer.push_str(string).is_err() {
            buffer.clear();
            buffer.push(Entry::Null);
        }
        f(buffer.root())
    }
}

impl<'a> Node<'a, TapeJson> for TapeNode<'a> {
    type Object = TapeObject<'a>;
    type Array = TapeArray<'a>;
    type Number = TapeNumber;

    fn as_object(&self) -> Option<TapeObject<'a>> {
        match self.entry() {
            Entry::Object { len, .. } => Some(TapeObject { node: *self, len }),
            _ => None,
        }
    }

    fn as_array(&self) -> Option<TapeArray<'a>> {
        match self.entry() {
            Entry::Array { len, .. } => Some(TapeArray { node: *self, len }),
            _ => None,
        }
    }

    fn as_string(&self) -> Option<Cow<'a, str>> {
        self.str().map(Cow::Borrowed)
    }

    fn as_number(&self) -> Option<TapeNumber> {
        match self.entry() {
            entry @ (Entry::U64(_) | Entry::I64(_) | Entry::F64(_)) => Some(TapeNumber(entry)),
            _ => None,
        }
    }

    fn as_boolean(&self) -> Option<bool> {
        match self.entry() {
            Entry::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn is_null(&self) -> bool {
        self.entry() == Entry::Null
    }

    fn is_number(&self) -> bool {
        matches!(self.entry(), Entry::U64(_) | Entry::I64(_) | Entry::F64(_))
    }

    fn json_type(&self) -> JsonType {
        match self.entry() {
            Entry::Null => JsonType::Null,
            Entry::Bool(_) => JsonType::Boolean,
            Entry::U64(_) | Entry::I64(_) | Entry::F64(_) => JsonType::Number,
            Entry::Str { .. } => JsonType::String,
            Entry::Array { .. } => JsonType::Array,
            Entry::Object { .. } => JsonType::Object,
        }
    }

    fn string_length_within(&self, min: u64, max: u64) -> Option<bool> {
        let s = self.str()?;
        // A code point is one to four bytes: the byte length often decides without counting.
        let bytes = s.len() as u64;
        let fewest = bytes.div_ceil(4);
        if bytes < min || fewest > max {
            return Some(false);
        }
        if min <= fewest && bytes <= max {
            return Some(true);
        }
        Some((min..=max).contains(&(s.chars().count() as u64)))
    }

    /// `const`/`enum` checks (every unit-variant enum field): strings and scalars compare in
    /// place; only containers build a value.
    fn equals_value(&self, expected: &Value) -> bool {
        match (self.entry(), expected) {
            (Entry::Str { .. }, Value::String(e)) => self.str() == Some(e.as_str()),
            (Entry::Str { .. }, _) => false,
            (Entry::Null, e) => e.is_null(),
            (Entry::Bool(b), e) => e.as_bool() == Some(b),
            (Entry::U64(_) | Entry::I64(_) | Entry::F64(_), Value::Number(e)) => {
                cmp::equal_numbers(&TapeNumber(self.entry()), e)
            }
            (Entry::U64(_) | Entry::I64(_) | Entry::F64(_), _) => false,
            _ => cmp::equal(&self.to_json_value(), expected),
        }
    }

    fn to_value(&self) -> Cow<'a, Value> {
        Cow::Owned(self.to_json_value())
    }

    fn identity(&self) -> Option<NodeIdentity> {
        Some(NodeIdentity::tagged(
            std::ptr::from_ref::<Tape>(self.tape) as usize,
            self.index,
        ))
    }
}

impl<'a> TapeNode<'a> {
    fn str(&self) -> Option<&'a str> {
        match self.entry() {
            Entry::Str { start, len } => Some(self.tape.str_at(start, len)),
            _ => None,
        }
    }
}

/// An object node.
pub(crate) struct TapeObject<'a> {
    node: TapeNode<'a>,
    len: u32,
}

impl<'a> Object<'a, TapeJson> for TapeObject<'a> {
    type Node = TapeNode<'a>;
    type MemberName = &'a str;
    type MembersIter = Members<'a>;

    fn len(&self) -> usize {
        self.len as usize
    }

    fn get(&self, key: &String) -> Option<TapeNode<'a>> {
        self.node
            .members()
            .find(|(name, _)| *name == key)
            .map(|(_, value)| value)
    }

    fn members(&self) -> Members<'a> {
        self.node.members()
    }
}

/// An array node.
pub(crate) struct TapeArray<'a> {
    node: TapeNode<'a>,
    len: u32,
}

impl<'a> Array<'a, TapeJson> for TapeArray<'a> {
    type Node = TapeNode<'a>;
    type ElementsIter = Elements<'a>;

    fn len(&self) -> usize {
        self.len as usize
    }

    fn elements(&self) -> Elements<'a> {
        self.node.elements()
    }
}

/// A number node, read without building a `serde_json::Number`.
pub(crate) struct TapeNumber(Entry);

impl JsonNumber for TapeNumber {
    fn as_u64(&self) -> Option<u64> {
        match self.0 {
            Entry::U64(n) => Some(n),
            Entry::I64(n) => u64::try_from(n).ok(),
            _ => None,
        }
    }

    fn as_i64(&self) -> Option<i64> {
        match self.0 {
            Entry::U64(n) => i64::try_from(n).ok(),
            Entry::I64(n) => Some(n),
            _ => None,
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self.0 {
            Entry::U64(n) => Some(n as f64),
            Entry::I64(n) => Some(n as f64),
            Entry::F64(n) => Some(n),
            _ => None,
        }
    }

    fn as_str(&self) -> Cow<'_, str> {
        Cow::Owned(self.to_number().to_string())
    }

    fn to_number(&self) -> Cow<'_, Number> {
        Cow::Owned(match self.0 {
            Entry::U64(n) => n.into(),
            Entry::I64(n) => n.into(),
            // Tapes hold finite floats only: non-finite ones are written as null.
            Entry::F64(n) => Number::from_f64(n).unwrap_or_else(|| 0.into()),
            _ => 0.into(),
        })
    }

    fn is_integer(&self) -> bool {
        match self.0 {
            Entry::U64(_) | Entry::I64(_) => true,
            Entry::F64(n) => n.fract() == 0.0,
            _ => false,
        }
    }

    fn is_written_as_integer(&self) -> bool {
        matches!(self.0, Entry::U64(_) | Entry::I64(_))
    }
}

#[cfg(test)]
mod tests {
    use super::super::{from_serialize, from_text};
    use super::*;

    #[test]
    fn a_tape_from_text_conforms() {
        let mut tape = Tape::default();
        from_text::fill(
            &mut tape,
            &jsonschema::json::conformance::document().to_string(),
        )
        .unwrap();
        jsonschema::json::conformance::assert_conformance::<TapeJson>(&tape.root());
    }

    #[test]
    fn a_tape_from_a_value_conforms() {
        let mut tape = Tape::default();
        from_serialize::fill(&mut tape, &jsonschema::json::conformance::document()).unwrap();
        jsonschema::json::conformance::assert_conformance::<TapeJson>(&tape.root());
    }

    #[test]
    fn validates_like_serde_json_values() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {
                "kind": {"enum": ["a", "b"]},
                "n": {"type": "integer", "minimum": 1},
                "x": {"type": "number", "multipleOf": 0.5},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "uniqueItems": true},
                "when": {"type": "string", "format": "date-time"}
            },
            "required": ["kind"],
            "additionalProperties": false
        });
        let on_tape = jsonschema::options_for::<TapeJson>()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap();
        let on_values = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap();
        for instance in [
            r#"{"kind": "a"}"#,
            r#"{"kind": "c"}"#,
            r#"{"kind": "a", "n": 0}"#,
            r#"{"kind": "a", "n": 1.0}"#,
            r#"{"kind": "a", "n": 2.5}"#,
            r#"{"kind": "a", "x": 1.5}"#,
            r#"{"kind": "a", "x": 1.25}"#,
            r#"{"kind": "a", "tags": ["ab", "ab"]}"#,
            r#"{"kind": "a", "tags": ["abcd"]}"#,
            r#"{"kind": "a", "when": "2026-11-29T20:00:00Z"}"#,
            r#"{"kind": "a", "when": "yesterday"}"#,
            r#"{"kind": "a", "extra": 1}"#,
            r#"{}"#,
            r#"[]"#,
        ] {
            let mut tape = Tape::default();
            from_text::fill(&mut tape, instance).unwrap();
            let value: Value = serde_json::from_str(instance).unwrap();
            assert_eq!(
                on_tape.is_valid(tape.root()),
                on_values.is_valid(&value),
                "{instance}"
            );
            let tape_errors: Vec<String> = on_tape
                .iter_errors(tape.root())
                .map(|e| e.to_string())
                .collect();
            let value_errors: Vec<String> = on_values
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            assert_eq!(tape_errors, value_errors, "{instance}");
        }
    }
}
