//! Checks `#[knowledge(..)]` into a [`ResolvedKnowledge`], every problem reported at its token.

use agboss_rules::{codes, model_id};
use darling::util::SpannedValue;
use syn::ItemStruct;

use super::args::KnowledgeArgs;
use crate::ctxt::Ctxt;
use crate::header::{self, Describing, Header, Naming};

/// How knowledge bases are named and described.
const KNOWLEDGE_KIND: header::Kind = header::Kind {
    naming: Naming::Suffixed("rag"),
    describing: Some(Describing {
        says: "what the documents hold, so the model knows when to search them",
        which: "says what its documents hold: the model reads it to know when to search",
        example: "The team's guides: how tools, agents and workflows are written",
    }),
};

/// The modes, the kinds of documents and the kinds of search `#[knowledge]` accepts.
pub const MODES: &[&str] = &["tool", "context"];
pub const DOCUMENTS: &[&str] = &["text", "code"];
pub const SEARCHES: &[&str] = &["full-text", "semantic", "hybrid"];

/// The most passages a search may return (the search tool's schema says the same).
const MOST_TOP_K: u32 = 50;

/// A `#[knowledge]` that passed every check.
pub struct ResolvedKnowledge {
    pub header: Header,
    /// One of [`MODES`].
    pub mode: String,
    pub top_k: Option<u32>,
    /// With a folder, the built-in index searches.
    pub folder: Option<Folder>,
    /// Its documents are vouched for.
    pub trusted: bool,
}

/// The built-in index's folder and settings.
pub struct Folder {
    pub path: String,
    pub documents: String,
    pub search: String,
    pub embeddings: Option<String>,
}

/// Checks every key, then the header; `None` with every problem reported.
pub fn check(args: KnowledgeArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedKnowledge> {
    let mode = one_of(args.mode.as_ref(), "mode", MODES, cx).unwrap_or("tool");
    let top_k = args.top_k.as_ref().and_then(|lit| top_k(lit, cx));
    let folder = check_folder(&args, item, cx);
    let header = KNOWLEDGE_KIND.check(args.header, item, cx).finish();
    if cx.has_errors() {
        return None;
    }
    Some(ResolvedKnowledge {
        header: header?,
        mode: mode.to_owned(),
        top_k,
        folder,
        trusted: args.trusted,
    })
}

/// The folder and the keys that go with it: `documents`, `search`, `embeddings` only with a
/// folder; `embeddings` needed by `semantic` and `hybrid` search, and only by them; no fields.
fn check_folder(args: &KnowledgeArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<Folder> {
    let documents = one_of(args.documents.as_ref(), "documents", DOCUMENTS, cx);
    let search = one_of(args.search.as_ref(), "search", SEARCHES, cx);
    let Some(folder) = &args.folder else {
        for (key, given) in [
            ("documents", args.documents.as_ref()),
            ("search", args.search.as_ref()),
            ("embeddings", args.embeddings.as_ref()),
        ] {
            if let Some(value) = given {
                invalid(
                    cx,
                    &value.span(),
                    format!(
                        "`{key}` sets up the built-in index, which reads a `folder`: add `folder = \"..\"`, or remove `{key}` (a base with its own `KnowledgeBase` impl searches as it likes)"
                    ),
                );
            }
        }
        return None;
    };
    if folder.trim().is_empty() {
        invalid(cx, &folder.span(), "`folder` is empty: name the folder of documents, relative to the working directory (`folder = \"docs\"`)".to_owned());
    }
    if !item.fields.is_empty() {
        invalid(cx, &item.fields, "a knowledge base with `folder` is searched by the built-in index and takes no fields: remove them, or remove `folder` and implement `KnowledgeBase` for a base of your own".to_owned());
    }
    let search = search.unwrap_or("full-text");
    let embeddings = match (&args.embeddings, search) {
        (Some(model), "full-text") => {
            invalid(cx, &model.span(), "`embeddings` is for `search = \"semantic\"` or `\"hybrid\"`: full-text search needs no model; remove it or choose a search that uses it".to_owned());
            None
        }
        (Some(model), _) => match model_id::check(model) {
            Ok(_) => Some(model.as_str().to_owned()),
            Err(finding) => {
                cx.finding_at(&finding, &model.span());
                None
            }
        },
        (None, "full-text") => None,
        (None, _) => {
            let at = args
                .search
                .as_ref()
                .expect("a search other than the default is written");
            invalid(
                cx,
                &at.span(),
                format!(
                    "`search = \"{search}\"` compares embeddings: add `embeddings = \"vendor/model\"` (`\"openai/text-embedding-3-small\"`)"
                ),
            );
            None
        }
    };
    Some(Folder {
        path: folder.as_str().to_owned(),
        documents: documents.unwrap_or("text").to_owned(),
        search: search.to_owned(),
        embeddings,
    })
}

/// The value of `key` when it is one of `allowed`; else reported, with the values it takes.
fn one_of<'a>(
    value: Option<&SpannedValue<String>>,
    key: &str,
    allowed: &[&'a str],
    cx: &mut Ctxt,
) -> Option<&'a str> {
    let value = value?;
    let found = allowed.iter().find(|a| **a == value.as_str()).copied();
    if found.is_none() {
        let list = allowed
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(", ");
        invalid(
            cx,
            &value.span(),
            format!("`{key} = {:?}` is not one of {list}", value.as_str()),
        );
    }
    found
}

/// `top_k`: from 1 to [`MOST_TOP_K`].
fn top_k(lit: &syn::LitInt, cx: &mut Ctxt) -> Option<u32> {
    match lit.base10_parse::<u32>() {
        Ok(n) if (1..=MOST_TOP_K).contains(&n) => Some(n),
        _ => {
            invalid(
                cx,
                lit,
                format!("`top_k = {lit}`: a search returns from 1 to {MOST_TOP_K} passages"),
            );
            None
        }
    }
}

fn invalid(cx: &mut Ctxt, at: &impl syn::spanned::Spanned, detail: String) {
    cx.finding_at(
        &codes::KNOWLEDGE_INVALID.finding(&[("detail", &detail)]),
        at,
    );
}
