//! The validator `#[dto]` generates: a DTO's schema checked while its JSON text is read, in
//! one pass, for the types whose schema the generated code covers whole.
//!
//! A `#[dto]` type implements [`Conforms`]: [`exact`](Conforms::exact) says whether reading it
//! with the strict reader (`strict::read`) and then asking [`conforms`](Conforms::conforms)
//! refuses everything its schema refuses, and `conforms` checks what the schema adds to the type (ranges, lengths,
//! patterns, formats). `#[tool]` hands the contract a [`Checks`] of its input and output, found
//! with the [`Probe`]s below: a type that is not exact (a foreign type, a serde attribute the
//! generated code does not model, a recursive type) has no check, and its values go through the
//! schema's checker as before.
//!
//! A refusal on this path is never reported from here: the arguments go to the schema's checker,
//! which names every issue with its path, so what the model reads does not depend on which path
//! ran.

pub(crate) mod strict;
pub(crate) mod trail;

use std::collections::{BTreeMap, HashMap};
use std::hash::BuildHasher;
use std::marker::PhantomData;
use std::sync::OnceLock;

use serde_json::{Value, json};

use jsonschema::Validator;

use super::tape::{TapeJson, fill_from_serialize, with_tape};

/// How deep [`Conforms::exact`] looks into a type's fields before it gives up: a recursive type
/// is never exact.
pub const DEPTH: u8 = 32;

/// A type whose JSON Schema the generated validator covers; implemented by `#[dto]` and here
/// for the standard types a DTO is built from.
pub trait Conforms {
    /// Whether reading the type with the strict reader and then asking
    /// [`conforms`](Self::conforms) refuses everything its schema refuses. `depth` is how
    /// many levels of fields may still be looked at; at 0 the answer is `false`.
    fn exact(depth: u8) -> bool;

    /// Whether the value meets what its schema adds to its type: ranges, lengths, patterns,
    /// formats, and finite numbers (a NaN is written as `null`). Meaningful where
    /// [`exact`](Self::exact) holds.
    fn conforms(&self) -> bool;
}

/// `Conforms` for leaf types, exact at any depth, a value conforming when `$holds` says so.
macro_rules! leaf {
    ($holds:expr; $($ty:ty)*) => {$(
        impl Conforms for $ty {
            #[inline]
            fn exact(_: u8) -> bool {
                true
            }

            #[inline]
            fn conforms(&self) -> bool {
                $holds(self)
            }
        }
    )*};
}

leaf!(|_| true; bool String i8 i16 i32 i64 isize u8 u16 u32 u64 usize Value);
// A NaN or an infinity is written as `null`, which the schema's `number` refuses.
leaf!(|value: &Self| value.is_finite(); f32 f64);

impl<T: Conforms> Conforms for Option<T> {
    fn exact(depth: u8) -> bool {
        depth > 0 && T::exact(depth - 1)
    }

    #[inline]
    fn conforms(&self) -> bool {
        self.as_ref().is_none_or(T::conforms)
    }
}

impl<T: Conforms> Conforms for Box<T> {
    fn exact(depth: u8) -> bool {
        depth > 0 && T::exact(depth - 1)
    }

    #[inline]
    fn conforms(&self) -> bool {
        T::conforms(self)
    }
}

impl<T: Conforms> Conforms for Vec<T> {
    fn exact(depth: u8) -> bool {
        depth > 0 && T::exact(depth - 1)
    }

    #[inline]
    fn conforms(&self) -> bool {
        self.iter().all(T::conforms)
    }
}

/// A map read from an object keeps the last of two members of one name; the schema's checker
/// would judge both. Models do not send duplicate keys in practice, and `serde_json` itself
/// keeps the last.
impl<T: Conforms, S: BuildHasher> Conforms for HashMap<String, T, S> {
    fn exact(depth: u8) -> bool {
        depth > 0 && T::exact(depth - 1)
    }

    fn conforms(&self) -> bool {
        self.values().all(T::conforms)
    }
}

impl<T: Conforms> Conforms for BTreeMap<String, T> {
    fn exact(depth: u8) -> bool {
        depth > 0 && T::exact(depth - 1)
    }

    fn conforms(&self) -> bool {
        self.values().all(T::conforms)
    }
}

