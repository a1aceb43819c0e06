//! Filling a [`Tape`] from any `Serialize` value, with `serde_json`'s data model: bytes are
//! arrays of numbers, map keys must be strings (numbers, booleans and chars are written as
//! text), enum variants wrap their content in a one-member object, non-finite floats are null.

use std::fmt;

use serde::ser::{self, Serialize};

use super::{Entry, Tape};

/// Why a value could not be written as JSON.
#[derive(Debug)]
pub(crate) struct TapeError(String);

impl TapeError {
    pub(crate) fn too_large() -> TapeError {
        TapeError("the document is larger than 4 GiB".into())
    }
}

impl fmt::Display for TapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TapeError {}

impl ser::Error for TapeError {
    fn custom<T: fmt::Display>(msg: T) -> TapeError {
        TapeError(msg.to_string())
    }
}

/// Writes `value` onto `tape`.
pub(crate) fn fill<T: Serialize + ?Sized>(tape: &mut Tape, value: &T) -> Result<(), TapeError> {
    value.serialize(Writer(tape))
}

struct Writer<'t>(&'t mut Tape);

/// A container being written: its entry's index and how many members it has so far.
struct Open<'t> {
    tape: &'t mut Tape,
    index: u32,
    len: u32,
    /// For an enum variant with content: the wrapping object to close after the container.
    variant: Option<u32>,
}

impl<'t> Open<'t> {
    fn new(
        tape: &'t mut Tape,
        entry: Entry,
        variant: Option<&'static str>,
    ) -> Result<Self, TapeError> {
        let variant = match variant {
            Some(name) => Some(open_variant(tape, name)?),
            None => None,
        };
        let index = tape.next_index()?;
        tape.push(entry);
        Ok(Open {
            tape,
            index,
            len: 0,
            variant,
        })
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TapeError> {
        value.serialize(Writer(self.tape))?;
        self.len += 1;
        Ok(())
    }

    fn member<T: Serialize + ?Sized>(&mut self, name: &str, value: &T) -> Result<(), TapeError> {
        self.tape.push_str(name)?;
        self.element(value)
    }

    fn end(self) -> Result<(), TapeError> {
        self.tape.close(self.index, self.len);
        if let Some(wrapper) = self.variant {
            self.tape.close(wrapper, 1);
        }
        Ok(())
    }
}

/// `{"Variant": ...}`: opens the wrapping object and writes the name.
fn open_variant(tape: &mut Tape, name: &str) -> Result<u32, TapeError> {
    let index = tape.next_index()?;
    tape.push(Entry::Object { len: 0, end: 0 });
    tape.push_str(name)?;
    Ok(index)
}

impl<'t> ser::Serializer for Writer<'t> {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = Open<'t>;
    type SerializeTuple = Open<'t>;
    type SerializeTupleStruct = Open<'t>;
    type SerializeTupleVariant = Open<'t>;
    type SerializeMap = MapOpen<'t>;
    type SerializeStruct = Open<'t>;
    type SerializeStructVariant = Open<'t>;

