//! Environment variables by NAME: what a name may be, and `${VAR}` references in text.
//!
//! Configuration and declarations hold the names of variables, never their values; the
//! values are read when a service is made.

use crate::codes::{self, Finding};

/// `OPENAI_API_KEY`: ASCII letters, digits and `_`, not starting with a digit.
///
/// ```
/// use agboss_rules::vars::is_variable_name;
/// assert!(is_variable_name("NOTES_DIR"));
/// assert!(!is_variable_name("2FAST"));
/// assert!(!is_variable_name("sk-proj-123"));
/// ```
pub fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `Ok` for a variable name, else `[config.env-name-invalid]` saying what one looks like.
pub fn check_variable_name(name: &str) -> Result<(), Finding> {
    if is_variable_name(name) {
        Ok(())
    } else {
        Err(codes::CONFIG_ENV_NAME_INVALID.finding(&[("value", &format!("{name:?}"))]))
    }
}

/// The names of the `${VAR}` references in `text`, in order (an unclosed `${` ends the search).
///
/// ```
/// use agboss_rules::vars::variables_in;
/// assert_eq!(variables_in("${A}/x/${B_2}"), ["A", "B_2"]);
/// assert!(variables_in("${unclosed").is_empty());
/// ```
pub fn variables_in(text: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else { break };
        names.push(&after[..end]);
        rest = &after[end + 1..];
    }
    names
}

/// `text` with every `${VAR}` replaced by `lookup(VAR)`; the name of the first variable
/// `lookup` has no value for, if one. An unclosed `${` stays as written.
///
/// ```
/// use agboss_rules::vars::expand;
/// let env = |name: &str| (name == "PORT").then(|| "3001".to_owned());
/// assert_eq!(expand("http://127.0.0.1:${PORT}/mcp", env), Ok("http://127.0.0.1:3001/mcp".into()));
/// assert_eq!(expand("${ROOT}/a", env), Err("ROOT".into()));
/// ```
pub fn expand(text: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        out.push_str(&lookup(name).ok_or_else(|| name.to_owned())?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The variables model providers read their API keys from. A stdio MCP server, a child of the
/// application, does not inherit them from the application's environment unless its
/// `#[mcp_server(env = [..])]` lists them: a server gets its own credential, never the model
/// provider's.
pub const MODEL_PROVIDER_KEYS: &[&str] = &[
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENROUTER_API_KEY",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansion_keeps_what_is_not_a_reference() {
        let none = |_: &str| None;
        assert_eq!(expand("plain", none), Ok("plain".into()));
        assert_eq!(expand("${unclosed", none), Ok("${unclosed".into()));
        assert_eq!(expand("a$b{c}", none), Ok("a$b{c}".into()));
    }

    #[test]
    fn a_bad_name_says_what_a_good_one_looks_like() {
        assert_eq!(
            check_variable_name("notes dir").unwrap_err().to_string(),
            "[config.env-name-invalid] \"notes dir\" is not the name of an environment variable: use letters, digits and `_`, not starting with a digit, such as \"NOTES_DIR\": give the variable's NAME, never its value"
        );
    }
}
