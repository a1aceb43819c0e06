//! Canonical JSON and its SHA-256: one way to write a JSON value so that equal values give equal
//! bytes on every platform and in every process, and the hash of those bytes.
//!
//! Pinned MCP definitions (`mcp::pins`) and workflows' configuration hashes
//! (`assembly::config_hash`) are both hashed this way.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `value` as canonical JSON: object keys sorted by their bytes at every level, no spaces,
/// serde_json's escapes and numbers.
///
/// ```
/// use agboss_core::base::canonical_json;
///
/// let value = serde_json::json!({"b": 1, "a": [{"d": 2, "c": 3}]});
/// assert_eq!(canonical_json(&value), r#"{"a":[{"c":3,"d":2}],"b":1}"#);
/// ```
pub fn canonical_json(value: &Value) -> String {
    sorted(value).to_string()
}

/// `sha256:<64 lowercase hex digits>` of `text`'s bytes.
///
/// ```
/// use agboss_core::base::sha256_tagged;
///
/// assert_eq!(
///     sha256_tagged(""),
///     "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
/// );
/// ```
pub fn sha256_tagged(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let mut tagged = String::with_capacity(7 + 64);
    tagged.push_str("sha256:");
    for byte in digest.iter() {
        tagged.push_str(&format!("{byte:02x}"));
    }
    tagged
}

fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            Value::Object(
                keys.into_iter()
                    .map(|key| (key.clone(), sorted(&map[key])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_are_sorted_at_every_level_whatever_order_they_were_inserted_in() {
        let one = json!({"b": {"y": 1, "x": [true, null]}, "a": "é\n"});
        let mut other = serde_json::Map::new();
        other.insert("a".into(), json!("é\n"));
        other.insert("b".into(), json!({"x": [true, null], "y": 1}));
        assert_eq!(canonical_json(&one), canonical_json(&Value::Object(other)));
        assert_eq!(
            canonical_json(&one),
            r#"{"a":"é\n","b":{"x":[true,null],"y":1}}"#
        );
    }

    #[test]
    fn the_tagged_hash_is_the_sha256_of_the_bytes() {
        assert_eq!(
            sha256_tagged("abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
