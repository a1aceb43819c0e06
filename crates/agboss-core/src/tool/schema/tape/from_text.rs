//! Filling a [`Tape`] from JSON text, driven by `serde_json`'s parser (its recursion limit and
//! error positions included).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

use super::{Entry, Tape};

/// Parses `text` (one JSON value and nothing after it) onto `tape`.
pub(crate) fn fill(tape: &mut Tape, text: &str) -> Result<(), serde_json::Error> {
    let mut parser = serde_json::Deserializer::from_str(text);
    Value(tape).deserialize(&mut parser)?;
    parser.end()
}

/// Pushes one value.
struct Value<'t>(&'t mut Tape);

impl<'de> DeserializeSeed<'de> for Value<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Value<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<(), E> {
        self.0.push(Entry::Bool(v));
        Ok(())
    }

    fn visit_i64<E>(self, v: i64) -> Result<(), E> {
        self.0.push(Entry::I64(v));
        Ok(())
    }

    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.0.push(Entry::U64(v));
        Ok(())
    }

    fn visit_f64<E>(self, v: f64) -> Result<(), E> {
        self.0.push(Entry::F64(v));
        Ok(())
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v).map(drop).map_err(E::custom)
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.0.push(Entry::Null);
        Ok(())
    }

    fn visit_none<E>(self) -> Result<(), E> {
        self.0.push(Entry::Null);
        Ok(())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let tape = self.0;
        let index = tape.next_index().map_err(A::Error::custom)?;
        tape.push(Entry::Array { len: 0, end: 0 });
        let mut len = 0u32;
        while seq.next_element_seed(Value(tape))?.is_some() {
            len += 1;
        }
        tape.close(index, len);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let tape = self.0;
        let index = tape.next_index().map_err(A::Error::custom)?;
        tape.push(Entry::Object { len: 0, end: 0 });
        let mut len = 0u32;
        while map.next_key_seed(Key(tape))?.is_some() {
            map.next_value_seed(Value(tape))?;
            len += 1;
        }
        tape.close(index, len);
        Ok(())
    }
}

/// Pushes one member name.
struct Key<'t>(&'t mut Tape);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.0.push_str(v).map(drop).map_err(E::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_text_is_an_error_with_its_position() {
        let mut tape = Tape::default();
        let error = fill(&mut tape, r#"{"a": [1, 2"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "EOF while parsing a list at line 1 column 11"
        );
        let mut tape = Tape::default();
        assert!(fill(&mut tape, "{} {}").is_err(), "trailing characters");
    }

    #[test]
    fn deep_nesting_stops_at_the_parsers_limit() {
        let text = "[".repeat(10_000) + &"]".repeat(10_000);
        let mut tape = Tape::default();
        let error = fill(&mut tape, &text).unwrap_err();
        assert!(
            error.to_string().contains("recursion limit exceeded"),
            "{error}"
        );
    }
}