    fn serialize_bool(self, v: bool) -> Result<(), TapeError> {
        self.0.push(Entry::Bool(v));
        Ok(())
    }
    fn serialize_i8(self, v: i8) -> Result<(), TapeError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i16(self, v: i16) -> Result<(), TapeError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i32(self, v: i32) -> Result<(), TapeError> {
        self.serialize_i64(v.into())
    }
    fn serialize_i64(self, v: i64) -> Result<(), TapeError> {
        // Non-negative integers are unsigned, as serde_json parses them.
        self.0.push(if v >= 0 {
            Entry::U64(v as u64)
        } else {
            Entry::I64(v)
        });
        Ok(())
    }
    fn serialize_i128(self, v: i128) -> Result<(), TapeError> {
        match i64::try_from(v) {
            Ok(v) => self.serialize_i64(v),
            Err(_) => self.serialize_u128(u128::try_from(v).map_err(|_| out_of_range())?),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<(), TapeError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u16(self, v: u16) -> Result<(), TapeError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u32(self, v: u32) -> Result<(), TapeError> {
        self.serialize_u64(v.into())
    }
    fn serialize_u64(self, v: u64) -> Result<(), TapeError> {
        self.0.push(Entry::U64(v));
        Ok(())
    }
    fn serialize_u128(self, v: u128) -> Result<(), TapeError> {
        self.serialize_u64(u64::try_from(v).map_err(|_| out_of_range())?)
    }
    fn serialize_f32(self, v: f32) -> Result<(), TapeError> {
        self.serialize_f64(f32_as_written(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), TapeError> {
        self.0.push(if v.is_finite() {
            Entry::F64(v)
        } else {
            Entry::Null
        });
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), TapeError> {
        self.serialize_str(v.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, v: &str) -> Result<(), TapeError> {
        self.0.push_str(v).map(drop)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<(), TapeError> {
        let mut seq = Open::new(self.0, Entry::Array { len: 0, end: 0 }, None)?;
        for byte in v {
            ser::SerializeSeq::serialize_element(&mut seq, byte)?;
        }
        seq.end()
    }
    fn serialize_none(self) -> Result<(), TapeError> {
        self.serialize_unit()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), TapeError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), TapeError> {
        self.0.push(Entry::Null);
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), TapeError> {
        self.serialize_unit()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), TapeError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), TapeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), TapeError> {
        let wrapper = open_variant(self.0, variant)?;
        value.serialize(Writer(self.0))?;
        self.0.close(wrapper, 1);
        Ok(())
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Open<'t>, TapeError> {
        Open::new(self.0, Entry::Array { len: 0, end: 0 }, None)
    }
    fn serialize_tuple(self, _: usize) -> Result<Open<'t>, TapeError> {
        self.serialize_seq(None)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Open<'t>, TapeError> {
        self.serialize_seq(None)
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Open<'t>, TapeError> {
        Open::new(self.0, Entry::Array { len: 0, end: 0 }, Some(variant))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapOpen<'t>, TapeError> {
        Ok(MapOpen(Open::new(
            self.0,
            Entry::Object { len: 0, end: 0 },
            None,
        )?))
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Open<'t>, TapeError> {
        Open::new(self.0, Entry::Object { len: 0, end: 0 }, None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Open<'t>, TapeError> {
        Open::new(self.0, Entry::Object { len: 0, end: 0 }, Some(variant))
    }
}

/// The number the JSON text of `v` reads as. `serde_json` writes an `f32` as its shortest
/// text (`1.1`), which is another `f64` than `v as f64` (`1.100000023841858`); the tape holds
/// what the model reads.
fn f32_as_written(v: f32) -> f64 {
    use std::io::Write as _;
    // Room for the longest shortest form, `-1.17549435e-38`.
    let mut text = [0u8; 24];
    let mut rest = &mut text[..];
    if !v.is_finite() || write!(rest, "{v:e}").is_err() {
        return v.into();
    }
    let len = 24 - rest.len();
    std::str::from_utf8(&text[..len])
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(v.into())
}

fn out_of_range() -> TapeError {
    TapeError("number out of range".into())
}

/// Sequences, tuples and their variants: each element is the next value.
macro_rules! elements {
    ($($trait:ident::$method:ident),*) => {$(
        impl ser::$trait for Open<'_> {
            type Ok = ();
            type Error = TapeError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TapeError> {
                self.element(value)
            }
            fn end(self) -> Result<(), TapeError> {
                Open::end(self)
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// Structs and struct variants: each field is a named member.
macro_rules! members {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Open<'_> {
            type Ok = ();
            type Error = TapeError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), TapeError> {
                self.member(key, value)
            }
            fn end(self) -> Result<(), TapeError> {
                Open::end(self)
            }
        }
    )*};
}

members!(SerializeStruct, SerializeStructVariant);

/// A map: its keys go through [`KeyWriter`].
pub(crate) struct MapOpen<'t>(Open<'t>);

impl ser::SerializeMap for MapOpen<'_> {
    type Ok = ();
    type Error = TapeError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), TapeError> {
        key.serialize(KeyWriter(self.0.tape))
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), TapeError> {
        self.0.element(value)
    }
    fn end(self) -> Result<(), TapeError> {
        self.0.end()
    }
}

/// Writes a map key as `serde_json` does: a string, or a number, boolean or char written as
/// text; anything else is refused.
struct KeyWriter<'t>(&'t mut Tape);

fn key_must_be_a_string() -> TapeError {
    TapeError("key must be a string".into())
}

macro_rules! key_as_text {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method(self, v: $ty) -> Result<(), TapeError> {
            self.0.push_str(&v.to_string()).map(drop)
        }
    )*};
}

macro_rules! float_key_as_text {
    ($($method:ident: $ty:ty),*) => {$(
        fn $method(self, v: $ty) -> Result<(), TapeError> {
            if !v.is_finite() {
                return Err(TapeError("float key must be finite (got NaN or +/-inf)".into()));
            }
            // The text serde_json writes (`1.0`, where `to_string` would say `1`).
            let text = serde_json::to_string(&v).map_err(|e| TapeError(e.to_string()))?;
            self.0.push_str(&text).map(drop)
        }
    )*};
}

macro_rules! key_refused {
    ($($method:ident($($arg:ty),*) -> $ok:ty),*) => {$(
        fn $method(self, $(_: $arg),*) -> Result<$ok, TapeError> {
            Err(key_must_be_a_string())
        }
    )*};
}

