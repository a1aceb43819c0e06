//! Writing the generated module: the text is laid out as rustfmt lays it out, so that
//! formatting it changes nothing in the common cases.

use std::fmt::Write as _;

use super::types::{FieldDef, TypeDef};

/// The widest line rustfmt allows by default.
const MAX_WIDTH: usize = 100;

/// `text` as a Rust string literal, every quote, backslash and control character escaped.
pub fn literal(text: &str) -> String {
    format!("{text:?}")
}

/// A list of string literals: `["a", "b"]`, or one per line when `key = [..],` at `indent`
/// would be wider than rustfmt's limit.
pub fn list(key: &str, items: &[String], indent: &str) -> String {
    let inline = format!(
        "{indent}{key} = [{}],",
        items
            .iter()
            .map(|i| literal(i))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if inline.len() <= MAX_WIDTH {
        return format!("{inline}\n");
    }
    let mut out = format!("{indent}{key} = [\n");
    for item in items {
        let _ = writeln!(out, "{indent}    {},", literal(item));
    }
    let _ = writeln!(out, "{indent}],");
    out
}

/// An attribute `#[name(k = v, ..)]` on one line when it fits, else one key per line with a
/// trailing comma (rustfmt leaves such attributes as they are).
pub fn attribute(name: &str, pairs: &[(&str, String)]) -> String {
    let inline = format!(
        "#[{name}({})]",
        pairs
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if inline.len() <= MAX_WIDTH {
        return format!("{inline}\n");
    }
    let mut out = format!("#[{name}(\n");
    for (key, value) in pairs {
        let _ = writeln!(out, "    {key} = {value},");
    }
    out.push_str(")]\n");
    out
}

/// A description as documentation at `indent`: `///` lines, or, when rustdoc would read part of
/// it as a code block (and run it as a doctest), a `#[schemars(description = ..)]` that gives the
/// model the same text. Returns the lines and whether they are a doc comment.
pub fn doc(text: &str, indent: &str) -> (String, bool) {
    let clean: String = text.chars().filter(|c| !is_hidden(*c)).collect();
    let lines: Vec<&str> = clean.lines().map(str::trim_end).collect();
    let code_like = lines.iter().any(|line| {
        let trimmed = line.trim_start();
        trimmed.starts_with("```")
            || trimmed.starts_with("~~~")
            || line.starts_with("    ")
            || line.starts_with('\t')
    });
    if code_like {
        return (
            format!(
                "{indent}#[schemars(description = {})]\n",
                literal(clean.trim())
            ),
            false,
        );
    }
    let mut out = String::new();
    for line in lines {
        if line.is_empty() {
            let _ = writeln!(out, "{indent}///");
        } else {
            let _ = writeln!(out, "{indent}/// {line}");
        }
    }
    (out, true)
}

/// Characters that may not stand in a comment: controls (a bare CR is an error) and the
/// invisible ones that change the direction of text (a denied lint).
fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}')
}

