//! Environment variables: services configured by the NAMES of the variables they read.

use std::collections::HashMap;
use std::fmt;

/// Where environment variables are read from: the process, or a fixed set (tests).
#[derive(Clone, Default)]
pub struct Env {
    fixed: Option<HashMap<String, String>>,
    overrides: HashMap<String, String>,
}

impl Env {
    /// The process's environment.
    pub fn process() -> Env {
        Env::default()
    }

    /// Exactly these variables, nothing from the process.
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        Env {
            fixed: Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| (k.into(), v.into()))
                    .collect(),
            ),
            overrides: HashMap::new(),
        }
    }

    /// The same, with `name` set to `value` over whatever it was.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<String>) -> Env {
        self.overrides.insert(name.into(), value.into());
        self
    }

    /// The value of `name`, if it is set (and valid UTF-8).
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(value) = self.overrides.get(name) {
            return Some(value.clone());
        }
        match &self.fixed {
            Some(vars) => vars.get(name).cloned(),
            None => std::env::var(name).ok(),
        }
    }

    /// The value of `name`, or the error a provider reports: `NOTES_FILE is not set`.
    pub fn require(&self, name: &str) -> Result<String, String> {
        self.get(name).ok_or_else(|| format!("{name} is not set"))
    }
}

impl fmt::Debug for Env {
    /// Never prints values: they may be secrets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut names: Vec<&str> = self.overrides.keys().map(String::as_str).collect();
        if let Some(vars) = &self.fixed {
            names.extend(vars.keys().map(String::as_str));
        }
        names.sort_unstable();
        names.dedup();
        f.debug_struct("Env")
            .field("process", &self.fixed.is_none())
            .field("names", &names)
            .finish()
    }
}

/// A service made from environment variables, provided with
/// [`provide_from_env`](crate::app::ApplicationBuilder::provide_from_env). It is made on first use,
/// so `describe` and assembly never read the environment; `describe` lists its variables next
/// to the tools that use it (`← NOTES_FILE`).
///
/// ```
/// use agboss_core::base::{Env, FromEnv};
///
/// struct NotesFile { path: String }
///
/// impl FromEnv for NotesFile {
///     const VARIABLES: &'static [&'static str] = &["NOTES_FILE"];
///
///     fn from_env(env: &Env) -> Result<Self, String> {
///         Ok(NotesFile { path: env.require("NOTES_FILE")? })
///     }
/// }
///
/// let env = Env::from_pairs([("NOTES_FILE", "notes.jsonl")]);
/// assert_eq!(NotesFile::from_env(&env).unwrap().path, "notes.jsonl");
/// assert_eq!(NotesFile::from_env(&Env::from_pairs::<&str, &str>([])).err().unwrap(), "NOTES_FILE is not set");
/// ```
pub trait FromEnv: Send + Sync + Sized + 'static {
    /// The names of the variables it reads.
    const VARIABLES: &'static [&'static str];

    /// Makes it, or says what is missing or wrong.
    fn from_env(env: &Env) -> Result<Self, String>;
}
