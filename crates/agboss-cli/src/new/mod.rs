//! `agboss new <name>`: a project with one tool, one agent, a configuration file for a local
//! OpenAI-compatible server, a README saying how to run it, and a test that passes without a
//! model.
//!
//! ```text
//! demo/
//!   Cargo.toml            agboss (by path from the checkout the program was built from, so it
//!                         builds offline; else the published version), tokio, clap
//!   README.md             what the project is, how to run it against a local server (the one
//!                         demo.toml points at: port 8080), and how to run its tests
//!   demo.toml             where the model is: [models.local] and [agents.assistant]
//!   src/lib.rs            the tool `count-words-tool`, the agent `assistant`, `app()`
//!   src/assistant.prompt.md
//!   src/main.rs           `demo ask <question>`, and agboss's subcommands under `demo agboss`;
//!                         reads demo.toml beside the project from any directory, or the file
//!                         $DEMO_CONFIG names
//!   tests/assistant.rs    the agent on a scripted model, and the tool alone
//! ```
//!
//! The files' texts are the templates in `template/`, where `{name}` is the project's name,
//! `{NAME}` its variables' prefix (`DEMO`), `{crate}` its crate's name.

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
                    "next: cd {} && cargo test; then start a local model server as README.md says and cargo run -- ask \"How many words are in 'the quick brown fox'?\"",
                    dir.display(),
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
    let prefix = krate.to_ascii_uppercase();
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
            .replace("{NAME}", &prefix)
            .replace("{agboss}", &dependency(""))
            .replace(
                "{agboss_testing}",
                &dependency(", features = [\"testing\"]"),
            )
    };
    [
        ("Cargo.toml", MANIFEST),
        (".gitignore", "/target\n"),
        ("README.md", README),
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

const MANIFEST: &str = include_str!("template/manifest.toml.tmpl");

const README: &str = include_str!("template/README.md.tmpl");

const CONFIG: &str = include_str!("template/config.toml.tmpl");

const LIB: &str = include_str!("template/lib.rs.tmpl");

const PROMPT: &str = "You answer questions about texts. To count the words of a text, call \
count-words-tool with the text; never count them yourself. Answer in one sentence.\n";

const MAIN: &str = include_str!("template/main.rs.tmpl");

const TEST: &str = include_str!("template/test.rs.tmpl");

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
                "README.md",
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
        let main = text("src/main.rs");
        assert!(main.contains("word_counter::app().config(Config::load(config_path()))"));
        assert!(main.contains("std::env::var_os(\"WORD_COUNTER_CONFIG\")"));
        assert!(
            main.contains("Path::new(env!(\"CARGO_MANIFEST_DIR\")).join(\"word-counter.toml\")")
        );
        // The README starts the server where the configuration says it is.
        assert!(text("word-counter.toml").contains("base_url = \"http://127.0.0.1:8080/v1\""));
        let readme = text("README.md");
        assert!(readme.starts_with("# word-counter\n"));
        assert!(
            readme
                .contains("llama-server -m qwen2.5-1.5b-instruct-q4_k_m.gguf --port 8080 --jinja")
        );
        assert!(readme.contains("cargo test\n"));
        assert!(readme.contains("`WORD_COUNTER_CONFIG=other.toml`"));
        let published = files("demo", &AgbossSource::Version("0.1.0".into()));
        assert!(published[0].1.contains("agboss = { version = \"0.1.0\" }"));
        assert!(written.iter().all(|(_, text)| {
            ["{name}", "{crate}", "{NAME}"]
                .iter()
                .all(|placeholder| !text.contains(placeholder))
        }));
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
