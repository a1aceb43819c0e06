//! Housekeeping the compiler does not check: imports point down, between crates and between
//! the layers of `agboss-core`, as docs/architecture.md draws them.
//!
//! The allowed matrix is written once, here ([`LAYERS`], [`CRATES`]); the test also reads the
//! layer table of docs/architecture.md and fails when the two differ, so the document cannot
//! drift from the code.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers of `agboss-core`, bottom to top. A module may use modules of lower layers only.
const LAYERS: &[&[&str]] = &[
    &["base", "dto", "time", "units"],
    &["spend"],
    &["context"],
    &["deps"],
    &["tool"],
    &["mcp", "model"],
    &["agent", "channel"],
    &["journal"],
    &["store"],
    &["run"],
    &["config"],
    &["app"],
    &["describe"],
];

/// Imports that break the rule, each with the reason it is allowed. Keep it empty.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// The workspace's crates and the workspace crates each may depend on (normal dependencies).
const CRATES: &[(&str, &[&str])] = &[
    ("agboss-rules", &[]),
    ("agboss-macros", &["agboss-rules"]),
    ("agboss-core", &["agboss-rules"]),
    ("agboss-testing", &["agboss-core"]),
    ("agboss-cli", &["agboss-core", "agboss-rules"]),
    (
        "agboss",
        &[
            "agboss-cli",
            "agboss-core",
            "agboss-macros",
            "agboss-rules",
            "agboss-testing",
        ],
    ),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).expect("a readable source folder") {
            let path = entry.expect("a readable entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The top modules `line` reaches through `crate::<module>` paths (not `$crate::`, which
/// macros expand at their caller, and not in comments). `crate::infrastructure!` is the
/// `deps` layer's macro.
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or_default();
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().last();
        let after = &rest[at + "crate::".len()..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            found.push(if name == "infrastructure" {
                "deps".to_owned()
            } else {
                name
            });
        }
        rest = after;
    }
    found
}

/// The references from `agboss-core`'s modules that do not point to a lower layer, as
/// `file:line: from -> to`; and the modules no layer names.
fn core_violations() -> (Vec<String>, Vec<String>) {
    let src = workspace().join("crates/agboss-core/src");
    let mut violations = Vec::new();
    let mut unplaced = Vec::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).expect("under src");
        let top = relative
            .components()
            .next()
            .expect("a file has a first component")
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if top == "lib" {
            continue;
        }
        let Some(from) = layer_of(&top) else {
            if !unplaced.contains(&top) {
                unplaced.push(top);
            }
            continue;
        };
        let text = fs::read_to_string(&file).expect("a readable source file");
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for target in crate_paths(line) {
                if target == top || target == "__private" {
                    continue;
                }
                let allowed = EXCEPTIONS.iter().any(|(f, t, _)| *f == top && *t == target);
                let down = layer_of(&target).is_some_and(|to| to < from);
                if !down && !allowed {
                    violations.push(format!(
                        "{}:{}: `{top}` (layer {from}) uses `{target}` (layer {})",
                        relative.display(),
                        n + 1,
                        layer_of(&target).map_or("none".into(), |l| l.to_string())
                    ));
                }
            }
        }
    }
    (violations, unplaced)
}

#[test]
fn core_imports_point_down_the_layers() {
    let (violations, unplaced) = core_violations();
    assert!(
        unplaced.is_empty(),
        "modules of agboss-core that no layer names (place them in LAYERS and docs/architecture.md): {unplaced:?}"
    );
    assert!(
        violations.is_empty(),
        "imports that point up or sideways (move the part, or the type it needs, down):\n{}",
        violations.join("\n")
    );
    assert!(
        EXCEPTIONS.is_empty(),
        "the exceptions list is to stay empty"
    );
}

#[test]
fn the_layers_are_those_docs_architecture_draws() {
    let doc = fs::read_to_string(workspace().join("docs/architecture.md")).unwrap();
    let table = doc
        .split("<!-- tidy:layers")
        .nth(1)
        .expect("docs/architecture.md marks its layer table with <!-- tidy:layers -->");
    let mut drawn: Vec<Vec<String>> = Vec::new();
    for row in table.lines().skip(1) {
        let row = row.trim();
        if !row.starts_with('|') {
            if drawn.is_empty() {
                continue;
            }
            break;
        }
        let cells: Vec<&str> = row.trim_matches('|').split('|').collect();
        if cells.len() < 2 || !cells[0].trim().chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let modules = cells[1]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect();
        drawn.push(modules);
    }
    let written: Vec<Vec<String>> = LAYERS
        .iter()
        .map(|l| l.iter().map(|m| (*m).to_owned()).collect())
        .collect();
    assert_eq!(drawn, written, "docs/architecture.md and LAYERS differ");
}

#[test]
fn crates_depend_down_the_crate_table() {
    let allowed: BTreeMap<&str, &[&str]> = CRATES.iter().copied().collect();
    let mut problems = Vec::new();
    for dir in fs::read_dir(workspace().join("crates")).unwrap() {
        let dir = dir.unwrap().path();
        let manifest = fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let name = manifest
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .map(|n| n.trim_end_matches('"'))
            .expect("a package name");
        let Some(may) = allowed.get(name) else {
            problems.push(format!(
                "crate `{name}` is not in CRATES (and docs/architecture.md)"
            ));
            continue;
        };
        // Normal dependencies only: a dev-dependency on the facade is how a crate's doctests
        // are written.
        let normal = manifest
            .split("\n[dependencies]")
            .nth(1)
            .map(|rest| rest.split("\n[").next().unwrap_or_default())
            .unwrap_or_default();
        for line in normal.lines() {
            let dep = line.split([' ', '=']).next().unwrap_or_default();
            if dep.starts_with("agboss") && !may.contains(&dep) {
                problems.push(format!("`{name}` depends on `{dep}`, which it may not"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_scanner_sees_what_it_must() {
    assert_eq!(crate_paths("use crate::tool::{Tool, Scope};"), ["tool"]);
    assert_eq!(
        crate_paths("let x: crate::mcp::McpHub = crate::app::x();"),
        ["mcp", "app"]
    );
    assert_eq!(
        crate_paths("$crate::deps::InfrastructureType::of"),
        Vec::<String>::new()
    );
    assert_eq!(
        crate_paths("agboss_crate::x // crate::app"),
        Vec::<String>::new()
    );
    assert_eq!(
        crate_paths("crate::infrastructure!(dyn Store, \"a store\");"),
        ["deps"]
    );
}
