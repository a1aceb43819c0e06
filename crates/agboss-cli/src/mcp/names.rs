//! The names `agboss g mcp` gives: kebab-case tool names ending in `-tool`, PascalCase type
//! names, snake_case field names, each made unique deterministically (docs/mcp-generate.md).

use std::collections::HashSet;

/// The longest tool name model providers accept (the macros and assembly check the same).
pub const MAX_TOOL_NAME_LEN: usize = agboss_rules::names::MAX_NAME_LEN;

/// Rust's keywords (strict and reserved, edition 2024): never used as a field name as is.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Type names the generated code uses or that would shadow what it uses.
const RESERVED_TYPES: &[&str] = &[
    "Self",
    "PlainText",
    "McpClient",
    "ToolHandler",
    "ToolError",
    "Value",
    "Option",
    "Vec",
    "String",
    "Result",
    "Box",
    "Some",
    "None",
    "Ok",
    "Err",
];

/// The ASCII words of `name`: letters outside ASCII are transliterated where they have an
/// obvious ASCII form (`é` → `e`, `ß` → `ss`), every other character separates words, and a
/// word also ends where camelCase turns upper (`getSum` → `get`, `sum`; `HTTPFetch` → `http`,
/// `fetch`). Words are lowercase.
pub fn words(name: &str) -> Vec<String> {
    let mut ascii = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_ascii() {
            ascii.push(c);
        } else {
            let folded = fold(c.to_lowercase().next().unwrap_or(c));
            if folded.is_empty() {
                ascii.push(' ');
            } else if c.is_uppercase() {
                ascii.push_str(&folded.to_ascii_uppercase());
            } else {
                ascii.push_str(folded);
            }
        }
    }
    // The same word rule as the names the macros check, on the ASCII form.
    agboss_rules::names::split_words(&ascii)
}

/// `lower-case-words`.
pub fn kebab(name: &str) -> String {
    words(name).join("-")
}

/// `UpperCamelCase` of the words of `name`; a name starting with a digit gets `Mcp` before it.
pub fn pascal(name: &str) -> String {
    let mut out = String::new();
    for word in words(name) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_uppercase());
            out.push_str(chars.as_str());
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert_str(0, "Mcp");
    }
    out
}

/// The kebab-case tool name of every server tool, in the order given (sort the server's tools
/// by name first): the words of the name, a final `tool` word dropped, `-tool` appended, cut to
/// [`MAX_TOOL_NAME_LEN`]; on a collision with an earlier one `-2`, `-3`, ... goes before
/// `-tool`. A name with no usable letter becomes `unnamed-tool`.
pub fn tool_names<S: AsRef<str>>(server_tools: &[S]) -> Vec<String> {
    let mut taken = HashSet::new();
    server_tools
        .iter()
        .map(|tool| {
            let mut stem = words(tool.as_ref());
            if stem.len() > 1 && stem.last().is_some_and(|w| w == "tool") {
                stem.pop();
            }
            let stem = if stem.is_empty() {
                "unnamed".to_owned()
            } else {
                stem.join("-")
            };
            let mut n = 1;
            loop {
                let numbered = if n == 1 {
                    String::new()
                } else {
                    format!("-{n}")
                };
                let room = MAX_TOOL_NAME_LEN - "-tool".len() - numbered.len();
                let name = format!("{}{numbered}-tool", cut(&stem, room));
                if taken.insert(name.clone()) {
                    return name;
                }
                n += 1;
            }
        })
        .collect()
}

/// `stem` cut to at most `room` characters, without a dash at the end.
fn cut(stem: &str, room: usize) -> &str {
    let end = stem.len().min(room);
    stem[..end].trim_end_matches('-')
}

