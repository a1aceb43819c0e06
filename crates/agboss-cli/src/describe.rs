//! `describe`: the tree, the JSON document, and `--check`'s findings with the exit status CI
//! reads.

use agboss_core::app::Application;
use agboss_core::describe::{self, Level};

use crate::pauses::Printed;

/// Parses `--fail-on`'s value.
pub(crate) fn level(name: &str) -> Result<Level, String> {
    Level::parse(name)
        .ok_or_else(|| format!("`{name}` is not a level: use `note`, `warning` or `error`"))
}

/// What `describe` prints: the tree or the JSON document; with `check` (its `--fail-on` level),
/// the findings instead of the tree, failing when one is at that level or above.
/// The findings are those that read the application's store too (`describe::check_stored`).
pub(crate) async fn describe(app: &Application, json: bool, check: Option<Level>) -> Printed {
    let lints = match check {
        Some(_) => describe::check_stored(app).await,
        None => Vec::new(),
    };
    let mut printed = if json {
        let mut document = describe::json(app);
        if check.is_some() {
            document["findings"] = describe::findings_json(&lints);
        }
        let mut text = serde_json::to_string_pretty(&document).unwrap_or_default();
        text.push('\n');
        Printed::ok(text)
    } else if check.is_some() {
        Printed::ok(String::new())
    } else {
        Printed::ok(describe::text(app))
    };
    let Some(fail_on) = check else {
        return printed;
    };
    if !json {
        for lint in &lints {
            printed.text.push_str(&format!("{lint}\n"));
        }
    }
    let failing = lints.iter().filter(|lint| lint.level >= fail_on).count();
    let count = |level| lints.iter().filter(|lint| lint.level == level).count();
    let summary = format!(
        "{} findings: {} errors, {} warnings, {} notes",
        lints.len(),
        count(Level::Error),
        count(Level::Warning),
        count(Level::Note),
    );
    if failing > 0 {
        printed.error =
            format!("error: describe --check: {summary}; {failing} at `{fail_on}` or above\n");
        printed.failed = true;
    } else if !json {
        printed
            .text
            .push_str(&format!("{summary}; none at `{fail_on}` or above\n"));
    }
    printed
}
