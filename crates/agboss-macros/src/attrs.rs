//! Shared attribute handling: known keys, duplicates, the crate path, doc comments, and the
//! rules' findings as spanned errors.

use agboss_rules::Finding;
use agboss_rules::distance::typo_of;
use darling::FromMeta;
use darling::ast::NestedMeta;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Attribute, Path};

/// The metas whose key is known, and the known keys that an unknown key was taken for a typo
/// of (so that "missing `description`" is not said again after "`desc`: did you mean
/// `description`?").
struct KnownKeys {
    metas: Vec<NestedMeta>,
    mistyped: Vec<&'static str>,
}

/// Splits `metas` into the ones whose key is in `known`, reporting unknown and repeated keys
/// (each spanned at its key) into `errors`.
fn known_keys(
    metas: Vec<NestedMeta>,
    known: &[&'static str],
    what: &str,
    errors: &mut darling::error::Accumulator,
) -> KnownKeys {
    let mut mistyped = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for meta in metas {
        let NestedMeta::Meta(inner) = &meta else {
            errors.push(
                darling::Error::custom(format!(
                    "expected `key = value` in #[{what}(..)]; the keys are {}",
                    list(known)
                ))
                .with_span(&meta),
            );
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
            mistyped.extend(nearest);
            let hint = nearest
                .map(|k| format!(" (did you mean `{k}`?)"))
                .unwrap_or_default();
            errors.push(
                darling::Error::custom(format!(
                    "unknown #[{what}] key `{key}`{hint}; the keys are {}",
                    list(known)
                ))
                .with_span(path),
            );
            continue;
        }
        if seen.contains(&key) {
            errors.push(
                darling::Error::custom(format!("`{key}` is given twice; keep one")).with_span(path),
            );
            continue;
        }
        seen.push(key);
        kept.push(meta);
    }
    KnownKeys {
        metas: kept,
        mistyped,
    }
}

/// Parses an attribute's arguments into `T`: unknown and repeated keys (see [`known_keys`]) and
/// malformed values go to `errors`. Returns `T` and the keys an unknown key was taken for a typo
/// of.
pub fn parse_args<T: FromMeta>(
    args: TokenStream,
    known: &[&'static str],
    what: &str,
    errors: &mut darling::error::Accumulator,
) -> Option<(T, Vec<&'static str>)> {
    let metas = errors.handle(NestedMeta::parse_meta_list(args).map_err(darling::Error::from))?;
    let known = known_keys(metas, known, what, errors);
    let parsed = errors.handle(T::from_list(&known.metas))?;
    Some((parsed, known.mistyped))
}

/// The path generated code reaches the runtime through: `::agboss::__private`, or
/// `<crate>::__private` for `crate = path`.
pub fn private_path(krate: Option<&Path>) -> TokenStream {
    match krate {
        Some(path) => quote!(#path::__private),
        None => quote!(::agboss::__private),
    }
}

/// The `SourceLocation` of the item the attribute is on, for its descriptor.
pub fn source_location(private: &TokenStream) -> TokenStream {
    quote! {
        #private::SourceLocation {
            module_path: ::core::module_path!(),
            file: ::core::file!(),
            line: ::core::line!(),
        }
    }
}

/// `#[doc = text]` for an item without a doc comment of its own: generated items are documented
/// with what the attribute says of them.
pub fn doc_unless_documented(item: &syn::ItemStruct, text: &str) -> Option<TokenStream> {
    doc_text(&item.attrs)
        .is_none()
        .then(|| quote!(#[doc = #text]))
}

/// The text of a doc comment: its `///` lines (`#[doc = ".."]` attributes), each without the
/// one space after `///`, joined by `\n` and trimmed. `None` when there is none, or only
/// whitespace. A `#[doc = include_str!(..)]` is not read: its text is not known here.
pub fn doc_text(attrs: &[Attribute]) -> Option<String> {
    let lines: Vec<String> = attrs
        .iter()
        .filter(|attr| attr.path().is_ident("doc"))
        .filter_map(|attr| match &attr.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(text),
                        ..
                    }),
                ..
            }) => Some(text.value()),
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').map(str::to_owned).unwrap_or(line))
        .collect();
    let text = lines.join("\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

/// A rule's finding as an error at `span`, printed `[code] message`.
pub fn finding_at(finding: &Finding, span: Span) -> darling::Error {
    darling::Error::custom(finding).with_span(&span)
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

    fn doc_of(item: TokenStream) -> Option<String> {
        doc_text(&syn::parse2::<syn::ItemStruct>(item).unwrap().attrs)
    }

    #[test]
    fn a_doc_comment_is_its_lines_without_the_space_after_the_slashes() {
        let doc = doc_of(quote! {
            /// Searches the team's issues.
            ///
            ///   Indented: kept, less one space.
            #[derive(Debug)]
            pub struct SearchIssues;
        });
        assert_eq!(
            doc.as_deref(),
            Some("Searches the team's issues.\n\n  Indented: kept, less one space.")
        );
        let doc = doc_of(quote! {
            #[doc = "Written as an attribute."]
            #[doc(hidden)]
            pub struct Hidden;
        });
        assert_eq!(doc.as_deref(), Some("Written as an attribute."));
    }

    #[test]
    fn a_blank_or_absent_doc_is_no_doc() {
        assert_eq!(
            doc_of(quote!(
                pub struct Plain;
            )),
            None
        );
        assert_eq!(
            doc_of(quote!(
                #[doc = "   "]
                #[doc = ""]
                pub struct Blank;
            )),
            None
        );
        assert_eq!(
            doc_of(quote!(
                #[doc(hidden)]
                pub struct Hidden;
            )),
            None
        );
    }

    #[test]
    fn an_unknown_key_names_the_key_it_is_a_typo_of() {
        let mut errors = darling::Error::accumulator();
        let metas =
            NestedMeta::parse_meta_list(quote!(desc = "x", name = "a", name = "b")).unwrap();
        let known = known_keys(metas, &["name", "description"], "tool", &mut errors);
        assert_eq!(known.mistyped, ["description"]);
        assert_eq!(known.metas.len(), 1, "the repeated `name` is dropped");
        let message = errors.finish().unwrap_err().to_string();
        assert!(message.contains("did you mean `description`?"), "{message}");
    }
}