/// The snake_case field name for the JSON property `property`: its words joined by `_`;
/// `field` when it has none; `field_` before a leading digit; `_` after a keyword (`type_`).
pub fn field_name(property: &str) -> String {
    let mut name = words(property).join("_");
    if name.is_empty() {
        name = "field".to_owned();
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert_str(0, "field_");
    }
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// The variant name for the string value `value` of an enum: its PascalCase; `Empty` when it
/// has no letters or digits; `V` before a leading digit.
pub fn variant_name(value: &str) -> String {
    let mut name = pascal(value);
    if let Some(rest) = name.strip_prefix("Mcp")
        && rest.starts_with(|c: char| c.is_ascii_digit())
    {
        name = format!("V{rest}");
    }
    if name.is_empty() {
        name = "Empty".to_owned();
    }
    if name == "Self" {
        name = "SelfValue".to_owned();
    }
    name
}

/// Names already used in one scope; a name asked for twice gets `2`, `3`, ... (`_2` for
/// snake_case names) until it is free.
#[derive(Debug)]
pub struct Taken {
    names: HashSet<String>,
    separator: &'static str,
}

impl Taken {
    /// A scope of type names, with the names the generated code refers to reserved.
    pub fn types() -> Taken {
        Taken {
            names: RESERVED_TYPES.iter().map(|s| (*s).to_owned()).collect(),
            separator: "",
        }
    }

    /// A scope of field names (one struct).
    pub fn fields() -> Taken {
        Taken {
            names: HashSet::new(),
            separator: "_",
        }
    }

    /// A scope of variant names (one enum).
    pub fn variants() -> Taken {
        Taken {
            names: HashSet::new(),
            separator: "",
        }
    }

    /// Whether `name` is free.
    pub fn is_free(&self, name: &str) -> bool {
        !self.names.contains(name)
    }

    /// Marks `name` as used.
    pub fn insert(&mut self, name: String) {
        self.names.insert(name);
    }

    /// `base`, or the first of `base2`, `base3`, ... that is free; marked as used.
    pub fn claim(&mut self, base: &str) -> String {
        let mut name = base.to_owned();
        let mut n = 2;
        while !self.is_free(&name) {
            name = format!("{base}{}{n}", self.separator);
            n += 1;
        }
        self.names.insert(name.clone());
        name
    }
}

/// The ASCII form of a lowercase letter outside ASCII, or `""` when it has no obvious one.
fn fold(c: char) -> &'static str {
    match c {
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'ā' | 'ă' | 'ą' => "a",
        'æ' => "ae",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'ď' | 'đ' | 'ð' => "d",
        'è' | 'é' | 'ê' | 'ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'ĥ' | 'ħ' => "h",
        'ì' | 'í' | 'î' | 'ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'ĵ' => "j",
        'ķ' => "k",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'ñ' | 'ń' | 'ņ' | 'ň' => "n",
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'œ' => "oe",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'ś' | 'ŝ' | 'ş' | 'š' => "s",
        'ß' => "ss",
        'ţ' | 'ť' | 'ŧ' => "t",
        'þ' => "th",
        'ù' | 'ú' | 'û' | 'ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'ŵ' => "w",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'ź' | 'ż' | 'ž' => "z",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_kebab_case_ending_in_tool() {
        let names = tool_names(&[
            "read_text_file",
            "getSum",
            "echo",
            "search-tool",
            "HTTPFetch",
            "Tool",
        ]);
        assert_eq!(
            names,
            [
                "read-text-file-tool",
                "get-sum-tool",
                "echo-tool",
                "search-tool",
                "http-fetch-tool",
                "tool-tool"
            ]
        );
    }

    #[test]
    fn odd_characters_are_transliterated_or_separate_words() {
        assert_eq!(tool_names(&["créer_reçu"]), ["creer-recu-tool"]);
        assert_eq!(tool_names(&["Straße.größe"]), ["strasse-grosse-tool"]);
        assert_eq!(tool_names(&["search 検索 files!"]), ["search-files-tool"]);
        assert_eq!(
            tool_names(&["検索", "!!!"]),
            ["unnamed-tool", "unnamed-2-tool"]
        );
        assert_eq!(tool_names(&["ÉCOLE"]), ["ecole-tool"]);
        assert_eq!(tool_names(&["v2.list"]), ["v2-list-tool"]);
    }

    #[test]
    fn collisions_are_numbered_in_the_given_order() {
        assert_eq!(
            tool_names(&["a", "a-2", "a_", "A"]),
            ["a-tool", "a-2-tool", "a-3-tool", "a-4-tool"]
        );
        assert_eq!(
            tool_names(&["search", "search_tool", "search-tool"]),
            ["search-tool", "search-2-tool", "search-3-tool"]
        );
    }

    #[test]
    fn long_names_are_cut_keeping_the_suffix() {
        let long = "x".repeat(100);
        let names = tool_names(&[long.as_str(), long.as_str()]);
        assert_eq!(names[0].len(), MAX_TOOL_NAME_LEN);
        assert_eq!(names[0], format!("{}-tool", "x".repeat(59)));
        assert_eq!(names[1].len(), MAX_TOOL_NAME_LEN);
        assert_eq!(names[1], format!("{}-2-tool", "x".repeat(57)));
        // A cut that ends on a word boundary leaves no double dash.
        let words = format!("{}_bbbb", "a".repeat(58));
        assert_eq!(tool_names(&[words])[0], format!("{}-tool", "a".repeat(58)));
    }

    #[test]
    fn type_and_field_names() {
        assert_eq!(pascal("read-text-file"), "ReadTextFile");
        assert_eq!(pascal("3d-render"), "Mcp3dRender");
        assert_eq!(field_name("messageType"), "message_type");
        assert_eq!(field_name("type"), "type_");
        assert_eq!(field_name("self"), "self_");
        assert_eq!(field_name("2fa"), "field_2fa");
        assert_eq!(field_name("$"), "field");
        assert_eq!(field_name("URL"), "url");
        assert_eq!(variant_name("error"), "Error");
        assert_eq!(variant_name("text/plain"), "TextPlain");
        assert_eq!(variant_name("1"), "V1");
        assert_eq!(variant_name(""), "Empty");
        assert_eq!(variant_name("self"), "SelfValue");
    }

    #[test]
    fn taken_names_are_numbered() {
        let mut types = Taken::types();
        assert_eq!(types.claim("EchoInput"), "EchoInput");
        assert_eq!(types.claim("EchoInput"), "EchoInput2");
        assert_eq!(types.claim("PlainText"), "PlainText2");
        let mut fields = Taken::fields();
        assert_eq!(fields.claim("a_b"), "a_b");
        assert_eq!(fields.claim("a_b"), "a_b_2");
    }
}
