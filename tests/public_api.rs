//! The facade's public API as a snapshot: every item a user can name through `agboss`, with the
//! public methods, fields and variants of each, one line each. Any change to it is a reviewed
//! diff of `tests/snapshots/public_api__facade.snap` (`cargo insta review`, or
//! `INSTA_UPDATE=always` and read `git diff`). The snapshot's first line counts the items (each
//! once, whatever the number of paths to it) and the lines.
//!
//! Every item has one path: the test fails on an item reachable at two, but for the prelude
//! and the shortcuts at the root that the facade's documentation lists ([`ROOT_SHORTCUTS`]).
//!
//! The list comes from rustdoc's JSON output of the facade and of the workspace crates it
//! re-exports from (followed through every `pub use`). Rustdoc's JSON is unstable; this stable
//! toolchain emits it with `RUSTC_BOOTSTRAP=1`, into a target folder of its own.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The items the facade names at its root as well as in their module, as its documentation
/// says: the most used, for short `use` lines.
const ROOT_SHORTCUTS: &[&str] = &[
    "agboss::AgentDefaults",
    "agboss::Application",
    "agboss::AssemblyError",
    "agboss::Config",
    "agboss::Env",
    "agboss::FromEnv",
    "agboss::Resume",
    "agboss::ToolDefaults",
    "agboss::Workflow",
];

/// The workspace crates whose items the facade re-exports, by package.
const PACKAGES: &[&str] = &[
    "agboss",
    "agboss-core",
    "agboss-macros",
    "agboss-rules",
    "agboss-testing",
    "agboss-cli",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Rustdoc's JSON of `package`'s library, every feature on.
fn rustdoc_json(package: &str) -> Value {
    let target = workspace().join("target/public-api");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args([
            "rustdoc",
            "-q",
            "-p",
            package,
            "--lib",
            "--all-features",
            "--",
        ])
        .args(["-Z", "unstable-options", "--output-format", "json"])
        .args(["--cap-lints", "allow"])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(workspace())
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "rustdoc's JSON of {package} could not be made:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let file = target
        .join("doc")
        .join(format!("{}.json", package.replace('-', "_")));
    serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap()
}

/// The crates' JSON, by crate name.
struct Docs {
    crates: HashMap<String, Value>,
}

/// An item in one crate's JSON.
#[derive(Clone, Copy)]
struct Item<'a> {
    krate: &'a str,
    value: &'a Value,
}

impl Docs {
    fn item<'a>(&'a self, krate: &'a str, id: &Value) -> Option<Item<'a>> {
        let value = self.crates.get(krate)?["index"].get(id_key(id))?;
        Some(Item { krate, value })
    }

    /// The item a `use` in `krate` points to: in the same crate, or in another of ours (found
    /// by its canonical path); `Err` with the path written for an item of a foreign crate.
    fn resolve<'a>(&'a self, krate: &'a str, use_: &'a Value) -> Result<Item<'a>, String> {
        let id = &use_["id"];
        if let Some(item) = self.item(krate, id) {
            return Ok(item);
        }
        let doc = &self.crates[krate];
        let summary = doc["paths"].get(id_key(id));
        let source = use_["source"].as_str().unwrap_or_default().to_owned();
        let Some(summary) = summary else {
            return Err(source);
        };
        let crate_id = summary["crate_id"].to_string();
        let other = doc["external_crates"][&crate_id]["name"]
            .as_str()
            .unwrap_or_default();
        let path = &summary["path"];
        let Some((name, other_doc)) = self.crates.get_key_value(other) else {
            return Err(source);
        };
        let found = other_doc["paths"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, s)| s["crate_id"] == 0 && &s["path"] == path)
            .and_then(|(id, _)| other_doc["index"].get(id));
        found
            .map(|value| Item {
                krate: name.as_str(),
                value,
            })
            .ok_or(source)
    }
}

fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Walks the facade from its root, writing one line per public item and member.
struct Walker<'a> {
    docs: &'a Docs,
    lines: BTreeSet<String>,
    /// Items whose members are listed already (at their first path), by crate and id.
    expanded: HashSet<(String, String)>,
    /// Every path each item is reached at, by crate and id (modules included).
    paths: BTreeMap<(String, String), BTreeSet<String>>,
}

