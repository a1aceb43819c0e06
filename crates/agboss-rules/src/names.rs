//! Names: what model providers accept of a name a model sees, and how components are named
//! (kebab-case, ending in their kind: `search-issues-tool`).

use crate::codes::{self, Finding};

/// The longest name OpenAI, Anthropic and Gemini all accept.
pub const MAX_NAME_LEN: usize = 64;

/// Every rule a name a model sees breaks: only `[a-zA-Z0-9_-]` (`[tool.name-invalid]`), at most
/// [`MAX_NAME_LEN`] characters (`[tool.name-too-long]`). Names made at run time or read from
/// configuration are checked with this at assembly; `#[tool]` checks it when compiling.
///
/// ```
/// use agboss_rules::names::check_model_facing;
/// assert!(check_model_facing("answer-verdict").is_empty());
/// assert_eq!(
///     check_model_facing("answer-résumé")[0].to_string(),
///     "[tool.name-invalid] name \"answer-résumé\" has characters model providers refuse ('é'): use only letters, digits, `_` and `-`"
/// );
/// ```
pub fn check_model_facing(name: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut bad: Vec<char> = Vec::new();
    for c in name.chars() {
        let allowed = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if !allowed && !bad.contains(&c) {
            bad.push(c);
        }
    }
    if !bad.is_empty() || name.is_empty() {
        let chars = if bad.is_empty() {
            "it is empty".to_owned()
        } else {
            bad.iter()
                .map(|c| format!("{c:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        findings.push(
            codes::TOOL_NAME_INVALID.finding(&[("name", &format!("{name:?}")), ("chars", &chars)]),
        );
    }
    if let Some(over) = too_long(name) {
        findings.push(codes::TOOL_NAME_TOO_LONG.finding(&[
            ("name", &format!("{name:?}")),
            ("len", &name.chars().count()),
            ("max", &MAX_NAME_LEN),
            ("over", &over),
        ]));
    }
    findings
}

/// Every rule a tool's name breaks: those of [`check_model_facing`], and kebab-case ending in
/// `-tool` (`[name.kind-suffix]`, with the name to use).
pub fn check_tool(name: &str) -> Vec<Finding> {
    let mut findings = check_model_facing(name);
    findings.extend(check_kind_suffix(name, "tool"));
    findings
}

/// `[name.kind-suffix]` if `name` is not kebab-case ending in `-{kind}`, with the name to use.
///
/// ```
/// use agboss_rules::names::check_kind_suffix;
/// assert!(check_kind_suffix("refund-approval-channel", "channel").is_none());
/// assert!(check_kind_suffix("RefundApproval", "channel").unwrap().message.ends_with("name it \"refund-approval-channel\""));
/// assert!(check_kind_suffix("Guides", "rag").unwrap().message.starts_with("knowledge base name \"Guides\""));
/// ```
pub fn check_kind_suffix(name: &str, kind: &str) -> Option<Finding> {
    (!is_kebab_with_suffix(name, kind)).then(|| {
        // A knowledge base's suffix is `-rag`; its name is a knowledge base's name.
        let what = match kind {
            "rag" => "knowledge base",
            other => other,
        };
        codes::NAME_KIND_SUFFIX.finding(&[
            ("what", &what),
            ("kind", &kind),
            ("name", &format!("{name:?}")),
            ("suggestion", &format!("{:?}", suggest(name, kind))),
        ])
    })
}

/// Every rule a component's name breaks: [`check_kind_suffix`] for `kind`, and for tools the
/// rules of names models see.
///
/// ```
/// use agboss_rules::names::check_component;
/// assert!(check_component("search-issues-tool", "tool").is_empty());
/// assert_eq!(check_component("search_issues", "tool").len(), 1);
/// ```
pub fn check_component(name: &str, kind: &str) -> Vec<Finding> {
    match kind {
        "tool" => check_tool(name),
        "rag" => check_knowledge(name),
        _ => check_kind_suffix(name, kind).into_iter().collect(),
    }
}

/// The name of the tool an agent searches knowledge base `name` with, in tool mode:
/// `search-<name>-tool`.
///
/// ```
/// assert_eq!(agboss_rules::names::search_tool_name("jobs-rag"), "search-jobs-rag-tool");
/// ```
pub fn search_tool_name(name: &str) -> String {
    format!("search-{name}-tool")
}

/// What the model reads of knowledge base `name`'s search tool: what the base holds (its
/// `description`) and what the tool returns. One text, so that every base's tool reads alike.
///
/// ```
/// let text = agboss_rules::names::search_tool_description("jobs-rag", "Open positions.");
/// assert!(text.starts_with("Searches the knowledge base jobs-rag: Open positions. Returns"));
/// ```
pub fn search_tool_description(name: &str, description: &str) -> String {
    format!(
        "Searches the knowledge base {name}: {} Returns the passages that best match the query's words, best first, each with its source, the headings above it and its lines, to cite.",
        description.trim()
    )
}

/// Every rule a knowledge base's name breaks: kebab-case ending in `-rag`
/// (`[name.kind-suffix]`), and its search tool's name ([`search_tool_name`]) a name models
/// accept, so at most 52 characters of its own.
///
/// ```
/// use agboss_rules::names::check_knowledge;
/// assert!(check_knowledge("jobs-rag").is_empty());
/// assert!(check_knowledge("jobs")[0].to_string().ends_with("name it \"jobs-rag\""));
/// assert!(check_knowledge(&format!("{}-rag", "a".repeat(60)))[0].to_string().starts_with("[tool.name-too-long]"));
/// ```
pub fn check_knowledge(name: &str) -> Vec<Finding> {
    let mut findings: Vec<Finding> = check_kind_suffix(name, "rag").into_iter().collect();
    findings.extend(check_model_facing(&search_tool_name(name)));
    findings
}

/// Every rule the name of an agent (or another component named without a suffix, `kind`)
/// breaks: kebab-case (`[name.kebab-case]`), at most [`MAX_NAME_LEN`] characters.
///
/// ```
/// use agboss_rules::names::check_kebab;
/// assert!(check_kebab("job-scout-2", "agent").is_empty());
/// assert_eq!(
///     check_kebab("JobScout", "agent")[0].to_string(),
///     "[name.kebab-case] agent name \"JobScout\" must be kebab-case: name it \"job-scout\""
/// );
/// ```
pub fn check_kebab(name: &str, kind: &str) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !is_kebab(name) {
        findings.push(codes::NAME_KEBAB_CASE.finding(&[
            ("kind", &kind),
            ("name", &format!("{name:?}")),
            ("suggestion", &format!("{:?}", kebab(name))),
        ]));
    }
    if let Some(over) = too_long(name) {
        findings.push(codes::AGENT_NAME_TOO_LONG.finding(&[
            ("name", &format!("{name:?}")),
            ("len", &name.chars().count()),
            ("max", &MAX_NAME_LEN),
            ("over", &over),
        ]));
    }
    findings
}

/// Every rule a credential's name breaks (a tool's `needs`, an MCP server's `credential`):
/// kebab-case, at most [`MAX_NAME_LEN`] characters, as [`check_kebab`] says.
///
/// ```
/// use agboss_rules::names::check_credential;
/// assert!(check_credential("github").is_empty());
/// assert!(check_credential("GitHub")[0].to_string().starts_with("[name.kebab-case] credential name"));
/// ```
pub fn check_credential(name: &str) -> Vec<Finding> {
    check_kebab(name, "credential")
}

/// By how many characters `name` is over [`MAX_NAME_LEN`], if it is.
fn too_long(name: &str) -> Option<usize> {
    name.chars()
        .count()
        .checked_sub(MAX_NAME_LEN)
        .filter(|n| *n > 0)
}

/// `lower-case-words-2`: ASCII lower case and digits, words joined by single `-`.
pub fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// `lower-case-words-{kind}`.
pub fn is_kebab_with_suffix(name: &str, kind: &str) -> bool {
    name.strip_suffix(kind)
        .and_then(|s| s.strip_suffix('-'))
        .is_some_and(is_kebab)
}

/// `name` in kebab-case: `JobList` -> `job-list`, `search_issues` -> `search-issues`
/// (`my-agent` when nothing is left).
pub fn kebab(name: &str) -> String {
    let words = split_words(name);
    if words.is_empty() {
        "my-agent".into()
    } else {
        words.join("-")
    }
}

/// The kebab-case name with the kind's suffix to use instead: `search_issues` ->
/// `search-issues-tool`, `SearchIssuesTool` -> `search-issues-tool`.
pub fn suggest(name: &str, kind: &str) -> String {
    let mut words = split_words(name);
    if words.last().is_some_and(|w| w == kind) {
        words.pop();
    }
    if words.is_empty() {
        words.push("my".into());
    }
    words.push(kind.into());
    words.join("-")
}

/// The words of `name`: split at anything not alphanumeric and where camelCase turns upper.
/// Letters outside ASCII are kept (lowercased), so that a name the providers refuse is
/// reported as such instead of being quietly changed.
pub fn split_words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let boundary = c.is_uppercase()
            && i > 0
            && (chars[i - 1].is_lowercase()
                || chars[i - 1].is_numeric()
                || (chars[i - 1].is_uppercase()
                    && chars.get(i + 1).is_some_and(|n| n.is_lowercase())));
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_names_with_the_suffix_pass() {
        assert!(check_tool("search-issues-tool").is_empty());
        assert!(check_tool("v2-search-tool").is_empty());
    }

    #[test]
    fn suggestions_are_the_kebab_form() {
        assert_eq!(suggest("search_issues", "tool"), "search-issues-tool");
        assert_eq!(suggest("SearchIssuesTool", "tool"), "search-issues-tool");
        assert_eq!(suggest("search-issues", "tool"), "search-issues-tool");
        assert_eq!(suggest("HTTPFetch", "tool"), "http-fetch-tool");
        assert_eq!(suggest("", "tool"), "my-tool");
        assert_eq!(suggest("tool", "tool"), "my-tool");
    }

    #[test]
    fn every_broken_rule_is_reported() {
        let long = format!("{}-tool", "a".repeat(70));
        let findings = check_tool(&long);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].code, &codes::TOOL_NAME_TOO_LONG);
        assert!(findings[0].message.ends_with("shorten it by 11"));

        let findings = check_tool("search issues.tool");
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!(findings[0].code, &codes::TOOL_NAME_INVALID);
        assert!(findings[0].message.contains("' ', '.'"));
        assert!(
            findings[1]
                .message
                .contains("name it \"search-issues-tool\"")
        );
        assert_eq!(
            check_model_facing("")[0].message,
            "name \"\" has characters model providers refuse (it is empty): use only letters, digits, `_` and `-`"
        );
    }

    #[test]
    fn agents_are_kebab_case_without_a_suffix() {
        assert!(check_kebab("scout", "agent").is_empty());
        let long = "a".repeat(65);
        assert_eq!(
            check_kebab(&long, "agent")[0].to_string(),
            format!(
                "[agent.name-too-long] agent name {long:?} is 65 characters long: at most 64; shorten it by 1"
            )
        );
        assert!(
            check_kebab(&"a".repeat(64), "agent").is_empty(),
            "64 is allowed"
        );
        assert_eq!(kebab("JobList"), "job-list");
        assert_eq!(kebab("Résumé"), "résumé", "letters are kept, not dropped");
    }

    #[test]
    fn uppercase_and_underscores_are_not_kebab() {
        assert!(!is_kebab_with_suffix("Search-tool", "tool"));
        assert!(!is_kebab_with_suffix("search_x-tool", "tool"));
        assert!(!is_kebab_with_suffix("-tool", "tool"));
        assert!(!is_kebab_with_suffix("a--b-tool", "tool"));
        assert!(!is_kebab_with_suffix("searchtool", "tool"));
    }
}
