//! Lowering JSON Schema to the subset Gemini's function declarations accept.
//!
//! Gemini reads an OpenAPI 3.0 style schema: no `$ref`, `nullable` instead of `null` in a type
//! union, `anyOf` but no `oneOf`/`allOf`, `enum` of strings but no `const`, and a short list of
//! formats. Everything else is dropped rather than sent to be refused. `propertyOrdering` keeps
//! the DTO's field order, which Gemini would otherwise sort by name.

use serde_json::{Map, Value};

/// Keywords Gemini's `Schema` object accepts.
const KEPT: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// How deep a recursive type is unrolled before it is cut to a plain object.
const MAX_REF_DEPTH: usize = 8;

/// `schema` (a root with `$defs`) in Gemini's subset.
pub(super) fn lower(schema: &Value) -> Value {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut lowered = Lowering {
        defs: &defs,
        stack: Vec::new(),
    }
    .node(schema);
    if let Some(root) = lowered.as_object_mut() {
        root.remove("title");
        root.entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
    }
    lowered
}

struct Lowering<'a> {
    defs: &'a Map<String, Value>,
    /// The definitions being inlined, to stop recursion.
    stack: Vec<String>,
}

impl Lowering<'_> {
    fn node(&mut self, schema: &Value) -> Value {
        let Some(object) = schema.as_object() else {
            // `true` (anything) has no Gemini form but an unconstrained schema.
            return Value::Object(Map::new());
        };
        if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
            return self.reference(reference, object);
        }
        let mut out = Map::new();
        for (key, value) in object {
            match key.as_str() {
                "type" => self.types(value, &mut out),
                "properties" => {
                    let properties: Map<String, Value> = value
                        .as_object()
                        .map(|p| {
                            p.iter()
                                .map(|(name, schema)| (name.clone(), self.node(schema)))
                                .collect()
                        })
                        .unwrap_or_default();
                    // Gemini sorts properties by name unless told the order; keep the DTO's.
                    let order: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
                    if order.len() > 1 {
                        out.insert("propertyOrdering".into(), Value::Array(order));
                    }
                    out.insert(key.clone(), Value::Object(properties));
                }
                "items" => {
                    out.insert(key.clone(), self.node(value));
                }
                "anyOf" | "oneOf" => self.alternatives(value, &mut out),
                "allOf" => {
                    // schemars writes `allOf: [{$ref}]` beside a description; merge the parts.
                    for part in value.as_array().into_iter().flatten() {
                        if let Value::Object(part) = self.node(part) {
                            for (k, v) in part {
                                out.entry(k).or_insert(v);
                            }
                        }
                    }
                }
                "const" => {
                    out.insert("enum".into(), Value::Array(vec![value.clone()]));
                    if value.is_string() {
                        out.entry("type").or_insert_with(|| "string".into());
                    }
                }
                "format" => {
                    if let Some(format) = value.as_str()
                        && supported_format(object.get("type"), format)
                    {
                        out.insert(key.clone(), value.clone());
                    }
                }
                "examples" => {
                    if let Some(first) = value.as_array().and_then(|a| a.first()) {
                        out.entry("example").or_insert_with(|| first.clone());
                    }
                }
                "enum" => {
                    // Gemini's enums are lists of strings.
                    let values = value.as_array().cloned().unwrap_or_default();
                    let nullable = values.iter().any(Value::is_null);
                    let strings: Vec<Value> =
                        values.into_iter().filter(|v| v.is_string()).collect();
                    if !strings.is_empty() {
                        out.insert("enum".into(), Value::Array(strings));
                        if nullable {
                            out.insert("nullable".into(), true.into());
                        }
                    }
                }
                k if KEPT.contains(&k) => {
                    out.insert(key.clone(), value.clone());
                }
                _ => {}
            }
        }
        Value::Object(out)
    }

    fn reference(&mut self, reference: &str, siblings: &Map<String, Value>) -> Value {
        let name = reference.rsplit('/').next().unwrap_or(reference).to_owned();
        let target = self.defs.get(&name);
        let mut inlined = match target {
            Some(target) if !self.stack.contains(&name) && self.stack.len() < MAX_REF_DEPTH => {
                self.stack.push(name);
                let node = self.node(target);
                self.stack.pop();
                node
            }
            // A recursive type (a tree of comments) or a dangling reference: cut it to an
            // object Gemini accepts; validation still checks the full schema.
            _ => serde_json::json!({"type": "object"}),
        };
        let rest: Map<String, Value> = siblings
            .iter()
            .filter(|(k, _)| k.as_str() != "$ref")
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let (Value::Object(inlined), Value::Object(rest)) =
            (&mut inlined, self.node(&Value::Object(rest)))
        {
            for (k, v) in rest {
                inlined.insert(k, v);
            }
        }
        inlined
    }

    /// `"type": ["string", "null"]` becomes `"type": "string", "nullable": true`; several
    /// non-null types become an `anyOf`.
    fn types(&mut self, value: &Value, out: &mut Map<String, Value>) {
        let Some(types) = value.as_array() else {
            out.insert("type".into(), value.clone());
            return;
        };
        let non_null: Vec<&Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .collect();
        if non_null.len() < types.len() {
            out.insert("nullable".into(), true.into());
        }
        match non_null.as_slice() {
            [] => {}
            [one] => {
                out.insert("type".into(), (*one).clone());
            }
            many => {
                let alternatives = many
                    .iter()
                    .map(|t| serde_json::json!({ "type": t }))
                    .collect();
                out.insert("anyOf".into(), Value::Array(alternatives));
            }
        }
    }

    /// `anyOf`/`oneOf`: lowered alternatives; a `{"type": "null"}` alternative becomes
    /// `nullable`, and a single remaining alternative is merged in place.
    fn alternatives(&mut self, value: &Value, out: &mut Map<String, Value>) {
        let mut alternatives = Vec::new();
        for alternative in value.as_array().into_iter().flatten() {
            if alternative.get("type").and_then(Value::as_str) == Some("null") {
                out.insert("nullable".into(), true.into());
            } else {
                alternatives.push(self.node(alternative));
            }
        }
        if alternatives.len() == 1 {
            if let Some(Value::Object(only)) = alternatives.pop() {
                for (k, v) in only {
                    out.entry(k).or_insert(v);
                }
            }
        } else if !alternatives.is_empty() {
            out.insert("anyOf".into(), Value::Array(alternatives));
        }
    }
}

/// Gemini's formats: `int32`/`int64` for integers, `float`/`double` for numbers, `enum` and
/// `date-time` for strings.
fn supported_format(ty: Option<&Value>, format: &str) -> bool {
    let ty = ty.and_then(|t| match t {
        Value::String(s) => Some(s.as_str()),
        Value::Array(all) => all.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    });
    matches!(
        (ty, format),
        (Some("integer"), "int32" | "int64")
            | (Some("number"), "float" | "double")
            | (Some("string"), "enum" | "date-time")
    )
}
