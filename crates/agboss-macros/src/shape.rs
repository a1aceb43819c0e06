//! What the struct under an attribute may look like, and the lists some keys take
//! (`tools = [..]`, `prompts = [..]`): each problem reported at its token, every element read.

use syn::{Expr, ItemStruct};

use crate::ctxt::Ctxt;

/// Reports `message` at the struct's fields unless it is a unit struct: a kind whose settings
/// are all in its attribute.
pub fn unit_struct(item: &ItemStruct, message: &str, cx: &mut Ctxt) {
    if !matches!(item.fields, syn::Fields::Unit) {
        cx.error_at(&item.fields, message);
    }
}

/// Reports `message` at the struct's generics, if it has any: a component is one type with
/// one name.
pub fn not_generic(item: &ItemStruct, message: &str, cx: &mut Ctxt) {
    if !item.generics.params.is_empty() {
        cx.error_at(&item.generics, message);
    }
}

/// What a list key's messages say.
pub struct ListOf<'a> {
    /// For a value that is not `[..]`.
    pub not_a_list: &'a str,
    /// For an element that is not of the kind the list holds.
    pub not_an_element: &'a str,
}

/// The elements of `expr`, a `[..]` list, that `element` reads; every other element, or a
/// value that is no list, is reported.
pub fn list_of<T>(
    expr: &Expr,
    messages: &ListOf<'_>,
    element: impl Fn(&Expr) -> Option<T>,
    cx: &mut Ctxt,
) -> Vec<T> {
    let Expr::Array(array) = expr else {
        cx.error_at(expr, messages.not_a_list);
        return Vec::new();
    };
    let mut read = Vec::new();
    for expr in &array.elems {
        match element(expr) {
            Some(value) => read.push(value),
            None => cx.error_at(expr, messages.not_an_element),
        }
    }
    read
}

/// A text in quotes, as an element of [`list_of`].
pub fn text(expr: &Expr) -> Option<syn::LitStr> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) => Some(text.clone()),
        _ => None,
    }
}

/// A path (`SearchIssues`, `web::FetchPage`), as an element of [`list_of`].
pub fn path(expr: &Expr) -> Option<syn::Path> {
    match expr {
        Expr::Path(path) => Some(path.path.clone()),
        _ => None,
    }
}
