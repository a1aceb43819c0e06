//! Keeping secrets out of configuration files: values that look like keys are refused, and
//! every `*_env` value must be the name of a variable.

use agboss_rules::codes;
use agboss_rules::vars::is_variable_name;

use crate::base::Problem;

/// Checks every string value of `value` (the whole file).
pub(super) fn check(origin: &str, value: &toml::Value, problems: &mut Vec<Problem>) {
    walk(origin, "", value, problems);
}

fn walk(origin: &str, path: &str, value: &toml::Value, problems: &mut Vec<Problem>) {
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                let path = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if key.ends_with("_env")
                    && let Some(name) = value.as_str()
                    && !is_variable_name(name)
                {
                    if looks_like_secret(name) {
                        problems.push(secret(origin, &path, name));
                    } else {
                        problems.push(
                            codes::CONFIG_ENV_NAME_INVALID
                                .finding(&[("value", &format!("{name:?}"))])
                                .about(&format!("{origin}: {path}"))
                                .into(),
                        );
                    }
                    continue;
                }
                walk(origin, &path, value, problems);
            }
        }
        toml::Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(origin, &format!("{path}[{i}]"), item, problems);
            }
        }
        toml::Value::String(text) if looks_like_secret(text) => {
            problems.push(secret(origin, path, text));
        }
        _ => {}
    }
}

fn secret(origin: &str, path: &str, text: &str) -> Problem {
    let shown: String = text.chars().take(4).collect();
    codes::CONFIG_SECRET_VALUE
        .finding(&[("origin", &origin), ("path", &path), ("shown", &shown)])
        .into()
}

/// Well-known key prefixes, or a long token mixing upper case, lower case and digits with no
/// spaces, dots or slashes (which names, URLs and paths have).
pub(crate) fn looks_like_secret(text: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "sk-",
        "sk_live_",
        "sk_test_",
        "rk_live_",
        "AIza",
        "ghp_",
        "gho_",
        "ghs_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "xapp-",
        "hf_",
        "AKIA",
        "ASIA",
        "Bearer ",
        "-----BEGIN",
    ];
    if PREFIXES
        .iter()
        .any(|p| text.starts_with(p) && text.len() >= p.len() + 12)
    {
        return true;
    }
    text.len() >= 32
        && !text.contains([' ', '.', '/', ':'])
        && text.chars().any(|c| c.is_ascii_uppercase())
        && text.chars().any(|c| c.is_ascii_lowercase())
        && text.chars().any(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_tokens_look_like_secrets() {
        for secret in [
            "sk-proj-4fG7hJ2kL9mN3pQ8rS1tU6vW",
            "sk-ant-api03-abcdefghijklmnop",
            "AIzaSyD4fG7hJ2kL9mN3pQ8rS1tU6vW0xY",
            "ghp_4fG7hJ2kL9mN3pQ8rS1tU6vW0xY2zA",
            "9fG7hJ2kL9mN3pQ8rS1tU6vW0xY2zA5bC7",
        ] {
            assert!(looks_like_secret(secret), "{secret}");
        }
    }

    #[test]
    fn names_urls_and_paths_do_not() {
        for plain in [
            "OPENAI_API_KEY",
            "https://api.openai.com/v1",
            "moonshotai/kimi-k2.6",
            "desk-application",
            "/var/lib/agboss/notes.jsonl",
            "sk-short",
        ] {
            assert!(!looks_like_secret(plain), "{plain}");
        }
    }
}
