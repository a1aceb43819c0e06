//! JSON Schemas of a tool's DTOs and their validators, compiled once.

use std::borrow::Cow;

use jsonschema::Validator;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::allowlist::CompiledAllowLists;
use super::conform::strict;
use super::tape::{Tape, TapeError, TapeJson, fill_from_serialize, fill_from_text, with_tape};
use super::{AllowList, Issues, SchemaError};

/// The JSON Schema (draft 2020-12) a model reads for the input DTO `T`.
pub fn input_schema_of<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// The JSON Schema (draft 2020-12) of the output DTO `T`, as it serializes.
pub fn output_schema_of<T: JsonSchema + ?Sized>() -> Value {
    SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value()
}

/// A tool's schemas with their compiled validators (formats checked).
pub struct CompiledSchemas {
    pub(crate) input: SchemaCheck,
    pub(crate) output: SchemaCheck,
}

/// One schema and its validator, which checks values written on a [`Tape`], and for a tool's
/// input its allowlists, judged once the schema holds.
pub(crate) struct SchemaCheck {
    schema: Value,
    validator: Validator<TapeJson>,
    allow: CompiledAllowLists,
}

impl CompiledSchemas {
    /// The schemas `input` and `output` of tool `tool`, compiled, with the allowlists `allow`
    /// of its input's fields.
    pub(crate) fn compile(
        tool: &'static str,
        input: Value,
        output: Value,
        allow: &[AllowList],
    ) -> Result<CompiledSchemas, SchemaError> {
        let error = |which, reason: String| SchemaError {
            tool,
            which,
            reason,
        };
        if input.get("type").and_then(Value::as_str) != Some("object") {
            return Err(error(
                "input",
                "must describe a JSON object (a struct with named fields): models send arguments as an object".into(),
            ));
        }
        let allow = CompiledAllowLists::compile(allow, &input).map_err(|reason| {
            error(
                "input",
                format!("has an allowlist that does not fit: {reason}"),
            )
        })?;
        let mut input = SchemaCheck::compile(input)
            .map_err(|e| error("input", format!("does not compile: {e}")))?;
        input.allow = allow;
        Ok(CompiledSchemas {
            input,
            output: SchemaCheck::compile(output)
                .map_err(|e| error("output", format!("does not compile: {e}")))?,
        })
    }

    /// The input schema.
    pub fn input(&self) -> &Value {
        &self.input.schema
    }

    /// The output schema.
    pub fn output(&self) -> &Value {
        &self.output.schema
    }
}

