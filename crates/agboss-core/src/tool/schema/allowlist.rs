//! A tool's allowlists for its path and URL arguments (`allow_paths`, `allow_urls`): declared
//! as data, compiled against the input schema once, and judged on each call's validated
//! arguments before anything else sees them.

use agboss_rules::allow::{self, FieldStep, UrlPrefix};
use agboss_rules::codes;
use fluent_uri::Uri;
use fluent_uri::normalize::Normalizer;
use serde_json::Value;

use super::tape::TapeNode;
use crate::tool::Issues;

/// What an allowlist judges: file system paths or URLs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AllowKind {
    /// Absolute paths, within one of the roots after `.` and `..` are resolved.
    Paths,
    /// URLs, within one of the prefixes (scheme, host, port and path).
    Urls,
}

impl AllowKind {
    /// The attribute key that declares it: `allow_paths` or `allow_urls`.
    pub fn key(self) -> &'static str {
        match self {
            AllowKind::Paths => "allow_paths",
            AllowKind::Urls => "allow_urls",
        }
    }

    fn what(self) -> &'static str {
        match self {
            AllowKind::Paths => "paths",
            AllowKind::Urls => "URLs",
        }
    }
}

/// One allowlist of a tool, as declared: an input field (`url`, `jobs[].url`) and where its
/// values may point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllowList {
    kind: AllowKind,
    field: &'static str,
    within: &'static [&'static str],
}

impl AllowList {
    /// Paths in `field` must lie within one of `roots` (absolute directories).
    pub const fn paths(field: &'static str, roots: &'static [&'static str]) -> AllowList {
        AllowList {
            kind: AllowKind::Paths,
            field,
            within: roots,
        }
    }

    /// URLs in `field` must start with one of `prefixes` (`https://api.example.com/v1/`,
    /// `https://*.example.com/`).
    pub const fn urls(field: &'static str, prefixes: &'static [&'static str]) -> AllowList {
        AllowList {
            kind: AllowKind::Urls,
            field,
            within: prefixes,
        }
    }

    /// Paths or URLs.
    pub fn kind(&self) -> AllowKind {
        self.kind
    }

    /// The input field, as declared.
    pub fn field(&self) -> &'static str {
        self.field
    }

    /// The roots or prefixes, as declared.
    pub fn within(&self) -> &'static [&'static str] {
        self.within
    }
}

/// A tool's allowlists, ready to judge arguments.
#[derive(Debug, Default)]
pub(crate) struct CompiledAllowLists {
    lists: Vec<Compiled>,
}

#[derive(Debug)]
struct Compiled {
    declared: AllowList,
    steps: Vec<Step>,
    judge: Judge,
}

#[derive(Debug)]
enum Step {
    Member(String),
    Each,
}

#[derive(Debug)]
enum Judge {
    Paths(Vec<String>),
    Urls(Vec<UrlPrefix>),
}

impl CompiledAllowLists {
    /// Whether no field has an allowlist.
    pub(crate) fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// `lists` checked against the input schema `schema`: each field must be text (or a list
    /// of texts), each root an absolute path, each prefix a URL prefix.
    pub(crate) fn compile(lists: &[AllowList], schema: &Value) -> Result<Self, String> {
        let mut compiled = Vec::with_capacity(lists.len());
        for list in lists {
            let bad = |reason: String| {
                codes::TOOL_ALLOWLIST_INVALID
                    .fill(&[("key", &list.kind.key()), ("reason", &reason)])
            };
            let path = allow::field_path(list.field).map_err(bad)?;
            super::allowlist_schema::resolve_text_field(schema, &path).map_err(bad)?;
            if list.within.is_empty() {
                return Err(bad(format!(
                    "field `{}` lists nothing it allows: name at least one",
                    list.field
                )));
            }
            let judge = match list.kind {
                AllowKind::Paths => Judge::Paths(
                    list.within
                        .iter()
                        .map(|root| allow::path_root(root))
                        .collect::<Result<_, _>>()
                        .map_err(bad)?,
                ),
                AllowKind::Urls => Judge::Urls(
                    list.within
                        .iter()
                        .map(|prefix| UrlPrefix::parse(prefix))
                        .collect::<Result<_, _>>()
                        .map_err(bad)?,
                ),
            };
            let steps = path
                .iter()
                .map(|step| match step {
                    FieldStep::Member(name) => Step::Member((*name).to_owned()),
                    FieldStep::Each => Step::Each,
                })
                .collect();
            compiled.push(Compiled {
                declared: *list,
                steps,
                judge,
            });
        }
        Ok(CompiledAllowLists { lists: compiled })
    }

