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
    &["base", "dto", "masking", "time", "units"],
    &["spend"],
    &["context"],
    &["credentials", "deps"],
    &["component"],
    &["tool"],
    &["mcp", "model"],
    &["knowledge"],
    &["agent", "channel", "policy"],
    &["journal"],
    &["store"],
    &["run"],
    &["config"],
    &["assembly"],
    &["app"],
    &["describe"],
    &["otel"],
];

/// Imports that break the rule, each with the reason it is allowed. Keep it empty.
const EXCEPTIONS: &[(&str, &str, &str)] = &[];

/// The workspace's crates and the workspace crates each may depend on (normal dependencies).
const CRATES: &[(&str, &[&str])] = &[
    ("agboss-rules", &[]),
    ("agboss-macros", &["agboss-rules"]),
    ("agboss-core", &["agboss-rules"]),
    ("agboss-testing", &["agboss-core", "agboss-rules"]),
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
    ("agboss-dylib", &["agboss"]),
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

/// The files of one module folder (`run/`, `store/sqlite/`), by module name, and what each
/// references among its siblings: through `super::x` or the folder's own `crate::` path, by a
/// sibling module's name or by an item the folder's `mod.rs` re-exports from one. A sibling that
/// is a folder (`mcp/transport/`) references what any of its files does through the folder's
/// `crate::` path (or `super::super::x` from a file directly in it).
fn sibling_references(dir: &Path, crate_path: &str) -> BTreeMap<String, Vec<String>> {
    let mod_rs = fs::read_to_string(dir.join("mod.rs")).unwrap_or_default();
    let mut siblings: Vec<String> = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name != "mod" && (path.is_dir() || path.extension().is_some_and(|e| e == "rs")) {
            siblings.push(name);
        }
    }
    // `pub use tools_step::{Finished, Gate};` in mod.rs: item -> the sibling it comes from.
    let mut exported: BTreeMap<String, String> = BTreeMap::new();
    for (module, names) in use_groups(&code_of(&mod_rs), "") {
        if siblings.contains(&module) {
            for name in names {
                exported.insert(name, module.clone());
            }
        }
    }
    let mut references = BTreeMap::new();
    for sibling in &siblings {
        let file = dir.join(format!("{sibling}.rs"));
        let text = fs::read_to_string(&file)
            .or_else(|_| fs::read_to_string(dir.join(sibling).join("mod.rs")))
            .unwrap_or_default();
        // A file's own test module (at its end) says `super::` of the file, not of the folder.
        let code = code_of(shipped(&text));
        let inner = inner_code(&dir.join(sibling));
        let mut to: Vec<String> = Vec::new();
        let paths = [
            (&code, "super::".to_owned()),
            (&code, format!("{crate_path}::")),
            (&inner.0, "super::super::".to_owned()),
            (&inner.1, format!("{crate_path}::")),
        ];
        for (code, prefix) in paths {
            for (first, names) in use_groups(code, &prefix) {
                let mut targets = vec![first.clone()];
                if first.is_empty() {
                    targets = names;
                }
                for target in targets {
                    let module = if siblings.contains(&target) {
                        Some(target)
                    } else {
                        exported.get(&target).cloned()
                    };
                    if let Some(module) = module
                        && module != *sibling
                        && !to.contains(&module)
                    {
                        to.push(module);
                    }
                }
            }
        }
        to.sort();
        references.insert(sibling.clone(), to);
    }
    references
}

/// A file's code before its test module, which says `super::` of the file, not of its folder.
fn shipped(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or_default()
}

/// The code of the files inside the folder `dir` besides its `mod.rs` (none if `dir` is not a
/// folder), without comments: those directly in it, and all of them.
fn inner_code(dir: &Path) -> (String, String) {
    let (mut direct, mut all) = (String::new(), String::new());
    if !dir.is_dir() {
        return (direct, all);
    }
    for file in rust_files(dir) {
        if file == dir.join("mod.rs") {
            continue;
        }
        let code = code_of(shipped(&fs::read_to_string(&file).unwrap_or_default()));
        if file.parent() == Some(dir) {
            direct.push_str(&code);
        }
        all.push_str(&code);
    }
    (direct, all)
}

/// `text` without its comments (line comments, doc comments and block comments).
fn code_of(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    let mut in_block = false;
    for line in text.lines() {
        let mut line = line;
        if in_block {
            match line.find("*/") {
                Some(end) => {
                    line = &line[end + 2..];
                    in_block = false;
                }
                None => continue,
            }
        }
        if let Some(start) = line.find("/*") {
            in_block = !line[start..].contains("*/");
            line = &line[..start];
        }
        code.push_str(line.split("//").next().unwrap_or_default());
        code.push('\n');
    }
    code
}