impl<'a> Walker<'a> {
    fn module(&mut self, item: Item<'a>, path: &str) {
        self.lines.insert(format!("pub mod {path}"));
        self.reached(item, path);
        let items = item.value["inner"]["module"]["items"].as_array().unwrap();
        for id in items {
            let Some(child) = self.docs.item(item.krate, id) else {
                continue;
            };
            self.entry(child, path);
        }
    }

    /// One entry of a module: an item, or a `use` (followed).
    fn entry(&mut self, item: Item<'a>, parent: &str) {
        if item.value["visibility"] != "public" {
            return;
        }
        if let Some(use_) = item.value["inner"].get("use") {
            let name = use_["name"].as_str().unwrap_or_default();
            match self.docs.resolve(item.krate, use_) {
                Ok(target) if use_["is_glob"] == true => {
                    for id in target.value["inner"]["module"]["items"].as_array().unwrap() {
                        if let Some(child) = self.docs.item(target.krate, id) {
                            self.entry(child, parent);
                        }
                    }
                }
                Ok(target) => self.named(target, &format!("{parent}::{name}")),
                Err(source) => {
                    self.lines
                        .insert(format!("pub use {parent}::{name} = {source}"));
                }
            }
            return;
        }
        let name = item.value["name"].as_str().unwrap_or_default();
        self.named(item, &format!("{parent}::{name}"));
    }

    /// An item reached at `path`, with its members the first time it is reached.
    fn named(&mut self, item: Item<'a>, path: &str) {
        let inner = item.value["inner"].as_object().unwrap();
        let (kind, body) = inner.iter().next().unwrap();
        if kind == "module" {
            return self.module(item, path);
        }
        self.reached(item, path);
        let key = (item.krate.to_owned(), id_key(&item.value["id"]));
        let first = self.expanded.insert(key);
        let word = match kind.as_str() {
            "proc_macro" => match body["kind"].as_str() {
                Some("attr") => "attribute macro",
                Some("derive") => "derive macro",
                _ => "macro",
            },
            "macro" => "macro",
            "function" => {
                let line = format!("pub fn {path}{}", signature(body));
                self.lines.insert(line);
                return;
            }
            "type_alias" => "type",
            "assoc_const" | "constant" => "const",
            other => other,
        };
        self.lines.insert(format!("pub {word} {path}"));
        if !first {
            return;
        }
        match kind.as_str() {
            "struct" => {
                if let Some(fields) = body["kind"]["plain"]["fields"].as_array() {
                    self.fields(item.krate, fields, path);
                }
                if let Some(fields) = body["kind"]["tuple"].as_array() {
                    self.fields(item.krate, fields, path);
                }
                self.impls(item.krate, &body["impls"], path);
            }
            "enum" => {
                for id in body["variants"].as_array().unwrap() {
                    if let Some(variant) = self.docs.item(item.krate, id) {
                        let name = variant.value["name"].as_str().unwrap_or_default();
                        self.lines.insert(format!("pub variant {path}::{name}"));
                    }
                }
                self.impls(item.krate, &body["impls"], path);
            }
            "trait" => {
                for id in body["items"].as_array().unwrap() {
                    if let Some(member) = self.docs.item(item.krate, id) {
                        self.member(member, path, "trait item");
                    }
                }
            }
            _ => {}
        }
    }

    /// Notes that `item` is reached at `path`. A macro and a module of one name are two
    /// items, each with its own id.
    fn reached(&mut self, item: Item<'a>, path: &str) {
        let key = (item.krate.to_owned(), id_key(&item.value["id"]));
        self.paths.entry(key).or_default().insert(path.to_owned());
    }

