//! JSON Schemas of a tool's DTOs and their validators, compiled once.

use jsonschema::Validator;

use super::tape::TapeJson;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::ToolDescriptor;

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

/// The input schema of tool `T` (what `#[tool]` registers).
#[doc(hidden)]
pub fn tool_input_schema<T: super::Tool>() -> Value {
    input_schema_of::<T::Input>()
}

/// The output schema of tool `T` (what `#[tool]` registers).
#[doc(hidden)]
pub fn tool_output_schema<T: super::Tool>() -> Value {
    output_schema_of::<T::Output>()
}

/// A tool's schema that is not a usable JSON Schema (a hand-written `JsonSchema` impl gone
/// wrong), or an input schema whose root is not an object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("[tool.schema-invalid] tool `{tool}`: the {which} schema {reason}")]
pub struct SchemaError {
    /// The tool.
    pub tool: &'static str,
    /// `"input"` or `"output"`.
    pub which: &'static str,
    /// What is wrong with it.
    pub reason: String,
}

/// A tool's schemas with their compiled validators (formats checked).
pub struct CompiledSchemas {
    pub(crate) input: Value,
    pub(crate) output: Value,
    pub(crate) input_validator: Validator<TapeJson>,
    pub(crate) output_validator: Validator<TapeJson>,
}

impl CompiledSchemas {
    pub(crate) fn compile(tool: &ToolDescriptor) -> Result<CompiledSchemas, SchemaError> {
        let input = tool.input_schema();
        let output = tool.output_schema();
        let error = |which, reason: String| SchemaError {
            tool: tool.name(),
            which,
            reason,
        };
        if input.get("type").and_then(Value::as_str) != Some("object") {
            return Err(error(
                "input",
                "must describe a JSON object (a struct with named fields): models send arguments as an object".into(),
            ));
        }
        let compile = |schema: &Value| {
            jsonschema::options_for::<TapeJson>()
                .should_validate_formats(true)
                .build(schema)
        };
        let input_validator =
            compile(&input).map_err(|e| error("input", format!("does not compile: {e}")))?;
        let output_validator =
            compile(&output).map_err(|e| error("output", format!("does not compile: {e}")))?;
        Ok(CompiledSchemas {
            input,
            output,
            input_validator,
            output_validator,
        })
    }

    /// The input schema.
    pub fn input(&self) -> &Value {
        &self.input
    }

    /// The output schema.
    pub fn output(&self) -> &Value {
        &self.output
    }
}

impl std::fmt::Debug for CompiledSchemas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledSchemas")
            .field("input", &self.input)
            .field("output", &self.output)
            .finish_non_exhaustive()
    }
}
