//! Finding an allowlist's field in a tool's input schema: the field must be text, or a list of
//! texts reached through `[]`.

use agboss_rules::allow::FieldStep;
use serde_json::Value;

/// Checks that `path` names text in `schema` (following local `$ref`s, and the `anyOf` /
/// `oneOf` / `allOf` an `Option` or an enum makes).
pub(crate) fn resolve_text_field(schema: &Value, path: &[FieldStep<'_>]) -> Result<(), String> {
    let mut here = alternatives(schema, schema);
    let mut walked = String::new();
    for step in path {
        let next: Vec<&Value> = match step {
            FieldStep::Member(name) => {
                if !walked.is_empty() {
                    walked.push('.');
                }
                walked.push_str(name);
                here.iter()
                    .filter_map(|s| s.get("properties").and_then(|p| p.get(*name)))
                    .collect()
            }
            FieldStep::Each => {
                walked.push_str("[]");
                here.iter().filter_map(|s| s.get("items")).collect()
            }
        };
        if next.is_empty() {
            return Err(match step {
                FieldStep::Member(_) => {
                    format!("the input has no field `{walked}`{}", field_list(&here))
                }
                FieldStep::Each => format!("`{}` is not a list", &walked[..walked.len() - 2]),
            });
        }
        here = next
            .into_iter()
            .flat_map(|s| alternatives(schema, s))
            .collect();
    }
    let is_text = here.iter().any(|s| match s.get("type") {
        Some(Value::String(t)) => t == "string",
        Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
        _ => false,
    });
    if is_text {
        Ok(())
    } else {
        Err(format!(
            "`{walked}` is not text: name a field of type `String` (or a list of them, with `[]`)"
        ))
    }
}

/// The schemas `schema` stands for: itself with its `$ref` followed, or its alternatives.
fn alternatives<'a>(root: &'a Value, schema: &'a Value) -> Vec<&'a Value> {
    let mut out = Vec::new();
    collect(root, schema, &mut out, 0);
    out
}

fn collect<'a>(root: &'a Value, schema: &'a Value, out: &mut Vec<&'a Value>, depth: usize) {
    // Schemas from schemars are finite; the depth only stops a hand-written cycle.
    if depth > 32 {
        return;
    }
    if let Some(target) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        collect(root, target, out, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        for alternative in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            collect(root, alternative, out, depth + 1);
        }
    }
    out.push(schema);
}

fn field_list(schemas: &[&Value]) -> String {
    let names: Vec<&str> = schemas
        .iter()
        .filter_map(|s| s.get("properties").and_then(Value::as_object))
        .flat_map(|p| p.keys().map(String::as_str))
        .collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" (its fields are {})", names.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agboss_rules::allow::field_path;
    use serde_json::json;

    fn check(schema: &Value, path: &str) -> Result<(), String> {
        resolve_text_field(schema, &field_path(path).unwrap())
    }

    #[test]
    fn fields_are_found_through_refs_options_and_lists() {
        let schema = json!({
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "note": {"type": ["string", "null"]},
                "count": {"type": "integer"},
                "jobs": {"type": "array", "items": {"$ref": "#/$defs/Job"}},
                "backup": {"anyOf": [{"$ref": "#/$defs/Job"}, {"type": "null"}]}
            },
            "$defs": {"Job": {"type": "object", "properties": {"path": {"type": "string"}}}}
        });
        for good in ["url", "note", "jobs[].path", "backup.path"] {
            assert_eq!(check(&schema, good), Ok(()), "{good}");
        }
        assert_eq!(
            check(&schema, "uri").unwrap_err(),
            "the input has no field `uri` (its fields are url, note, count, jobs, backup)"
        );
        assert_eq!(check(&schema, "url[]").unwrap_err(), "`url` is not a list");
        assert!(
            check(&schema, "count")
                .unwrap_err()
                .contains("`count` is not text")
        );
        assert!(
            check(&schema, "jobs")
                .unwrap_err()
                .contains("`jobs` is not text")
        );
    }
}
