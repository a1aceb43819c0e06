//! [`ModelRoute`] and [`Prices`]: what the [`ModelRouter`](super::ModelRouter) says of one model
//! id: where it goes, and what its tokens cost.

use std::fmt;

use super::Usage;
use crate::units::Usd;

/// Dollars per million tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prices {
    /// Per million input tokens.
    pub input_per_million: Usd,
    /// Per million output tokens.
    pub output_per_million: Usd,
}

impl Prices {
    /// What `usage` costs, rounded to the nearest nano-dollar.
    pub fn cost(&self, usage: Usage) -> Usd {
        let part = |per_million: Usd, tokens: u64| {
            let nanos = (per_million.nanos() as u128 * tokens as u128 + 500_000) / 1_000_000;
            Usd::from_nanos(nanos.min(u64::MAX as u128) as u64)
        };
        part(self.input_per_million, usage.input_tokens)
            + part(self.output_per_million, usage.output_tokens)
    }
}

/// Where a model id goes, as the router resolves it: what a program prints to say which model
/// and server it talks to.
///
/// ```
/// use std::collections::BTreeMap;
/// use agboss_core::base::Env;
/// use agboss_core::model::{ModelRouter, ModelSettings};
/// use agboss_core::time::Clock;
///
/// let local = ModelSettings {
///     kind: Some("openai".into()),
///     base_url: Some("http://127.0.0.1:8080/v1".into()),
///     api_key_env: Some("LOCAL_KEY".into()),
///     ..ModelSettings::default()
/// };
/// let models = BTreeMap::from([("local".to_owned(), local)]);
/// let router = ModelRouter::from_settings(&models, &Env::from_pairs::<&str, &str>([]), &Clock::system());
/// let route = router.route_of("local/qwen2.5").unwrap();
/// assert_eq!(
///     route.to_string(),
///     "local/qwen2.5 via local at http://127.0.0.1:8080/v1 as `qwen2.5`, key from LOCAL_KEY"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRoute {
    /// The model id asked for: `local/qwen2.5`.
    pub model_id: String,
    /// The provider's name: `openai`, `local`, `openrouter`, or what
    /// [`ModelRouter::route`](super::ModelRouter::route) named it.
    pub provider: String,
    /// The model's name as the provider knows it: `qwen2.5`.
    pub model: String,
    /// The API's base URL, for the HTTP providers.
    pub base_url: Option<String>,
    /// The NAME of the variable the key is read from; `None` when none is sent.
    pub key_env: Option<String>,
}

impl fmt::Display for ModelRoute {
    /// `local/qwen2.5 via local at http://127.0.0.1:8080/v1 as `qwen2.5`, no key`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} via {}", self.model_id, self.provider)?;
        let Some(base_url) = &self.base_url else {
            return write!(f, " as `{}`", self.model);
        };
        write!(f, " at {base_url} as `{}`", self.model)?;
        match &self.key_env {
            Some(key_env) => write!(f, ", key from {key_env}"),
            None => f.write_str(", no key"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::usd;

    #[test]
    fn prices_are_per_million_tokens() {
        let prices = Prices {
            input_per_million: usd("0.15"),
            output_per_million: usd("0.60"),
        };
        let cost = prices.cost(Usage {
            input_tokens: 2_000,
            output_tokens: 500,
        });
        // 2,000 × 0.15 / 1e6 + 500 × 0.60 / 1e6 = 0.0003 + 0.0003
        assert_eq!(cost, usd("0.0006"));
    }
}
