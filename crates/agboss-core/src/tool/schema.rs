//! JSON Schemas of a tool's DTOs and their validators, compiled once.

use jsonschema::Validator;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::allowlist::CompiledAllowLists;
use super::tape::{Tape, TapeJson, fill_from_serialize, fill_from_text, with_tape};
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
    pub(crate) fn decode<I: DeserializeOwned>(&self, arguments: &str) -> Result<I, Issues> {
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
        let stripped;
        let text = match refused {
            None => text,
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
                stripped = without;
                stripped.as_str()
            }
        };
        serde_json::from_str::<I>(text).map_err(|_| {
            // The schema accepted what serde refuses (a hand-written schema, a duplicate key,
            // or a serde attribute schemars does not model); find where, for the message.
            serde_path_to_error::deserialize::<_, I>(&mut serde_json::Deserializer::from_str(text))
                .err()
                .map_or_else(
                    || Issues::one(None, "does not match the input type"),
                    Issues::serde,
                )
        })
    }

    pub(crate) fn check(&self, tape: &Tape) -> Result<(), Issues> {
        if !self.validator.is_valid(tape.root()) {
            return Err(Issues::of(&self.validator, &self.schema, tape.root()));
        }
        self.allow.check(tape.root())
    }

    /// Checks a typed value (a test's input, a tool's output, an agent's structured answer),
    /// written on a pooled tape.
    pub(crate) fn check_value<V: Serialize>(&self, value: &V) -> Result<(), Issues> {
        with_tape(|tape| {
            if let Err(error) = fill_from_serialize(tape, value) {
                // Not JSON at all (a map with keys that are not strings): find where.
                let mut sink = serde_json::Serializer::new(std::io::sink());
                return Err(serde_path_to_error::serialize(value, &mut sink)
                    .err()
                    .map_or_else(|| Issues::one(None, error.to_string()), Issues::serde));
            }
            self.check(tape)
        })
    }
}

impl std::fmt::Debug for CompiledSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchemas")
            .field("input", &self.input.schema)
            .field("output", &self.output.schema)
            .finish_non_exhaustive()
    }
}
