//! [`ModelRouter`]: which provider answers a model id, and what its tokens cost.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use super::ModelSettings;
use super::providers::{ProviderSettings, WireFormat, connect, normalized_base_url};
use super::{ChatModel, ModelError, Usage};
use crate::base::Env;
use crate::time::Clock;
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

struct Route {
    /// The vendor routed here, or `*` for every other.
    vendor: String,
    provider: String,
    model: Arc<dyn ChatModel>,
    strip_vendor: bool,
    /// Where an HTTP provider is, for [`ModelRoute`].
    base_url: Option<String>,
    key_env: Option<String>,
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
    /// The provider's name: `openai`, `local`, `openrouter`, or what [`ModelRouter::route`]
    /// named it.
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

/// Picks a provider for a model id (`vendor/model`) by configuration, and prices its tokens.
///
/// Without configuration: `openai/…` goes to OpenAI (`OPENAI_API_KEY`), `anthropic/…` to
/// Anthropic (`ANTHROPIC_API_KEY`), `google/…` to Gemini (`GEMINI_API_KEY`), and any other
/// vendor to OpenRouter (`OPENROUTER_API_KEY`) with the id whole. `[models.<name>]` sections
/// change those or add others (a local llama.cpp or Ollama server).
#[derive(Default)]
pub struct ModelRouter {
    routes: Vec<Route>,
    prices: HashMap<String, Prices>,
}

impl ModelRouter {
    /// A router with no route.
    pub fn new() -> ModelRouter {
        ModelRouter::default()
    }

    /// The default routes, changed and extended by `models` (the configuration's
    /// `[models.*]` sections), with keys read from `env` and timers on `clock`.
    pub fn from_settings(
        models: &BTreeMap<String, ModelSettings>,
        env: &Env,
        clock: &Clock,
    ) -> ModelRouter {
        const BUILT_IN: [&str; 4] = ["openai", "anthropic", "google", "openrouter"];
        // The vendors' own APIs, then the configured servers, then OpenRouter for every vendor
        // without a route of its own (`true`: it catches them all).
        let own_apis = [
            ProviderSettings::openai(),
            ProviderSettings::anthropic(),
            ProviderSettings::gemini(),
        ]
        .map(|settings| (settings, false));
        let configured = models
            .keys()
            .filter(|name| !BUILT_IN.contains(&name.as_str()))
            .map(|name| {
                (
                    ProviderSettings::new(name, WireFormat::OpenAi, "", None),
                    false,
                )
            });
        let fallback = (ProviderSettings::openrouter(), true);
        let unconfigured = ModelSettings::default();
        let mut router = ModelRouter::new();
        for (settings, catch_all) in own_apis.into_iter().chain(configured).chain([fallback]) {
            let section = models.get(&settings.name).unwrap_or(&unconfigured);
            router.add(settings, section, catch_all, env, clock);
        }
        router
    }

    /// Sends vendor `vendor`'s ids (`*`: every vendor without a route) to `model`, named
    /// `provider` in errors; `strip_vendor` sends `gpt-5-mini` for `openai/gpt-5-mini`.
    pub fn route(
        mut self,
        vendor: &str,
        provider: &str,
        model: Arc<dyn ChatModel>,
        strip_vendor: bool,
    ) -> ModelRouter {
        self.routes.push(Route {
            vendor: vendor.into(),
            provider: provider.into(),
            model,
            strip_vendor,
            base_url: None,
            key_env: None,
        });
        self
    }

    /// Prices model `model_id`'s tokens.
    pub fn price(mut self, model_id: &str, prices: Prices) -> ModelRouter {
        self.prices.insert(model_id.into(), prices);
        self
    }

    /// The provider for `model_id` and the name it knows the model by.
    pub fn resolve(&self, model_id: &str) -> Result<(&Arc<dyn ChatModel>, String), ModelError> {
        self.find(model_id)
            .map(|(route, wire)| (&route.model, wire))
    }

    /// Where `model_id` goes: the provider, its address, the model's name there and the key's
    /// variable. Reads no key and sends nothing.
    pub fn route_of(&self, model_id: &str) -> Result<ModelRoute, ModelError> {
        let (route, model) = self.find(model_id)?;
        Ok(ModelRoute {
            model_id: model_id.to_owned(),
            provider: route.provider.clone(),
            model,
            base_url: route.base_url.clone(),
            key_env: route.key_env.clone(),
        })
    }

    /// The route of `model_id` and the name its provider knows the model by.
    fn find(&self, model_id: &str) -> Result<(&Route, String), ModelError> {
        let Some((vendor, name)) = model_id.split_once('/') else {
            return Err(ModelError::NoRoute {
                model: model_id.into(),
                reason: "a model id is `vendor/model`".into(),
            });
        };
        let route = self
            .routes
            .iter()
            .find(|r| r.vendor == vendor)
            .or_else(|| self.routes.iter().find(|r| r.vendor == "*"))
            .ok_or_else(|| ModelError::NoRoute {
                model: model_id.into(),
                reason: format!("no provider is configured for the vendor `{vendor}`"),
            })?;
        let wire = if route.strip_vendor {
            name.to_owned()
        } else {
            model_id.to_owned()
        };
        Ok((route, wire))
    }

    /// What `usage` of `model_id` costs; zero for a model without prices.
    pub fn cost(&self, model_id: &str, usage: Usage) -> Usd {
        self.prices
            .get(model_id)
            .map_or(Usd::ZERO, |p| p.cost(usage))
    }

