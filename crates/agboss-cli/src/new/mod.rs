//! `agboss new <name>`: a project with one tool, one agent, a configuration file for a local
//! OpenAI-compatible server, and a test that passes without a model.
//!
//! ```text
//! demo/
//!   Cargo.toml            agboss (by path from the checkout the program was built from, so it
//!                         builds offline; else the published version), tokio, clap
//!   demo.toml             where the model is: [models.local] and [agents.assistant]
//!   src/lib.rs            the tool `count-words-tool`, the agent `assistant`, `app()`
//!   src/assistant.prompt.md
//!   src/main.rs           `demo ask <question>`, and agboss's subcommands under `demo agboss`
//!   tests/assistant.rs    the agent on a scripted model, and the tool alone
//! ```

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agboss_rules::codes;
use clap::Args;

/// The options of `new`.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct New {
    /// The project's name, which names its crate and directory: `my-agent`.
    pub name: String,
    /// Where to create it (default: `./<name>`); it must not exist or be empty.
    #[arg(long, value_name = "DIR")]
    pub path: Option<PathBuf>,
    /// The agboss crate to depend on by path (default: the checkout this program was built
    /// from, when it is there; else the published version).
    #[arg(long, value_name = "DIR")]
    pub agboss_path: Option<PathBuf>,
}

/// Why a project could not be created.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NewError {
    /// The name cannot name a crate.
    #[error("[{}] {}", codes::NEW_NAME_INVALID.id(), codes::NEW_NAME_INVALID.fill(&[("name", &format!("{name:?}")), ("why", why)]))]
    Name {
        /// The name given.
        name: String,
        /// Why it cannot.
        why: String,
    },
    /// The directory holds files already.
    #[error("[{}] {}", codes::NEW_EXISTS.id(), codes::NEW_EXISTS.fill(&[("path", &path.display())]))]
    Exists {
        /// The directory.
        path: PathBuf,
    },
    /// A file could not be written.
    #[error("[{}] {}", codes::NEW_WRITE_FAILED.id(), codes::NEW_WRITE_FAILED.fill(&[("path", &path.display()), ("reason", reason)]))]
    Write {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        reason: String,
    },
}

/// How the project depends on agboss.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AgbossSource {
    /// The facade crate at this path (`…/crates/agboss`).
    Path(PathBuf),
    /// This version from crates.io.
    Version(String),
}

impl New {
    /// The directory the project goes to.
    pub fn dir(&self) -> PathBuf {
        self.path
            .clone()
            .unwrap_or_else(|| PathBuf::from(&self.name))
    }

    /// Where agboss comes from: `--agboss-path`, else the checkout this program was built from
    /// when its facade crate is still there, else the published version of this program.
    pub fn agboss_source(&self) -> AgbossSource {
        if let Some(path) = &self.agboss_path {
            return AgbossSource::Path(absolute(path));
        }
        let built_from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agboss");
        if built_from.join("Cargo.toml").is_file() {
            return AgbossSource::Path(absolute(&built_from));
        }
        AgbossSource::Version(env!("CARGO_PKG_VERSION").to_owned())
    }

    /// Writes the project; the files written, relative to its directory.
    pub fn create(&self) -> Result<Vec<PathBuf>, NewError> {
        check_name(&self.name)?;
        let dir = self.dir();
        if dir
            .read_dir()
            .is_ok_and(|mut entries| entries.next().is_some())
        {
            return Err(NewError::Exists { path: dir });
        }
        let files = files(&self.name, &self.agboss_source());
        for (relative, text) in &files {
            let path = dir.join(relative);
            let written = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&path, text));
            if let Err(e) = written {
                return Err(NewError::Write {
                    path,
                    reason: e.to_string(),
                });
            }
        }
        Ok(files.into_iter().map(|(path, _)| path).collect())
    }

    /// Creates the project, saying what to do next on standard error; a failure is said there
    /// too.
    pub fn run(&self) -> ExitCode {
        match self.create() {
            Ok(files) => {
                let dir = self.dir();
                eprintln!("created {} ({} files):", dir.display(), files.len());
                for file in files {
                    eprintln!("  {}", file.display());
                }
                eprintln!(
                    "next: cd {} && cargo test; start a local model server (see {}.toml), then cargo run -- ask \"How many words are in 'the quick brown fox'?\"",
                    dir.display(),
                    self.name
                );
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        }
    }
}

/// `path`, absolute and without `..`, when it can be made so.
fn absolute(path: &Path) -> PathBuf {
    path.canonicalize()
        .or_else(|_| std::path::absolute(path))
        .unwrap_or_else(|_| path.to_path_buf())
}

/// Names cargo refuses, or that would clash with what the project uses.
const RESERVED: &[&str] = &[
    "agboss",
    "clap",
    "tokio",
    "serde_json",
    "test",
    "std",
    "core",
    "alloc",
    "proc_macro",
    "self",
    "super",
    "crate",
    "Self",
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "static",
    "struct",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
];

