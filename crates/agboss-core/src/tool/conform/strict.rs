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

/// `text` read as a `T` the way its schema reads it, or `None` (the reason is the schema
/// checker's to give). Trailing characters after the document are refused, as
/// `serde_json::from_str` refuses them.
pub(crate) fn read<T: de::DeserializeOwned>(text: &str) -> Result<T, serde_json::Error> {
    let mut reader = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(Strict(&mut reader))?;
    reader.end()?;
    Ok(value)
}

/// A deserializer that hands every value it reads to a [`Guard`]ed visitor.
pub(crate) struct Strict<D>(pub(crate) D);

/// A visitor that refuses an array where an object is expected and reads what is nested through
/// [`Strict`] again.
struct Guard<V> {
    inner: V,
    object: bool,
}

impl<V> Guard<V> {
    fn any(inner: V) -> Self {
        Guard {
            inner,
            object: false,
        }
    }
}

macro_rules! forward_deserialize {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Guard::any(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Strict<D> {
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
        self.0.deserialize_unit_struct(name, Guard::any(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Guard::any(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Guard::any(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0
            .deserialize_tuple_struct(name, len, Guard::any(visitor))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        let guard = Guard {
            inner: visitor,
            object: true,
        };
        self.0.deserialize_struct(name, fields, guard)
    }

    /// An enum is read from what the text holds: a string names a unit variant, an object of
    /// one member any other; serde_json's own reading would take `{"Unit": null}` too.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_any(EnumForm(visitor))
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

impl<'de, V: Visitor<'de>> Visitor<'de> for Guard<V> {
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
        self.inner.visit_some(Strict(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.inner.visit_newtype_struct(Strict(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        if self.object {
            return Err(de::Error::invalid_type(Unexpected::Seq, &self));
        }
        self.inner.visit_seq(Elements(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(Members(map))
    }
}

/// Reads what a seed reads through [`Strict`].
struct Seed<S>(S);

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Seed<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(Strict(d))
    }
}

/// An array's elements, each read through [`Strict`].
struct Elements<A>(A);

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Elements<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An object's members, each key and value read through [`Strict`].
struct Members<A>(A);

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Members<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        self.0.next_key_seed(Seed(seed))
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<T::Value, A::Error> {
        self.0.next_value_seed(Seed(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An enum read from a string (a unit variant) or an object of one member (any other).
struct EnumForm<V>(V);

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumForm<V> {
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
        self.0.visit_enum(Tagged(map))
    }
}

/// The one member of an object naming a variant: its key the variant, its value the content.
struct Tagged<A>(A);

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for Tagged<A> {
    type Error = A::Error;
    type Variant = Content<A>;

    fn variant_seed<S: DeserializeSeed<'de>>(
        mut self,
        seed: S,
    ) -> Result<(S::Value, Content<A>), A::Error> {
        match self.0.next_key_seed(Seed(seed))? {
            Some(variant) => Ok((variant, Content(self.0))),
            None => Err(de::Error::invalid_length(0, &"an object of one member")),
        }
    }
}

/// The content of a variant named by an object's member; the object must end after it.
struct Content<A>(A);

impl<'de, A: MapAccess<'de>> Content<A> {
    fn then_end<T>(mut self, value: T) -> Result<T, A::Error> {
        match self.0.next_key::<IgnoredAny>()? {
            None => Ok(value),
            Some(_) => Err(de::Error::invalid_length(2, &"an object of one member")),
        }
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Content<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        Err(de::Error::invalid_type(Unexpected::Map, &"a string"))
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        mut self,
        seed: T,
    ) -> Result<T::Value, A::Error> {
        let value = self.0.next_value_seed(Seed(seed))?;
        self.then_end(value)
    }

    fn tuple_variant<V: Visitor<'de>>(
        mut self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let value = self.0.next_value_seed(Shaped::Tuple(len, visitor))?;
        self.then_end(value)
    }

    fn struct_variant<V: Visitor<'de>>(
        mut self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let value = self.0.next_value_seed(Shaped::Struct(fields, visitor))?;
        self.then_end(value)
    }
}

/// A variant's content read as the tuple or the struct it is.
enum Shaped<V> {
    Tuple(usize, V),
    Struct(&'static [&'static str], V),
}

impl<'de, V: Visitor<'de>> DeserializeSeed<'de> for Shaped<V> {
    type Value = V::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        match self {
            Shaped::Tuple(len, visitor) => Strict(d).deserialize_tuple(len, visitor),
            Shaped::Struct(fields, visitor) => Strict(d).deserialize_struct("", fields, visitor),
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
