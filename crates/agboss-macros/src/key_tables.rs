//! A test that every key an attribute accepts is in the table of its rustdoc (`lib.rs`), so
//! a key added to an attribute is documented where users read the attribute.

use crate::{agent, channel, channel_role, dto, knowledge, mcp_server, tool};

/// The doc comment of `pub fn name` in `lib.rs`.
fn doc_of(lib: &str, name: &str) -> String {
    let lines: Vec<&str> = lib.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with(&format!("pub fn {name}(")))
        .unwrap_or_else(|| panic!("lib.rs has no `pub fn {name}(`"));
    let mut doc: Vec<&str> = lines[..at]
        .iter()
        .rev()
        .skip_while(|l| l.starts_with("#["))
        .take_while(|l| l.starts_with("///"))
        .copied()
        .collect();
    doc.reverse();
    doc.join("\n")
}

/// The keys a doc documents: those in backticks in the first cell of its table's rows, or,
/// without a table, those written as `#[name(key`.
fn documented(doc: &str, name: &str, key: &str) -> bool {
    let rows: Vec<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("/// | "))
        .filter_map(|row| row.split(" | ").next())
        .collect();
    if rows.is_empty() {
        return doc.contains(&format!("#[{name}({key}"));
    }
    rows.iter().any(|cell| {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .any(|k| k.split([' ', '=', '(']).next() == Some(key))
    })
}

#[test]
fn every_key_is_in_its_attribute_s_table() {
    let lib = include_str!("lib.rs");
    let attributes: [(&str, &[&str]); 8] = [
        (tool::TOOL.name, tool::TOOL.keys),
        (tool::MCP_TOOL.name, tool::MCP_TOOL.keys),
        (mcp_server::MCP_SERVER.name, mcp_server::MCP_SERVER.keys),
        (dto::DTO.name, dto::DTO.keys),
        (agent::AGENT.name, agent::AGENT.keys),
        (
            channel_role::CHANNEL_ROLE.name,
            channel_role::CHANNEL_ROLE.keys,
        ),
        (channel::CHANNEL.name, channel::CHANNEL.keys),
        (knowledge::KNOWLEDGE.name, knowledge::KNOWLEDGE.keys),
    ];
    let mut missing = Vec::new();
    for (name, keys) in attributes {
        let doc = doc_of(lib, name);
        for key in keys {
            if !documented(&doc, name, key) {
                missing.push(format!("#[{name}] `{key}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keys missing from their attribute's table in lib.rs:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_table_reader_sees_what_it_must() {
    let doc = "/// | key | value |\n/// |---|---|\n/// | `name`, `args = [..]` | x |\n/// | `a` / `b` | y |";
    assert!(documented(doc, "t", "name") && documented(doc, "t", "args"));
    assert!(documented(doc, "t", "a") && documented(doc, "t", "b"));
    assert!(!documented(doc, "t", "x") && !documented(doc, "t", "value"));
    assert!(documented("/// `#[dto(open)]` accepts", "dto", "open"));
}
