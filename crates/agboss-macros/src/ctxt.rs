//! The one error sink of an expansion, as serde_derive's `Ctxt`: every stage reports each
//! problem here, at the offending token, and goes on; the pipeline stops between stages, never
//! inside one, so one compile shows every problem of an attribute.

use std::fmt::Display;

use agboss_rules::Finding;
use agboss_rules::distance::typo_of;
use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;

/// Keys an attribute may give more than once, each time as a list (`allow_paths(..)`): their
/// fields are read with darling's `multiple`.
const REPEATABLE: &[&str] = &["allow_paths", "allow_urls"];

/// The problems of one attribute, in the order they were found.
pub struct Ctxt {
    attribute: &'static str,
    errors: Vec<darling::Error>,
    /// Known keys an unknown key was reported as a typo of: a problem about such a key being
    /// missing (`#[tool] needs description`) is not said again.
    mistyped: Vec<&'static str>,
}

impl Ctxt {
    /// The sink of `#[attribute]`.
    pub fn new(attribute: &'static str) -> Ctxt {
        Ctxt {
            attribute,
            errors: Vec::new(),
            mistyped: Vec::new(),
        }
    }

    /// The attribute's name, as messages write it (`#[mcp_tool]`).
    pub fn attribute(&self) -> &'static str {
        self.attribute
    }

    /// Reports `error` as it is (darling's, or a `syn::Error` with its span).
    pub fn push(&mut self, error: impl Into<darling::Error>) {
        self.errors.push(error.into());
    }

    /// Reports `message` at `node` (its first token).
    pub fn error_at(&mut self, node: &impl Spanned, message: impl Display) {
        self.push(error_at(node, message));
    }

    /// Reports `message` at the attribute: for what is missing from it.
    pub fn error(&mut self, message: impl Display) {
        self.push(darling::Error::custom(message));
    }

    /// Reports a rule's finding, printed `[code] message`, at `node`.
    pub fn finding_at(&mut self, finding: &Finding, node: &impl Spanned) {
        self.error_at(node, finding);
    }

    /// The value of `result`, or `None` with its error reported.
    pub fn handle<T>(&mut self, result: Result<T, impl Into<darling::Error>>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// Reports `message` at the attribute about the missing `key`, unless an unknown key was
    /// already reported as a typo of it.
    pub fn missing(&mut self, key: &str, message: impl Display) {
        if !self.mistyped(key) {
            self.error(message);
        }
    }

    /// `#[attribute] needs `key`: hint`, as [`missing`](Self::missing) reports it.
    pub fn needs(&mut self, key: &str, hint: impl Display) {
        let message = format!("#[{}] needs `{key}`: {hint}", self.attribute);
        self.missing(key, message);
    }

    /// Whether an unknown key was reported as a typo of `key`.
    pub fn mistyped(&self, key: &str) -> bool {
        self.mistyped.contains(&key)
    }

    /// Whether a problem was reported.
    pub fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// Reads the attribute's arguments into `T`: a key not in `known` (with the key it is a
    /// typo of, if any), a key given twice and a malformed value are reported, each at its
    /// key or value; `None` when `T` could not be read at all.
    pub fn parse_args<T: FromMeta>(
        &mut self,
        args: TokenStream,
        known: &[&'static str],
    ) -> Option<T> {
        let metas = self.handle(NestedMeta::parse_meta_list(args))?;
        let metas = self.known_keys(metas, known);
        self.handle(T::from_list(&metas))
    }

    /// The metas whose key is in `known`, once each; the others are reported.
    fn known_keys(&mut self, metas: Vec<NestedMeta>, known: &[&'static str]) -> Vec<NestedMeta> {
        let what = self.attribute;
        let mut seen: Vec<String> = Vec::new();
        let mut kept = Vec::new();
        for meta in metas {
            let NestedMeta::Meta(inner) = &meta else {
                let message = format!(
                    "expected `key = value` in #[{what}(..)]; the keys are {}",
                    list(known)
                );
                self.error_at(&meta, message);
                continue;
            };
            let path = inner.path();
            let key = path
                .get_ident()
                .map(ToString::to_string)
                .or_else(|| path.is_ident("crate").then(|| "crate".into()))
                .unwrap_or_else(|| quote!(#path).to_string().replace(' ', ""));
            if !known.contains(&key.as_str()) {
                let nearest = typo_of(&key, known);
                self.mistyped.extend(nearest);
                let hint = nearest
                    .map(|k| format!(" (did you mean `{k}`?)"))
                    .unwrap_or_default();
                let message = format!(
                    "unknown #[{what}] key `{key}`{hint}; the keys are {}",
                    list(known)
                );
                self.error_at(path, message);
                continue;
            }
            let repeats = REPEATABLE.contains(&key.as_str()) && matches!(inner, syn::Meta::List(_));
            if seen.contains(&key) && !repeats {
                self.error_at(path, format!("`{key}` is given twice; keep one"));
                continue;
            }
            seen.push(key);
            kept.push(meta);
        }
        kept
    }

    /// Every problem reported, or `Ok` when there is none.
    pub fn finish(self) -> darling::Result<()> {
        match self.errors.is_empty() {
            true => Ok(()),
            false => Err(darling::Error::multiple(self.errors)),
        }
    }
}

/// The error `message` at `node` (its first token), for a stage that returns its value or the
/// one problem that kept it from being read ([`Ctxt::handle`] reports it).
pub fn error_at(node: &impl Spanned, message: impl Display) -> darling::Error {
    darling::Error::custom(message).with_span(node)
}

fn list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, FromMeta)]
    struct Args {
        name: Option<String>,
        description: Option<String>,
    }

    #[test]
    fn an_unknown_key_names_the_key_it_is_a_typo_of() {
        let mut cx = Ctxt::new("tool");
        let args: Args = cx
            .parse_args(
                quote!(desc = "x", name = "a", name = "b"),
                &["name", "description"],
            )
            .unwrap();
        assert_eq!(
            args.name.as_deref(),
            Some("a"),
            "the repeated `name` is dropped"
        );
        assert!(args.description.is_none());
        assert!(cx.mistyped("description"));
        cx.needs("description", "add it");
        let messages: Vec<String> = cx
            .finish()
            .unwrap_err()
            .into_iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(
            messages.len(),
            2,
            "no `needs` about a mistyped key: {messages:?}"
        );
        assert!(messages[0].contains("did you mean `description`?"));
        assert_eq!(messages[1], "`name` is given twice; keep one");
    }

    #[test]
    fn a_missing_key_is_said_with_the_attribute() {
        let mut cx = Ctxt::new("mcp_tool");
        cx.needs("server", "add `server = NotesServer`");
        let message = cx.finish().unwrap_err().to_string();
        assert_eq!(
            message,
            "#[mcp_tool] needs `server`: add `server = NotesServer`"
        );
    }
}
