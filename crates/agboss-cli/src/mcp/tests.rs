//! The schema mapping and the generated text, without a server.

use serde_json::{Value, json};

use super::names::Taken;
use super::schema::Mapper;
use super::types::{FieldDef, RustType, TypeDef};
use super::*;

/// The DTOs of `schema` for a tool `t` (types `T...`).
fn map(schema: Value) -> Vec<TypeDef> {
    let mut types = Taken::types();
    types.insert("TTool".into());
    types.insert("TInput".into());
    Mapper::new(&schema, "t", "T", &mut types).input("TInput")
}

/// The input struct's fields.
fn fields(schema: Value) -> Vec<FieldDef> {
    match map(schema).into_iter().next() {
        Some(TypeDef::Struct { fields, .. }) => fields,
        other => panic!("not a struct: {other:?}"),
    }
}

/// The type of the single property `p`, required or not.
fn type_of(property: Value, required: bool) -> RustType {
    let required = if required { json!(["p"]) } else { json!([]) };
    let fields =
        fields(json!({"type": "object", "properties": {"p": property}, "required": required}));
    fields[0].ty.clone()
}

fn named(name: &str) -> RustType {
    RustType::Named(name.into())
}

fn option(ty: RustType) -> RustType {
    RustType::Option(Box::new(ty))
}

#[test]
fn each_json_type_has_its_rust_type() {
    assert_eq!(type_of(json!({"type": "string"}), true), RustType::String);
    assert_eq!(type_of(json!({"type": "integer"}), true), RustType::I64);
    assert_eq!(type_of(json!({"type": "number"}), true), RustType::F64);
    assert_eq!(type_of(json!({"type": "boolean"}), true), RustType::Bool);
    assert_eq!(
        type_of(json!({"type": "array", "items": {"type": "string"}}), true),
        RustType::Vec(Box::new(RustType::String))
    );
    assert_eq!(
        type_of(json!({"type": "array"}), true),
        RustType::Vec(Box::new(RustType::Value))
    );
    assert_eq!(type_of(json!({"type": "object"}), true), RustType::Value);
    assert_eq!(type_of(json!({}), true), RustType::Value);
    assert_eq!(
        type_of(
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}),
            true
        ),
        RustType::Value
    );
    assert_eq!(
        type_of(json!({"type": "integer", "enum": [1, 2]}), true),
        RustType::I64
    );
}

#[test]
fn optional_and_nullable_properties_are_options() {
    assert_eq!(
        type_of(json!({"type": "string"}), false),
        option(RustType::String)
    );
    assert_eq!(
        type_of(json!({"type": ["string", "null"]}), true),
        option(RustType::String)
    );
    assert_eq!(
        type_of(
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}]}),
            false
        ),
        option(RustType::I64)
    );
    assert_eq!(
        type_of(json!({"type": "object"}), false),
        option(RustType::Value)
    );
    let optional = &fields(json!({"type": "object", "properties": {"a": {"type": "string"}}}))[0];
    assert!(
        optional.skip_none,
        "a property that is not required is left out when None"
    );
    let nullable = &fields(
        json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]}),
    )[0];
    assert!(
        !nullable.skip_none,
        "a required property is sent, as null when None"
    );
}

#[test]
fn string_enums_become_enums() {
    let defs = map(json!({
        "type": "object",
        "properties": {"messageType": {"type": "string", "enum": ["error", "success", "text/plain", "1", "error"]}},
        "required": ["messageType"],
    }));
    assert_eq!(defs.len(), 2);
    let TypeDef::Struct { fields, .. } = &defs[0] else {
        panic!()
    };
    assert_eq!(fields[0].name, "message_type");
    assert_eq!(fields[0].property, "messageType");
    assert_eq!(fields[0].ty, named("TMessageType"));
    let TypeDef::Enum { name, variants, .. } = &defs[1] else {
        panic!()
    };
    assert_eq!(name, "TMessageType");
    let expected = [
        ("Error", "error"),
        ("Success", "success"),
        ("TextPlain", "text/plain"),
        ("V1", "1"),
    ];
    assert_eq!(
        variants,
        &expected.map(|(v, s)| (v.to_owned(), s.to_owned()))
    );
    assert_eq!(
        type_of(json!({"enum": ["a", null]}), true),
        option(named("TP"))
    );
    assert_eq!(type_of(json!({"enum": ["a", 1]}), true), RustType::Value);
}

