//! [`Wanted`]: the field of a tool's input that a `wants` argument names, holding the data of
//! the artifact the model referred to.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tool::ToolError;

/// The key under which the call contract hands a redeemed artifact to a [`Wanted`] field (an
/// object the model cannot send: the schema of the argument is a string).
pub(crate) const REDEEMED_KEY: &str = "$agboss_artifact";

/// A field of a tool's input that a `#[tool(wants(field = "kind"))]` names: to the model a
/// string (the `art_...` reference it read), to the handler the artifact's data read as `T`.
///
/// Before `run`, the call contract redeems the reference in the execution's own artifacts,
/// compares its kind with the wanted one exactly, and reads its data (the JSON text of the
/// result that made it) as `T`: a reference that fails any of these is refused, and `run` is
/// not called. So in `run`, [`data`](Self::data) always has the data. Elsewhere (a `check_in`
/// predicate, `check_in_evidence`, a typed input built by hand), the field holds the reference
/// only, and [`data`](Self::data) says so as a [`ToolError`]. `Option<Wanted<T>>` makes the
/// argument optional: a call without it runs with `None`.
///
/// ```
/// use agboss_core::tool::Wanted;
///
/// let wanted: Wanted<Vec<u32>> = serde_json::from_str("\"art_1\"").unwrap();
/// assert_eq!(wanted.reference(), "art_1");
/// assert!(wanted.data().is_err());
/// ```
pub struct Wanted<T> {
    reference: String,
    redeemed: Option<Redeemed<T>>,
}

struct Redeemed<T> {
    kind: String,
    size: u64,
    data: T,
}

impl<T> Wanted<T> {
    /// A reference not redeemed (what a typed input built by hand holds).
    pub fn reference_only(reference: impl Into<String>) -> Wanted<T> {
        Wanted {
            reference: reference.into(),
            redeemed: None,
        }
    }

    /// A reference redeemed by hand: what a test hands a handler's `run` (`test_tool(..).run`),
    /// as the call contract would have.
    pub fn redeemed(
        reference: impl Into<String>,
        kind: impl Into<String>,
        size: u64,
        data: T,
    ) -> Wanted<T> {
        Wanted {
            reference: reference.into(),
            redeemed: Some(Redeemed {
                kind: kind.into(),
                size,
                data,
            }),
        }
    }

    /// The reference the model passed.
    pub fn reference(&self) -> &str {
        &self.reference
    }

    /// The artifact's kind (`None` before it was redeemed).
    pub fn kind(&self) -> Option<&str> {
        self.redeemed.as_ref().map(|r| r.kind.as_str())
    }

    /// The size of the artifact's data in bytes (`None` before it was redeemed).
    pub fn size(&self) -> Option<u64> {
        self.redeemed.as_ref().map(|r| r.size)
    }

    /// The data; in `run` always there (see the type's documentation).
    pub fn data(&self) -> Result<&T, ToolError> {
        match &self.redeemed {
            Some(redeemed) => Ok(&redeemed.data),
            None => Err(self.not_redeemed()),
        }
    }

    /// The data, taken out.
    pub fn into_data(self) -> Result<T, ToolError> {
        match self.redeemed {
            Some(redeemed) => Ok(redeemed.data),
            None => Err(self.not_redeemed_owned()),
        }
    }

    fn not_redeemed(&self) -> ToolError {
        ToolError::new(format!(
            "artifact `{}` was not redeemed: only a call the runtime makes redeems its `wants` arguments",
            self.reference
        ))
    }

    fn not_redeemed_owned(self) -> ToolError {
        self.not_redeemed()
    }
}

impl<T> fmt::Debug for Wanted<T> {
    /// The reference, kind and size; never the data.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Wanted")
            .field("reference", &self.reference)
            .field("kind", &self.kind())
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}

/// Serialized as its reference: the form the input schema describes.
impl<T> Serialize for Wanted<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.reference)
    }
}

/// From a string (a reference, not redeemed), or from the object the call contract writes in
/// its place once redeemed.
impl<'de, T: DeserializeOwned> Deserialize<'de> for Wanted<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(WantedVisitor(PhantomData))
    }
}

struct WantedVisitor<T>(PhantomData<fn() -> T>);

impl<'de, T: DeserializeOwned> Visitor<'de> for WantedVisitor<T> {
    type Value = Wanted<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an artifact reference (`art_...`)")
    }

    fn visit_str<E: de::Error>(self, reference: &str) -> Result<Wanted<T>, E> {
        Ok(Wanted::reference_only(reference))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Wanted<T>, A::Error> {
        let (mut reference, mut kind, mut size, mut data) = (None, None, None, None);
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            match key.as_ref() {
                REDEEMED_KEY => reference = Some(map.next_value::<String>()?),
                "kind" => kind = Some(map.next_value::<String>()?),
                "size" => size = Some(map.next_value::<u64>()?),
                "data" => data = Some(map.next_value::<T>()?),
                other => return Err(de::Error::unknown_field(other, &["data"])),
            }
        }
        match (reference, kind, size, data) {
            (Some(reference), Some(kind), Some(size), Some(data)) => Ok(Wanted {
                reference,
                redeemed: Some(Redeemed { kind, size, data }),
            }),
            _ => Err(de::Error::custom(
                "an artifact reference is a string (`art_...`)",
            )),
        }
    }
}

/// A string, to the model.
impl<T> schemars::JsonSchema for Wanted<T> {
    fn schema_name() -> Cow<'static, str> {
        "ArtifactReference".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "the reference (`art_...`) of an artifact a tool made earlier in this run",
        })
    }
}

/// The types a `wants` argument may have: [`Wanted<T>`] and `Option<Wanted<T>>`. `#[tool]`
/// checks it when compiling.
#[diagnostic::on_unimplemented(
    message = "a `wants` argument must be a field of type `Wanted<T>` (or `Option<Wanted<T>>`), not `{Self}`",
    label = "this field is named by `wants`",
    note = "to the model a `Wanted<T>` is a string, the artifact's reference; the handler reads the artifact's data as `T`"
)]
pub trait WantsField {}

impl<T> WantsField for Wanted<T> {}
impl<T> WantsField for Option<Wanted<T>> {}

/// Compiles only when `field` may be a `wants` argument (what `#[tool]` generates).
#[doc(hidden)]
pub const fn wants_field<F: WantsField>(_field: &F) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redeemed_object_gives_the_data_and_a_string_only_the_reference() {
        let redeemed = serde_json::json!({
            REDEEMED_KEY: "art_1", "kind": "dataset/rows", "size": 7, "data": [1, 2]
        });
        let wanted: Wanted<Vec<u8>> = serde_json::from_value(redeemed).unwrap();
        assert_eq!(wanted.data().unwrap(), &vec![1, 2]);
        assert_eq!(
            (wanted.kind(), wanted.size()),
            (Some("dataset/rows"), Some(7))
        );
        assert_eq!(serde_json::to_string(&wanted).unwrap(), "\"art_1\"");
        let bare: Wanted<Vec<u8>> = serde_json::from_str("\"art_2\"").unwrap();
        assert_eq!(
            bare.into_data().unwrap_err().to_string(),
            "artifact `art_2` was not redeemed: only a call the runtime makes redeems its `wants` arguments"
        );
        let wrong = serde_json::json!({
            REDEEMED_KEY: "art_1", "kind": "k", "size": 1, "data": "text"
        });
        assert!(serde_json::from_value::<Wanted<Vec<u8>>>(wrong).is_err());
    }
}
