//! `knowledge index` and `knowledge search`: the indexes of the application's knowledge bases
//! over a folder, brought up to date with a progress bar (on a terminal; plain lines
//! otherwise), and searched by hand.

use std::fmt::Write;
use std::io::IsTerminal;
use std::time::Duration;

use agboss_core::app::Application;
use agboss_core::knowledge::folder::{IndexProgress, IndexReport};
use agboss_core::knowledge::{KnowledgeDescriptor, KnowledgeQuery, context_block};
use agboss_core::units::bytes;
use clap::Subcommand;
use indicatif::{ProgressBar, ProgressStyle};

use crate::pauses::Printed;

/// `knowledge ..`: the application's knowledge bases over a folder.
#[derive(Clone, Debug, PartialEq, Eq, Subcommand)]
pub enum KnowledgeCommand {
    /// Bring the indexes up to date with their folders: new and changed files are read,
    /// removed ones taken out, unchanged ones only looked at. Every base over a folder unless
    /// names are given.
    Index {
        /// The knowledge bases to index, by name (`docs-rag`).
        names: Vec<String>,
    },
    /// Search a knowledge base over a folder and print what it finds, as a context-mode block
    /// shows it: to try a base before an agent reads it.
    Search {
        /// The knowledge base, by name.
        name: String,
        /// What to look for.
        query: String,
        /// How many passages, at most; the base's own number unless given.
        #[arg(long)]
        top_k: Option<u32>,
    },
}

impl KnowledgeCommand {
    pub(crate) async fn run(&self, app: &Application) -> Printed {
        match self {
            KnowledgeCommand::Index { names } => index(app, names).await,
            KnowledgeCommand::Search { name, query, top_k } => {
                search(app, name, query, *top_k).await
            }
        }
    }
}

/// Indexes the bases `names` (every base over a folder when empty), one after the other.
async fn index(app: &Application, names: &[String]) -> Printed {
    let bases = match chosen(app, names) {
        Ok(bases) => bases,
        Err(error) => return Printed::error(error),
    };
    let shelf = app.knowledge_shelf();
    let mut text = String::new();
    let mut failed = Vec::new();
    for base in bases {
        let bar = bar(base.name());
        let mut progress = |step: IndexProgress| {
            bar.set_length(step.files_total as u64);
            bar.set_position(step.files_seen as u64);
            if !step.path.is_empty() {
                bar.set_message(step.path);
            }
        };
        let outcome = shelf.update(base, &mut progress).await;
        bar.finish_and_clear();
        match outcome {
            Ok(report) => {
                let _ = writeln!(text, "{}", report_line(base, &report));
            }
            Err(error) => failed.push(format!("knowledge base `{}`: {error}", base.name())),
        }
    }
    Printed {
        text,
        error: failed.iter().map(|f| format!("error: {f}\n")).collect(),
        failed: !failed.is_empty(),
    }
}

/// `docs-rag: 214 files (12 read, 202 unchanged, 1 removed), 1,532 passages, 2.1 MB, in 0.84 s`.
fn report_line(base: &KnowledgeDescriptor, report: &IndexReport) -> String {
    let mut line = format!(
        "{}: {} files ({} read, {} unchanged, {} removed), {} passages, {}, in {:.2} s",
        base.name(),
        report.files_seen,
        report.files_read,
        report.files_unchanged,
        report.files_removed,
        report.passages,
        bytes(report.index_bytes),
        report.elapsed.as_secs_f64(),
    );
    if report.lossy_files > 0 {
        let _ = write!(
            line,
            "; {} files were not UTF-8 and were read with U+FFFD in place of bad bytes",
            report.lossy_files
        );
    }
    line
}

/// A progress bar on standard error when it is a terminal; a hidden one otherwise.
fn bar(name: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0).with_prefix(name.to_owned());
    let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} files {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
    bar.set_style(style);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

/// Searches base `name` and prints its block.
async fn search(app: &Application, name: &str, query: &str, top_k: Option<u32>) -> Printed {
    let base = match chosen(app, &[name.to_owned()]) {
        Ok(bases) => bases[0],
        Err(error) => return Printed::error(error),
    };
    let mut asked = KnowledgeQuery::new(query);
    asked.top_k = top_k;
    match app.knowledge_shelf().search(base, &asked).await {
        Ok(passages) => match context_block(base.name(), &passages, bytes(u64::MAX)) {
            Some(block) => Printed::ok(block.text),
            None => Printed::ok(format!("knowledge base {}: nothing found\n", base.name())),
        },
        Err(error) => Printed::error(format!("knowledge base `{name}`: {error}")),
    }
}

/// The application's bases over a folder named `names` (all of them for none), or what is
/// wrong with a name, with the names it knows.
fn chosen(
    app: &Application,
    names: &[String],
) -> Result<Vec<&'static KnowledgeDescriptor>, String> {
    let bases = app.indexed_knowledge_bases();
    if names.is_empty() {
        if bases.is_empty() {
            return Err(
                "no agent of this application reads a knowledge base over a folder".to_owned(),
            );
        }
        return Ok(bases);
    }
    names
        .iter()
        .map(|name| {
            bases.iter().copied().find(|b| b.name() == name).ok_or_else(|| {
                let known: Vec<&str> = bases.iter().map(|b| b.name()).collect();
                format!(
                    "no knowledge base over a folder named `{name}` in this application (it has: {})",
                    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                )
            })
        })
        .collect()
}
