//! Turning schema violations into messages a model can act on: `jobs[2].url: is not a valid uri`.

use std::fmt;

use jsonschema::error::{TypeKind, ValidationErrorKind};
use jsonschema::{ValidationError, Validator};

use super::tape::{TapeJson, TapeNode};
use serde_json::Value;

/// How many issues a message lists before it says how many more there are.
const SHOWN: usize = 5;

/// One problem with a value: where (`jobs[2].url`) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    /// The path to the value, or `None` for the whole value.
    pub path: Option<String>,
    /// What is wrong there.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(f, "{path}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The problems found with one value, printed `path: issue; path: issue`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issues {
    list: Vec<Issue>,
}

impl Issues {
    /// The issues, in the order the schema found them.
    pub fn as_slice(&self) -> &[Issue] {
        &self.list
    }

    pub(crate) fn one(path: Option<String>, message: impl Into<String>) -> Issues {
        Issues {
            list: vec![Issue {
                path,
                message: message.into(),
            }],
        }
    }

    /// These issues, in this order; `list` is not empty.
    pub(crate) fn from_list(list: Vec<Issue>) -> Issues {
        debug_assert!(!list.is_empty());
        Issues { list }
    }

    /// Arguments that are not JSON at all.
    pub(crate) fn malformed(error: &serde_json::Error) -> Issues {
        Issues::one(None, format!("malformed JSON: {error}"))
    }

    /// Every violation of `validator` by `instance`; `schema` is the validator's source. The
    /// cold path: it builds the instance as a `Value` to name paths and quote values.
    pub(crate) fn of(
        validator: &Validator<TapeJson>,
        schema: &Value,
        instance: TapeNode<'_>,
    ) -> Issues {
        let root = instance.to_json_value();
        let mut list = Vec::new();
        for error in validator.iter_errors(instance) {
            push_error(&error, schema, &root, &mut list);
        }
        list.dedup();
        if list.is_empty() {
            // `iter_errors` and `is_valid` disagree only on a bug of the validator; still say
            // something true rather than nothing.
            list.push(Issue {
                path: None,
                message: "does not match the schema".into(),
            });
        }
        Issues { list }
    }
}

impl fmt::Display for Issues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, issue) in self.list.iter().take(SHOWN).enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            issue.fmt(f)?;
        }
        if self.list.len() > SHOWN {
            write!(f, "; and {} more", self.list.len() - SHOWN)?;
        }
        Ok(())
    }
}

