//! Model ids: `vendor/model`, which the router reads to pick a provider.

use crate::codes::{self, Finding};

/// `Ok((vendor, model))` for `vendor/model` (neither part empty, no space in the vendor), else
/// `[agent.model-invalid]`.
///
/// ```
/// use agboss_rules::model_id::check;
/// assert_eq!(check("openai/gpt-5-mini"), Ok(("openai", "gpt-5-mini")));
/// assert_eq!(check("moonshotai/kimi-k2.6"), Ok(("moonshotai", "kimi-k2.6")));
/// assert!(check("gpt4").is_err());
/// ```
pub fn check(model: &str) -> Result<(&str, &str), Finding> {
    match model.split_once('/') {
        Some((vendor, name))
            if !vendor.is_empty() && !name.is_empty() && !vendor.contains(char::is_whitespace) =>
        {
            Ok((vendor, name))
        }
        _ => Err(codes::AGENT_MODEL_INVALID.finding(&[("model", &format!("{model:?}"))])),
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn the_message_gives_two_examples() {
        assert_eq!(
            check("/gpt").unwrap_err().to_string(),
            "[agent.model-invalid] model \"/gpt\" is not `vendor/model`: write it as the router knows it, such as \"openai/gpt-5-mini\" or \"moonshotai/kimi-k2.6\""
        );
        assert!(check("open ai/gpt").is_err());
        assert!(check("openai/").is_err());
    }
}
