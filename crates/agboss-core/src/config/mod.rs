//! Configuration files: what an application's code declares, overridden per deployment.
//!
//! ```toml
//! name = "desk-application"          # optional: the application's name
//!
//! [defaults.tools]
//! max_result_size = "64 KB"          # a number and its unit: bytes, KB, MB
//! max_tool_calls = 20
//!
//! [workflows.desk.defaults.tools]
//! max_result_size = "32 KB"
//!
//! [agents.scout]
//! model = "openai/gpt-5-mini"        # vendor/model
//! max_tool_calls = 4
//! tools = ["fetch-page-tool"]        # more tools, by their names
//!
//! [models.openai]                    # read by the model router
//! base_url = "https://api.openai.com/v1"
//! api_key_env = "OPENAI_API_KEY"     # the NAME of a variable, never its value
//! ```
//!
//! A file holds the names of environment variables, never secrets: a value that looks like a
//! key or token is refused (`[config.secret-value]`), and every `*_env` value must be a
//! variable name. Problems are reported with the application's other assembly problems.

mod secrets;

pub(crate) use secrets::is_variable_name;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::Deserialize;

use crate::app::{ApplicationBuilder, Problem};

/// A parsed configuration, with the problems found in it (reported at assembly).
#[derive(Clone, Debug, Default)]
pub struct Config {
    origin: String,
    file: ConfigFile,
    problems: Vec<Problem>,
}

/// What configuration sets for one agent.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AgentOverride {
    /// Its model, `vendor/model`.
    pub model: Option<String>,
    /// Its limit of tool calls per run.
    pub max_tool_calls: Option<u32>,
    /// Tools added to its declared ones, by name.
    #[serde(default)]
    pub tools: Vec<String>,
}

/// A model provider's settings: where it is and which variable holds its key.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelSettings {
    /// The wire format: `openai` (and every compatible server), `anthropic` or `gemini`.
    /// Defaults to the section's own name for `openai`, `anthropic`, `google`, `openrouter`.
    pub kind: Option<String>,
    /// The vendors (the part of a model id before `/`) routed here; defaults to the section's
    /// name (`google` for Gemini, every other vendor for `openrouter`).
    #[serde(default)]
    pub vendors: Vec<String>,
    /// Whether the model id goes to the API without its vendor (`local/qwen2.5` → `qwen2.5`).
    /// Defaults to true, except for OpenRouter, which takes ids whole.
    pub strip_vendor: Option<bool>,
    /// The API's base URL.
    pub base_url: Option<String>,
    /// The NAME of the environment variable that holds the API key.
    pub api_key_env: Option<String>,
    /// Prices per million tokens, in dollars as text (`"0.15"`), by model id.
    #[serde(default)]
    pub prices: BTreeMap<String, PriceSettings>,
}

/// A model's prices per million tokens, as decimal dollar texts.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PriceSettings {
    /// Dollars per million input tokens.
    pub input: String,
    /// Dollars per million output tokens.
    pub output: String,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    name: Option<String>,
    #[serde(default)]
    defaults: DefaultsSection,
    #[serde(default)]
    workflows: BTreeMap<String, WorkflowSection>,
    #[serde(default)]
    agents: BTreeMap<String, AgentOverride>,
    #[serde(default)]
    models: BTreeMap<String, ModelSettings>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultsSection {
    tools: Option<ToolsSection>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkflowSection {
    #[serde(default)]
    defaults: DefaultsSection,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ToolsSection {
    max_result_size: Option<String>,
    max_tool_calls: Option<u32>,
}

impl Config {
    /// Parses `text`; `origin` (a file name) prefixes its problems.
    pub fn from_toml(origin: impl Into<String>, text: &str) -> Config {
        let origin = origin.into();
        let mut problems = Vec::new();
        let file = match toml::from_str::<toml::Value>(text) {
            Ok(raw) => {
                secrets::check(&origin, &raw, &mut problems);
                match ConfigFile::deserialize(raw) {
                    Ok(file) => file,
                    Err(e) => {
                        problems.push(Problem::new(
                            "config.invalid",
                            format!("{origin}: {}", one_line(&e.to_string())),
                        ));
                        ConfigFile::default()
                    }
                }
            }
            Err(e) => {
                problems.push(Problem::new(
                    "config.invalid",
                    format!("{origin}: {}", one_line(&e.to_string())),
                ));
                ConfigFile::default()
            }
        };
        Config {
            origin,
            file,
            problems,
        }
    }

    /// Reads and parses the file at `path`; a file that cannot be read is a problem too.
    pub fn load(path: impl AsRef<Path>) -> Config {
        let path = path.as_ref();
        let origin = path.display().to_string();
        match std::fs::read_to_string(path) {
            Ok(text) => Config::from_toml(origin, &text),
            Err(e) => Config {
                problems: vec![Problem::new(
                    "config.invalid",
                    format!("{origin} cannot be read: {e}"),
                )],
                origin,
                file: ConfigFile::default(),
            },
        }
    }

    /// Where it came from.
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The problems found in it.
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The settings of model provider `provider` (`openai`, `anthropic`, `google`, ...).
    pub fn model_settings(&self, provider: &str) -> Option<&ModelSettings> {
        self.file.models.get(provider)
    }

    /// Every `[models.<name>]` section.
    pub fn models(&self) -> &BTreeMap<String, ModelSettings> {
        &self.file.models
    }

    /// Applies the configuration to `builder`; returns the agent overrides for assembly.
    pub(crate) fn apply(
        self,
        builder: &mut ApplicationBuilder,
        problems: &mut Vec<Problem>,
    ) -> HashMap<String, AgentOverride> {
        problems.extend(self.problems);
        let file = self.file;
        if let Some(name) = file.name {
            builder.name = name;
        }
        if let Some(tools) = &file.defaults.tools {
            apply_tools(tools, &mut builder.defaults);
        }
        for (name, section) in &file.workflows {
            match builder.workflows.iter_mut().find(|w| &w.name == name) {
                Some(workflow) => {
                    if let Some(tools) = &section.defaults.tools {
                        apply_tools(tools, &mut workflow.defaults);
                    }
                }
                None => problems.push(Problem::new(
                    "config.unknown-workflow",
                    format!(
                        "{}: [workflows.{name}] names no workflow of the application",
                        self.origin
                    ),
                )),
            }
        }
        file.agents.into_iter().collect()
    }
}

fn apply_tools(section: &ToolsSection, defaults: &mut crate::app::ToolDefaults) {
    if let Some(size) = &section.max_result_size {
        defaults.set_size_from_text(size);
    }
    if let Some(n) = section.max_tool_calls {
        defaults.max_tool_calls = Some(n);
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
