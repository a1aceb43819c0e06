//! `null` for a property the schema lets a caller leave out, read as left out.
//!
//! OpenAI's strict mode has no optional properties: a tool's schema goes out with every
//! property required and the optional ones nullable, so the model writes `"limit": null` where
//! it means no limit. The tool's own schema may not take `null` there (`"type": "integer"`,
//! not required). When arguments fail the check, each such `null` is taken out and the check
//! made again; only if it passes then are the arguments read without them.
//!
//! That is safe for any caller, strict or not: only arguments the schema refused change, and
//! only by dropping properties the schema says may be absent, which serde reads as their
//! default (`None` for an `Option`). A `null` where the schema names `null` is kept.

use serde_json::Value;

/// `arguments` (JSON text) without the `null`s `schema` refuses for optional properties;
/// `None` when there are none, or when the text is not JSON.
pub(crate) fn without_optional_nulls(schema: &Value, arguments: &str) -> Option<String> {
    let mut value: Value = serde_json::from_str(arguments).ok()?;
    let mut walk = Walk {
        root: schema,
        dropped: false,
    };
    walk.value(&mut value, schema, 0);
    walk.dropped
        .then(|| serde_json::to_string(&value).ok())
        .flatten()
}

/// References followed at most, one inside another: a recursive schema ends there.
const MAX_DEPTH: usize = 64;

struct Walk<'a> {
    root: &'a Value,
    dropped: bool,
}

impl<'a> Walk<'a> {
    /// Drops the optional `null`s of `value`, which `schema` describes.
    fn value(&mut self, value: &mut Value, schema: &'a Value, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let target = schema.get("$ref").and_then(Value::as_str);
        if let Some(target) = target.and_then(|reference| self.resolve(reference)) {
            self.value(value, target, depth + 1);
        }
        for branches in ["anyOf", "oneOf", "allOf"] {
            for branch in schema
                .get(branches)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.value(value, branch, depth + 1);
            }
        }
        match value {
            Value::Object(object) => {
                let Some(Value::Object(properties)) = schema.get("properties") else {
                    return;
                };
                let required = |name: &str| {
                    schema
                        .get("required")
                        .and_then(Value::as_array)
                        .is_some_and(|r| r.iter().any(|n| n == name))
                };
                object.retain(|name, v| {
                    let drop = v.is_null()
                        && !required(name)
                        && properties.get(name).is_some_and(|p| !says_null(p));
                    self.dropped |= drop;
                    !drop
                });
                for (name, v) in object.iter_mut() {
                    if let Some(property) = properties.get(name) {
                        self.value(v, property, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(item) = schema.get("items").filter(|i| i.is_object()) {
                    for v in items {
                        self.value(v, item, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// The schema a local `reference` (`#/$defs/Line`) names.
    fn resolve(&self, reference: &str) -> Option<&'a Value> {
        reference
            .strip_prefix('#')
            .and_then(|p| self.root.pointer(p))
    }
}

/// Whether `schema` names `null` among its types, or in a branch of its union.
fn says_null(schema: &Value) -> bool {
    let names_null = |s: &Value| match s.get("type") {
        Some(Value::String(one)) => one == "null",
        Some(Value::Array(many)) => many.iter().any(|t| t == "null"),
        _ => false,
    };
    names_null(schema)
        || ["anyOf", "oneOf"].iter().any(|k| {
            schema
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|branches| branches.iter().any(names_null))
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nulls_of_optional_properties_go_at_every_depth() {
        let schema = json!({
            "type": "object",
            "properties": {
                "customer": {"type": "string"},
                "note": {"type": ["string", "null"]},
                "limit": {"type": "integer"},
                "address": {"$ref": "#/$defs/Address"},
                "lines": {"type": "array", "items": {"$ref": "#/$defs/Address"}},
                "gift": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}
            },
            "required": ["customer"],
            "$defs": {"Address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["city"]
            }}
        });
        let arguments = r#"{"customer":null,"note":null,"limit":null,"address":{"city":"Oslo","zip":null},
            "lines":[{"city":"Rome","zip":null}],"gift":{"city":"Nice","zip":null}}"#;
        let stripped: Value =
            serde_json::from_str(&without_optional_nulls(&schema, arguments).unwrap()).unwrap();
        assert_eq!(
            stripped,
            json!({"customer": null, "note": null, "address": {"city": "Oslo"}, "lines": [{"city": "Rome"}],
                   "gift": {"city": "Nice"}})
        );
    }

    #[test]
    fn decode_reads_a_refused_optional_null_as_absent() {
        #[derive(serde::Deserialize)]
        struct Query {
            q: Option<String>,
            #[serde(default)]
            limit: u32,
        }
        let check = crate::tool::SchemaCheck::compile(json!({
            "type": "object",
            "properties": {"q": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}},
            "required": ["q"]
        }))
        .unwrap();
        let query: Query = check.decode(r#"{"q":"x","limit":null}"#).unwrap();
        assert_eq!((query.q.as_deref(), query.limit), (Some("x"), 0));
        // A required property's null is refused, and so is what else is wrong, as sent.
        assert!(check.decode::<Value>(r#"{"q":null}"#).is_err());
        let issues = check
            .decode::<Value>(r#"{"q":"x","limit":0,"other":null}"#)
            .unwrap_err();
        assert!(issues.to_string().contains("limit"), "{issues}");
    }

    #[test]
    fn nothing_to_drop_is_none() {
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(without_optional_nulls(&schema, r#"{"a":"x"}"#), None);
        assert_eq!(without_optional_nulls(&schema, r#"{"b":null}"#), None);
        assert_eq!(without_optional_nulls(&schema, "not json"), None);
    }
}
