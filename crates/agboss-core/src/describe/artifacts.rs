//! What `describe` shows of a tool's artifacts: the kind its results are kept as and over which
//! size (`result_kind`, `artifact_above`), and the arguments that take references (`wants`).

use serde_json::{Map, Value};

use crate::tool::ToolDescriptor;

/// For the text: `, result kind dataset/rows above 16 KB` (`above its bound` without
/// `artifact_above`), `, wants dataset: dataset/rows`; nothing for a tool that declares none.
pub(super) fn text(descriptor: &ToolDescriptor) -> String {
    let mut out = String::new();
    if let Some(kind) = descriptor.result_kind() {
        match kind.above {
            Some(above) => out.push_str(&format!(", result kind {} above {above}", kind.kind)),
            None => out.push_str(&format!(", result kind {} above its bound", kind.kind)),
        }
    }
    if !descriptor.wants().is_empty() {
        let wants: Vec<String> = descriptor
            .wants()
            .iter()
            .map(|w| format!("{}: {}", w.argument, w.kind))
            .collect();
        out.push_str(&format!(", wants {}", wants.join(", ")));
    }
    out
}

/// For the JSON: `resultKind` (`kind`, `artifactAbove` in bytes or `null`: above its bound)
/// and `wants` (argument to kind), only when the tool declares them.
pub(super) fn json(descriptor: &ToolDescriptor, schema: &mut Value) {
    if let Some(kind) = descriptor.result_kind() {
        let above = kind.above.map_or(Value::Null, |a| Value::from(a.get()));
        schema["resultKind"] = serde_json::json!({ "kind": kind.kind, "artifactAbove": above });
    }
    if !descriptor.wants().is_empty() {
        let wants: Map<String, Value> = descriptor
            .wants()
            .iter()
            .map(|w| (w.argument.to_owned(), Value::from(w.kind)))
            .collect();
        schema["wants"] = Value::Object(wants);
    }
}
