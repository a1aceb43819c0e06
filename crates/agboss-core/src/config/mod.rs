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
//! [defaults.agents]
//! max_turns = 30                     # model turns per run
//! answer_retries = 2                 # invalid structured answers sent back before failing
//!
//! [agents.scout]
//! model = "openai/gpt-5-mini"        # vendor/model
//! max_tool_calls = 4
//! tools = ["fetch-page-tool"]        # more tools, by their names
//! first_turn_tool_choice = "required" # force a tool on the first turn (small local models)
//! max_duration_seconds = 120         # time budget per run (start or resume), seconds
//!
//! [models.openai]                    # read by the model router
//! base_url = "https://api.openai.com/v1"
//! api_key_env = "OPENAI_API_KEY"     # the NAME of a variable, never its value
//! ```
//!
//! A file holds the names of environment variables, never secrets: a value that looks like a
//! key or token is refused (`[config.secret-value]`), and every `*_env` value must be a
//! variable name. Problems are reported with the application's other assembly problems.
//!
//! A [`Config`] is plain data: what the file says, and what is wrong with it. The application
//! applies it (`ApplicationBuilder::config`); nothing here knows the application. Configurations
//! layer ([`Config::layered_over`]): a file over what a program made from its environment over
//! the code's defaults, value by value.

mod layer;
mod secrets;

use std::collections::BTreeMap;
use std::path::Path;

use agboss_rules::codes;
use serde::Deserialize;

use crate::agent::AgentSettings;
use crate::base::Problem;
use crate::model::ModelSettings;

/// A parsed configuration, with the problems found in it (reported at assembly).
#[derive(Clone, Debug, Default)]
pub struct Config {
    origin: String,
    file: ConfigFile,
    problems: Vec<Problem>,
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
    agents: BTreeMap<String, AgentSettings>,
    #[serde(default)]
    models: BTreeMap<String, ModelSettings>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultsSection {
    tools: Option<ToolSettings>,
    agents: Option<AgentDefaultSettings>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkflowSection {
    #[serde(default)]
    defaults: DefaultsSection,
}

/// `defaults.tools` as a file writes it, for the application or one workflow.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ToolSettings {
    /// The bound on results, as written (`"64 KB"`); checked when it is applied.
    pub max_result_size: Option<String>,
    /// The limit of tool calls per agent run.
    pub max_tool_calls: Option<u32>,
}

/// `defaults.agents` as a file writes it, for the application or one workflow: the limits of
/// a run for agents that set none of their own.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AgentDefaultSettings {
    /// The cap of model turns per run.
    pub max_turns: Option<u32>,
    /// How many invalid structured answers go back to the model before the run fails.
    pub answer_retries: Option<u32>,
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
                        problems.push(invalid(&origin, one_line(&e.to_string())));
                        ConfigFile::default()
                    }
                }
            }
            Err(e) => {
                problems.push(invalid(&origin, one_line(&e.to_string())));
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
                problems: vec![invalid(&origin, format!("it cannot be read: {e}"))],
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

    /// The application's name, if the file sets one.
    pub fn name(&self) -> Option<&str> {
        self.file.name.as_deref()
    }

    /// The application's `defaults.tools`, if the file sets them.
    pub fn tool_defaults(&self) -> Option<&ToolSettings> {
        self.file.defaults.tools.as_ref()
    }

    /// Each `[workflows.<name>]` section: the workflow's name and its `defaults.tools`.
    pub fn workflows(&self) -> impl Iterator<Item = (&str, Option<&ToolSettings>)> {
        self.file
            .workflows
            .iter()
            .map(|(name, section)| (name.as_str(), section.defaults.tools.as_ref()))
    }

    /// Each `[agents.<name>]` section, by agent name.
    pub fn agents(&self) -> &BTreeMap<String, AgentSettings> {
        &self.file.agents
    }

    /// The application's `defaults.agents`, if the file sets them.
    pub fn agent_defaults(&self) -> Option<&AgentDefaultSettings> {
        self.file.defaults.agents.as_ref()
    }

    /// Each `[workflows.<name>]` section: the workflow's name and its `defaults.agents`.
    pub fn workflow_agent_defaults(
        &self,
    ) -> impl Iterator<Item = (&str, Option<&AgentDefaultSettings>)> {
        self.file
            .workflows
            .iter()
            .map(|(name, section)| (name.as_str(), section.defaults.agents.as_ref()))
    }

    /// This configuration over `below`: every value this one sets wins, every value only `below`
    /// sets stays, section by section and key by key (`[agents.notes] model` here and
    /// `[agents.notes] max_tool_calls` below both hold). Lists of tools an agent adds are
    /// joined; a provider's `vendors` and prices are this one's where it sets them. The problems
    /// of both are kept, and the origin says both (`desk.toml over the environment`).
    ///
    /// ```
    /// use agboss_core::config::Config;
    ///
    /// let environment = Config::from_toml("the environment", "[agents.notes]\nmodel = \"local/qwen2.5\"\nmax_tool_calls = 4\n[models.local]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n");
    /// let file = Config::from_toml("desk.toml", "[agents.notes]\nmodel = \"local/llama3.2\"\n");
    /// let both = file.layered_over(environment);
    /// let notes = &both.agents()["notes"];
    /// assert_eq!(notes.model.as_deref(), Some("local/llama3.2"));
    /// assert_eq!(notes.max_tool_calls, Some(4));
    /// assert_eq!(both.models()["local"].base_url.as_deref(), Some("http://127.0.0.1:8080/v1"));
    /// assert_eq!(both.origin(), "desk.toml over the environment");
    /// ```
    pub fn layered_over(self, below: Config) -> Config {
        let mut problems = below.problems;
        problems.extend(self.problems);
        Config {
            origin: format!("{} over {}", self.origin, below.origin),
            file: layer::file(self.file, below.file),
            problems,
        }
    }
}

fn invalid(origin: &str, detail: String) -> Problem {
    codes::CONFIG_INVALID
        .finding(&[("origin", &origin), ("detail", &detail)])
        .into()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
