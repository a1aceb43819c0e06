//! Reading JSON text into a type as its JSON Schema reads it: serde's derived code is more
//! lenient than the schema schemars writes for it in two places, and [`Strict`] refuses both.
//!
//! - A struct is read from an array too (its fields in order); its schema says `object`.
//! - A unit variant is read from `{"Variant": null}` too; its schema says a string.
//!
//! Everything else is serde_json's own reading, one pass over the text. What `Strict` refuses
//! is refused by the schema as well, so a refusal here only sends the arguments to the schema's
//! checker, which says what is wrong.

use std::fmt;

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};

use super::trail::{Step, Trail, path_of};

/// `text` read as a `T` the way its schema reads it. Trailing characters after the document
/// are refused, as `serde_json::from_str` refuses them. A refusal says where it happened
/// ([`Refused::path`]) without a second reading.
pub(crate) fn read<T: de::DeserializeOwned>(text: &str) -> Result<T, Refused> {
    let trail = Trail::default();
    let mut reader = serde_json::Deserializer::from_str(text);
    // No closures here: each would be compiled again for every type read.
    let value = match T::deserialize(Strict(&mut reader, &trail)) {
        Ok(value) => value,
        Err(error) => return Err(Refused::new(error, trail)),
    };
    match reader.end() {
        Ok(()) => Ok(value),
        Err(error) => Err(Refused::new(error, trail)),
    }
}

/// Why the strict reader refused a text, and the steps to the value it refused.
#[derive(Debug)]
pub(crate) struct Refused {
    /// What serde said, with its position in the text.
    pub(crate) error: serde_json::Error,
    steps: Vec<Step>,
}

impl Refused {
    #[cold]
    fn new(error: serde_json::Error, trail: Trail) -> Refused {
        Refused {
            error,
            steps: trail.into_steps(),
        }
    }

    /// The path in `text` (the text that was read) of the value refused, or `None` for the
    /// document itself.
    pub(crate) fn path(&self, text: &str) -> Option<String> {
        path_of(text, &self.steps)
    }
}

/// A deserializer that hands every value it reads to a [`Guard`]ed visitor, and marks on its
/// [`Trail`] the members and elements an error leaves.
pub(crate) struct Strict<'t, D>(D, &'t Trail);

/// A visitor that reads what is nested in the value it is handed through [`Strict`] again.
struct Guard<'t, V> {
    inner: V,
    trail: &'t Trail,
}

impl<'t, V> Guard<'t, V> {
    fn any(inner: V, trail: &'t Trail) -> Self {
        Guard { inner, trail }
    }
}

/// A struct's visitor, which takes an object only. Its own `visit_seq` (the struct read from an
/// array) is never called, so it is not compiled for any type read here: a derived struct's
/// largest function but one, in every crate of tools.
struct Object<'t, V>(V, &'t Trail);

macro_rules! forward_deserialize {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Guard::any(visitor, self.1))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<'_, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_unit_struct(name, Guard::any(visitor, self.1))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_newtype_struct(name, Guard::any(visitor, self.1))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Guard::any(visitor, self.1))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Guard::any(visitor, self.1))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_struct(name, fields, Object(visitor, self.1))
    }

    /// An enum is read from what the text holds: a string names a unit variant, an object of
    /// one member any other; serde_json's own reading would take `{"Unit": null}` too.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(EnumForm(visitor, self.1))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

macro_rules! forward_visit {
    ($($method:ident: $ty:ty)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Guard<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    forward_visit! {
        visit_bool: bool visit_i8: i8 visit_i16: i16 visit_i32: i32 visit_i64: i64
        visit_i128: i128 visit_u8: u8 visit_u16: u16 visit_u32: u32 visit_u64: u64
        visit_u128: u128 visit_f32: f32 visit_f64: f64 visit_char: char visit_str: &str
        visit_borrowed_str: &'de str visit_string: String visit_bytes: &[u8]
        visit_borrowed_bytes: &'de [u8] visit_byte_buf: Vec<u8>
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_some(Strict(d, self.trail))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Strict(d, self.trail))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.inner.visit_seq(Elements {
            seq,
            index: 0,
            trail: self.trail,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(Members {
            map,
            count: 0,
            trail: self.trail,
        })
    }
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Object<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        Err(de::Error::invalid_type(Unexpected::Seq, &self))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Members {
            map,
            count: 0,
            trail: self.1,
        })
    }
}

/// Reads what a seed reads through [`Strict`].
struct Seed<'t, S>(S, &'t Trail);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Strict(d, self.1))
    }
}