impl SchemaCheck {
    /// `schema` with its validator (formats checked).
    pub(crate) fn compile(
        schema: Value,
    ) -> Result<SchemaCheck, jsonschema::ValidationError<'static>> {
        let validator = jsonschema::options_for::<TapeJson>()
            .should_validate_formats(true)
            .build(&schema)?;
        Ok(SchemaCheck {
            schema,
            validator,
            allow: CompiledAllowLists::default(),
        })
    }

    /// Checks the document on `tape`; on a violation, every issue, named by path.
    /// Step 1 of the contract, for a tool's input and an agent's answer alike: JSON text to a
    /// validated `I`. Empty arguments mean `{}` (some providers send nothing for a tool
    /// without parameters). Arguments the schema refuses are checked once more without the
    /// `null`s they give optional properties (what OpenAI's strict mode sends for a property
    /// left out), and read that way if they hold then.
    ///
    /// The text is validated on a pooled tape, then parsed into `I`; the second parse costs
    /// less than building and dropping a `serde_json::Value`.
    ///
    /// Only the last parse depends on `I`: the rest is [`accepted`](Self::accepted), compiled
    /// once for every type rather than once per tool.
    pub(crate) fn decode<I: DeserializeOwned>(&self, arguments: &str) -> Result<I, Issues> {
        let text = self.accepted(arguments)?;
        read_typed(&text)
    }

    /// Step 1 by the generated validator (see [`conform`](super::conform)): the arguments
    /// read once by the strict reader and `check` asked of the value; anything either refuses
    /// (empty arguments, a `null` serde does not take, a value out of range) is decided by
    /// [`decode`](Self::decode), so what the model reads of a refusal is the schema checker's.
    /// For a type whose `Conforms::exact` holds, and an input without allowlists.
    pub(crate) fn decode_checked<I: DeserializeOwned>(
        &self,
        arguments: &str,
        check: fn(&I) -> bool,
    ) -> Result<I, Issues> {
        match strict::read::<I>(arguments) {
            Ok(input) if check(&input) => Ok(input),
            _ => self.decode(arguments),
        }
    }

    /// Whether step 1 checks the schema alone: no field has an allowlist, which the generated
    /// validator does not know.
    pub(crate) fn is_plain(&self) -> bool {
        self.allow.is_empty()
    }

    /// What step 1 checks before reading the arguments as a type: the text (`{}` for empty
    /// arguments, without the `null`s of optional properties if they were refused with them)
    /// that holds, or every issue of the arguments as sent.
    pub(crate) fn accepted<'t>(&self, arguments: &'t str) -> Result<Cow<'t, str>, Issues> {
        let text = if arguments.trim().is_empty() {
            "{}"
        } else {
            arguments
        };
        let mut refused = None;
        with_tape(|tape| {
            // Positions in a parse error count in the text the model sent, so it is not
            // trimmed.
            fill_from_text(tape, text).map_err(|e| Issues::malformed(&e))?;
            refused = self.check(tape).err();
            Ok::<(), Issues>(())
        })?;
        match refused {
            None => Ok(Cow::Borrowed(text)),
            // A `null` for an optional property (what a model in OpenAI's strict mode writes
            // for a property it leaves out) is read as absent, if the arguments hold then.
            Some(issues) => {
                let Some(without) = super::nulls::without_optional_nulls(&self.schema, text) else {
                    return Err(issues);
                };
                let holds = with_tape(|tape| {
                    fill_from_text(tape, &without).is_ok() && self.check(tape).is_ok()
                });
                if !holds {
                    return Err(issues);
                }
                Ok(Cow::Owned(without))
            }
        }
    }

    pub(crate) fn check(&self, tape: &Tape) -> Result<(), Issues> {
        if !self.validator.is_valid(tape.root()) {
            return Err(Issues::of(&self.validator, &self.schema, tape.root()));
        }
        self.allow.check(tape.root())
    }

    /// Checks a typed value (a test's input, a tool's output, an agent's structured answer),
    /// written on a pooled tape. Only writing it depends on `V`; the tape and the check are
    /// [`check_written`](Self::check_written), compiled once.
    pub(crate) fn check_value<V: Serialize>(&self, value: &V) -> Result<(), Issues> {
        self.check_written(&|tape| fill_from_serialize(tape, value))
            .map_err(|failure| failure.unwrap_or_else(|error| unwritable(value, &error)))
    }

    /// Checks a JSON text already written (a rendered output), read onto a pooled tape: nothing
    /// here depends on the type it was written from.
    pub(crate) fn check_text(&self, text: &str) -> Result<(), Issues> {
        with_tape(|tape| {
            fill_from_text(tape, text).map_err(|e| Issues::malformed(&e))?;
            self.check(tape)
        })
    }

    /// Checks what `write` writes on a pooled tape: `Err(Ok(issues))` if it does not hold,
    /// `Err(Err(error))` if it could not be written as JSON.
    fn check_written(
        &self,
        write: &dyn Fn(&mut Tape) -> Result<(), TapeError>,
    ) -> Result<(), Result<Issues, TapeError>> {
        with_tape(|tape| {
            write(tape).map_err(Err)?;
            self.check(tape).map_err(Ok)
        })
    }
}

/// `text`, which the schema accepted, read as an `I`.
fn read_typed<I: DeserializeOwned>(text: &str) -> Result<I, Issues> {
    // The strict reader refuses nothing the schema accepted; it is used here so that a tool's
    // input type is read by one instantiation on both paths.
    strict::read::<I>(text).map_err(|_| where_refused::<I>(text, true))
}

