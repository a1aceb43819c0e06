//! A struct's fields as dependencies, shared by `#[tool]` and `#[channel]`: how they are read,
//! described (`DependencySpec`s) and resolved for each call or ask (`fn build`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemStruct, Type};

use crate::emit::{Builder, Descriptor, Members};

/// One field of the struct: a dependency.
pub struct Field {
    /// `None` for a tuple struct's field.
    pub ident: Option<syn::Ident>,
    /// The name descriptors and messages use (`"0"` for a tuple field).
    pub name: String,
    pub ty: Type,
    /// The type as the source writes it: `Arc<dyn IssuesApi>`.
    pub written: String,
}

/// The struct's fields, in declaration order.
pub fn fields_of(item: &ItemStruct) -> Vec<Field> {
    item.fields
        .iter()
        .enumerate()
        .map(|(i, f)| Field {
            ident: f.ident.clone(),
            name: f
                .ident
                .as_ref()
                .map_or_else(|| i.to_string(), ToString::to_string),
            ty: f.ty.clone(),
            written: written_type(&f.ty),
        })
        .collect()
}

/// For a component whose fields are its dependencies: their static array, the static
/// descriptor holding `value`, and the impl of its trait with `fn build`, spanned on the
/// struct's name.
pub fn gen_dependent_impl(
    fields: &[Field],
    item: &ItemStruct,
    descriptor: &Descriptor<'_>,
    value: TokenStream,
) -> TokenStream {
    gen_dependent_impl_with(fields, item, descriptor, value, TokenStream::new())
}

/// [`gen_dependent_impl`], with `before` the impl's `DESCRIPTOR` (a knowledge base's
/// `SEARCH_TOOL`).
pub fn gen_dependent_impl_with(
    fields: &[Field],
    item: &ItemStruct,
    descriptor: &Descriptor<'_>,
    value: TokenStream,
    before: TokenStream,
) -> TokenStream {
    let private = descriptor.private;
    let dependencies = gen_dependencies(fields, private);
    let members = Members {
        at_name: true,
        before,
        after: gen_build(fields, item, private, &descriptor.name),
    };
    let implementation = descriptor.emit(value, &item.ident, members);
    quote! {
        #dependencies

        #implementation
    }
}

/// The descriptor, with `.with_dependencies(&__AGBOSS_DEPENDENCIES)` when there are fields.
pub fn dependencies_of(mut descriptor: Builder, fields: &[Field]) -> TokenStream {
    if !fields.is_empty() {
        descriptor.call("with_dependencies", quote!(&__AGBOSS_DEPENDENCIES));
    }
    descriptor.finish()
}

/// The fields as a `static __AGBOSS_DEPENDENCIES` array (nothing without fields): a borrowed
/// array literal in the descriptor would rely on constant promotion, which not every field
/// expression allows.
fn gen_dependencies(fields: &[Field], private: &TokenStream) -> TokenStream {
    if fields.is_empty() {
        return TokenStream::new();
    }
    let count = fields.len();
    let specs = fields.iter().map(|field| {
        let name = &field.name;
        let ty = &field.ty;
        let written = &field.written;
        // Spanned on the field's type: a type that cannot be a dependency is reported there.
        let requirement = quote_spanned!(ty.span()=> <#ty as #private::Dependency>::requirement);
        quote!(#private::DependencySpec::new(#name, #written, #requirement))
    });
    quote! {
        #[doc(hidden)]
        static __AGBOSS_DEPENDENCIES: [#private::DependencySpec; #count] = [#(#specs),*];
    }
}

/// `fn build`: each field resolved from the scope, in declaration order; a field without a
/// value is the error `#descriptor.unresolved(index, why)`, `descriptor` being the static
/// descriptor itself. Not `<Self as Tool>::DESCRIPTOR`: that would need the handler's impl, and
/// a missing one would be reported again at every field.
fn gen_build(
    fields: &[Field],
    item: &ItemStruct,
    private: &TokenStream,
    descriptor: &syn::Ident,
) -> TokenStream {
    let values = fields.iter().enumerate().map(|(index, field)| {
        let ty = &field.ty;
        quote_spanned! {ty.span()=>
            match <#ty as #private::Dependency>::resolve(__agboss_scope) {
                ::core::result::Result::Ok(value) => value,
                ::core::result::Result::Err(why) => {
                    return ::core::result::Result::Err(
                        #descriptor.unresolved(#index, why),
                    );
                }
            }
        }
    });
    let construct = match &item.fields {
        syn::Fields::Named(_) => {
            let idents = fields.iter().map(|f| &f.ident);
            quote!(Self { #(#idents: #values),* })
        }
        syn::Fields::Unnamed(_) => quote!(Self ( #(#values),* )),
        syn::Fields::Unit => quote!(Self),
    };
    let scope_name = if fields.is_empty() {
        quote!(_)
    } else {
        quote!(__agboss_scope)
    };
    quote! {
        fn build(
            #scope_name: &#private::Scope<'_>,
        ) -> ::core::result::Result<Self, #private::DependencyError> {
            ::core::result::Result::Ok(#construct)
        }
    }
}

/// For tests: each field's name and type as written.
#[cfg(test)]
pub fn named(fields: &[Field]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|f| (f.name.as_str(), f.written.as_str()))
        .collect()
}

/// The type as a person writes it: `Arc<dyn IssuesApi>`, not `Arc < dyn IssuesApi >`.
pub fn written_type(ty: &Type) -> String {
    let spaced = ty.to_token_stream().to_string();
    let mut out = String::with_capacity(spaced.len());
    let mut previous = "";
    for word in spaced.split(' ') {
        // Groups print with their delimiter stuck to the first or last token: `(u8`, `u16)`.
        let glued_to_previous = ["<", "(", "[", "&", "::"]
            .iter()
            .any(|p| previous.ends_with(p))
            || [">", "(", ")", "[", "]", ",", ";", "::", "<"]
                .iter()
                .any(|p| word.starts_with(p));
        if !out.is_empty() && !glued_to_previous {
            out.push(' ');
        }
        out.push_str(word);
        previous = word;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_read_as_written() {
        let ty: Type = syn::parse_quote!(Arc<dyn IssuesApi>);
        assert_eq!(written_type(&ty), "Arc<dyn IssuesApi>");
        let ty: Type = syn::parse_quote!(std::sync::Arc<dyn Fn(u8, u16) -> u32 + Send>);
        assert_eq!(
            written_type(&ty),
            "std::sync::Arc<dyn Fn(u8, u16) -> u32 + Send>"
        );
        let ty: Type = syn::parse_quote!(Arc<[u8; 4]>);
        assert_eq!(written_type(&ty), "Arc<[u8; 4]>");
    }

    #[test]
    fn fields_are_named_by_ident_or_position() {
        let item: ItemStruct = syn::parse_quote!(
            pub struct Slack {
                execution: ExecutionContext,
                api: Arc<dyn SlackApi>,
            }
        );
        assert_eq!(
            named(&fields_of(&item)),
            [
                ("execution", "ExecutionContext"),
                ("api", "Arc<dyn SlackApi>")
            ]
        );
        let item: ItemStruct = syn::parse_quote!(
            pub struct Slack(Clock);
        );
        let tuple = fields_of(&item);
        assert_eq!(tuple[0].name, "0");
        assert!(tuple[0].ident.is_none());
    }
}
