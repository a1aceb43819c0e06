//! The shape every component's code has: the struct, then its static descriptor, the impl of
//! its kind's trait and its registration inside `const _: () = { .. };`, so that no name leaks
//! into the user's module. Everything is reached through the runtime's `__private` path.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::Ident;

/// `doc`, the struct, and `items` in an anonymous constant.
pub fn component(
    doc: Option<TokenStream>,
    item: &impl ToTokens,
    items: &[TokenStream],
) -> TokenStream {
    quote! {
        #doc
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #(#items)*
        };
    }
}

/// `#[doc(hidden)] static name: ty = value;`
pub fn hidden_static(name: &Ident, ty: TokenStream, value: TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        static #name: #ty = #value;
    }
}

/// `#private::inventory::submit! { registration }`: registered where `inventory` collects it.
pub fn submit(private: &TokenStream, registration: TokenStream) -> TokenStream {
    quote! {
        #private::inventory::submit! {
            #registration
        }
    }
}

/// A component's static descriptor and the trait whose `DESCRIPTOR` points at it.
pub struct Descriptor<'a> {
    pub private: &'a TokenStream,
    /// The static's name (`__AGBOSS_DESCRIPTOR`): compile errors in the descriptor name it.
    pub name: Ident,
    /// The descriptor's type in the runtime (`ToolDescriptor`).
    pub ty: Ident,
    /// The trait it implements (`Tool`).
    pub trait_: Ident,
}

impl<'a> Descriptor<'a> {
    /// The descriptor `static name: ty` of the trait `trait_`, all three named by their
    /// identifiers.
    pub fn new(private: &'a TokenStream, name: &str, ty: &str, trait_: &str) -> Descriptor<'a> {
        let ident = |text: &str| Ident::new(text, Span::call_site());
        Descriptor {
            private,
            name: ident(name),
            ty: ident(ty),
            trait_: ident(trait_),
        }
    }

    /// The static holding `value`, then `impl trait_ for ident` pointing at it, with
    /// `members` around its `DESCRIPTOR`.
    pub fn emit(&self, value: TokenStream, ident: &Ident, members: Members) -> TokenStream {
        let (private, ty, name) = (self.private, &self.ty, &self.name);
        let descriptor_static = hidden_static(name, quote!(#private::#ty), value);
        let header = match members.at_name {
            true => {
                // Every token the header writes itself, the trait's name among them.
                let trait_ = Ident::new(&self.trait_.to_string(), ident.span());
                quote_spanned! {ident.span()=>
                    #[automatically_derived]
                    impl #private::#trait_ for #ident
                }
            }
            false => {
                let trait_ = &self.trait_;
                quote! {
                    #[automatically_derived]
                    impl #private::#trait_ for #ident
                }
            }
        };
        let Members { before, after, .. } = members;
        quote! {
            #descriptor_static

            #header {
                #before
                const DESCRIPTOR: &'static #private::#ty = &#name;

                #after
            }
        }
    }
}

/// What a component's impl holds beside its `DESCRIPTOR`.
#[derive(Default)]
pub struct Members {
    /// Spanned on the struct's name, so that a missing handler impl is reported there, once.
    pub at_name: bool,
    /// Items before `DESCRIPTOR` (a role's associated types).
    pub before: TokenStream,
    /// Items after it (`fn build`).
    pub after: TokenStream,
}

/// A descriptor expression, built by calls of its `with_..` methods.
pub struct Builder(TokenStream);

impl Builder {
    /// Starts from the constructor call `start`.
    pub fn new(start: TokenStream) -> Builder {
        Builder(start)
    }

    /// Appends `.method(args)`.
    pub fn call(&mut self, method: &str, args: impl ToTokens) {
        let method = Ident::new(method, Span::call_site());
        let start = &self.0;
        self.0 = quote!(#start.#method(#args));
    }

    /// Appends `.method(args(value))` when there is a value.
    pub fn call_with<T>(
        &mut self,
        method: &str,
        value: Option<T>,
        args: impl FnOnce(T) -> TokenStream,
    ) {
        if let Some(value) = value {
            self.call(method, args(value));
        }
    }

    /// The expression.
    pub fn finish(self) -> TokenStream {
        self.0
    }
}