/// `text` read by the strict reader and checked by the generated validator: the value, or
/// `None` where the contract would ask the schema's checker (the type is not exact, or the
/// value is refused). For tests that hold the two paths against each other.
pub fn read_checked<T: serde::de::DeserializeOwned + Conforms>(text: &str) -> Option<T> {
    let value = strict::read::<T>(text).ok()?;
    (T::exact(DEPTH) && value.conforms()).then_some(value)
}

/// The generated validators of one tool's input and output, found by `#[tool]` where their
/// types are known (`Tool::checks`): `None` where the type is not exact, and the schema's
/// checker judges every value.
pub struct Checks<I, O> {
    pub(crate) input: Option<fn(&I) -> bool>,
    pub(crate) output: Option<fn(&O) -> bool>,
}

impl<I, O> Checks<I, O> {
    /// No generated check: every value goes through the schema's checker.
    pub const NONE: Checks<I, O> = Checks {
        input: None,
        output: None,
    };

    /// The checks of a tool's input and output.
    pub fn new(input: Option<fn(&I) -> bool>, output: Option<fn(&O) -> bool>) -> Checks<I, O> {
        Checks { input, output }
    }

    /// Whether the input is checked by the generated validator (for tests of which path a
    /// tool's calls take).
    pub fn covers_input(&self) -> bool {
        self.input.is_some()
    }

    /// Whether the output is checked by the generated validator.
    pub fn covers_output(&self) -> bool {
        self.output.is_some()
    }
}

impl<I, O> Clone for Checks<I, O> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<I, O> Copy for Checks<I, O> {}

/// Asks of a type, where the generated code is expanded, whether it is [`Conforms`]: through
/// `(&&Probe::<T>::NEW)`, [`Known`]'s methods are found for one that is and [`Unknown`]'s for
/// one that is not (method resolution tries `&&Probe` before `&Probe`).
pub struct Probe<T>(PhantomData<fn() -> T>);

impl<T> Probe<T> {
    /// The probe of `T`.
    pub const NEW: Probe<T> = Probe(PhantomData);
}

/// A probed type that is [`Conforms`].
pub trait Known<T> {
    /// `T::exact(depth)`.
    fn exact(&self, depth: u8) -> bool;
    /// `T::conforms`, if `T` is exact.
    fn checker(&self) -> Option<fn(&T) -> bool>;
    /// `value.conforms()`.
    fn holds(&self, value: &T) -> bool;
}

impl<T: Conforms> Known<T> for &Probe<T> {
    #[inline]
    fn exact(&self, depth: u8) -> bool {
        T::exact(depth)
    }

    fn checker(&self) -> Option<fn(&T) -> bool> {
        T::exact(DEPTH).then_some(T::conforms as fn(&T) -> bool)
    }

    #[inline]
    fn holds(&self, value: &T) -> bool {
        value.conforms()
    }
}

/// A probed type that is not [`Conforms`]: never exact.
pub trait Unknown<T> {
    /// `false`.
    fn exact(&self, _depth: u8) -> bool {
        false
    }
    /// `None`.
    fn checker(&self) -> Option<fn(&T) -> bool> {
        None
    }
    /// `true`: the type is not exact, so its values are judged by the schema's checker.
    fn holds(&self, _value: &T) -> bool {
        true
    }
}

impl<T> Unknown<T> for Probe<T> {}

mod rules;

pub use rules::{Measured, Ranged, Rule, StringRule, Textual, Untyped};

/// Compiles the schema `{"type": "string", keyword: value}` once into `cell` and checks `text`
/// against it: a pattern or a format is judged by the schema checker's own engines, so the two
/// paths cannot disagree on a dialect.
fn string_holds(
    cell: &OnceLock<Option<Validator<TapeJson>>>,
    keyword: &str,
    value: &str,
    text: &str,
) -> bool {
    let compiled = cell.get_or_init(|| {
        // Built as the schema's checker builds its validators (`schema::SchemaCheck`).
        jsonschema::options_for::<TapeJson>()
            .should_validate_formats(true)
            .build(&json!({ "type": "string", keyword: value }))
            .ok()
    });
    let Some(validator) = compiled else {
        return false;
    };
    with_tape(|tape| fill_from_serialize(tape, text).is_ok() && validator.is_valid(tape.root()))
}