/// Redeemed arguments (a `wants` tool's, with each reference replaced by its artifact) read as
/// an `I`, through their JSON text: `I` is then read by the same code as arguments without
/// artifacts, rather than by a second copy for `Value`s in every tool. The issues read as a
/// `Value`'s would: without a position in the text.
pub(crate) fn read_redeemed<I: DeserializeOwned>(arguments: &Value) -> Result<I, Issues> {
    let text = arguments.to_string();
    strict::read::<I>(&text).map_err(|_| where_refused::<I>(&text, false))
}

/// Where, and why, serde refuses `text` as an `I` although the schema accepted it (a
/// hand-written schema, a duplicate key, or a serde attribute schemars does not model); the
/// message without its position in `text` unless `positions`.
#[cold]
fn where_refused<I: DeserializeOwned>(text: &str, positions: bool) -> Issues {
    match serde_path_to_error::deserialize::<_, I>(&mut serde_json::Deserializer::from_str(text)) {
        Ok(_) => Issues::one(None, "does not match the input type"),
        Err(error) if positions => Issues::serde(error),
        Err(error) => without_position(error),
    }
}

/// A refusal as reading a `Value` reports it: `serde_json`'s message without ` at line L
/// column C`.
fn without_position(error: serde_path_to_error::Error<serde_json::Error>) -> Issues {
    let path = error.path().to_string();
    let path = (path != ".").then_some(path);
    let error = error.into_inner();
    let message = error.to_string();
    let position = format!(" at line {} column {}", error.line(), error.column());
    let message = match message.strip_suffix(&position) {
        Some(message) if error.line() != 0 => message.to_owned(),
        _ => message,
    };
    Issues::one(path, message)
}

/// Why `value` is not JSON at all (a map with keys that are not strings), and where: the cold
/// path of [`SchemaCheck::check_value`] and of rendering an output (`error` is what the writer
/// said, used if the path cannot be found).
#[cold]
pub(crate) fn unwritable<V: Serialize + ?Sized>(
    value: &V,
    error: &dyn std::fmt::Display,
) -> Issues {
    let mut sink = serde_json::Serializer::new(std::io::sink());
    serde_path_to_error::serialize(value, &mut sink)
        .err()
        .map_or_else(|| Issues::one(None, error.to_string()), Issues::serde)
}

impl std::fmt::Debug for CompiledSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchemas")
            .field("input", &self.input.schema)
            .field("output", &self.output.schema)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Place {
        city: String,
        rows: Vec<u8>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Input {
        limit: u32,
        place: Place,
        kind: Option<Kind>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Kind {
        Plain,
        Tagged(String),
    }

    /// Redeemed arguments read through their text are refused with the issues reading the
    /// `Value` itself gave (what the contract did before).
    #[test]
    fn redeemed_arguments_are_refused_as_a_value_would_be() {
        let refused = [
            json!({"limit": "7", "place": {"city": "x", "rows": []}}),
            json!({"limit": 5_000_000_000u64, "place": {"city": "x", "rows": []}}),
            json!({"limit": 1.5, "place": {"city": "x", "rows": []}}),
            json!({"limit": 1, "place": {"city": "x", "rows": [1, 300]}}),
            json!({"limit": 1, "place": {"city": "x", "rows": "text"}}),
            json!({"limit": 1, "place": {"city": "x"}}),
            json!({"limit": 1, "place": {"city": "x", "rows": [], "other": 1}}),
            json!({"limit": 1, "place": {"city": "x", "rows": []}, "kind": "Other"}),
            json!({"limit": 1, "place": {"city": "x", "rows": []}, "kind": {"Tagged": 1}}),
            json!({"limit": 1, "place": null}),
            json!([1, 2]),
        ];
        for arguments in refused {
            let as_value = serde_path_to_error::deserialize::<_, Input>(arguments.clone())
                .map(|_| ())
                .map_err(Issues::serde);
            let as_text = read_redeemed::<Input>(&arguments).map(|_| ());
            assert!(as_value.is_err(), "{arguments} is refused");
            assert_eq!(as_text, as_value, "{arguments}");
        }
        let read: Input =
            read_redeemed(&json!({"limit": 3, "place": {"city": "x", "rows": [1]}})).unwrap();
        assert_eq!((read.limit, read.place.rows), (3, vec![1]));
    }
}
