//! Which model the desk talks to: a provider configured through environment variables, or, with
//! none, a scripted model (so the example runs on a fresh machine).

use agboss::config::Config;
use agboss::model::{ScriptedModel, Turn};
use serde_json::json;

/// The providers the desk looks for, the variable that enables each, and the model it uses
/// unless `DESK_MODEL` names another.
const PROVIDERS: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "openai/gpt-5-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("GEMINI_API_KEY", "google/gemini-2.5-flash"),
    ("OPENROUTER_API_KEY", "moonshotai/kimi-k2.6"),
];

/// How the desk reaches a model.
pub enum Models {
    /// A real provider, set up by this configuration.
    Provider { model: String, config: Config },
    /// No provider: the script below.
    Scripted(ScriptedModel),
}

/// Reads `DESK_LOCAL_URL` (an OpenAI-compatible server: llama.cpp, Ollama), the providers'
/// key variables and `DESK_MODEL`.
pub fn from_env() -> Models {
    let chosen = std::env::var("DESK_MODEL").ok();
    let local = std::env::var("DESK_LOCAL_URL").ok();
    let model = match (&local, &chosen) {
        (Some(_), Some(model)) => Some(model.clone()),
        (Some(_), None) => Some("local/qwen2.5".to_owned()),
        (None, _) => PROVIDERS
            .iter()
            .find(|(variable, _)| std::env::var_os(variable).is_some())
            .map(|(_, default)| chosen.clone().unwrap_or_else(|| (*default).to_owned())),
    };
    let Some(model) = model else {
        return Models::Scripted(script());
    };
    let mut toml =
        format!("[agents.notes]\nmodel = {model:?}\n[agents.scout]\nmodel = {model:?}\n");
    if let Some(url) = local {
        toml.push_str(&format!(
            "[models.local]\nkind = \"openai\"\nbase_url = {url:?}\nvendors = [\"local\"]\n"
        ));
    }
    Models::Provider {
        model,
        config: Config::from_toml("the desk's environment", &toml),
    }
}

/// What a model would do with the desk's three questions, played back.
fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::call(
            "note-save-tool",
            json!({"text": "The dentist is on Tuesday at 9"}),
        ),
        Turn::text("Saved: the dentist is on Tuesday at 9.").expect_tool_result("total"),
        Turn::call("note-search-tool", json!({"words": "dentist"})),
        Turn::text("Your dentist appointment is on Tuesday at 9.")
            .expect_tool_result("Tuesday at 9"),
        Turn::call("greenhouse-jobs-tool", json!({"words": "rust remote"})),
        Turn::text(
            "One opening matches: Rust Compiler Engineer, remote (https://jobs.example.com/44).",
        )
        .expect_tool_result("Rust Compiler Engineer"),
    ])
}
