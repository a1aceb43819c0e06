//! What a field's attributes add to its schema, checked on the value read: `range`, `length`,
//! a pattern and a format. Each is asked through a [`Rule`] probe, so a rule on a type it does
//! not apply to makes the value fail here and go to the schema's checker, rather than fail to
//! compile.

use std::sync::OnceLock;

use super::string_holds;
use jsonschema::Validator;

use crate::tool::schema::tape::TapeJson;

/// A field's value, asked for a rule: through `(&&Rule(&value))`, the traits below are found
/// for a type the rule applies to and [`Untyped`] for any other.
pub struct Rule<'a, T>(pub &'a T);

/// A number and its `minimum` and `maximum`.
pub trait Ranged {
    /// Whether the value (if any: a `None` has no number to bound) is within the bounds.
    fn within(&self, min: Option<f64>, max: Option<f64>) -> bool;
}

/// A string (counted in characters, as JSON Schema counts), an array, or an object, and its
/// `minLength`/`maxLength`, `minItems`/`maxItems`.
pub trait Measured {
    /// Whether the value's length (if any) is within the bounds.
    fn measured(&self, min: Option<u64>, max: Option<u64>) -> bool;
}

/// A string, and its `pattern` or `format`.
pub trait Textual {
    /// Whether the string (if any) meets `rule`.
    fn meets(&self, rule: &StringRule) -> bool;
}

fn between<T: PartialOrd>(value: T, min: Option<T>, max: Option<T>) -> bool {
    min.is_none_or(|min| value >= min) && max.is_none_or(|max| value <= max)
}

macro_rules! ranged {
    ($($ty:ty)*) => {$(
        impl Ranged for $ty {
            #[inline]
            fn within(&self, min: Option<f64>, max: Option<f64>) -> bool {
                between(*self as f64, min, max)
            }
        }
    )*};
}

ranged!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64);

impl<T: Ranged> Ranged for Option<T> {
    #[inline]
    fn within(&self, min: Option<f64>, max: Option<f64>) -> bool {
        self.as_ref().is_none_or(|value| value.within(min, max))
    }
}

impl Measured for String {
    #[inline]
    fn measured(&self, min: Option<u64>, max: Option<u64>) -> bool {
        // A string's length in bytes bounds its length in characters from above, and a
        // quarter of it from below: the count is skipped when the bytes decide.
        let bytes = self.len() as u64;
        if min.is_none_or(|min| bytes.div_ceil(4) >= min) && max.is_none_or(|max| bytes <= max) {
            return true;
        }
        between(self.chars().count() as u64, min, max)
    }
}

impl<T> Measured for Vec<T> {
    #[inline]
    fn measured(&self, min: Option<u64>, max: Option<u64>) -> bool {
        between(self.len() as u64, min, max)
    }
}

impl<T: Measured> Measured for Option<T> {
    #[inline]
    fn measured(&self, min: Option<u64>, max: Option<u64>) -> bool {
        self.as_ref().is_none_or(|value| value.measured(min, max))
    }
}

impl Textual for String {
    #[inline]
    fn meets(&self, rule: &StringRule) -> bool {
        rule.holds(self)
    }
}

impl<T: Textual> Textual for Option<T> {
    #[inline]
    fn meets(&self, rule: &StringRule) -> bool {
        self.as_ref().is_none_or(|value| value.meets(rule))
    }
}

impl<T: Ranged> Ranged for &Rule<'_, T> {
    #[inline]
    fn within(&self, min: Option<f64>, max: Option<f64>) -> bool {
        self.0.within(min, max)
    }
}

impl<T: Measured> Measured for &Rule<'_, T> {
    #[inline]
    fn measured(&self, min: Option<u64>, max: Option<u64>) -> bool {
        self.0.measured(min, max)
    }
}

impl<T: Textual> Textual for &Rule<'_, T> {
    #[inline]
    fn meets(&self, rule: &StringRule) -> bool {
        self.0.meets(rule)
    }
}

/// A rule asked of a type it does not apply to: the value fails here, so the schema's checker
/// judges it.
pub trait Untyped {
    /// `false`.
    fn within(&self, _min: Option<f64>, _max: Option<f64>) -> bool {
        false
    }
    /// `false`.
    fn measured(&self, _min: Option<u64>, _max: Option<u64>) -> bool {
        false
    }
    /// `false`.
    fn meets(&self, _rule: &StringRule) -> bool {
        false
    }
}

impl<T> Untyped for Rule<'_, T> {}

/// A `pattern` or a `format` of a string field, compiled on first use by the schema checker's
/// engines.
pub struct StringRule {
    keyword: &'static str,
    value: &'static str,
    compiled: OnceLock<Option<Validator<TapeJson>>>,
}

impl StringRule {
    /// A string matching the regular expression `pattern` somewhere (JSON Schema's
    /// `pattern`).
    pub const fn pattern(pattern: &'static str) -> StringRule {
        StringRule {
            keyword: "pattern",
            value: pattern,
            compiled: OnceLock::new(),
        }
    }

    /// A string of the format `format` (`email`, `uri`).
    pub const fn format(format: &'static str) -> StringRule {
        StringRule {
            keyword: "format",
            value: format,
            compiled: OnceLock::new(),
        }
    }

    /// Whether `text` meets the rule; `false` if the rule does not compile.
    pub fn holds(&self, text: &str) -> bool {
        string_holds(&self.compiled, self.keyword, self.value, text)
    }
}
