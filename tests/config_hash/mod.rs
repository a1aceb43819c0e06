//! What the configuration hash tests declare: a tool and its double described otherwise, an
//! agent and its doubles (told otherwise, with the other tool, described otherwise), and the
//! capture of the warnings a resume logs.

use std::sync::{Arc, Mutex, OnceLock};

use agboss::prelude::*;

#[dto]
pub struct Word {
    /// The word to look up.
    pub word: String,
}

#[dto]
pub struct Meaning {
    /// What it means.
    pub meaning: String,
}

#[tool(
    name = "lookup-tool",
    description = "Looks a word up",
    read_only = true
)]
pub struct Lookup {
    dictionary: Arc<Dictionary>,
}

impl ToolHandler for Lookup {
    type Input = Word;
    type Output = Meaning;

    async fn run(&self, input: Word) -> Result<Meaning, ToolError> {
        Ok(meaning(&self.dictionary, input))
    }
}

fn meaning(dictionary: &Dictionary, input: Word) -> Meaning {
    Meaning {
        meaning: format!("{} means itself ({})", input.word, dictionary.0),
    }
}

/// The same tool, described otherwise.
#[tool(
    name = "lookup-tool",
    description = "Looks a word up in the dictionary",
    read_only = true
)]
pub struct LookupRedescribed;

impl ToolHandler for LookupRedescribed {
    type Input = Word;
    type Output = Meaning;

    async fn run(&self, input: Word) -> Result<Meaning, ToolError> {
        Ok(meaning(&Dictionary("none"), input))
    }
}

/// A tool of the workflow no agent has.
#[tool(name = "spare-tool", description = "Is not used")]
pub struct Spare;

impl ToolHandler for Spare {
    type Input = Word;
    type Output = Meaning;

    async fn run(&self, input: Word) -> Result<Meaning, ToolError> {
        Ok(meaning(&Dictionary("none"), input))
    }
}

/// A service the workflow provides: its value is not part of the hash.
pub struct Dictionary(pub &'static str);

#[agent(
    name = "helper",
    description = "Helps",
    prompt = "../prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Lookup],
)]
pub struct Helper;

/// The same agent, told otherwise.
#[agent(
    name = "helper",
    description = "Helps",
    prompt = "../prompts/brief.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Lookup],
)]
pub struct HelperRetold;

/// The same agent, with the tool described otherwise.
#[agent(
    name = "helper",
    description = "Helps",
    prompt = "../prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [LookupRedescribed],
)]
pub struct HelperWithRedescribedTool;

/// The same agent, described otherwise: the model never reads an agent's description.
#[agent(
    name = "helper",
    description = "Helps people with words",
    prompt = "../prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Lookup],
)]
pub struct HelperRedescribed;

/// The warnings of every test of this binary, each as its fields: installed once, as the
/// process's subscriber (a scoped one would race with the other tests for the call sites'
/// interest).
pub fn warnings() -> &'static Mutex<Vec<String>> {
    static WARNINGS: OnceLock<&'static Mutex<Vec<String>>> = OnceLock::new();
    WARNINGS.get_or_init(|| {
        let warnings: &'static Mutex<Vec<String>> = Box::leak(Box::default());
        tracing::subscriber::set_global_default(Warnings(warnings))
            .expect("no other subscriber in this binary");
        warnings
    })
}

/// Keeps the fields of each `WARN` event.
struct Warnings(&'static Mutex<Vec<String>>);

struct Fields(String);

impl tracing::field::Visit for Fields {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.0.push_str(&format!("{}={value:?} ", field.name()));
    }
}

impl tracing::Subscriber for Warnings {
    fn enabled(&self, metadata: &tracing::Metadata<'_>) -> bool {
        *metadata.level() == tracing::Level::WARN
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}
