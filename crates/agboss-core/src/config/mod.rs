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
//!
//! A [`Config`] is plain data: what the file says, and what is wrong with it. The application
//! applies it (`ApplicationBuilder::config`); nothing here knows the application.

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
}

fn invalid(origin: &str, detail: String) -> Problem {
    codes::CONFIG_INVALID
        .finding(&[("origin", &origin), ("detail", &detail)])
        .into()
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