fn check_name(name: &str) -> Result<(), NewError> {
    let why = if name.is_empty() {
        Some("it is empty".to_owned())
    } else if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        Some("it does not start with a letter".to_owned())
    } else if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '-' || *c == '_'))
    {
        Some(format!("it holds {c:?}"))
    } else if RESERVED.contains(&name.replace('-', "_").as_str()) {
        Some("it is a name Rust or the project itself already uses".to_owned())
    } else {
        None
    };
    match why {
        Some(why) => Err(NewError::Name {
            name: name.to_owned(),
            why,
        }),
        None => Ok(()),
    }
}

/// The project's files: path relative to its directory, and text.
fn files(name: &str, agboss: &AgbossSource) -> Vec<(PathBuf, String)> {
    let krate = name.replace('-', "_");
    let dependency = |features: &str| match agboss {
        AgbossSource::Path(path) => format!(
            "{{ path = {}{features} }}",
            toml_string(&path.display().to_string())
        ),
        AgbossSource::Version(version) => format!("{{ version = \"{version}\"{features} }}"),
    };
    let fill = |template: &str| {
        template
            .replace("{name}", name)
            .replace("{crate}", &krate)
            .replace("{agboss}", &dependency(""))
            .replace(
                "{agboss_testing}",
                &dependency(", features = [\"testing\"]"),
            )
    };
    [
        ("Cargo.toml", MANIFEST),
        (".gitignore", "/target\n"),
        ("{name}.toml", CONFIG),
        ("src/lib.rs", LIB),
        ("src/assistant.prompt.md", PROMPT),
        ("src/main.rs", MAIN),
        ("tests/assistant.rs", TEST),
    ]
    .into_iter()
    .map(|(path, text)| (PathBuf::from(fill(path)), fill(text)))
    .collect()
}

/// `text` as a TOML basic string.
fn toml_string(text: &str) -> String {
    format!("{:?}", text)
}

const MANIFEST: &str = r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"
publish = false

[dependencies]
agboss = {agboss}
# The command line, without colours: the features agboss builds clap with.
clap = { version = "4.5", default-features = false, features = ["std", "derive", "help", "usage", "error-context"] }
tokio = { version = "1.48", features = ["macros", "rt-multi-thread"] }

[dev-dependencies]
# Scripted models and `test_tool` for the tests.
agboss = {agboss_testing}
serde_json = "1"
"#;

const CONFIG: &str = r#"# Where the assistant's model is. By default an OpenAI-compatible server on this machine:
# llama.cpp (`llama-server -m model.gguf --port 8080`), or Ollama (base_url
# "http://127.0.0.1:11434/v1"). Any provider works: see agboss's docs/agents.md.
[models.local]
kind = "openai"
base_url = "http://127.0.0.1:8080/v1"
vendors = ["local"]              # model ids "local/<model>" go here
# api_key_env = "LOCAL_API_KEY"  # the NAME of the variable holding its key, if it needs one

[agents.assistant]
model = "local/qwen2.5"          # the model's name on the server after "local/"
# first_turn_tool_choice = "required"   # small models often call a tool only when forced
"#;

const LIB: &str = r#"//! {name}: an agboss application with one agent and one tool.

use agboss::app::ApplicationBuilder;
use agboss::prelude::*;
use agboss::{Application, Workflow};

/// A text to count the words of.
#[dto]
pub struct Text {
    /// The text, exactly as the user gave it.
    pub text: String,
}

/// How many words a text has.
#[dto]
pub struct Count {
    /// The number of words, separated by whitespace.
    pub words: usize,
}

/// Counts the words of a text.
#[tool(name = "count-words-tool", read_only = true)]
pub struct CountWords;

impl ToolHandler for CountWords {
    type Input = Text;
    type Output = Count;

    async fn run(&self, input: Text) -> Result<Count, ToolError> {
        Ok(Count {
            words: input.text.split_whitespace().count(),
        })
    }
}

/// Answers questions about texts, counting their words with its tool.
#[agent(
    name = "assistant",
    prompt = "assistant.prompt.md",
    model = "local/qwen2.5",
    tools = [CountWords],
)]
pub struct Assistant;

/// The application: the workflow `main` with the assistant. Configure it (`{name}.toml`) and
/// build it.
pub fn app() -> ApplicationBuilder {
    Application::builder("{name}").workflow(Workflow::new("main").agent::<Assistant>())
}
"#;

const PROMPT: &str = "You answer questions about texts. To count the words of a text, call \
count-words-tool with the text; never count them yourself. Answer in one sentence.\n";

const MAIN: &str = r#"//! `{name} ask <question>`: asks the assistant. `{name} agboss describe` prints who can use
//! which tool; `{name} agboss g mcp ...` generates the tools of an MCP server.

use std::process::ExitCode;