#[test]
fn objects_with_properties_become_nested_structs() {
    let defs = map(json!({
        "type": "object",
        "properties": {
            "options": {
                "type": "object",
                "description": "How to read",
                "properties": {"filter": {"type": "object", "properties": {"head": {"type": "integer"}}}},
                "required": ["filter"],
            },
            "edits": {"type": "array", "items": {"type": "object", "properties": {"old": {"type": "string"}}}},
        },
        "required": ["options"],
    }));
    let names: Vec<&str> = defs
        .iter()
        .map(|d| match d {
            TypeDef::Struct { name, .. } | TypeDef::Enum { name, .. } => name.as_str(),
        })
        .collect();
    assert_eq!(
        names,
        ["TInput", "TOptions", "TOptionsFilter", "TEditsItem"]
    );
    let TypeDef::Struct { fields, doc, .. } = &defs[1] else {
        panic!()
    };
    assert_eq!(doc, "How to read");
    assert_eq!(fields[0].ty, named("TOptionsFilter"));
    let TypeDef::Struct { fields, .. } = &defs[0] else {
        panic!()
    };
    assert_eq!(
        fields[1].ty,
        option(RustType::Vec(Box::new(named("TEditsItem"))))
    );
}

#[test]
fn local_refs_are_followed_once_and_recursion_is_a_value() {
    let defs = map(json!({
        "type": "object",
        "$defs": {
            "Point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]},
            "Node": {"type": "object", "properties": {"child": {"$ref": "#/$defs/Node"}}},
        },
        "properties": {
            "from": {"$ref": "#/$defs/Point"},
            "to": {"$ref": "#/$defs/Point"},
            "tree": {"$ref": "#/$defs/Node"},
            "far": {"$ref": "https://example.com/schema.json"},
        },
        "required": ["from", "to", "tree", "far"],
    }));
    let TypeDef::Struct { fields, .. } = &defs[0] else {
        panic!()
    };
    assert_eq!(fields[0].ty, named("TPoint"));
    assert_eq!(fields[1].ty, named("TPoint"));
    assert_eq!(fields[2].ty, named("TNode"));
    assert_eq!(fields[3].ty, RustType::Value);
    assert!(
        fields[3]
            .note
            .as_deref()
            .is_some_and(|n| n.contains("not a local reference"))
    );
    assert_eq!(defs.len(), 3, "one struct per definition: {defs:?}");
    let TypeDef::Struct { fields, .. } = &defs[2] else {
        panic!()
    };
    assert_eq!(fields[0].ty, option(RustType::Value));
    assert!(
        fields[0]
            .note
            .as_deref()
            .is_some_and(|n| n.contains("refers to itself"))
    );
}

