//! The unit tests of `strict.rs`: schemas rewritten for OpenAI's strict mode.

use super::*;

#[test]
fn objects_close_and_optional_properties_become_nullable() {
    let schema = json!({
        "type": "object",
        "description": "An order query",
        "properties": {
            "customer": {"type": "string", "minLength": 1, "maxLength": 40},
            "limit": {"type": "integer", "format": "uint32", "minimum": 0, "default": 10},
            "since": {"type": "string", "format": "date"},
            "status": {"type": "string", "enum": ["open", "shipped"]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 5},
            "note": {"type": ["string", "null"]}
        },
        "required": ["customer"]
    });
    assert_eq!(
        strict_schema(&schema).unwrap(),
        json!({
            "type": "object",
            "description": "An order query",
            "properties": {
                "customer": {"type": "string"},
                "limit": {"type": ["integer", "null"], "minimum": 0},
                "since": {"type": ["string", "null"], "format": "date"},
                "status": {"anyOf": [{"type": "string", "enum": ["open", "shipped"]}, {"type": "null"}]},
                "tags": {"type": ["array", "null"], "items": {"type": "string"}, "maxItems": 5},
                "note": {"type": ["string", "null"]}
            },
            "required": ["customer", "limit", "since", "status", "tags", "note"],
            "additionalProperties": false
        })
    );
}

#[test]
fn nested_objects_definitions_and_unions_are_lowered_too() {
    let schema = json!({
        "type": "object",
        "properties": {
            "address": {"$ref": "#/$defs/Address", "description": "Where it goes"},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
            "gift": {"anyOf": [{"$ref": "#/$defs/Line"}, {"type": "null"}]},
            "mode": {"oneOf": [{"type": "string", "const": "air"}, {"type": "string", "const": "sea"}]},
            "parent": {"$ref": "#/$defs/Line"}
        },
        "required": ["address", "items", "mode"],
        "$defs": {
            "Address": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
                "required": ["city"]
            },
            "Line": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "format": "int64"}},
                "required": ["sku", "qty"]
            }
        }
    });
    let address = json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "zip": {"type": ["string", "null"]}},
        "required": ["city", "zip"],
        "additionalProperties": false
    });
    let mut inlined = address.clone();
    inlined["description"] = json!("Where it goes");
    assert_eq!(
        strict_schema(&schema).unwrap(),
        json!({
            "type": "object",
            "properties": {
                "address": inlined,
                "items": {"type": "array", "items": {"$ref": "#/$defs/Line"}},
                "gift": {"anyOf": [{"$ref": "#/$defs/Line"}, {"type": "null"}]},
                "mode": {"anyOf": [{"type": "string", "const": "air"}, {"type": "string", "const": "sea"}]},
                "parent": {"anyOf": [{"$ref": "#/$defs/Line"}, {"type": "null"}]}
            },
            "required": ["address", "items", "gift", "mode", "parent"],
            "additionalProperties": false,
            "$defs": {
                "Address": address,
                "Line": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                    "required": ["sku", "qty"],
                    "additionalProperties": false
                }
            }
        })
    );
}

#[test]
fn a_recursive_reference_with_a_description_stays_a_reference() {
    let schema = json!({
        "type": "object",
        "properties": {"root": {"$ref": "#/$defs/Node", "description": "The top"}},
        "required": ["root"],
        "$defs": {"Node": {
            "type": "object",
            "properties": {"child": {"$ref": "#/$defs/Node", "description": "Below"}},
            "required": ["child"]
        }}
    });
    let lowered = strict_schema(&schema).unwrap();
    assert_eq!(
        lowered["properties"]["root"]["properties"]["child"],
        json!({"$ref": "#/$defs/Node"})
    );
    assert_eq!(lowered["properties"]["root"]["description"], "The top");
    assert_eq!(
        lowered["$defs"]["Node"]["properties"]["child"]["description"],
        "Below"
    );
}

#[test]
fn a_parameterless_tool_is_an_empty_closed_object() {
    assert_eq!(
        strict_schema(&json!({"type": "object", "properties": {}})).unwrap(),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
    assert_eq!(
        strict_schema(&json!({"type": "object"})).unwrap(),
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}

#[test]
fn what_has_no_strict_form_says_why_and_where() {
    let refused = |properties: Value| {
        strict_schema(&json!({"type": "object", "properties": properties}))
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        refused(json!({"labels": {"type": "object", "additionalProperties": {"type": "string"}}})),
        "a map with arbitrary keys has no strict form (at /properties/labels)"
    );
    assert_eq!(
        refused(json!({"extra": {"type": "object"}})),
        "an object without `properties` allows any keys (at /properties/extra)"
    );
    assert_eq!(
        refused(json!({"anything": true})),
        "a boolean schema allows any value (at /properties/anything)"
    );
    assert_eq!(
        refused(json!({"anything": {"description": "any JSON"}})),
        "a schema without a type allows any value (at /properties/anything)"
    );
    assert_eq!(
        refused(json!({"pair": {"type": "array", "prefixItems": [{"type": "string"}]}})),
        "`prefixItems` has no strict form (at /properties/pair)"
    );
    assert_eq!(
        refused(json!({"list": {"type": "array"}})),
        "an array without `items` holds any values (at /properties/list)"
    );
    assert_eq!(
        refused(json!({"both": {"allOf": [{"type": "string"}, {"type": "string"}]}})),
        "`allOf` of several schemas has no strict form (at /properties/both)"
    );
    assert_eq!(
        strict_schema(&json!({"type": "string"}))
            .unwrap_err()
            .to_string(),
        "the root is not an object (at /)"
    );
    let mut deep = json!({"type": "object", "properties": {}});
    for _ in 0..10 {
        deep = json!({"type": "object", "properties": {"next": deep}, "required": ["next"]});
    }
    assert!(
        strict_schema(&deep)
            .unwrap_err()
            .why
            .contains("nested deeper")
    );
}

#[test]
fn a_single_all_of_is_merged_and_null_stays_accepted_once() {
    let schema = json!({
        "type": "object",
        "properties": {
            "when": {"allOf": [{"type": "string", "format": "date-time"}], "description": "d"},
            "kind": {"type": ["string", "null"], "enum": ["a", null]},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        }
    });
    let lowered = strict_schema(&schema).unwrap();
    assert_eq!(
        lowered["properties"],
        json!({
            "when": {"type": ["string", "null"], "format": "date-time", "description": "d"},
            "kind": {"type": ["string", "null"], "enum": ["a", null]},
            "maybe": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        })
    );
}
