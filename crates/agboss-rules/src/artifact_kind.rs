//! What a kind of artifact may be (`#[tool(result_kind = "dataset/rows")]`, and each kind a
//! `wants` names): checked by the macros when compiling and by assembly, from this one rule.
//!
//! A kind is matched exactly when a reference is redeemed, so it is written one way only:
//! lower-case ASCII words of letters and digits, joined by one `/`, `-`, `_` or `.`, at most 64
//! bytes. Nothing in it reads as a wildcard or a hierarchy.
//!
//! ```
//! use agboss_rules::artifact_kind;
//!
//! assert!(artifact_kind::check("dataset/rows").is_ok());
//! assert_eq!(
//!     artifact_kind::check("dataset/*").unwrap_err(),
//!     "`*` is not allowed (a kind is matched exactly, never as a pattern)"
//! );
//! ```

/// The longest kind, in bytes.
pub const MAX_LEN: usize = 64;

/// `Ok` when `kind` is a kind of artifact, else why not (a phrase for
/// [`TOOL_RESULT_KIND_INVALID`](crate::codes::TOOL_RESULT_KIND_INVALID)'s `{reason}`).
pub fn check(kind: &str) -> Result<(), String> {
    if kind.trim().is_empty() {
        return Err("it is empty (a reference is redeemed against its kind)".into());
    }
    if kind.len() > MAX_LEN {
        return Err(format!(
            "it is {} bytes long, more than {MAX_LEN}",
            kind.len()
        ));
    }
    if let Some(c) = kind
        .chars()
        .find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || "/-_.".contains(*c)))
    {
        return Err(match c {
            '*' | '?' => {
                format!("`{c}` is not allowed (a kind is matched exactly, never as a pattern)")
            }
            c if c.is_ascii_uppercase() => format!("`{c}` is upper-case"),
            c => format!("`{c}` is not allowed"),
        });
    }
    let separator = |c: char| "/-_.".contains(c);
    if kind.starts_with(separator) || kind.ends_with(separator) {
        return Err("it starts or ends with a separator".into());
    }
    let bytes = kind.as_bytes();
    if bytes
        .windows(2)
        .any(|pair| separator(pair[0] as char) && separator(pair[1] as char))
    {
        return Err("two separators follow each other".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn kinds_are_lower_case_words_joined_by_one_separator() {
        for good in ["dataset/rows", "tool-result/get_rows", "a", "report.v2/pdf"] {
            assert!(check(good).is_ok(), "{good}");
        }
        for (bad, reason) in [
            ("", "it is empty (a reference is redeemed against its kind)"),
            (
                "  ",
                "it is empty (a reference is redeemed against its kind)",
            ),
            ("Dataset/rows", "`D` is upper-case"),
            ("dataset rows", "` ` is not allowed"),
            (
                "dataset/**",
                "`*` is not allowed (a kind is matched exactly, never as a pattern)",
            ),
            ("/rows", "it starts or ends with a separator"),
            ("dataset//rows", "two separators follow each other"),
        ] {
            assert_eq!(check(bad).unwrap_err(), reason, "{bad:?}");
        }
        assert!(check(&"a".repeat(65)).unwrap_err().contains("more than 64"));
    }
}