#[test]
fn a_top_level_ref_and_odd_schemas_never_panic() {
    let defs = map(
        json!({"$ref": "#/definitions/Args", "definitions": {"Args": {"type": "object", "properties": {"a": {"type": "string"}}}}}),
    );
    let TypeDef::Struct { fields, note, .. } = &defs[0] else {
        panic!()
    };
    assert_eq!(fields.len(), 1);
    assert!(note.is_none());
    for odd in [
        json!(null),
        json!(true),
        json!({"type": "array"}),
        json!({"$ref": "#/nowhere"}),
        json!({"properties": 3}),
    ] {
        let defs = map(odd);
        assert!(matches!(&defs[0], TypeDef::Struct { fields, .. } if fields.is_empty()));
    }
    let open = map(json!({"type": "object", "additionalProperties": {"type": "string"}}));
    assert!(
        matches!(&open[0], TypeDef::Struct { note: Some(n), .. } if n.contains("does not list"))
    );
    let deep = (0..100).fold(
        json!({"type": "string"}),
        |inner, _| json!({"type": "object", "properties": {"a": inner}}),
    );
    assert!(!map(deep).is_empty());
    let odd = self::fields(
        json!({"type": "object", "properties": {"a": true, "b": {"type": 7}, "type": {"type": "string"}, "": {}}}),
    );
    let names: Vec<&str> = odd.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["a", "b", "type_", "field"]);
    assert_eq!(odd[0].ty, option(RustType::Value));
}

fn spec() -> ServerSpec {
    ServerSpec::new(
        "notes-fs",
        ServerTransport::Stdio {
            command: "node".into(),
            args: vec!["${FS_JS}".into()],
        },
    )
}

#[test]
fn generated_code_names_and_escapes() {
    let mut read = ListedTool::new(
        "read_text_file",
        json!({"type": "object", "properties": {"path": {"type": "string", "description": "Where \"it\" is"}}, "required": ["path"]}),
    );
    read.description = Some("Reads a \"file\"\nwhole".into());
    read.claims = vec!["readOnlyHint=true".into()];
    let mut list = ListedTool::new("ReadTextFile", json!({"type": "object"}));
    list.title = Some("Read it again".into());
    let code = generate(&spec(), &[read, list]).unwrap();
    assert!(code.contains("pub struct NotesFsServer;"), "{code}");
    assert!(
        code.contains("args = [\"${FS_JS}\"],\n    env = [\"FS_JS\"],"),
        "{code}"
    );
    assert!(
        code.contains("tools = [\"ReadTextFile\", \"read_text_file\"],"),
        "{code}"
    );
    assert!(code.contains("#[mcp_tool(\n    name = \"read-text-file-2-tool\",\n    description = \"Reads a \\\"file\\\"\\nwhole\",\n"), "{code}");
    assert!(
        code.contains("    input = ReadTextFile2Input,\n    output = PlainText,\n    server_claims = [\"readOnlyHint=true\"],\n)]\npub struct ReadTextFile2Tool;"),
        "{code}"
    );
    assert!(
        code.contains("    name = \"read-text-file-tool\",\n    description = \"Read it again\",\n    server = NotesFsServer,\n    calls = \"ReadTextFile\",\n    input = ReadTextFileInput,\n    output = PlainText,\n)]\npub struct ReadTextFileTool;"),
        "{code}"
    );
    assert!(
        code.contains("    /// Where \"it\" is\n    pub path: String,"),
        "{code}"
    );
    assert!(code.contains("pub struct ReadTextFileInput {}"), "{code}");
    assert!(!code.contains("serde_json"), "{code}");
}

#[test]
fn bad_specs_and_tool_lists_are_refused() {
    let tool = ListedTool::new("a", json!({}));
    let mut bad = spec();
    bad.name = "Notes FS".into();
    assert!(
        matches!(generate(&bad, std::slice::from_ref(&tool)), Err(GenerateError::Invalid(m)) if m.contains("name it \"notes-fs\""))
    );
    let mut bad = spec();
    bad.env = vec!["secret=1".into()];
    assert!(matches!(
        generate(&bad, std::slice::from_ref(&tool)),
        Err(GenerateError::Invalid(_))
    ));
    let mut bad = spec();
    bad.transport = ServerTransport::Http {
        url: "https://${HOST NAME}/mcp".into(),
    };
    assert!(matches!(
        generate(&bad, std::slice::from_ref(&tool)),
        Err(GenerateError::Invalid(_))
    ));
    let mut bad = spec();
    bad.server_type = Some("PlainText".into());
    assert!(matches!(
        generate(&bad, std::slice::from_ref(&tool)),
        Err(GenerateError::Invalid(_))
    ));
    assert!(matches!(
        generate(&spec(), &[]),
        Err(GenerateError::NoTools { .. })
    ));
    assert!(matches!(
        generate(&spec(), &[tool.clone(), tool.clone()]),
        Err(GenerateError::Invalid(_))
    ));
}