fn push_error(error: &ValidationError<'_>, schema: &Value, root: &Value, out: &mut Vec<Issue>) {
    let pointer = error.instance_path().as_str();
    let path = render_path(root, pointer);
    let here = || path.clone();
    let at = |message: String| Issue {
        path: here(),
        message,
    };
    let instance = error.instance();
    match error.kind() {
        ValidationErrorKind::Required { property } => out.push(Issue {
            path: Some(join(path.as_deref(), property.as_str().unwrap_or("?"))),
            message: "is required".into(),
        }),
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let known = known_fields(schema, error.schema_path().as_str());
            for name in unexpected {
                out.push(Issue {
                    path: Some(join(path.as_deref(), name)),
                    message: match &known {
                        Some(known) if !known.is_empty() => {
                            format!("is not a field here (the fields are {known})")
                        }
                        _ => "is not a field here".into(),
                    },
                });
            }
        }
        ValidationErrorKind::Type { kind } => {
            let expected = match kind {
                TypeKind::Single(t) => t.as_str().to_owned(),
                TypeKind::Multiple(set) => set
                    .iter()
                    .map(|t| t.as_str())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            out.push(at(format!(
                "expected {expected}, got {}",
                describe(instance)
            )));
        }
        ValidationErrorKind::Minimum { limit } => {
            out.push(at(format!("must be at least {limit}, got {instance}")))
        }
        ValidationErrorKind::Maximum { limit } => {
            out.push(at(format!("must be at most {limit}, got {instance}")))
        }
        ValidationErrorKind::ExclusiveMinimum { limit } => {
            out.push(at(format!("must be greater than {limit}, got {instance}")))
        }
        ValidationErrorKind::ExclusiveMaximum { limit } => {
            out.push(at(format!("must be less than {limit}, got {instance}")))
        }
        ValidationErrorKind::MinLength { limit } => out.push(at(format!(
            "must be at least {limit} characters long, got {}",
            char_count(instance)
        ))),
        ValidationErrorKind::MaxLength { limit } => out.push(at(format!(
            "must be at most {limit} characters long, got {}",
            char_count(instance)
        ))),
        ValidationErrorKind::MinItems { limit } => {
            out.push(at(format!("must have at least {limit} items")))
        }
        ValidationErrorKind::MaxItems { limit } => {
            out.push(at(format!("must have at most {limit} items")))
        }
        ValidationErrorKind::Enum { options } => out.push(at(format!(
            "must be one of {}, got {instance}",
            list_values(options)
        ))),
        ValidationErrorKind::Constant { expected_value } => {
            out.push(at(format!("must be {expected_value}, got {instance}")))
        }
        ValidationErrorKind::Format { format } => {
            out.push(at(format!("{} is not a valid {format}", short(instance))))
        }
        ValidationErrorKind::Pattern { pattern } => out.push(at(format!(
            "{} does not match the pattern `{pattern}`",
            short(instance)
        ))),
        ValidationErrorKind::UniqueItems => out.push(at("must not repeat items".into())),
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            match closest_branch(context, pointer) {
                Some(branch) => {
                    for inner in branch {
                        push_error(inner, schema, root, out);
                    }
                }
                None => out.push(at(format!(
                    "{} matches none of the allowed forms",
                    short(instance)
                ))),
            }
        }
        ValidationErrorKind::OneOfMultipleValid { .. } => out.push(at(
            "matches more than one of the allowed forms; it must match exactly one".into(),
        )),
        _ => out.push(at(error.to_string())),
    }
}

/// Of the alternatives of an `anyOf`/`oneOf`, the one the value was most likely meant for: the
/// only one that did not fail on the value's type itself (`Option<Job>` fails `null` by type
/// and `Job` by a field). `None` when that is not clear.
fn closest_branch<'e>(
    context: &'e [Vec<ValidationError<'static>>],
    pointer: &str,
) -> Option<&'e [ValidationError<'static>]> {
    let mut candidates = context.iter().filter(|errors| {
        !errors.iter().any(|e| {
            matches!(
                e.kind(),
                ValidationErrorKind::Type { .. }
                    | ValidationErrorKind::Constant { .. }
                    | ValidationErrorKind::Enum { .. }
            ) && e.instance_path().as_str() == pointer
        })
    });
    let first = candidates.next()?;
    match candidates.next() {
        None if !first.is_empty() => Some(first),
        _ => None,
    }
}

/// The properties the object schema at the parent of `schema_pointer` (an
/// `.../additionalProperties` location) declares, listed `query, limit`.
fn known_fields(schema: &Value, schema_pointer: &str) -> Option<String> {
    let parent = schema_pointer.rsplit_once('/')?.0;
    let properties = schema.pointer(parent)?.get("properties")?.as_object()?;
    Some(properties.keys().cloned().collect::<Vec<_>>().join(", "))
}

/// `/jobs/2/url` as `jobs[2].url`, deciding from the value whether `2` is an index.
fn render_path(root: &Value, pointer: &str) -> Option<String> {
    if pointer.is_empty() {
        return None;
    }
    let mut out = String::new();
    let mut current = Some(root);
    for raw in pointer.split('/').skip(1) {
        let segment = raw.replace("~1", "/").replace("~0", "~");
        match current {
            Some(Value::Array(items)) => {
                let index = segment.parse::<usize>().ok();
                out.push('[');
                out.push_str(&segment);
                out.push(']');
                current = index.and_then(|i| items.get(i));
            }
            other => {
                push_property(&mut out, &segment);
                current = other.and_then(|v| v.get(&segment));
            }
        }
    }
    Some(out)
}

