//! The one way every attribute expands, as serde_derive's: parse (the item with `syn`, the
//! arguments with darling) -> check (every problem into one [`Ctxt`], each at its token) ->
//! generate (from a resolved model that passed every check). A macro declares an [`Attribute`];
//! the stages, and what is emitted when one fails, are written here once.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::parse::Parse;

use crate::ctxt::Ctxt;

/// An attribute macro: what it goes on, what it accepts, and its stages. Each macro declares
/// one (`tool::TOOL`, `agent::AGENT`, ..) and [`expand`](Attribute::expand) runs it.
pub struct Attribute<Item, Args, Resolved> {
    /// The attribute's name, as messages write it (`mcp_tool`).
    pub name: &'static str,
    /// The keys it accepts.
    pub keys: &'static [&'static str],
    /// What is said of an item that does not parse as `Item`.
    pub misplaced: Misplaced,
    /// Checks the arguments on the item, reporting every problem into the [`Ctxt`]: what it
    /// returns is valid and resolved, so that generation has nothing left to refuse. `None`
    /// only with a problem reported.
    pub check: fn(Args, &Item, &mut Ctxt) -> Option<Resolved>,
    /// Checks the item's shape (a unit struct, no generics): after the arguments, and also
    /// when they could not be read.
    pub check_shape: fn(&Item, &mut Ctxt),
    /// The code of a resolved attribute: the item, and what the attribute adds to it. The
    /// third argument is the item as written, for an attribute that emits it unchanged: passing
    /// it on is one step for the compiler, where writing the parsed item out again is one for
    /// each of its tokens.
    pub generate: fn(&Resolved, &Item, &TokenStream) -> TokenStream,
    /// What is emitted beside the item when the attribute failed, so that what the user wrote
    /// for it still compiles cleanly: the unit functions a time span names.
    pub keep_on_error: fn(&Args) -> TokenStream,
}

/// How an attribute reports an item it does not go on.
pub enum Misplaced {
    /// This message, at the part of the item that names it (`fn search_issues`); the
    /// arguments are not read.
    AtName(&'static str),
    /// The parser's own error, and then every problem of the arguments.
    ParserError,
}

/// For [`Attribute::keep_on_error`]: nothing to keep.
pub fn keep_nothing<Args>(_: &Args) -> TokenStream {
    TokenStream::new()
}

impl<Item: Parse + ToTokens, Args: FromMeta, Resolved> Attribute<Item, Args, Resolved> {
    /// Expands `#[attribute(args)] item`: parse -> check -> generate. On any problem the item
    /// is emitted unchanged beside the errors (and what [`keep_on_error`](Self::keep_on_error)
    /// keeps), so the user's code around it still compiles and only the real problems show.
    pub fn expand(&self, args: TokenStream, item: TokenStream) -> TokenStream {
        let mut cx = Ctxt::new(self.name);
        let parsed = match syn::parse2::<Item>(item.clone()) {
            Ok(parsed) => Some(parsed),
            Err(error) => match self.misplaced {
                Misplaced::AtName(message) => return misplaced(item, message),
                Misplaced::ParserError => {
                    cx.push(error);
                    None
                }
            },
        };
        let args = cx.parse_args::<Args>(args, self.keys);
        let kept = args.as_ref().map(self.keep_on_error);
        let Some(parsed) = parsed else {
            return fallback(item, cx, kept);
        };
        match self.check_item(args, &parsed, &mut cx) {
            Some(resolved) => (self.generate)(&resolved, &parsed, &item),
            None => fallback(parsed.into_token_stream(), cx, kept),
        }
    }

    /// The check stage: the arguments (when they could be read) on the item, then the item's
    /// shape. The resolved model when no problem was reported.
    fn check_item(&self, args: Option<Args>, item: &Item, cx: &mut Ctxt) -> Option<Resolved> {
        let resolved = args.and_then(|args| (self.check)(args, item, cx));
        (self.check_shape)(item, cx);
        resolved.filter(|_| !cx.has_errors())
    }

    /// For the tests of the check stages: the resolved model of `args` on `item`, or every
    /// problem's message, one a line.
    #[cfg(test)]
    fn check_on(&self, args: TokenStream, item: TokenStream) -> Result<Resolved, String> {
        let item: Item = syn::parse2(item).expect("the test's item parses");
        let mut cx = Ctxt::new(self.name);
        let args = cx.parse_args::<Args>(args, self.keys);
        let resolved = self.check_item(args, &item, &mut cx);
        match cx.finish() {
            Ok(()) => Ok(resolved.expect("no problem reported, so resolved")),
            Err(errors) => {
                let messages: Vec<String> = errors.into_iter().map(|e| e.to_string()).collect();
                Err(messages.join("\n"))
            }
        }
    }

    /// For tests: the resolved model of `args` on `item`, which must have no problem.
    #[cfg(test)]
    pub fn resolve(&self, args: TokenStream, item: TokenStream) -> Resolved {
        self.check_on(args, item)
            .unwrap_or_else(|problems| panic!("#[{}] refused: {problems}", self.name))
    }

    /// For tests: every problem of `args` on `item`, one a line; there must be one.
    #[cfg(test)]
    pub fn problems(&self, args: TokenStream, item: TokenStream) -> String {
        match self.check_on(args, item) {
            Ok(_) => panic!("#[{}] accepted what it should refuse", self.name),
            Err(problems) => problems,
        }
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