    /// The items reached at more than one path once the prelude and the root shortcuts are
    /// set aside, each with its paths.
    fn twice(&self) -> Vec<String> {
        self.paths
            .values()
            .filter_map(|paths| {
                let canonical: Vec<&String> = paths
                    .iter()
                    .filter(|p| {
                        !p.starts_with("agboss::prelude::") && !ROOT_SHORTCUTS.contains(&p.as_str())
                    })
                    .collect();
                (canonical.len() > 1).then(|| {
                    canonical
                        .iter()
                        .map(|p| p.as_str())
                        .collect::<Vec<_>>()
                        .join(" = ")
                })
            })
            .collect()
    }

    fn fields(&mut self, krate: &'a str, fields: &[Value], path: &str) {
        for id in fields.iter().filter(|id| !id.is_null()) {
            if let Some(field) = self.docs.item(krate, id)
                && field.value["visibility"] == "public"
            {
                let name = field.value["name"].as_str().unwrap_or_default();
                self.lines.insert(format!("pub field {path}::{name}"));
            }
        }
    }

    /// Inherent methods, and the traits implemented (not auto traits, not blanket impls).
    fn impls(&mut self, krate: &'a str, impls: &Value, path: &str) {
        for id in impls.as_array().into_iter().flatten() {
            let Some(block) = self.docs.item(krate, id) else {
                continue;
            };
            let block = &block.value["inner"]["impl"];
            if block["is_synthetic"] == true || !block["blanket_impl"].is_null() {
                continue;
            }
            match block["trait"]["path"].as_str() {
                // The compiler's marker for derived `PartialEq`: nobody names it.
                Some("StructuralPartialEq") => {}
                Some(name) => {
                    let name = name.rsplit("::").next().unwrap_or(name);
                    self.lines.insert(format!("impl {name} for {path}"));
                }
                None => {
                    for item in block["items"].as_array().unwrap() {
                        if let Some(member) = self.docs.item(krate, item)
                            && member.value["visibility"] == "public"
                        {
                            self.member(member, path, "assoc");
                        }
                    }
                }
            }
        }
    }

    fn member(&mut self, member: Item<'a>, path: &str, what: &str) {
        let name = member.value["name"].as_str().unwrap_or_default();
        let inner = member.value["inner"].as_object().unwrap();
        let (kind, body) = inner.iter().next().unwrap();
        let line = match kind.as_str() {
            "function" => format!("pub fn {path}::{name}{}", signature(body)),
            "assoc_type" => format!("pub {what} type {path}::{name}"),
            "assoc_const" => format!("pub {what} const {path}::{name}"),
            other => format!("pub {what} {other} {path}::{name}"),
        };
        self.lines.insert(line);
    }
}

/// `(&self, workflow, input)`: the receiver as written and the other parameters by name.
fn signature(function: &Value) -> String {
    let inputs = function["sig"]["inputs"].as_array().unwrap();
    let params: Vec<String> = inputs
        .iter()
        .map(|input| {
            let name = input[0].as_str().unwrap_or("_");
            if name != "self" {
                return name.to_owned();
            }
            match &input[1]["borrowed_ref"] {
                Value::Null => "self".to_owned(),
                r if r["is_mutable"] == true => "&mut self".to_owned(),
                _ => "&self".to_owned(),
            }
        })
        .collect();
    format!("({})", params.join(", "))
}

#[test]
fn the_facade_public_api_is_the_reviewed_one() {
    let crates = PACKAGES
        .iter()
        .map(|p| (p.replace('-', "_"), rustdoc_json(p)))
        .collect();
    let docs = Docs { crates };
    let root = &docs.crates["agboss"]["root"];
    let root = docs.item("agboss", root).unwrap();
    let mut walker = Walker {
        docs: &docs,
        lines: BTreeSet::new(),
        expanded: HashSet::new(),
        paths: BTreeMap::new(),
    };
    walker.module(root, "agboss");
    let twice = walker.twice();
    assert!(
        twice.is_empty(),
        "items reachable at two paths (give each one home; the prelude and ROOT_SHORTCUTS aside):\n{}",
        twice.join("\n")
    );
    let items = walker.paths.len();
    let lines = walker.lines.len();
    let text = walker.lines.into_iter().collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!(
        "facade",
        format!("{items} public items, {lines} lines (members included)\n\n{text}")
    );
}