/// Each path in `code` that starts with `prefix` (`super::`): its first segment, and when that
/// is a `{..}` group (or `prefix` is empty and the path is a `use x::{..}`), the first segment
/// of each of the group's paths. With an empty prefix, `use` lines: `(module, [items])`.
fn use_groups(code: &str, prefix: &str) -> Vec<(String, Vec<String>)> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = Vec::new();
    let starts: Vec<usize> = if prefix.is_empty() {
        code.match_indices("use ")
            .filter(|(at, _)| {
                code[..*at]
                    .chars()
                    .last()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
            })
            .map(|(at, _)| at + "use ".len())
            .collect()
    } else {
        code.match_indices(prefix)
            .filter(|(at, _)| {
                code[..*at]
                    .chars()
                    .last()
                    .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == ':' || c == '$'))
            })
            .map(|(at, _)| at + prefix.len())
            .collect()
    };
    for start in starts {
        let rest = code[start..].trim_start_matches("self::");
        if let Some(group) = rest.strip_prefix('{') {
            let names = top_level_items(group).iter().map(|n| ident(n)).collect();
            found.push((String::new(), names));
            continue;
        }
        let first = ident(rest);
        let after = &rest[first.len()..];
        let names = match after.strip_prefix("::") {
            Some(tail) if tail.starts_with('{') => top_level_items(&tail[1..])
                .iter()
                .map(|n| ident(n))
                .collect(),
            Some(tail) => vec![ident(tail)],
            None => Vec::new(),
        };
        found.push((first, names));
    }
    found
}

/// The comma-separated items of a `{..}` group whose opening brace was just read, up to its
/// closing brace; an item's own groups are left whole.
fn top_level_items(group: &str) -> Vec<String> {
    let mut items = vec![String::new()];
    let mut depth = 0;
    for c in group.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(String::new());
                continue;
            }
            _ => {}
        }
        items.last_mut().unwrap().push(c);
    }
    items
        .into_iter()
        .map(|i| i.trim().to_owned())
        .filter(|i| !i.is_empty())
        .collect()
}

/// The groups of modules in `graph` that reach each other (its strongly connected components of
/// more than one module), each sorted.
fn circles(graph: &BTreeMap<String, Vec<String>>) -> Vec<Vec<String>> {
    let reaches = |from: &str| {
        let mut seen: Vec<&str> = vec![from];
        let mut at = 0;
        while at < seen.len() {
            for next in graph.get(seen[at]).into_iter().flatten() {
                if !seen.contains(&next.as_str()) {
                    seen.push(next);
                }
            }
            at += 1;
        }
        seen.into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    let mut found: Vec<Vec<String>> = Vec::new();
    for node in graph.keys() {
        if found.iter().any(|group| group.contains(node)) {
            continue;
        }
        let mut group: Vec<String> = reaches(node)
            .into_iter()
            .filter(|other| reaches(other).contains(node))
            .collect();
        if group.len() > 1 {
            group.sort();
            found.push(group);
        }
    }
    found
}

#[test]
fn no_two_files_of_a_module_import_each_other() {
    let src = workspace().join("crates/agboss-core/src");
    let mut found = Vec::new();
    let mut pending = vec![src.clone()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            }
        }
        if dir == src || !dir.join("mod.rs").exists() {
            continue;
        }
        let relative = dir
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('/', "::");
        let graph = sibling_references(&dir, &format!("crate::{relative}"));
        for group in circles(&graph) {
            found.push(format!("{relative}: {}", group.join(", ")));
        }
    }
    found.sort();
    assert!(
        found.is_empty(),
        "files of one module that reach each other (move what both need into a file of its own):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_circle_finder_sees_what_it_must() {
    let code = code_of(
        "use super::{agent_loop::AgentLoop, Finished};\nuse super::approve::Gate; // super::x\n",
    );
    let found = use_groups(&code, "super::");
    assert_eq!(
        found[0],
        (String::new(), vec!["agent_loop".into(), "Finished".into()])
    );
    assert_eq!(found[1], ("approve".into(), vec!["Gate".into()]));
    assert_eq!(found.len(), 2);
    let graph: BTreeMap<String, Vec<String>> = [
        ("a".to_owned(), vec!["b".to_owned()]),
        ("b".to_owned(), vec!["c".to_owned()]),
        ("c".to_owned(), vec!["a".to_owned()]),
        ("d".to_owned(), vec!["a".to_owned()]),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&graph), [["a", "b", "c"]]);
}