use agboss::config::Config;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Asks the assistant about texts")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Asks the assistant a question.
    Ask {
        /// The question.
        #[arg(required = true)]
        question: Vec<String>,
    },
    /// agboss's own subcommands: `describe`, `g mcp`, `pending`, `approve`, ...
    #[command(subcommand)]
    Agboss(agboss::cli::Command),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Agboss(command) = &cli.command
        && let Some(code) = command.run_without_application()
    {
        return code;
    }
    let app = match {crate}::app().config(Config::load("{name}.toml")).build() {
        Ok(app) => app,
        Err(problems) => {
            eprintln!("{problems}");
            return ExitCode::FAILURE;
        }
    };
    let question = match cli.command {
        Command::Agboss(command) => return command.run(&app).await,
        Command::Ask { question } => question.join(" "),
    };
    for workflow in app.workflows() {
        for agent in workflow.agents() {
            match app.router().and_then(|router| router.route_of(agent.model())) {
                Ok(route) => eprintln!("{}: {route}", agent.name()),
                Err(error) => eprintln!("{}: {error}", agent.name()),
            }
        }
    }
    match app
        .run("main", question)
        .on_tool_end(|end| eprintln!("  · {} -> {}", end.tool, end.content))
        .await
    {
        Ok(outcome) => {
            println!("{}", outcome.text().unwrap_or_default());
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("error: [{}] {error}", error.code());
            ExitCode::FAILURE
        }
    }
}
"#;

const TEST: &str = r##"//! The assistant on a scripted model, and its tool alone: no model server needed.

use std::sync::Arc;

use agboss::testing::{ScriptedModel, Turn, test_tool};
use {crate}::{CountWords, Text, app};
use serde_json::json;

#[tokio::test]
async fn the_assistant_counts_words_with_its_tool() {
    agboss::testing::forbid_real_requests(true);
    let model = ScriptedModel::new([
        Turn::call("count-words-tool", json!({"text": "the quick brown fox"})),
        Turn::text("It has 4 words.").expect_tool_result(r#"{"words":4}"#),
    ]);
    let app = app().chat_model(Arc::new(model)).build().unwrap();
    let outcome = app
        .run("main", "How many words are in 'the quick brown fox'?")
        .await
        .unwrap()
        .into_completed()
        .unwrap();
    assert_eq!(outcome.text(), Some("It has 4 words."));
    assert_eq!(outcome.tool_calls, 1);
}

#[tokio::test]
async fn the_tool_counts_words_separated_by_whitespace() {
    let run = test_tool::<CountWords>()
        .run(Text {
            text: "  one\ttwo\nthree ".into(),
        })
        .await
        .unwrap();
    assert_eq!(run.output.words, 3);
}
"##;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_name_a_crate() {
        for (name, why) in [
            ("", "it is empty"),
            ("9lives", "it does not start with a letter"),
            ("my agent", "it holds ' '"),
            (
                "agboss",
                "it is a name Rust or the project itself already uses",
            ),
            (
                "self",
                "it is a name Rust or the project itself already uses",
            ),
        ] {
            let error = check_name(name).unwrap_err();
            assert_eq!(
                error,
                NewError::Name {
                    name: name.into(),
                    why: why.into()
                },
                "{name}"
            );
        }
        assert_eq!(
            check_name("my agent").unwrap_err().to_string(),
            "[new.name-invalid] \"my agent\" cannot name a crate: it holds ' '; use letters, digits, `-` and `_`, starting with a letter, such as \"my-agent\""
        );
        assert!(check_name("word-counter_2").is_ok());
    }

    #[test]
    fn the_files_name_the_crate_and_where_agboss_is() {
        let written = files(
            "word-counter",
            &AgbossSource::Path(PathBuf::from("/src/agboss/crates/agboss")),
        );
        let names: Vec<String> = written
            .iter()
            .map(|(p, _)| p.display().to_string())
            .collect();
        assert_eq!(
            names,
            [
                "Cargo.toml",
                ".gitignore",
                "word-counter.toml",
                "src/lib.rs",
                "src/assistant.prompt.md",
                "src/main.rs",
                "tests/assistant.rs"
            ]
        );
        let text = |name: &str| &written.iter().find(|(p, _)| p.ends_with(name)).unwrap().1;
        assert!(text("Cargo.toml").contains("agboss = { path = \"/src/agboss/crates/agboss\" }"));
        assert!(text("Cargo.toml").contains(
            "agboss = { path = \"/src/agboss/crates/agboss\", features = [\"testing\"] }"
        ));
        assert!(text("tests/assistant.rs").contains("use word_counter::{CountWords, Text, app};"));
        assert!(
            text("src/main.rs")
                .contains("word_counter::app().config(Config::load(\"word-counter.toml\"))")
        );
        let published = files("demo", &AgbossSource::Version("0.1.0".into()));
        assert!(published[0].1.contains("agboss = { version = \"0.1.0\" }"));
        assert!(
            written
                .iter()
                .all(|(_, text)| !text.contains("{name}") && !text.contains("{crate}"))
        );
    }

    #[test]
    fn a_directory_with_files_is_left_alone() {
        let dir = std::env::temp_dir().join(format!("agboss-new-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), "mine").unwrap();
        let new = New {
            name: "demo".into(),
            path: Some(dir.clone()),
            agboss_path: None,
        };
        assert_eq!(
            new.create().unwrap_err(),
            NewError::Exists { path: dir.clone() }
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("keep.txt")).unwrap(),
            "mine"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