impl ser::Serializer for KeyWriter<'_> {
    type Ok = ();
    type Error = TapeError;
    type SerializeSeq = ser::Impossible<(), TapeError>;
    type SerializeTuple = ser::Impossible<(), TapeError>;
    type SerializeTupleStruct = ser::Impossible<(), TapeError>;
    type SerializeTupleVariant = ser::Impossible<(), TapeError>;
    type SerializeMap = ser::Impossible<(), TapeError>;
    type SerializeStruct = ser::Impossible<(), TapeError>;
    type SerializeStructVariant = ser::Impossible<(), TapeError>;

    key_as_text!(
        serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32,
        serialize_i64: i64, serialize_i128: i128, serialize_u8: u8, serialize_u16: u16,
        serialize_u32: u32, serialize_u64: u64, serialize_u128: u128, serialize_char: char
    );
    float_key_as_text!(serialize_f32: f32, serialize_f64: f64);
    key_refused!(
        serialize_bytes(&[u8]) -> (),
        serialize_none() -> (),
        serialize_unit() -> (),
        serialize_unit_struct(&'static str) -> (),
        serialize_seq(Option<usize>) -> Self::SerializeSeq,
        serialize_tuple(usize) -> Self::SerializeTuple,
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct,
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant,
        serialize_map(Option<usize>) -> Self::SerializeMap,
        serialize_struct(&'static str, usize) -> Self::SerializeStruct,
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant
    );

    fn serialize_str(self, v: &str) -> Result<(), TapeError> {
        self.0.push_str(v).map(drop)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), TapeError> {
        value.serialize(self)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), TapeError> {
        self.serialize_str(variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), TapeError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), TapeError> {
        Err(key_must_be_a_string())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::json;

    use super::*;

    #[derive(Serialize)]
    enum Shape {
        Dot,
        Circle(f64),
        Segment(u8, u8),
        Rect { w: u32, h: u32 },
    }

    #[derive(Serialize)]
    struct Everything {
        shapes: Vec<Shape>,
        by_id: BTreeMap<u32, bool>,
        bytes: &'static [u8],
        letter: char,
        missing: Option<i8>,
        unit: (),
        wide: i128,
        nan: f64,
    }

    #[test]
    fn writes_what_serde_json_writes() {
        let value = Everything {
            shapes: vec![
                Shape::Dot,
                Shape::Circle(1.5),
                Shape::Segment(1, 2),
                Shape::Rect { w: 3, h: 4 },
            ],
            by_id: BTreeMap::from([(7, true)]),
            bytes: b"hi",
            letter: 'é',
            missing: None,
            unit: (),
            wide: -5,
            nan: f64::NAN,
        };
        let mut tape = Tape::default();
        fill(&mut tape, &value).unwrap();
        assert_eq!(
            tape.root().to_json_value(),
            serde_json::to_value(&value).unwrap()
        );
        assert_eq!(
            tape.root().to_json_value()["shapes"][3],
            json!({"Rect": {"w": 3, "h": 4}})
        );
    }

    #[test]
    fn an_f32_is_the_number_its_json_text_says() {
        let value = [
            1.1f32,
            -3.402_823_5e38,
            f32::MIN_POSITIVE,
            1e-45,
            0.3,
            16_777_217.0,
        ];
        let text = serde_json::to_string(&value).unwrap();
        let mut tape = Tape::default();
        fill(&mut tape, &value).unwrap();
        assert_eq!(
            tape.root().to_json_value(),
            serde_json::from_str::<serde_json::Value>(&text).unwrap()
        );
        assert_eq!(tape.root().to_json_value()[0], json!(1.1));
    }

    /// A map whose keys are floats, in order.
    struct FloatKeys(&'static [f64]);

    impl Serialize for FloatKeys {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|k| (k, true)))
        }
    }

    #[test]
    fn keys_are_written_as_serde_json_writes_them() {
        let mut tape = Tape::default();
        fill(&mut tape, &FloatKeys(&[1.0, 2.5])).unwrap();
        assert_eq!(
            tape.root().to_json_value(),
            json!({"1.0": true, "2.5": true})
        );

        let mut tape = Tape::default();
        fill(&mut tape, &BTreeMap::from([(Some("a"), 1)])).unwrap();
        assert_eq!(tape.root().to_json_value(), json!({"a": 1}));

        let mut tape = Tape::default();
        let error = fill(&mut tape, &FloatKeys(&[f64::NAN])).unwrap_err();
        assert_eq!(
            error.to_string(),
            serde_json::to_string(&FloatKeys(&[f64::NAN]))
                .unwrap_err()
                .to_string()
        );
        assert_eq!(
            error.to_string(),
            "float key must be finite (got NaN or +/-inf)"
        );
    }

    #[test]
    fn keys_that_are_not_strings_are_refused() {
        let mut tape = Tape::default();
        let map = BTreeMap::from([((1, 2), 3)]);
        assert_eq!(
            fill(&mut tape, &map).unwrap_err().to_string(),
            "key must be a string"
        );
    }
}
