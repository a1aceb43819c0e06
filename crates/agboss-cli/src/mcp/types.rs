//! The Rust types a tool's input becomes: structs, enums and field types, as data, before they
//! are written out.

/// A Rust type of a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RustType {
    /// `String`.
    String,
    /// `i64`.
    I64,
    /// `f64`.
    F64,
    /// `bool`.
    Bool,
    /// `agboss::dto::Value` (serde_json's): any JSON.
    Value,
    /// `Vec<T>`.
    Vec(Box<RustType>),
    /// `Option<T>`.
    Option(Box<RustType>),
    /// A generated struct or enum.
    Named(String),
}

impl RustType {
    /// The type as written in the generated code.
    pub fn render(&self) -> String {
        match self {
            RustType::String => "String".into(),
            RustType::I64 => "i64".into(),
            RustType::F64 => "f64".into(),
            RustType::Bool => "bool".into(),
            RustType::Value => "agboss::dto::Value".into(),
            RustType::Vec(item) => format!("Vec<{}>", item.render()),
            RustType::Option(inner) => format!("Option<{}>", inner.render()),
            RustType::Named(name) => name.clone(),
        }
    }

    /// Whether `Value` (any JSON) appears in it.
    pub fn uses_value(&self) -> bool {
        match self {
            RustType::Value => true,
            RustType::Vec(inner) | RustType::Option(inner) => inner.uses_value(),
            _ => false,
        }
    }
}

/// A field of a generated struct.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldDef {
    /// The Rust name.
    pub name: String,
    /// The JSON property's name.
    pub property: String,
    /// The type, `Option<..>` when the property is not required or may be null.
    pub ty: RustType,
    /// Whether a `None` is left out of the JSON (the property is not required).
    pub skip_none: bool,
    /// The property's description.
    pub doc: Option<String>,
    /// Why part of its schema became `Value`.
    pub note: Option<String>,
}

/// A generated struct or enum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeDef {
    /// A `#[dto]` struct.
    Struct {
        /// Its name.
        name: String,
        /// Its doc comment.
        doc: String,
        /// Its fields.
        fields: Vec<FieldDef>,
        /// Why its schema was not read as an object with properties.
        note: Option<String>,
    },
    /// A `#[dto]` enum of strings.
    Enum {
        /// Its name.
        name: String,
        /// Its doc comment.
        doc: String,
        /// `(variant, value)` pairs.
        variants: Vec<(String, String)>,
    },
}