/// `text` on one line, fit for a comment: line breaks and hidden characters become spaces.
pub fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if is_hidden(c) || c == '\n' || c == '\t' {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// A plain `//` comment at `indent`, for notes to the reader of the code.
pub fn comment(text: &str, indent: &str) -> String {
    let clean: String = text.chars().filter(|c| !is_hidden(*c)).collect();
    clean
        .lines()
        .map(|line| format!("{indent}// {}\n", line.trim_end()))
        .collect()
}

/// A `#[dto]` struct or enum.
pub fn type_def(def: &TypeDef) -> String {
    let mut out = String::new();
    match def {
        TypeDef::Struct {
            name,
            doc: text,
            fields,
            note,
        } => {
            if let Some(note) = note {
                out.push_str(&comment(note, ""));
            }
            let (doc_text, documented) = doc(text, "");
            let rendered: Vec<(String, bool)> = fields.iter().map(field).collect();
            let allow = !documented || rendered.iter().any(|(_, documented)| !documented);
            out.push_str(&item_head(
                &doc_text,
                documented,
                allow.then_some("missing_docs"),
            ));
            if fields.is_empty() {
                let _ = writeln!(out, "pub struct {name} {{}}");
            } else {
                let _ = writeln!(out, "pub struct {name} {{");
                for (text, _) in rendered {
                    out.push_str(&text);
                }
                out.push_str("}\n");
            }
        }
        TypeDef::Enum {
            name,
            doc: text,
            variants,
        } => {
            let (doc_text, documented) = doc(text, "");
            let allow = "missing_docs, clippy::enum_variant_names";
            out.push_str(&item_head(&doc_text, documented, Some(allow)));
            let _ = writeln!(out, "pub enum {name} {{");
            for (variant, value) in variants {
                let _ = writeln!(out, "    #[serde(rename = {})]", literal(value));
                let _ = writeln!(out, "    {variant},");
            }
            out.push_str("}\n");
        }
    }
    out
}

/// The lines before `pub struct` or `pub enum`: the doc comment, `#[allow(..)]`, `#[dto]` (and
/// the `#[schemars(description)]` that stands for a doc comment, which goes after it).
fn item_head(doc_text: &str, documented: bool, allow: Option<&str>) -> String {
    let mut out = String::new();
    if documented {
        out.push_str(doc_text);
    }
    if let Some(allow) = allow {
        let _ = writeln!(out, "#[allow({allow})]");
    }
    out.push_str("#[dto]\n");
    if !documented {
        out.push_str(doc_text);
    }
    out
}

/// One field, and whether it has a doc comment.
fn field(field: &FieldDef) -> (String, bool) {
    let mut out = String::new();
    if let Some(note) = &field.note {
        out.push_str(&comment(
            &format!("Not mapped, so any JSON value: {note}."),
            "    ",
        ));
    }
    let mut documented = false;
    match &field.doc {
        Some(text) => {
            let (text, is_doc) = doc(text, "    ");
            out.push_str(&text);
            documented = is_doc;
        }
        None => out.push_str(&comment(
            "The server gives no description: write a `///` line here, which is what the model reads.",
            "    ",
        )),
    }
    let mut serde = Vec::new();
    if field.name != field.property {
        serde.push(format!("rename = {}", literal(&field.property)));
    }
    if field.skip_none {
        serde.push("skip_serializing_if = \"Option::is_none\"".to_owned());
    }
    if !serde.is_empty() {
        let inline = format!("    #[serde({})]", serde.join(", "));
        if inline.len() <= MAX_WIDTH {
            let _ = writeln!(out, "{inline}");
        } else {
            out.push_str("    #[serde(\n");
            let last = serde.len() - 1;
            for (i, part) in serde.iter().enumerate() {
                let _ = writeln!(out, "        {part}{}", if i == last { "" } else { "," });
            }
            out.push_str("    )]\n");
        }
    }
    let ty = field.ty.render();
    let line = format!("    pub {}: {ty},", field.name);
    if line.len() <= MAX_WIDTH {
        let _ = writeln!(out, "{line}");
    } else {
        let _ = writeln!(out, "    pub {}:\n        {ty},", field.name);
    }
    (out, documented)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_escape_quotes_and_controls() {
        assert_eq!(literal(r#"say "hi"\now"#), r#""say \"hi\"\\now""#);
        assert_eq!(literal("a\nb\u{202E}"), r#""a\nb\u{202e}""#);
    }

    #[test]
    fn docs_are_comments_unless_rustdoc_would_test_them() {
        assert_eq!(doc("One line */ here", "").0, "/// One line */ here\n");
        assert_eq!(
            doc("a\r\n\nb\u{202E}", "    ").0,
            "    /// a\n    ///\n    /// b\n"
        );
        let (text, is_doc) = doc("Example:\n```\nrm -rf /\n```", "");
        assert!(!is_doc);
        assert_eq!(
            text,
            "#[schemars(description = \"Example:\\n```\\nrm -rf /\\n```\")]\n"
        );
        assert!(!doc("x\n    indented", "").1);
    }
}
