//! How a tool is described to a chat model: name, description and input schema, in the form
//! each provider's API accepts.
//!
//! Validation, timeouts and error mapping stay in the call contract
//! ([`Invoker::invoke`](crate::tool::Invoker::invoke)); this is only what the model reads. It is
//! the model's side of a tool: the tool layer below knows nothing of it.

mod gemini;

use serde_json::{Value, json};

use crate::tool::{SchemaError, Tool, ToolDescriptor};

/// The wire format a model provider speaks: how its requests, its answers and the tools it may
/// call are written. One per API family; every OpenAI-compatible server speaks `OpenAi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WireFormat {
    /// OpenAI Chat Completions and every compatible server (OpenRouter, vLLM, Ollama,
    /// llama.cpp): `{"type": "function", "function": {name, description, parameters}}`.
    OpenAi,
    /// Anthropic Messages: `{name, description, input_schema}`.
    Anthropic,
    /// Gemini `generateContent` function declarations: `{name, description, parameters}` in
    /// Gemini's subset of JSON Schema.
    Gemini,
}

/// A tool as a chat model sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolDefinition {
    /// The name the model calls.
    pub name: String,
    /// When to call it.
    pub description: String,
    /// The JSON Schema (draft 2020-12) of its arguments; the root is an object.
    pub input_schema: Value,
}

/// The definition of tool `T` for its agent's chat model.
pub fn tool_definition_of<T: Tool>() -> Result<ToolDefinition, SchemaError> {
    ToolDefinition::of(T::DESCRIPTOR)
}

impl ToolDefinition {
    /// The definition of the tool `descriptor` describes.
    pub fn of(descriptor: &'static ToolDescriptor) -> Result<ToolDefinition, SchemaError> {
        let schemas = descriptor.schemas().map_err(Clone::clone)?;
        Ok(ToolDefinition {
            name: descriptor.name().to_owned(),
            description: descriptor.description().to_owned(),
            input_schema: schemas.input().clone(),
        })
    }

    /// The declaration in `flavor`'s wire format.
    pub fn to_provider(&self, flavor: WireFormat) -> Value {
        match flavor {
            WireFormat::OpenAi => self.to_openai(),
            WireFormat::Anthropic => self.to_anthropic(),
            WireFormat::Gemini => self.to_gemini(),
        }
    }

    /// An OpenAI Chat Completions `tools[]` entry. `$defs` and `$ref` stay: the API resolves
    /// them.
    pub fn to_openai(&self) -> Value {
        json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": plain_object_schema(&self.input_schema),
            }
        })
    }

    /// An Anthropic Messages `tools[]` entry.
    pub fn to_anthropic(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "input_schema": plain_object_schema(&self.input_schema),
        })
    }

    /// A Gemini `functionDeclarations[]` entry: references inlined, `null` unions written
    /// `nullable`, and keywords outside Gemini's schema subset dropped.
    pub fn to_gemini(&self) -> Value {
        json!({
            "name": self.name,
            "description": self.description,
            "parameters": gemini::lower(&self.input_schema),
        })
    }
}

/// The schema without its `$schema` and `title` (noise to a model), with `properties` present
/// even when empty, as OpenAI requires for an object root.
fn plain_object_schema(schema: &Value) -> Value {
    let mut schema = schema.clone();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
        object
            .entry("properties")
            .or_insert_with(|| Value::Object(Default::default()));
    }
    schema
}