#[test]
fn a_folder_inside_a_module_is_seen_through_its_files() {
    let mcp = workspace().join("crates/agboss-core/src/mcp");
    let graph = sibling_references(&mcp, "crate::mcp");
    // Seen only in the rooms' files, never in their `mod.rs`.
    assert!(
        graph["oauth"].contains(&"transport".to_owned()),
        "{graph:?}"
    );
    assert!(graph["server"].contains(&"oauth".to_owned()), "{graph:?}");
    assert!(graph["transport"].is_empty(), "{graph:?}");
}

/// The top modules of `agboss-core`, by the name of their file or folder.
fn core_modules() -> Vec<String> {
    LAYERS
        .iter()
        .flat_map(|l| l.iter().map(|m| (*m).to_owned()))
        .collect()
}

#[test]
fn the_application_s_files_do_not_shadow_the_modules_below() {
    let src = workspace().join("crates/agboss-core/src");
    let modules = core_modules();
    let mut shadows = Vec::new();
    for layer in ["app", "assembly"] {
        for entry in fs::read_dir(src.join(layer)).unwrap() {
            let name = entry
                .unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if modules.contains(&name) {
                shadows.push(format!("{layer}/{name}"));
            }
        }
    }
    assert!(
        shadows.is_empty(),
        "files named like a module below them (name them by what users do): {shadows:?}"
    );
}

/// The ids of the codes in the catalogue (`crates/agboss-rules/src/codes.rs`).
fn catalogued_codes() -> Vec<String> {
    let text = fs::read_to_string(workspace().join("crates/agboss-rules/src/codes.rs")).unwrap();
    text.lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once(" = (\"")?;
            Some(rest.split('"').next()?.to_owned())
        })
        .collect()
}

/// The string literals of `code` (one line, comments cut), each with the text just before and
/// after it.
fn literals(code: &str) -> Vec<(&str, &str, &str)> {
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(open) = rest.find('"') {
        let before = &rest[..open];
        let after_open = &rest[open + 1..];
        let Some(close) = after_open.find('"') else {
            break;
        };
        // A raw or escaped quote is left alone: codes are plain words.
        if before.ends_with('\\') || before.ends_with('r') || before.ends_with('#') {
            rest = &after_open[close + 1..];
            continue;
        }
        found.push((before, &after_open[..close], &after_open[close + 1..]));
        rest = &after_open[close + 1..];
    }
    found
}

/// Whether `line` says it is about a code: a one-word code (`model`, `store`, `cancelled`) is
/// also a plain word (a feature, a key, a route's name), so it counts as a code only where the
/// line speaks of codes or of a failure.
fn speaks_of_codes(line: &str) -> bool {
    ["code", "failed", "Failed"]
        .iter()
        .any(|w| line.contains(w))
}

/// Whether a literal is a name of something else: a template's placeholder (`("model", ..)`)
/// or a feature (`feature = "mcp"`).
fn names_something_else(before: &str, after: &str) -> bool {
    let (before, after) = (before.trim_end(), after.trim_start());
    (before.ends_with('(') && after.starts_with(',')) || before.ends_with("feature =")
}

#[test]
fn codes_are_spelled_in_the_catalogue_only() {
    let codes = catalogued_codes();
    assert!(codes.len() > 50, "the catalogue is read: {codes:?}");
    let mut spelled = Vec::new();
    for root in ["crates", "examples"] {
        for file in rust_files(&workspace().join(root)) {
            let relative = file
                .strip_prefix(workspace())
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let name = file.file_name().unwrap().to_string_lossy();
            // The catalogue itself, and tests (which pin the codes users see).
            if relative.ends_with("agboss-rules/src/codes.rs")
                || name == "tests.rs"
                || name.ends_with("_tests.rs")
                || relative.contains("/tests/")
            {
                continue;
            }
            let text = fs::read_to_string(&file).unwrap();
            let shipped = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (n, line) in shipped.lines().enumerate() {
                let code = line.split("//").next().unwrap_or_default();
                for (before, literal, after) in literals(code) {
                    if !codes.iter().any(|c| c == literal) {
                        continue;
                    }
                    let one_word = !literal.contains(['.', '-']);
                    if one_word && (!speaks_of_codes(code) || names_something_else(before, after)) {
                        continue;
                    }
                    spelled.push(format!("{relative}:{}: \"{literal}\"", n + 1));
                }
            }
        }
    }
    assert!(
        spelled.is_empty(),
        "codes spelled outside agboss_rules::codes (use codes::X.id()):\n{}",
        spelled.join("\n")
    );
}

