//! Generates a resolved knowledge base's descriptor, its search tool's descriptor, its
//! `Knowledge` impl (and, over a folder, its `KnowledgeBase` impl) and its registration.

use agboss_rules::names;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{Ident, ItemStruct};

use super::ResolvedKnowledge;
use crate::emit::{self, Builder, Descriptor, hidden_static, submit};
use crate::fields::{Field, gen_dependent_impl_with};
use crate::header::source_location;

/// The hidden field through which a base over a folder reaches the application's indexes.
const FOLDER_FIELD: &str = "__agboss_folder";

/// The struct (with the folder's hidden field), and in an anonymous constant its dependencies,
/// descriptors, impls and registration.
pub fn generate(knowledge: &ResolvedKnowledge, item: &ItemStruct, _: &TokenStream) -> TokenStream {
    let private = knowledge.header.private();
    let ident = &item.ident;
    let (item, fields) = with_folder_field(knowledge, item, &private);
    let search_tool = gen_search_tool(knowledge, &item, &private);
    let search_tool_static = Ident::new("__AGBOSS_SEARCH_TOOL", Span::call_site());
    let descriptor = Descriptor::new(
        &private,
        "__AGBOSS_KNOWLEDGE",
        "KnowledgeDescriptor",
        "Knowledge",
    );
    let before = quote! {
        const SEARCH_TOOL: &'static #private::ToolDescriptor = &#search_tool_static;
    };
    let implementation = gen_dependent_impl_with(
        &fields,
        &item,
        &descriptor,
        gen_descriptor(knowledge, &item, &fields, &private),
        before,
    );
    let folder_search = gen_folder_search(knowledge, ident, &private);
    let registration = submit(
        &private,
        quote!(#private::KnowledgeRegistration::of::<#ident>()),
    );
    emit::component(
        knowledge.header.doc(&item),
        &item,
        &[search_tool, implementation, folder_search, registration],
    )
}

/// For a base over a folder, the struct with its hidden field (a unit struct gets braces),
/// and the fields to resolve; else the struct and its own fields.
fn with_folder_field(
    knowledge: &ResolvedKnowledge,
    item: &ItemStruct,
    private: &TokenStream,
) -> (ItemStruct, Vec<Field>) {
    if knowledge.folder.is_none() {
        return (item.clone(), crate::fields::fields_of(item));
    }
    let mut item = item.clone();
    let ident = Ident::new(FOLDER_FIELD, Span::call_site());
    let own = &item.ident;
    let ty: syn::Type = syn::parse_quote!(#private::FolderBase<#own>);
    item.fields = syn::Fields::Named(syn::parse_quote!({
        #[doc(hidden)]
        #ident: #ty
    }));
    item.semi_token = None;
    let fields = crate::fields::fields_of(&item);
    (item, fields)
}

/// The search tool's static descriptor: `search-<name>-tool`, read-only, the base's fields as
/// its dependencies; its results content nobody vouches for unless the base is `trusted`.
fn gen_search_tool(
    knowledge: &ResolvedKnowledge,
    item: &ItemStruct,
    private: &TokenStream,
) -> TokenStream {
    let ident = &item.ident;
    let header = &knowledge.header;
    let name = names::search_tool_name(&header.name);
    let description = names::search_tool_description(&header.name, &header.description);
    let rust_type = format!("SearchKnowledge<{ident}>");
    let location = source_location(private);
    let tool = quote!(#private::SearchKnowledge<#ident>);
    let mut value = Builder::new(quote! {
        #private::ToolDescriptor::new(
            #name,
            #description,
            #rust_type,
            #location,
            #private::tool_input_schema::<#tool>,
            #private::tool_output_schema::<#tool>,
        )
        .read_only()
    });
    if !knowledge.trusted {
        value.call("untrusted_output", TokenStream::new());
    }
    if !item.fields.is_empty() {
        value.call("with_dependencies", quote!(&__AGBOSS_DEPENDENCIES));
    }
    hidden_static(
        &Ident::new("__AGBOSS_SEARCH_TOOL", Span::call_site()),
        quote!(#private::ToolDescriptor),
        value.finish(),
    )
}

/// The knowledge base's descriptor: a `const` expression.
fn gen_descriptor(
    knowledge: &ResolvedKnowledge,
    item: &ItemStruct,
    fields: &[Field],
    private: &TokenStream,
) -> TokenStream {
    let ident = &item.ident;
    let head = knowledge.header.descriptor_args(item, private);
    let mut component =
        Builder::new(quote!(#private::Component::new(#private::ComponentKind::Knowledge, #head)));
    if !fields.is_empty() {
        component.call("with_fields", quote!(&__AGBOSS_DEPENDENCIES));
    }
    let component = component.finish();
    let mut descriptor = Builder::new(quote! {
        #private::KnowledgeDescriptor::new(
            #component,
            #private::ToolRegistration::of::<#private::SearchKnowledge<#ident>>(),
        )
    });
    if knowledge.mode == "context" {
        descriptor.call("with_mode", quote!(#private::KnowledgeMode::Context));
    }
    descriptor.call_with("with_top_k", knowledge.top_k, |n| quote!(#n));
    descriptor.call_with("with_source", knowledge.folder.as_ref(), |folder| {
        let (path, documents, search) = (&folder.path, &folder.documents, &folder.search);
        let embeddings = match &folder.embeddings {
            Some(model) => quote!(::core::option::Option::Some(#model)),
            None => quote!(::core::option::Option::None),
        };
        quote! {
            #private::KnowledgeSource::Folder(#private::FolderSource {
                folder: #path,
                documents: #documents,
                search: #search,
                embeddings: #embeddings,
            })
        }
    });
    descriptor.finish()
}

/// Over a folder: `impl KnowledgeBase`, searching the application's index of it.
fn gen_folder_search(
    knowledge: &ResolvedKnowledge,
    ident: &Ident,
    private: &TokenStream,
) -> TokenStream {
    if knowledge.folder.is_none() {
        return TokenStream::new();
    }
    let field = Ident::new(FOLDER_FIELD, Span::call_site());
    quote! {
        #[automatically_derived]
        impl #private::KnowledgeBase for #ident {
            async fn search(
                &self,
                query: &#private::KnowledgeQuery,
            ) -> ::core::result::Result<
                ::std::vec::Vec<#private::Passage>,
                #private::KnowledgeError,
            > {
                self.#field.search(query).await
            }
        }
    }
}
