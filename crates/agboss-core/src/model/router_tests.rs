//! The router's routes, prices and context windows.

use std::collections::BTreeMap;

use super::{ModelError, ModelRouter, ModelSettings, Usage};
use crate::base::Env;
use crate::time::Clock;
use crate::units::{Usd, usd};

#[test]
fn context_windows_come_from_the_model_id_then_its_provider_section() {
    let local = ModelSettings {
        base_url: Some("http://127.0.0.1:8080/v1".into()),
        context_window: Some(2048),
        ..ModelSettings::default()
    };
    let models: BTreeMap<String, ModelSettings> = [("local".to_owned(), local)].into();
    let window = |id| ModelRouter::configured_context_window(&models, id);
    assert_eq!(window("local/gemma-3-270m"), Some(2048));
    assert_eq!(window("openai/gpt-5-mini"), None);
    assert_eq!(window("gemma"), None);
    let router = ModelRouter::from_settings(
        &models,
        &Env::from_pairs::<&str, &str>([]),
        &Clock::system(),
    )
    .context_window("openai/gpt-5-mini", 400_000);
    assert_eq!(router.context_window_of("local/gemma-3-270m"), Some(2048));
    assert_eq!(router.context_window_of("openai/gpt-5-mini"), Some(400_000));
    assert_eq!(router.context_window_of("openai/gpt-5"), None);
    // OpenRouter's section speaks for every vendor without a route of its own.
    let openrouter = ModelSettings {
        context_window: Some(8192),
        ..ModelSettings::default()
    };
    let models = [("openrouter".to_owned(), openrouter)].into();
    assert_eq!(
        ModelRouter::configured_context_window(&models, "moonshotai/kimi-k2.6"),
        Some(8192)
    );
    assert_eq!(
        ModelRouter::configured_context_window(&models, "openai/gpt-5-mini"),
        None
    );
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