fn join(path: Option<&str>, property: &str) -> String {
    let mut out = path.unwrap_or("").to_owned();
    push_property(&mut out, property);
    out
}

fn push_property(out: &mut String, name: &str) {
    let plain = !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(name);
    } else {
        out.push('[');
        out.push_str(&Value::String(name.to_owned()).to_string());
        out.push(']');
    }
}

fn describe(value: &Value) -> String {
    let kind = match value {
        Value::Null => return "null".into(),
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => return "an array".into(),
        Value::Object(_) => return "an object".into(),
    };
    format!("{kind} {}", short(value))
}

/// A text as JSON, shortened by [`short`]'s rule without copying more of it than the rule
/// shows: the first 61 characters decide what `short` keeps of the whole text.
pub(crate) fn quoted(text: &str) -> String {
    let end = text.char_indices().nth(61).map_or(text.len(), |(at, _)| at);
    short(&Value::String(text[..end].to_owned()))
}

/// The value's JSON, shortened to about 60 characters.
fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() <= 60 {
        return text;
    }
    let cut: String = text.chars().take(57).collect();
    format!("{cut}...")
}

fn char_count(value: &Value) -> usize {
    value.as_str().map_or(0, |s| s.chars().count())
}

fn list_values(options: &Value) -> String {
    match options.as_array() {
        Some(items) => items
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        None => options.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn issues(schema: Value, instance: Value) -> String {
        let validator = jsonschema::options_for::<TapeJson>()
            .should_validate_formats(true)
            .build(&schema)
            .unwrap();
        super::super::tape::with_tape(|tape| {
            super::super::tape::fill_from_value(tape, &instance);
            Issues::of(&validator, &schema, tape.root()).to_string()
        })
    }

    #[test]
    fn paths_read_like_rust_and_javascript() {
        let schema = json!({
            "type": "object",
            "properties": {"jobs": {"type": "array", "items": {
                "type": "object",
                "properties": {"url": {"type": "string", "format": "uri"}}
            }}}
        });
        let instance =
            json!({"jobs": [{"url": "https://a"}, {"url": "https://b"}, {"url": "nope"}]});
        assert_eq!(
            issues(schema, instance),
            r#"jobs[2].url: "nope" is not a valid uri"#
        );
    }

    #[test]
    fn numeric_keys_of_objects_are_not_indexes() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        assert_eq!(
            issues(schema, json!({"2": "x"})),
            r#"["2"]: expected integer, got string "x""#
        );
    }

    #[test]
    fn missing_and_unknown_fields_are_named() {
        let schema = json!({
            "type": "object",
            "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["query"],
            "additionalProperties": false
        });
        assert_eq!(
            issues(schema, json!({"limt": 3})),
            "limt: is not a field here (the fields are query, limit); query: is required"
        );
    }

    #[test]
    fn optional_objects_report_the_inner_problem() {
        let schema = json!({
            "type": "object",
            "properties": {"job": {"anyOf": [
                {"type": "object", "properties": {"id": {"type": "integer", "minimum": 1}}},
                {"type": "null"}
            ]}}
        });
        assert_eq!(
            issues(schema, json!({"job": {"id": 0}})),
            "job.id: must be at least 1, got 0"
        );
    }

    #[test]
    fn long_lists_are_cut() {
        let schema = json!({"type": "array", "items": {"type": "string"}});
        assert_eq!(
            issues(schema, json!([1, 2, 3, 4, 5, 6, 7])),
            "[0]: expected string, got integer 1; [1]: expected string, got integer 2; \
             [2]: expected string, got integer 3; [3]: expected string, got integer 4; \
             [4]: expected string, got integer 5; and 2 more"
        );
    }
}