/// An array's elements, each read through [`Strict`]; an error leaving one marks its index.
struct Elements<'t, A> {
    seq: A,
    index: usize,
    trail: &'t Trail,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Elements<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let index = self.index;
        self.index += 1;
        match self.seq.next_element_seed(Seed(seed, self.trail)) {
            Ok(element) => Ok(element),
            Err(error) => Err(self.trail.marked(error, Step::Element(index))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// An object's members, each value read through [`Strict`]; an error leaving one marks which
/// member (counted by the values asked for: one a member). Keys are read as they are: a key is
/// a string in JSON text, which no lenient reading of serde's can take for an array or a map.
struct Members<'t, A> {
    map: A,
    count: usize,
    trail: &'t Trail,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let count = self.count;
        match self.map.next_key_seed(seed) {
            Ok(key) => Ok(key),
            Err(error) => Err(self.trail.marked(error, Step::Key(count))),
        }
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        let count = self.count;
        self.count += 1;
        match self.map.next_value_seed(Seed(seed, self.trail)) {
            Ok(value) => Ok(value),
            Err(error) => Err(self.trail.marked(error, Step::Member(count))),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// An enum read from a string (a unit variant) or an object of one member (any other).
struct EnumForm<'t, V>(V, &'t Trail);

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumForm<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<V::Value, E> {
        self.0.visit_enum(BorrowedStrDeserializer::new(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<V::Value, E> {
        self.0.visit_enum(StrDeserializer::new(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<V::Value, E> {
        self.0.visit_enum(StringDeserializer::new(v))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Tagged(map, self.1))
    }
}

/// The one member of an object naming a variant: its key the variant, its value the content.
struct Tagged<'t, A>(A, &'t Trail);

impl<'de, 't, A: MapAccess<'de>> EnumAccess<'de> for Tagged<'t, A> {
    type Error = A::Error;
    type Variant = Content<'t, A>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        mut self,
        seed: S,
    ) -> Result<(S::Value, Content<'t, A>), A::Error> {
        match self.0.next_key_seed(seed)? {
            Some(variant) => Ok((variant, Content(self.0, self.1))),
            None => Err(de::Error::invalid_length(0, &"an object of one member")),
        }
    }
}

/// The content of a variant named by an object's member; the object must end after it. An
/// error in the content marks the member, so its path names the variant.
struct Content<'t, A>(A, &'t Trail);

impl<'de, A: MapAccess<'de>> Content<'_, A> {
    fn content<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        match self.0.next_value_seed(seed) {
            Ok(value) => Ok(value),
            Err(error) => Err(self.1.marked(error, Step::Member(0))),
        }
    }

    fn then_end<T>(mut self, value: T) -> Result<T, A::Error> {
        match self.0.next_key::<IgnoredAny>()? {
            None => Ok(value),
            Some(_) => Err(de::Error::invalid_length(2, &"an object of one member")),
        }
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Content<'_, A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        Err(de::Error::invalid_type(Unexpected::Map, &"a string"))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        mut self,
        seed: T,
    ) -> Result<T::Value, A::Error> {
        let value = self.content(Seed(seed, self.1))?;
        self.then_end(value)
    }

    fn tuple_variant<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let value = self.content(Shaped::Tuple(len, visitor, self.1))?;
        self.then_end(value)
    }

    fn struct_variant<V: Visitor<'de>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let value = self.content(Shaped::Struct(fields, visitor, self.1))?;
        self.then_end(value)
    }
}

/// A variant's content read as the tuple or the struct it is.
enum Shaped<'t, V> {
    Tuple(usize, V, &'t Trail),
    Struct(&'static [&'static str], V, &'t Trail),
}

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Shaped<'_, V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        match self {
            Shaped::Tuple(len, visitor, trail) => Strict(d, trail).deserialize_tuple(len, visitor),
            Shaped::Struct(fields, visitor, trail) => {
                Strict(d, trail).deserialize_struct("", fields, visitor)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::read;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Point {
        x: u8,
        tags: Vec<String>,
        note: Option<String>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Kind {
        Plain,
        Tagged(String),
        Pair(u8, bool),
        Shaped { size: u32 },
    }

    #[test]
    fn reads_what_serde_reads_from_the_forms_a_schema_accepts() {
        let point: Point = read(r#"{"x": 1, "tags": ["a"], "note": null}"#).unwrap();
        assert_eq!(point.x, 1);
        let kinds: Vec<Kind> =
            read(r#"["Plain", {"Tagged": "t"}, {"Pair": [1, true]}, {"Shaped": {"size": 3}}]"#)
                .unwrap();
        assert_eq!(
            kinds,
            [
                Kind::Plain,
                Kind::Tagged("t".into()),
                Kind::Pair(1, true),
                Kind::Shaped { size: 3 }
            ]
        );
    }

    #[test]
    fn refuses_the_forms_serde_alone_would_read() {
        assert!(serde_json::from_str::<Point>(r#"[1, [], null]"#).is_ok());
        assert!(read::<Point>(r#"[1, [], null]"#).is_err());
        assert!(serde_json::from_str::<Kind>(r#"{"Plain": null}"#).is_ok());
        assert!(read::<Kind>(r#"{"Plain": null}"#).is_err());
        assert!(read::<Kind>(r#"{"Tagged": "t", "Plain": null}"#).is_err());
        assert!(read::<Kind>(r#"{}"#).is_err());
        assert!(read::<Kind>(r#""Tagged""#).is_err());
        assert!(read::<Point>(r#"{"x": 1, "tags": []} x"#).is_err());
    }
}
