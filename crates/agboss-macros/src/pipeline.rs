//! The one way every attribute expands, as serde_derive's: parse (the item with `syn`, the
//! arguments with darling) -> check (every problem into one [`Ctxt`], each at its token) ->
//! generate (from a resolved model that passed every check). A macro is an [`Attribute`]; the
//! stages, and what is emitted when one fails, are written here once.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::Parse;

use crate::ctxt::Ctxt;

/// An attribute macro, as [`expand`] runs it.
pub trait Attribute {
    /// The item it goes on: a struct, or for `#[dto]` any data type.
    type Item: Parse + ToTokens;
    /// Its arguments as written, read by darling.
    type Args: FromMeta;
    /// What [`check`](Self::check) makes of the arguments and the item: every value valid, so
    /// that generation has nothing left to refuse.
    type Resolved;

    /// The attribute's name, as messages write it (`mcp_tool`).
    fn name(&self) -> &'static str;

    /// The keys it accepts.
    fn keys(&self) -> &'static [&'static str];

    /// What is said of an item that does not parse as [`Item`](Self::Item).
    fn misplaced(&self) -> Misplaced;

    /// Checks `args` on `item`, reporting every problem into `cx`. `None` only with a problem
    /// reported.
    fn check(&self, args: Self::Args, item: &Self::Item, cx: &mut Ctxt) -> Option<Self::Resolved>;

    /// Checks the item's shape (a unit struct, no generics), after the arguments.
    fn check_shape(&self, item: &Self::Item, cx: &mut Ctxt);

    /// The code of a resolved attribute: the item, and what the attribute adds to it.
    fn generate(&self, resolved: Self::Resolved, item: &Self::Item) -> TokenStream;

    /// What keeps compiling beside the item when the attribute failed, so that only the real
    /// problems show: nothing, unless the arguments use imports of their own.
    fn keep_on_error(&self, _args: &Self::Args) -> TokenStream {
        TokenStream::new()
    }
}

/// How an attribute reports an item it does not go on.
pub enum Misplaced {
    /// This message, at the part of the item that names it (`fn search_issues`); the
    /// arguments are not read.
    AtName(String),
    /// The parser's own error, and then every problem of the arguments.
    ParserError,
}

/// Expands `#[attribute(args)] item`. On any problem the item is emitted unchanged beside the
/// errors (and what [`Attribute::keep_on_error`] keeps), so the user's code around it still
/// compiles and only the real problems show.
pub fn expand<A: Attribute>(attribute: &A, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut cx = Ctxt::new(attribute.name());
    let parsed = match syn::parse2::<A::Item>(item.clone()) {
        Ok(parsed) => Some(parsed),
        Err(error) => match attribute.misplaced() {
            Misplaced::AtName(message) => return misplaced(item, &message),
            Misplaced::ParserError => {
                cx.push(error);
                None
            }
        },
    };
    let args = cx.parse_args::<A::Args>(args, attribute.keys());
    let kept = args.as_ref().map(|args| attribute.keep_on_error(args));
    let Some(parsed) = parsed else {
        return fallback(item, cx, kept);
    };
    let resolved = args.and_then(|args| attribute.check(args, &parsed, &mut cx));
    attribute.check_shape(&parsed, &mut cx);
    match resolved {
        Some(resolved) if !cx.has_errors() => attribute.generate(resolved, &parsed),
        _ => fallback(parsed.into_token_stream(), cx, kept),
    }
}

/// The item as written, the errors, and what is kept.
fn fallback(item: TokenStream, cx: Ctxt, kept: Option<TokenStream>) -> TokenStream {
    let errors = cx.finish().err().map(darling::Error::write_errors);
    quote!(#item #errors #kept)
}

/// `item` unchanged, with `message` at the part of it that names it. A `syn::Error` of its
/// own, the one error not in a [`Ctxt`]: it spans all of `fn search_issues`, where darling's
/// errors hold one token.
fn misplaced(item: TokenStream, message: &str) -> TokenStream {
    let error = syn::Error::new_spanned(item_name(&item), message).to_compile_error();
    quote!(#item #error)
}

/// The part of an item that names it (`fn search_issues`), for an error about the item.
fn item_name(item: &TokenStream) -> TokenStream {
    match syn::parse2::<syn::Item>(item.clone()) {
        Ok(syn::Item::Fn(f)) => {
            let (token, ident) = (f.sig.fn_token, f.sig.ident);
            quote!(#token #ident)
        }
        Ok(syn::Item::Enum(e)) => {
            let (token, ident) = (e.enum_token, e.ident);
            quote!(#token #ident)
        }
        Ok(syn::Item::Trait(t)) => {
            let (token, ident) = (t.trait_token, t.ident);
            quote!(#token #ident)
        }
        Ok(syn::Item::Impl(i)) => {
            let token = i.impl_token;
            quote!(#token)
        }
        _ => item.clone().into_iter().take(1).collect(),
    }
}

/// For the tests of the check stages: the resolved model, or every problem's message.
#[cfg(test)]
pub fn check_on<A: Attribute>(
    attribute: &A,
    args: TokenStream,
    item: TokenStream,
) -> Result<A::Resolved, Vec<String>> {
    let item: A::Item = syn::parse2(item).expect("the test's item parses");
    let mut cx = Ctxt::new(attribute.name());
    let resolved = cx
        .parse_args::<A::Args>(args, attribute.keys())
        .and_then(|args| attribute.check(args, &item, &mut cx));
    attribute.check_shape(&item, &mut cx);
    match cx.finish() {
        Ok(()) => Ok(resolved.expect("no problem reported, so resolved")),
        Err(errors) => Err(errors.into_iter().map(|e| e.to_string()).collect()),
    }
}
