//! [`ModelRouter`]: which provider answers a model id, what its tokens cost, and how large its
//! context window is.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use super::ModelSettings;
use super::providers::{ProviderSettings, WireFormat, connect, normalized_base_url};
use super::route::{ModelRoute, Prices};
use super::{ChatModel, ModelError, Usage};
use crate::base::Env;
use crate::time::Clock;
use crate::units::Usd;

struct Route {
    /// The vendor routed here, or `*` for every other.
    vendor: String,
    provider: String,
    model: Arc<dyn ChatModel>,
    strip_vendor: bool,
    /// Where an HTTP provider is, for [`ModelRoute`].
    base_url: Option<String>,
    key_env: Option<String>,
    /// The context window of its models, in tokens, when its configuration says.
    context_window: Option<u32>,
}

/// Picks a provider for a model id (`vendor/model`) by configuration, and prices its tokens.
///
/// Without configuration: `openai/…` goes to OpenAI (`OPENAI_API_KEY`), `anthropic/…` to
/// Anthropic (`ANTHROPIC_API_KEY`), `google/…` to Gemini (`GEMINI_API_KEY`), and any other
/// vendor to OpenRouter (`OPENROUTER_API_KEY`) with the id whole. `[models.<name>]` sections
/// change those or add others (a local llama.cpp or Ollama server).
///
/// A model's context window (in tokens), when known, sizes the history its agents read by
/// default: [`context_window`](Self::context_window) for one model id, or a section's
/// `context_window` for every model it serves.
#[derive(Default)]
pub struct ModelRouter {
    routes: Vec<Route>,
    prices: HashMap<String, Prices>,
    windows: HashMap<String, u32>,
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
        let unconfigured = ModelSettings::default();
        let mut router = ModelRouter::new();
        for (settings, catch_all) in providers(models) {
            let section = models.get(&settings.name).unwrap_or(&unconfigured);
            router.add(settings, section, catch_all, env, clock);
        }
        router
    }

    /// The context window of `model_id` as `models` (the configuration's `[models.*]`
    /// sections) say: the `context_window` of the section its vendor routes to, as
    /// [`from_settings`](Self::from_settings) would route it. Connects nothing and reads no key.
    pub(crate) fn configured_context_window(
        models: &BTreeMap<String, ModelSettings>,
        model_id: &str,
    ) -> Option<u32> {
        let (vendor, _) = model_id.split_once('/')?;
        let unconfigured = ModelSettings::default();
        let routes: Vec<(String, Option<u32>)> = providers(models)
            .flat_map(|(settings, catch_all)| {
                let section = models.get(&settings.name).unwrap_or(&unconfigured);
                vendors_of(&settings.name, section, catch_all)
                    .into_iter()
                    .map(|vendor| (vendor, section.context_window))
            })
            .collect();
        pick(&routes, |(routed, _)| routed, vendor).and_then(|(_, window)| *window)
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
            context_window: None,
        });
        self
    }

    /// Prices model `model_id`'s tokens.
    pub fn price(mut self, model_id: &str, prices: Prices) -> ModelRouter {
        self.prices.insert(model_id.into(), prices);
        self
    }

    /// Model `model_id` reads at most `tokens` tokens per request (a local server's
    /// `--ctx-size`): an agent of it without its own `history_max_size` reads about a quarter
    /// of that of its thread's history.
    pub fn context_window(mut self, model_id: &str, tokens: u32) -> ModelRouter {
        self.windows.insert(model_id.into(), tokens);
        self
    }

    /// The context window of `model_id` in tokens, if known: its own
    /// ([`context_window`](Self::context_window)), else its provider's section's.
    pub fn context_window_of(&self, model_id: &str) -> Option<u32> {
        self.windows.get(model_id).copied().or_else(|| {
            self.find(model_id)
                .ok()
                .and_then(|(route, _)| route.context_window)
        })
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
        let route =
            pick(&self.routes, |r| &r.vendor, vendor).ok_or_else(|| ModelError::NoRoute {
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
        let vendors = vendors_of(&settings.name, section, catch_all);
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
                context_window: section.context_window,
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

/// The providers routes are made for, in the order they are tried: the vendors' own APIs, then
/// the servers `models` configure, then OpenRouter for every vendor without a route of its own
/// (`true`: it catches them all).
fn providers(
    models: &BTreeMap<String, ModelSettings>,
) -> impl Iterator<Item = (ProviderSettings, bool)> + '_ {
    const BUILT_IN: [&str; 4] = ["openai", "anthropic", "google", "openrouter"];
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
    own_apis.into_iter().chain(configured).chain([fallback])
}

/// The vendors provider `name` takes: its section's list, else its own name, or every vendor
/// (`*`) when it is the `catch_all`.
fn vendors_of(name: &str, section: &ModelSettings, catch_all: bool) -> Vec<String> {
    match (&section.vendors[..], catch_all) {
        ([], true) => vec!["*".to_owned()],
        ([], false) => vec![name.to_owned()],
        (vendors, _) => vendors.to_vec(),
    }
}

/// The route for `vendor`: the first that takes it by name, else the first that takes every
/// vendor (`*`).
fn pick<'r, R>(routes: &'r [R], vendor_of: impl Fn(&R) -> &String, vendor: &str) -> Option<&'r R> {
    routes
        .iter()
        .find(|r| vendor_of(r) == vendor)
        .or_else(|| routes.iter().find(|r| vendor_of(r) == "*"))
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
    if let Some(strict) = section.strict_tools {
        settings.strict_tools = Some(strict);
    }
}

fn kind_of(kind: Option<&str>) -> Option<WireFormat> {
    match kind? {
        "anthropic" => Some(WireFormat::Anthropic),
        "gemini" | "google" => Some(WireFormat::Gemini),
        _ => Some(WireFormat::OpenAi),
    }
}
