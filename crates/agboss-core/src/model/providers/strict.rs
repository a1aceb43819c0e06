//! Tool schemas lowered to the subset of JSON Schema that OpenAI's strict mode (structured
//! outputs for function calling) accepts.
//!
//! Strict mode wants every object closed (`additionalProperties: false`) with every property
//! listed in `required`; a property that may be left out becomes one that may be `null` (the
//! argument check then reads such a `null` as absent, see `tool::nulls`). Keywords outside
//! the documented subset are dropped: `minLength`, `maxLength`, `default`, `examples`,
//! `uniqueItems`, formats other than the nine it names, and the rest. agboss still validates
//! every call against the tool's own schema, so what is dropped here is enforced on arrival.
//!
//! Some schemas have no strict form: maps with arbitrary keys (`additionalProperties` a schema
//! or `true`, `patternProperties`), free-form values (`{}`, an object without `properties`),
//! tuples, `allOf` of several schemas, `not`, `if`/`then`/`else`, and schemas beyond the
//! API's limits. Those give a [`NotStrict`], and the tool goes out without `strict`.

use std::fmt;

use serde_json::{Map, Value, json};

/// Keywords kept, each with its value lowered where it holds schemas.
const KEPT: &[&str] = &[
    "type",
    "description",
    "title",
    "enum",
    "const",
    "$ref",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// Keywords that hold schemas, lowered in turn.
const STRUCTURAL: &[&str] = &[
    "properties",
    "required",
    "additionalProperties",
    "items",
    "anyOf",
    "oneOf",
    "allOf",
];

/// Keywords that leave no strict form: what they allow cannot be written in the subset.
const REFUSED: &[&str] = &[
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "unevaluatedItems",
    "prefixItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependentRequired",
    "$dynamicRef",
];

/// The string formats strict mode takes; any other `format` is dropped.
const FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Object nesting the API accepts.
const MAX_DEPTH: usize = 10;
/// Properties in all the API accepts.
const MAX_PROPERTIES: usize = 5_000;
/// Enum values in all the API accepts.
const MAX_ENUM_VALUES: usize = 1_000;

/// Why a schema has no strict form, and where in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NotStrict {
    /// A JSON pointer into the schema.
    pub(crate) at: String,
    /// What stands in the way.
    pub(crate) why: String,
}

impl fmt::Display for NotStrict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.at.is_empty() { "/" } else { &self.at };
        write!(f, "{} (at {at})", self.why)
    }
}

/// `schema`, the parameters of a tool (an object at its root), in the form strict mode
/// accepts; why not, when it has none.
pub(crate) fn strict_schema(schema: &Value) -> Result<Value, NotStrict> {
    let mut lowering = Lowering {
        root: schema,
        inlining: Vec::new(),
        properties: 0,
        enum_values: 0,
    };
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(lowering.refuse("", "the root is not an object"));
    }
    let mut out = lowering.lower(schema, "", 0)?;
    for defs in ["$defs", "definitions"] {
        let Some(Value::Object(entries)) = schema.get(defs) else {
            continue;
        };
        let mut lowered = Map::new();
        for (name, def) in entries {
            let at = format!("/{defs}/{name}");
            lowered.insert(name.clone(), lowering.lower(def, &at, 1)?);
        }
        out[defs] = Value::Object(lowered);
    }
    Ok(out)
}

struct Lowering<'a> {
    root: &'a Value,
    /// The references inlined on the way here: one met again stays a reference.
    inlining: Vec<String>,
    properties: usize,
    enum_values: usize,
}