    /// Adds the provider `settings` describe, changed by its configuration `section`, for the
    /// section's vendors (else its own name, or every vendor when it is the `catch_all`), with
    /// the section's prices.
    fn add(
        &mut self,
        mut settings: ProviderSettings,
        section: &ModelSettings,
        catch_all: bool,
        env: &Env,
        clock: &Clock,
    ) {
        apply(&mut settings, section);
        let vendors = match (&section.vendors[..], catch_all) {
            ([], true) => vec!["*".to_owned()],
            ([], false) => vec![settings.name.clone()],
            (vendors, _) => vendors.to_vec(),
        };
        let strip_vendor = section.strip_vendor.unwrap_or(!catch_all);
        for (model, price) in &section.prices {
            let (Ok(input), Ok(output)) = (Usd::parse(&price.input), Usd::parse(&price.output))
            else {
                continue;
            };
            let id = match vendors.first() {
                Some(vendor) if vendor != "*" && !model.contains('/') => {
                    format!("{vendor}/{model}")
                }
                _ => model.clone(),
            };
            self.prices.insert(
                id,
                Prices {
                    input_per_million: input,
                    output_per_million: output,
                },
            );
        }
        let provider = settings.name.clone();
        let base_url = normalized_base_url(settings.kind, &settings.base_url);
        let key_env = settings.key_env.clone();
        let model = connect(settings, env, clock.clone());
        for vendor in vendors {
            self.routes.push(Route {
                vendor,
                provider: provider.clone(),
                model: model.clone(),
                strip_vendor,
                base_url: Some(base_url.clone()),
                key_env: key_env.clone(),
            });
        }
    }
}

impl fmt::Debug for ModelRouter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.routes.iter().map(|r| (&r.vendor, &r.provider)))
            .finish()
    }
}

fn apply(settings: &mut ProviderSettings, section: &ModelSettings) {
    if let Some(url) = &section.base_url {
        settings.base_url = url.trim_end_matches('/').into();
    }
    if let Some(key_env) = &section.api_key_env {
        settings.key_env = Some(key_env.clone());
    }
    if let Some(kind) = kind_of(section.kind.as_deref()) {
        settings.kind = kind;
    }
}

fn kind_of(kind: Option<&str>) -> Option<WireFormat> {
    match kind? {
        "anthropic" => Some(WireFormat::Anthropic),
        "gemini" | "google" => Some(WireFormat::Gemini),
        _ => Some(WireFormat::OpenAi),
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

    #[test]
    fn ids_route_by_vendor() {
        let router = ModelRouter::from_settings(
            &BTreeMap::new(),
            &Env::from_pairs::<&str, &str>([]),
            &Clock::system(),
        );
        assert_eq!(router.resolve("openai/gpt-5-mini").unwrap().1, "gpt-5-mini");
        assert_eq!(
            router.resolve("anthropic/claude-sonnet-4-5").unwrap().1,
            "claude-sonnet-4-5"
        );
        assert_eq!(
            router.resolve("moonshotai/kimi-k2.6").unwrap().1,
            "moonshotai/kimi-k2.6"
        );
        assert!(matches!(
            router.resolve("gpt4"),
            Err(ModelError::NoRoute { .. })
        ));
        assert_eq!(
            router.resolve("google/gemini-2.5-flash").unwrap().1,
            "gemini-2.5-flash"
        );
        assert_eq!(
            router.resolve("gpt4").err().unwrap().to_string(),
            "no provider for the model `gpt4`: a model id is `vendor/model`"
        );
        assert_eq!(
            format!("{router:?}"),
            r#"{"openai": "openai", "anthropic": "anthropic", "google": "google", "*": "openrouter"}"#
        );
    }

    #[test]
    fn configured_servers_take_their_vendors_and_prices_and_openrouter_the_rest() {
        use crate::model::PriceSettings;
        let local = ModelSettings {
            base_url: Some("http://127.0.0.1:8080/v1/".into()),
            vendors: vec!["local".into(), "lab".into()],
            prices: [(
                "qwen2.5".to_owned(),
                PriceSettings {
                    input: "0.10".into(),
                    output: "0.40".into(),
                },
            )]
            .into(),
            ..ModelSettings::default()
        };
        let openrouter = ModelSettings {
            strip_vendor: Some(true),
            ..ModelSettings::default()
        };
        let models = [
            ("local".to_owned(), local),
            ("openrouter".to_owned(), openrouter),
        ]
        .into();
        let router = ModelRouter::from_settings(
            &models,
            &Env::from_pairs::<&str, &str>([]),
            &Clock::system(),
        );
        assert_eq!(
            format!("{router:?}"),
            r#"{"openai": "openai", "anthropic": "anthropic", "google": "google", "local": "local", "lab": "local", "*": "openrouter"}"#
        );
        assert_eq!(router.resolve("local/qwen2.5").unwrap().1, "qwen2.5");
        assert_eq!(router.resolve("lab/qwen2.5").unwrap().1, "qwen2.5");
        assert_eq!(
            router.resolve("moonshotai/kimi-k2.6").unwrap().1,
            "kimi-k2.6"
        );
        let million_in = Usage {
            input_tokens: 1_000_000,
            output_tokens: 0,
        };
        assert_eq!(router.cost("local/qwen2.5", million_in), usd("0.10"));
        assert_eq!(router.cost("lab/qwen2.5", million_in), Usd::ZERO);
    }
}