    /// Judges the validated arguments at `root`: every value outside its list, named by path.
    pub(crate) fn check(&self, root: TapeNode<'_>) -> Result<(), Issues> {
        let mut refused = Vec::new();
        for list in &self.lists {
            let mut at = Vec::new();
            walk(list, root, &list.steps, &mut at, &mut refused);
        }
        if refused.is_empty() {
            Ok(())
        } else {
            Err(Issues::from_list(refused))
        }
    }
}

/// Where a walk is: member names and element indexes.
enum Place<'a> {
    Member(&'a str),
    Index(usize),
}

fn walk<'a>(
    list: &'a Compiled,
    node: TapeNode<'a>,
    steps: &'a [Step],
    at: &mut Vec<Place<'a>>,
    refused: &mut Vec<crate::tool::Issue>,
) {
    match steps.split_first() {
        None => {
            if let Some(text) = node.text()
                && let Err(why) = list.judge.admits(text)
            {
                refused.push(crate::tool::Issue {
                    path: Some(path_text(at)),
                    message: refusal(list, text, why),
                });
            }
        }
        Some((Step::Member(name), rest)) => {
            for value in node.members_named(name) {
                at.push(Place::Member(name));
                walk(list, value, rest, at, refused);
                at.pop();
            }
        }
        Some((Step::Each, rest)) => {
            for (index, element) in node.items().enumerate() {
                at.push(Place::Index(index));
                walk(list, element, rest, at, refused);
                at.pop();
            }
        }
    }
}

impl Judge {
    /// `Ok` when `value` is within; else why not, in words that follow the value.
    fn admits(&self, value: &str) -> Result<(), String> {
        match self {
            Judge::Paths(roots) => {
                let path = allow::normalize_path(value).map_err(|why| why.to_string())?;
                if roots.iter().any(|root| allow::path_within(&path, root)) {
                    Ok(())
                } else {
                    Err("is not allowed".into())
                }
            }
            Judge::Urls(prefixes) => {
                let uri = Uri::parse(value).map_err(|_| "is not a URL".to_owned())?;
                let uri = Normalizer::new()
                    .allow_path_underflow(false)
                    .normalize(&uri)
                    .map_err(|_| "climbs above its host's root with `..`".to_owned())?;
                let authority = uri.authority().ok_or_else(|| "names no host".to_owned())?;
                if authority.has_userinfo() {
                    return Err("names a user or a password".into());
                }
                let port = authority
                    .port_to_u16()
                    .map_err(|_| "has a port that is not a number".to_owned())?;
                let (scheme, host) = (uri.scheme().as_str(), authority.host());
                let path = uri.path().as_str();
                if prefixes.iter().any(|p| p.admits(scheme, host, port, path)) {
                    Ok(())
                } else {
                    Err("is not allowed".into())
                }
            }
        }
    }
}

/// What the model reads of a refused value: the value (shortened), why, and what is allowed.
fn refusal(list: &Compiled, value: &str, why: String) -> String {
    let within = list.declared.within.join(", ");
    codes::TOOL_OUTSIDE_ALLOWLIST.fill(&[
        ("value", &super::issues::quoted(value)),
        ("why", &why),
        ("what", &list.declared.kind.what()),
        ("within", &within),
    ])
}

fn path_text(at: &[Place<'_>]) -> String {
    let mut out = String::new();
    for place in at {
        match place {
            Place::Member(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Place::Index(index) => {
                out.push('[');
                out.push_str(&index.to_string());
                out.push(']');
            }
        }
    }
    out
}