impl Lowering<'_> {
    fn refuse(&self, at: &str, why: impl Into<String>) -> NotStrict {
        NotStrict {
            at: at.to_owned(),
            why: why.into(),
        }
    }

    /// One schema, `depth` objects down.
    fn lower(&mut self, schema: &Value, at: &str, depth: usize) -> Result<Value, NotStrict> {
        let Some(object) = schema.as_object() else {
            return Err(self.refuse(at, "a boolean schema allows any value"));
        };
        if let Some(keyword) = REFUSED.iter().find(|k| object.contains_key(**k)) {
            return Err(self.refuse(at, format!("`{keyword}` has no strict form")));
        }
        if let Some(reference) = reference_with_siblings(object) {
            if self.inlining.iter().any(|r| r == reference) {
                return Ok(json!({"$ref": reference}));
            }
            let mut merged = self.definition(reference, at)?.clone();
            merged.extend(object.iter().filter(|(k, _)| *k != "$ref").map(clone));
            self.inlining.push(reference.to_owned());
            let lowered = self.lower(&Value::Object(merged), at, depth);
            self.inlining.pop();
            return lowered;
        }
        if let Some(Value::Array(all)) = object.get("allOf") {
            let [only] = all.as_slice() else {
                return Err(self.refuse(at, "`allOf` of several schemas has no strict form"));
            };
            let mut merged = only.as_object().cloned().unwrap_or_default();
            merged.extend(object.iter().filter(|(k, _)| *k != "allOf").map(clone));
            return self.lower(&Value::Object(merged), at, depth);
        }
        let mut out = Map::new();
        for (key, value) in object {
            match key.as_str() {
                "format" if !value.as_str().is_some_and(|f| FORMATS.contains(&f)) => {}
                "enum" => {
                    self.enum_values += value.as_array().map_or(0, Vec::len);
                    out.insert(key.clone(), value.clone());
                }
                key if KEPT.contains(&key) => {
                    out.insert(key.to_owned(), value.clone());
                }
                "anyOf" | "oneOf" => {
                    let branches = self.branches(value, &format!("{at}/{key}"), depth)?;
                    if out.insert("anyOf".into(), branches).is_some() {
                        return Err(self.refuse(at, "both `anyOf` and `oneOf`"));
                    }
                }
                "items" => {
                    let items = self.lower(value, &format!("{at}/items"), depth)?;
                    out.insert(key.clone(), items);
                }
                _ => {}
            }
        }
        let types = type_names(object);
        if types.contains(&"object") || object.contains_key("properties") {
            self.close(object, &mut out, at, depth + 1)?;
        }
        if types.contains(&"array") && !object.contains_key("items") {
            return Err(self.refuse(at, "an array without `items` holds any values"));
        }
        let typed = !types.is_empty()
            || ["anyOf", "oneOf", "$ref", "enum", "const"]
                .iter()
                .any(|k| object.contains_key(*k));
        if !typed {
            return Err(self.refuse(at, "a schema without a type allows any value"));
        }
        if self.enum_values > MAX_ENUM_VALUES {
            return Err(self.refuse(at, "more enum values than strict mode takes"));
        }
        Ok(Value::Object(out))
    }

    /// An object's properties, each required (nullable when it was optional), and no others.
    fn close(
        &mut self,
        object: &Map<String, Value>,
        out: &mut Map<String, Value>,
        at: &str,
        depth: usize,
    ) -> Result<(), NotStrict> {
        if !matches!(
            object.get("additionalProperties"),
            None | Some(Value::Bool(false))
        ) {
            return Err(self.refuse(at, "a map with arbitrary keys has no strict form"));
        }
        let Some(Value::Object(properties)) = object.get("properties") else {
            if at.is_empty() || object.get("additionalProperties") == Some(&json!(false)) {
                out.insert("properties".into(), json!({}));
                out.insert("required".into(), json!([]));
                out.insert("additionalProperties".into(), json!(false));
                return Ok(());
            }
            return Err(self.refuse(at, "an object without `properties` allows any keys"));
        };
        if depth > MAX_DEPTH {
            return Err(self.refuse(at, "objects nested deeper than strict mode takes"));
        }
        self.properties += properties.len();
        if self.properties > MAX_PROPERTIES {
            return Err(self.refuse(at, "more properties than strict mode takes"));
        }
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut lowered = Map::new();
        for (name, property) in properties {
            let schema = self.lower(property, &format!("{at}/properties/{name}"), depth)?;
            let schema = if required.contains(&name.as_str()) {
                schema
            } else {
                nullable(schema)
            };
            lowered.insert(name.clone(), schema);
        }
        let names: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
        out.insert("properties".into(), Value::Object(lowered));
        out.insert("required".into(), Value::Array(names));
        out.insert("additionalProperties".into(), json!(false));
        Ok(())
    }

    fn branches(&mut self, value: &Value, at: &str, depth: usize) -> Result<Value, NotStrict> {
        let Some(branches) = value.as_array() else {
            return Err(self.refuse(at, "not a list of schemas"));
        };
        let lowered = branches
            .iter()
            .enumerate()
            .map(|(i, branch)| self.lower(branch, &format!("{at}/{i}"), depth))
            .collect::<Result<_, _>>()?;
        Ok(Value::Array(lowered))
    }

    /// The definition `reference` names, in this schema.
    fn definition(&self, reference: &str, at: &str) -> Result<&Map<String, Value>, NotStrict> {
        reference
            .strip_prefix('#')
            .and_then(|pointer| self.root.pointer(pointer))
            .and_then(Value::as_object)
            .ok_or_else(|| self.refuse(at, format!("`{reference}` is not a local definition")))
    }
}

/// The reference of a `$ref` with keywords beside it that the lowering keeps (a
/// `description`, say): strict mode refuses those, so the definition is inlined there.
fn reference_with_siblings(object: &Map<String, Value>) -> Option<&str> {
    let reference = object.get("$ref")?.as_str()?;
    let kept = |key: &String| {
        key != "$ref" && (KEPT.contains(&key.as_str()) || STRUCTURAL.contains(&key.as_str()))
    };
    object.keys().any(kept).then_some(reference)
}

fn clone((key, value): (&String, &Value)) -> (String, Value) {
    (key.clone(), value.clone())
}

/// The names `type` gives: one, a list, or none.
fn type_names(object: &Map<String, Value>) -> Vec<&str> {
    match object.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// `schema`, which `null` satisfies too.
fn nullable(mut schema: Value) -> Value {
    let object = schema
        .as_object_mut()
        .expect("a lowered schema is an object");
    let restricted = object.contains_key("enum") || object.contains_key("const");
    match object.get_mut("type") {
        Some(Value::String(one)) if !restricted => {
            if one != "null" {
                let one = std::mem::take(one);
                object["type"] = json!([one, "null"]);
            }
            return schema;
        }
        Some(Value::Array(many)) if !restricted => {
            if !many.contains(&json!("null")) {
                many.push(json!("null"));
            }
            return schema;
        }
        _ => {}
    }
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        if !branches.iter().any(accepts_null) {
            branches.push(json!({"type": "null"}));
        }
        return schema;
    }
    if accepts_null(&schema) {
        return schema;
    }
    json!({"anyOf": [schema, {"type": "null"}]})
}

/// Whether `schema` says outright that `null` is valid: by its `type`, `enum` or `const`.
fn accepts_null(schema: &Value) -> bool {
    let allows = |key: &str, null: &Value| match schema.get(key) {
        None => None,
        Some(Value::Array(values)) if key != "const" => Some(values.contains(null)),
        Some(value) => Some(value == null),
    };
    let said = [
        allows("type", &json!("null")),
        allows("enum", &Value::Null),
        allows("const", &Value::Null),
    ];
    said.iter().any(Option::is_some) && said.iter().all(|s| s.unwrap_or(true))
}

#[cfg(test)]
#[path = "strict_tests.rs"]
mod tests;