#[test]
fn picking_tools_checks_the_names() {
    let listed = vec![
        ListedTool::new("b", json!({})),
        ListedTool::new("a", json!({})),
        ListedTool::new("a", json!({})),
    ];
    let request = |tools: &[&str], exclude: &[&str]| Request {
        spec: spec(),
        tools: tools.iter().map(|s| (*s).to_owned()).collect(),
        exclude: exclude.iter().map(|s| (*s).to_owned()).collect(),
        timeout: DEFAULT_START_TIMEOUT,
    };
    let names = |picked: Vec<ListedTool>| picked.into_iter().map(|t| t.name).collect::<Vec<_>>();
    assert_eq!(
        names(pick(&request(&[], &[]), listed.clone()).unwrap()),
        ["b", "a"]
    );
    assert_eq!(
        names(pick(&request(&["a"], &[]), listed.clone()).unwrap()),
        ["a"]
    );
    assert_eq!(
        names(pick(&request(&[], &["a"]), listed.clone()).unwrap()),
        ["b"]
    );
    let missing = pick(&request(&["c"], &[]), listed.clone()).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "[mcp.tool-missing] server `notes-fs` does not offer the tool `c` asked for (it offers: a, b)"
    );
    assert!(matches!(
        pick(&request(&[], &["a", "b"]), listed),
        Err(GenerateError::NoTools { .. })
    ));
}

#[test]
fn values_are_announced_in_the_header() {
    let tool = ListedTool::new(
        "x",
        json!({"type": "object", "properties": {"any": {}}, "required": ["any"]}),
    );
    let code = generate(&spec(), &[tool]).unwrap();
    assert!(
        code.contains("Schemas it does not map are `agboss::dto::Value`"),
        "{code}"
    );
    assert!(code.contains("    pub any: agboss::dto::Value,"), "{code}");
}

#[test]
fn server_names_and_variables_are_checked_as_the_macro_checks_them() {
    let tool = ListedTool::new("a", json!({}));
    let refused = |spec: &ServerSpec| match generate(spec, std::slice::from_ref(&tool)) {
        Err(GenerateError::Invalid(message)) => message,
        other => panic!("not refused: {other:?}"),
    };
    for name in ["notes-fs", "fs2", "2-fs"] {
        let mut good = spec();
        good.name = name.into();
        assert!(
            generate(&good, std::slice::from_ref(&tool)).is_ok(),
            "{name}"
        );
    }
    for (name, message) in [
        ("", "the server name \"\" must be kebab-case"),
        (
            "notes--fs",
            "the server name \"notes--fs\" must be kebab-case: name it \"notes-fs\"",
        ),
        (
            "-fs",
            "the server name \"-fs\" must be kebab-case: name it \"fs\"",
        ),
        (
            "notes_fs",
            "the server name \"notes_fs\" must be kebab-case: name it \"notes-fs\"",
        ),
        (
            "café",
            "the server name \"café\" must be kebab-case: name it \"cafe\"",
        ),
    ] {
        let mut bad = spec();
        bad.name = name.into();
        assert_eq!(refused(&bad), message);
    }
    let mut bad = spec();
    bad.env = vec!["2FA".into()];
    assert_eq!(
        refused(&bad),
        "\"2FA\" is not the name of an environment variable: `--env` takes NAMES, such as NOTES_DIR, never values"
    );
    let mut bad = spec();
    bad.server_type = Some("notesServer".into());
    assert_eq!(
        refused(&bad),
        "the server type \"notesServer\" must be a PascalCase Rust name such as `NotesServer`"
    );
}
