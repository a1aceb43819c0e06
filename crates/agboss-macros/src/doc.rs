//! Doc comments: read as a component's description when its attribute gives none, and written
//! on a struct without one from what its attribute says of it.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Attribute, ItemStruct};

/// `#[doc = text]` for an item without a doc comment of its own.
pub fn doc_unless_documented(item: &ItemStruct, text: &str) -> Option<TokenStream> {
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
}