/// Ways code reads the time or waits on it without the application's `Clock`.
const DIRECT_TIME: &[&str] = &[
    "thread::sleep",
    "tokio::time::",
    "Instant::now",
    "SystemTime::now",
    "clock_gettime",
    ".busy_timeout(",
];

/// The only direct reads of the time and waits in the runtime besides the `time` module
/// (which is the clock), each named in docs/architecture.md's invariants: the SQLite store's
/// wait for another process's write lock (SQLite's busy handler on its connections, the writer
/// thread's pause between tries), the boot clock its leases run out by, and the wall time the
/// OpenTelemetry metrics measure spans in.
const DIRECT_TIME_ALLOWED: &[(&str, &str, usize)] = &[
    ("otel/metrics.rs", "Instant::now", 1),
    ("store/sqlite/clock.rs", "clock_gettime", 1),
    ("store/sqlite/read.rs", ".busy_timeout(", 1),
    ("store/sqlite/schema.rs", ".busy_timeout(", 1),
    ("store/sqlite/writer.rs", "thread::sleep", 1),
];

#[test]
fn the_runtime_reads_the_time_through_its_clock() {
    let src = workspace().join("crates/agboss-core/src");
    let mut direct = Vec::new();
    for path in rust_files(&src) {
        let name = path.strip_prefix(&src).unwrap().display().to_string();
        if name.starts_with("time/") || name.ends_with("tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        // Tests measure time as they like.
        let code = code_of(text.split("#[cfg(test)]").next().unwrap_or_default());
        for pattern in DIRECT_TIME {
            let count = code.matches(pattern).count();
            if count > 0 {
                direct.push((name.clone(), *pattern, count));
            }
        }
    }
    direct.sort();
    let allowed: Vec<(String, &str, usize)> = DIRECT_TIME_ALLOWED
        .iter()
        .map(|(file, pattern, count)| ((*file).to_owned(), *pattern, *count))
        .collect();
    assert_eq!(direct, allowed, "read the time and wait through `Clock`");
    let architecture = fs::read_to_string(workspace().join("docs/architecture.md")).unwrap();
    for named in ["busy handler", "boot clock", "otel::metrics"] {
        assert!(
            architecture.contains(named),
            "docs/architecture.md names the exception `{named}`"
        );
    }
}

#[test]
fn every_file_of_the_runtime_says_what_it_holds() {
    let mut bare = Vec::new();
    for krate in [
        "agboss-core",
        "agboss-macros",
        "agboss-rules",
        "agboss-testing",
        "agboss-cli",
        "agboss",
    ] {
        let src = workspace().join("crates").join(krate).join("src");
        for path in rust_files(&src) {
            let text = fs::read_to_string(&path).unwrap();
            if !text.trim_start().starts_with("//!") {
                bare.push(
                    path.strip_prefix(workspace())
                        .unwrap()
                        .display()
                        .to_string(),
                );
            }
        }
    }
    bare.sort();
    assert!(
        bare.is_empty(),
        "files without a `//!` saying what they hold:\n{}",
        bare.join("\n")
    );
}

#[test]
fn the_features_docs_list_are_the_facade_s() {
    let manifest = fs::read_to_string(workspace().join("crates/agboss/Cargo.toml")).unwrap();
    let features = manifest
        .split("[features]")
        .nth(1)
        .unwrap_or_default()
        .split("\n[")
        .next()
        .unwrap_or_default();
    let mut declared: Vec<String> = features
        .lines()
        .filter_map(|l| l.split_once('=').map(|(name, _)| name.trim().to_owned()))
        .filter(|name| !name.is_empty() && !name.starts_with('#') && name != "default")
        .collect();
    declared.sort();
    let architecture = fs::read_to_string(workspace().join("docs/architecture.md")).unwrap();
    let section = architecture
        .split("## Features")
        .nth(1)
        .unwrap_or_default()
        .split("\n## ")
        .next()
        .unwrap_or_default();
    let on_off: String = section
        .lines()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let mut listed: Vec<String> = on_off
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        // The paragraph also names the core's internal feature, which the facade has not.
        .filter(|name| name != "http" && name != "agboss-core")
        .collect();
    listed.sort();
    listed.dedup();
    assert_eq!(
        listed, declared,
        "docs/architecture.md's Features paragraph lists the facade's features (crates/agboss/Cargo.toml)"
    );
}
