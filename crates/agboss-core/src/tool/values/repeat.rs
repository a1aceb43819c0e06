//! How a tool's calls are recognized as repeats ([`RepeatedWhen`]) and what a finished call is
//! compared by ([`CallDigest`], journaled with its result); the `notes` rule and the run's
//! [`Repeats`](crate::tool::Repeats) are `rules/repeat.rs`.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use xxhash_rust::xxh3::{xxh3_64, xxh3_64_with_seed};

/// When a call of a tool counts as a repetition: `#[tool(.., repeated_when = arguments)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RepeatedWhen {
    /// The same arguments and the same result as an earlier call (the default): the model got
    /// nowhere by calling again.
    #[default]
    ArgumentsAndResult,
    /// The same arguments, whatever the result: for a tool that stamps each answer (a version,
    /// a time, a cursor), whose results never match.
    Arguments,
    /// Never: no digest is made and no note is given.
    Never,
}

impl RepeatedWhen {
    /// Its name as `repeated_when = ..` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            RepeatedWhen::ArgumentsAndResult => "arguments_and_result",
            RepeatedWhen::Arguments => "arguments",
            RepeatedWhen::Never => "never",
        }
    }

    /// The digest of a call of `tool` with `arguments` that gave the model `result`, under this
    /// rule: `None` for [`Never`](Self::Never); no result digest for
    /// [`Arguments`](Self::Arguments).
    pub fn digest(self, tool: &str, arguments: &str, result: &str) -> Option<CallDigest> {
        if self == RepeatedWhen::Never {
            return None;
        }
        // The name, a byte no UTF-8 text holds, and the arguments without JSON whitespace,
        // hashed in one pass; the result hashed with the arguments' digest as its seed.
        let mut text = Vec::with_capacity(tool.len() + 1 + arguments.len());
        text.extend_from_slice(tool.as_bytes());
        text.push(0xff);
        push_json(&mut text, arguments.as_bytes());
        let arguments = xxh3_64(&text);
        let result = (self == RepeatedWhen::ArgumentsAndResult)
            .then(|| Digest(xxh3_64_with_seed(result.as_bytes(), arguments)));
        Some(CallDigest {
            arguments: Digest(arguments),
            result,
        })
    }

    /// The sentence appended to the result of a repeated call of `tool` (after a blank line).
    pub fn note(self, tool: &str) -> String {
        match self {
            RepeatedWhen::Arguments => format!(
                "Note: you called `{tool}` with these same arguments earlier in this run; calling it again will not get you further."
            ),
            _ => format!(
                "Note: you called `{tool}` with these same arguments earlier in this run and got this same result; calling it again will not change it."
            ),
        }
    }
}

impl fmt::Display for RepeatedWhen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A 64-bit digest, journaled as 16 hexadecimal digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Digest(pub u64);

impl Serialize for Digest {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&format!("{:016x}", self.0))
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        u64::from_str_radix(&text, 16)
            .map(Digest)
            .map_err(|e| serde::de::Error::custom(format!("digest `{text}`: {e}")))
    }
}

/// What a finished call is compared by, journaled with its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallDigest {
    /// The tool's name with the argument bytes.
    pub arguments: Digest,
    /// That with the result the model read; absent for `repeated_when = arguments`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Digest>,
}

/// Appends JSON `text` to `out` without the whitespace outside its strings: `{"a": 1}` and
/// `{"a":1}` hash alike.
fn push_json(out: &mut Vec<u8>, text: &[u8]) {
    let (mut in_string, mut escaped) = (false, false);
    for &byte in text {
        if in_string {
            if escaped {
                escaped = false;
            } else if byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                in_string = false;
            }
        } else if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            continue;
        } else if byte == b'"' {
            in_string = true;
        }
        out.push(byte);
    }
}
