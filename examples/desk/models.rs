//! Which model the desk talks to: a provider configured through environment variables, a
//! configuration file layered over them, or, with neither, a scripted model (so the example
//! runs on a fresh machine).

use agboss::Env;
use agboss::config::Config;

use crate::script::DeskModel;

/// The providers the desk looks for, the variable that enables each, and the model it uses
/// unless `DESK_MODEL` names another.
const PROVIDERS: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "openai/gpt-5-mini"),
    ("ANTHROPIC_API_KEY", "anthropic/claude-haiku-4-5"),
    ("GEMINI_API_KEY", "google/gemini-2.5-flash"),
    ("OPENROUTER_API_KEY", "moonshotai/kimi-k2.6"),
];

/// The variable that holds the key of the local server, when it needs one.
pub const LOCAL_KEY: &str = "DESK_LOCAL_API_KEY";

/// How the desk reaches a model.
pub enum Models {
    /// Real providers, set up by this configuration: what the environment says, with the file
    /// `DESK_CONFIG` names layered over it.
    Provider(Config),
    /// No provider: the desk's scripted model, which reads the conversation it is sent.
    Scripted(DeskModel),
}

/// Reads `DESK_LOCAL_URL` (an OpenAI-compatible server: llama.cpp, Ollama) and
/// `DESK_LOCAL_API_KEY` (its key, if it needs one), the providers' key variables, `DESK_MODEL`,
/// and `DESK_CONFIG` (a TOML file layered over what the variables say: the file wins, value by
/// value).
pub fn from_env(env: &Env) -> Models {
    let file = env.get("DESK_CONFIG").map(Config::load);
    let chosen = env.get("DESK_MODEL");
    let local = env.get("DESK_LOCAL_URL");
    let model = match (&local, &chosen) {
        (Some(_), Some(model)) => Some(model.clone()),
        (Some(_), None) => Some("local/qwen2.5".to_owned()),
        (None, _) => PROVIDERS
            .iter()
            .find(|(variable, _)| env.get(variable).is_some())
            .map(|(_, default)| chosen.clone().unwrap_or_else(|| (*default).to_owned())),
    };
    let mut toml = String::new();
    if let Some(model) = &model {
        toml.push_str(&format!(
            "[agents.notes]\nmodel = {model:?}\n[agents.scout]\nmodel = {model:?}\n"
        ));
    }
    if let Some(url) = &local {
        toml.push_str(&format!(
            "[models.local]\nkind = \"openai\"\nbase_url = {url:?}\nvendors = [\"local\"]\n"
        ));
        if env.get(LOCAL_KEY).is_some() {
            toml.push_str(&format!("api_key_env = {LOCAL_KEY:?}\n"));
        }
    }
    let from_env = Config::from_toml("the desk's environment", &toml);
    match (model, file) {
        (_, Some(file)) => Models::Provider(file.layered_over(from_env)),
        (Some(_), None) => Models::Provider(from_env),
        (None, None) => Models::Scripted(DeskModel),
    }
}
