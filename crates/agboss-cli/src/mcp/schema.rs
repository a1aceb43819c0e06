//! From a tool's input JSON Schema to Rust DTOs: what each schema becomes (docs/mcp-generate.md).
//!
//! Nothing a server sends makes this panic: a schema it does not understand becomes
//! `agboss::dto::Value` with a comment saying why.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::names::{Taken, field_name, pascal, variant_name};
use super::types::{FieldDef, RustType, TypeDef};

/// The DTOs of one tool's input: [`TypeDef`]s, the input struct first.
pub struct Mapper<'a> {
    root: &'a Value,
    types: &'a mut Taken,
    /// The tool's type name stem (`ReadTextFile`).
    stem: String,
    /// The server's name of the tool, for docs.
    server_tool: String,
    defs: Vec<TypeDef>,
    refs: HashMap<String, RustType>,
    resolving: Vec<String>,
}

/// How deep schemas may nest before the rest becomes `Value` (a guard against huge schemas).
const MAX_DEPTH: usize = 32;

impl<'a> Mapper<'a> {
    /// A mapper for the input schema `root` of the server tool `server_tool`, whose types
    /// start with `stem`.
    pub fn new(root: &'a Value, server_tool: &str, stem: &str, types: &'a mut Taken) -> Mapper<'a> {
        Mapper {
            root,
            types,
            stem: stem.to_owned(),
            server_tool: server_tool.to_owned(),
            defs: Vec::new(),
            refs: HashMap::new(),
            resolving: Vec::new(),
        }
    }

    /// Maps the input schema to the struct `input_name` (already claimed) and every type it
    /// uses; the input struct comes first.
    pub fn input(mut self, input_name: &str) -> Vec<TypeDef> {
        let mut schema = self.root;
        let mut hops = 0;
        while let Some(pointer) = schema.get("$ref").and_then(Value::as_str) {
            match self.resolve(pointer) {
                Some(target) if hops < MAX_DEPTH => schema = target,
                _ => break,
            }
            hops += 1;
        }
        let doc = description(schema)
            .unwrap_or_else(|| format!("The arguments of `{}`.", self.server_tool));
        let object = schema.as_object();
        let is_object = object.is_some_and(|o| {
            !o.contains_key("$ref")
                && match o.get("type") {
                    None => true,
                    Some(t) => t.as_str() == Some("object"),
                }
        });
        let (fields, note) = match (object, is_object) {
            (Some(o), true) => {
                let fields = self.fields(o, &self.stem.clone(), 0);
                let open = matches!(
                    o.get("additionalProperties"),
                    Some(Value::Bool(true) | Value::Object(_))
                );
                let note = (fields.is_empty() && open).then(|| {
                    "The server accepts properties its schema does not list; this struct sends none: add \
                     the fields you need."
                        .to_owned()
                });
                (fields, note)
            }
            _ => (
                Vec::new(),
                Some(format!(
                    "The server's input schema is not an object with properties ({}): no arguments are sent.",
                    shorten(&schema.to_string())
                )),
            ),
        };
        self.defs.insert(
            0,
            TypeDef::Struct {
                name: input_name.to_owned(),
                doc,
                fields,
                note,
            },
        );
        self.defs
    }

    /// The fields of an object schema; nested types are named `<prefix><Field>`.
    fn fields(&mut self, object: &Map<String, Value>, prefix: &str, depth: usize) -> Vec<FieldDef> {
        let Some(properties) = object.get("properties").and_then(Value::as_object) else {
            return Vec::new();
        };
        let required: Vec<&str> = object
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut names = Taken::fields();
        properties
            .iter()
            .map(|(property, schema)| {
                let name = names.claim(&field_name(property));
                let hint = format!("{prefix}{}", pascal_or(property, "Field"));
                let (ty, note) = self.map(schema, &hint, depth + 1);
                let required = required.contains(&property.as_str());
                let ty = match ty {
                    RustType::Option(_) => ty,
                    ty if !required => RustType::Option(Box::new(ty)),
                    ty => ty,
                };
                FieldDef {
                    name,
                    property: property.clone(),
                    ty,
                    skip_none: !required,
                    doc: description(schema),
                    note,
                }
            })
            .collect()
    }

    /// The type of `schema`, and why (part of) it became `Value`. `hint` names a type it needs.
    pub fn map(&mut self, schema: &Value, hint: &str, depth: usize) -> (RustType, Option<String>) {
        let Some(object) = schema.as_object() else {
            return (
                RustType::Value,
                Some(format!(
                    "the schema `{}` is not an object",
                    shorten(&schema.to_string())
                )),
            );
        };
        if depth > MAX_DEPTH {
            return (RustType::Value, Some("the schema nests too deep".into()));
        }
        if let Some(reference) = object.get("$ref") {
            return self.reference(reference, hint, depth);
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(alternatives) = object.get(key).and_then(Value::as_array) {
                let others: Vec<&Value> =
                    alternatives.iter().filter(|a| !is_null_schema(a)).collect();
                return match others.as_slice() {
                    [only] if others.len() < alternatives.len() => self.nullable(only, hint, depth),
                    [only] => self.map(only, hint, depth + 1),
                    _ => (
                        RustType::Value,
                        Some(format!("`{key}` of several schemas is not mapped")),
                    ),
                };
            }
        }
        if let Some(all) = object.get("allOf").and_then(Value::as_array) {
            return match all.as_slice() {
                [only] => self.map(only, hint, depth + 1),
                _ => (
                    RustType::Value,
                    Some("`allOf` of several schemas is not mapped".into()),
                ),
            };
        }
        let types: Vec<&str> = match object.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            Some(other) => return (RustType::Value, Some(format!("`type` is {other}"))),
            None => Vec::new(),
        };
        let nullable = types.contains(&"null");
        let types: Vec<&str> = types.into_iter().filter(|t| *t != "null").collect();
        let (ty, note) = match types.as_slice() {
            [] if object.contains_key("properties") => self.typed(object, "object", hint, depth),
            [] if object.contains_key("enum") || object.contains_key("const") => {
                self.typed(object, "string", hint, depth)
            }
            [] if object.contains_key("items") => self.typed(object, "array", hint, depth),
            [] => (RustType::Value, None),
            [only] => self.typed(object, only, hint, depth),
            _ => (
                RustType::Value,
                Some(format!(
                    "a value of types {} is not mapped",
                    types.join(", ")
                )),
            ),
        };
        match ty {
            RustType::Option(_) | RustType::Value => (ty, note),
            ty if nullable => (RustType::Option(Box::new(ty)), note),
            ty => (ty, note),
        }
    }

    /// `Option<T>` of the schema that may also be null.
    fn nullable(&mut self, schema: &Value, hint: &str, depth: usize) -> (RustType, Option<String>) {
        match self.map(schema, hint, depth + 1) {
            (ty @ (RustType::Option(_) | RustType::Value), note) => (ty, note),
            (ty, note) => (RustType::Option(Box::new(ty)), note),
        }
    }

    /// The type of a schema of JSON type `ty`.
    fn typed(
        &mut self,
        object: &Map<String, Value>,
        ty: &str,
        hint: &str,
        depth: usize,
    ) -> (RustType, Option<String>) {
        match ty {
            "string" => self.string(object, hint),
            "integer" => (RustType::I64, None),
            "number" => (RustType::F64, None),
            "boolean" => (RustType::Bool, None),
            "array" => match object.get("items") {
                None | Some(Value::Bool(true)) => (RustType::Vec(Box::new(RustType::Value)), None),
                Some(items @ Value::Object(_)) => {
                    let (item, note) = self.map(items, &format!("{hint}Item"), depth + 1);
                    (RustType::Vec(Box::new(item)), note)
                }
                Some(_) => (
                    RustType::Value,
                    Some("an array of a fixed list of items is not mapped".into()),
                ),
            },
            "object" => match object.get("properties").and_then(Value::as_object) {
                Some(properties) if !properties.is_empty() => {
                    let name = self.types.claim(hint);
                    let doc = text_of(object).unwrap_or_else(|| {
                        format!("Part of the arguments of `{}`.", self.server_tool)
                    });
                    let index = self.defs.len();
                    self.defs.push(TypeDef::Struct {
                        name: name.clone(),
                        doc,
                        fields: Vec::new(),
                        note: None,
                    });
                    let fields = self.fields(object, &name, depth);
                    if let Some(TypeDef::Struct { fields: slot, .. }) = self.defs.get_mut(index) {
                        *slot = fields;
                    }
                    (RustType::Named(name), None)
                }
                _ => (RustType::Value, None),
            },
            other => (
                RustType::Value,
                Some(format!("a value of type {other} is not mapped")),
            ),
        }
    }

    /// `String`, or an enum when the schema lists its strings.
    fn string(&mut self, object: &Map<String, Value>, hint: &str) -> (RustType, Option<String>) {
        let values: Option<Vec<Value>> = match (object.get("enum"), object.get("const")) {
            (Some(Value::Array(values)), _) => Some(values.clone()),
            (None, Some(value)) => Some(vec![value.clone()]),
            _ => None,
        };
        let Some(values) = values else {
            return (RustType::String, None);
        };
        let nullable = values.iter().any(Value::is_null);
        let strings: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
        if strings.is_empty() || strings.len() + usize::from(nullable) != values.len() {
            return (
                RustType::Value,
                Some("an enum of values that are not all strings is not mapped".into()),
            );
        }
        let mut unique: Vec<&str> = Vec::new();
        for s in strings {
            if !unique.contains(&s) {
                unique.push(s);
            }
        }
        let name = self.types.claim(hint);
        let mut taken = Taken::variants();
        let variants = unique
            .iter()
            .map(|value| (taken.claim(&variant_name(value)), (*value).to_owned()))
            .collect();
        let doc = text_of(object)
            .unwrap_or_else(|| format!("The values `{}` accepts here.", self.server_tool));
        self.defs.push(TypeDef::Enum {
            name: name.clone(),
            doc,
            variants,
        });
        let ty = RustType::Named(name);
        if nullable {
            (RustType::Option(Box::new(ty)), None)
        } else {
            (ty, None)
        }
    }

    /// The type of a `$ref`: local references (`#/$defs/..`, `#/definitions/..`) are followed
    /// once and their type reused; a reference to itself or elsewhere is `Value`.
    fn reference(
        &mut self,
        reference: &Value,
        hint: &str,
        depth: usize,
    ) -> (RustType, Option<String>) {
        let Some(pointer) = reference.as_str() else {
            return (RustType::Value, Some("`$ref` is not a string".into()));
        };
        if let Some(ty) = self.refs.get(pointer) {
            return (ty.clone(), None);
        }
        if self.resolving.iter().any(|r| r == pointer) {
            return (
                RustType::Value,
                Some(format!("`{pointer}` refers to itself")),
            );
        }
        let Some(target) = self.resolve(pointer) else {
            return (
                RustType::Value,
                Some(format!(
                    "`$ref` {pointer} is not a local reference found in the schema"
                )),
            );
        };
        let last = pointer.rsplit('/').next().unwrap_or_default();
        let named = match pascal(last) {
            name if name.is_empty() => hint.to_owned(),
            name => format!("{}{name}", self.stem),
        };
        self.resolving.push(pointer.to_owned());
        let (ty, note) = self.map(target, &named, depth + 1);
        self.resolving.pop();
        self.refs.insert(pointer.to_owned(), ty.clone());
        (ty, note)
    }

    /// The schema a local `$ref` points to.
    fn resolve(&self, pointer: &str) -> Option<&'a Value> {
        let fragment = pointer.strip_prefix('#')?;
        self.root.pointer(&fragment.replace("%25", "%"))
    }
}

/// `pascal(text)`, or `fallback` when it has no letters or digits.
fn pascal_or(text: &str, fallback: &str) -> String {
    let name = pascal(text);
    if name.is_empty() {
        fallback.to_owned()
    } else {
        name
    }
}

/// `{"type": "null"}`.
fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The schema's description, trimmed, when it has one.
pub fn description(schema: &Value) -> Option<String> {
    schema.as_object().and_then(text_of)
}

/// The description of an object schema, trimmed, when it has one. Never its `title`: schema
/// generators make titles up from names (pydantic's `A` for a field `a`, `addArguments` for the
/// arguments of `add`), and a doc comment here becomes what the model reads.
fn text_of(object: &Map<String, Value>) -> Option<String> {
    object
        .get("description")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
}

/// `text`, cut to 60 characters for a comment.
fn shorten(text: &str) -> String {
    if text.chars().count() <= 60 {
        text.to_owned()
    } else {
        text.chars().take(57).collect::<String>() + "..."
    }
}
