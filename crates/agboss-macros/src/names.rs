//! Component names: kebab-case with a kind suffix, and what model providers accept.

/// The longest name OpenAI, Anthropic and Gemini all accept.
pub const MAX_NAME_LEN: usize = 64;

/// Every rule `name` breaks as a component of `kind` (`"tool"`), each message with its code
/// and the fix.
pub fn check(name: &str, kind: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let bad: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-'))
        .collect();
    if !bad.is_empty() {
        let listed: Vec<String> = dedup(bad).iter().map(|c| format!("{c:?}")).collect();
        problems.push(format!(
            "[{kind}.name-invalid] {kind} name {name:?} has characters model providers refuse ({}): use only letters, digits, `_` and `-`",
            listed.join(", ")
        ));
    }
    let len = name.chars().count();
    if len > MAX_NAME_LEN {
        problems.push(format!(
            "[{kind}.name-too-long] {kind} name {name:?} is {len} characters long: model providers accept at most {MAX_NAME_LEN}; shorten it by {}",
            len - MAX_NAME_LEN
        ));
    }
    if !is_kebab_with_suffix(name, kind) {
        problems.push(format!(
            "[name.kind-suffix] {kind} name {name:?} must be kebab-case ending in `-{kind}`: name it {:?}",
            suggest(name, kind)
        ));
    }
    problems
}

/// Every rule an agent's name breaks: agents are named in kebab-case, without a kind suffix
/// (`scout`, `notes`), at most 64 characters.
pub fn check_agent(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if !is_kebab(name) {
        problems.push(format!(
            "[name.kebab-case] agent name {name:?} must be kebab-case: name it {:?}",
            kebab(name)
        ));
    }
    let len = name.chars().count();
    if len > MAX_NAME_LEN {
        problems.push(format!(
            "[agent.name-too-long] agent name {name:?} is {len} characters long: at most {MAX_NAME_LEN}; shorten it by {}",
            len - MAX_NAME_LEN
        ));
    }
    problems
}

/// `lower-case-words`.
pub fn is_kebab(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

/// `name` in kebab-case: `JobList` -> `job-list`, `search_issues` -> `search-issues`.
pub fn kebab(name: &str) -> String {
    let words = split_words(name);
    if words.is_empty() {
        "my-agent".into()
    } else {
        words.join("-")
    }
}

/// `lower-case-words-{kind}`.
pub fn is_kebab_with_suffix(name: &str, kind: &str) -> bool {
    name.strip_suffix(kind)
        .and_then(|s| s.strip_suffix('-'))
        .is_some_and(is_kebab)
}

/// The kebab-case name to use instead: `search_issues` -> `search-issues-tool`,
/// `SearchIssuesTool` -> `search-issues-tool`.
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
/// Letters outside ASCII are kept (lowercased), so that a name the providers refuse is reported
/// as such instead of being quietly changed.
fn split_words(name: &str) -> Vec<String> {
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

fn dedup(mut chars: Vec<char>) -> Vec<char> {
    let mut seen = Vec::new();
    chars.retain(|c| {
        if seen.contains(c) {
            false
        } else {
            seen.push(*c);
            true
        }
    });
    chars
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kebab_names_with_the_suffix_pass() {
        assert!(check("search-issues-tool", "tool").is_empty());
        assert!(check("v2-search-tool", "tool").is_empty());
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
        let problems = check(&long, "tool");
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("[tool.name-too-long]"));

        let problems = check("search issues.tool", "tool");
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(problems[0].starts_with("[tool.name-invalid]"));
        assert!(problems[0].contains("' ', '.'"));
        assert!(problems[1].contains("name it \"search-issues-tool\""));
    }

    #[test]
    fn agents_are_kebab_case_without_a_suffix() {
        assert!(check_agent("scout").is_empty());
        assert!(check_agent("job-scout-2").is_empty());
        assert_eq!(
            check_agent("JobScout"),
            ["[name.kebab-case] agent name \"JobScout\" must be kebab-case: name it \"job-scout\""]
        );
        let long = "a".repeat(65);
        assert_eq!(
            check_agent(&long),
            [format!(
                "[agent.name-too-long] agent name {long:?} is 65 characters long: at most 64; shorten it by 1"
            )]
        );
        assert!(check_agent(&"a".repeat(64)).is_empty(), "64 is allowed");
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
