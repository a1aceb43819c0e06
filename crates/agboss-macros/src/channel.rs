//! `#[channel]`: a channel (the code that asks a role's question somewhere), its fields as
//! dependencies, generated as `impl Channel` with its static `ChannelDescriptor`, and its type
//! registered as infrastructure: the application lists channels, a workflow never provides one.

use agboss_rules::names;
use darling::FromMeta;
use darling::util::SpannedValue;
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{ItemStruct, Path};

use crate::attrs::{
    doc_text, doc_unless_documented, finding_at, parse_args, private_path, source_location,
};
use crate::fields::{Field, fields_of, gen_build, gen_dependencies};

/// The keys `#[channel]` accepts.
pub const KEYS: &[&str] = &["name", "description", "crate"];

/// `#[channel(..)]` as written; checked by [`resolve`].
#[derive(Debug, FromMeta)]
pub struct ChannelArgs {
    pub name: Option<SpannedValue<String>>,
    pub description: Option<SpannedValue<String>>,
    #[darling(rename = "crate")]
    pub krate: Option<Path>,
    /// Keys an unknown key was reported as a typo of.
    #[darling(skip)]
    pub mistyped: Vec<&'static str>,
}

/// A channel attribute that passed every check.
pub struct ResolvedChannel {
    pub name: String,
    /// `description = ".."`, else the struct's doc comment.
    pub description: String,
    pub krate: Option<Path>,
    /// The struct's fields: its dependencies.
    pub fields: Vec<Field>,
}

/// Expands `#[channel(args)] item`. On any error the struct is emitted unchanged beside the
/// errors, so the user's `impl ChannelHandler` still compiles and only the real problems show.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    let item_struct = match syn::parse2::<ItemStruct>(item.clone()) {
        Ok(item_struct) => item_struct,
        Err(_) => {
            return crate::tool::on_wrong_item(
                item,
                "#[channel] goes on a struct: its fields are the channel's dependencies, and its `ChannelHandler` impl is the code",
            );
        }
    };
    let mut errors = darling::Error::accumulator();
    let resolved = parse_args::<ChannelArgs>(args, KEYS, "channel", &mut errors).and_then(
        |(mut args, mistyped)| {
            args.mistyped = mistyped;
            resolve(args, &item_struct, &mut errors)
        },
    );
    match errors.finish_with(resolved) {
        Ok(Some(channel)) => generate(&channel, &item_struct),
        Ok(None) => quote!(#item_struct),
        Err(errors) => {
            let errors = errors.write_errors();
            quote!(#item_struct #errors)
        }
    }
}

/// Resolves `args` on `item`, pushing every problem into `errors`; `None` if any.
pub fn resolve(
    args: ChannelArgs,
    item: &ItemStruct,
    errors: &mut darling::error::Accumulator,
) -> Option<ResolvedChannel> {
    let mut problems: Vec<darling::Error> = Vec::new();
    let name = match &args.name {
        Some(name) => {
            if let Some(finding) = names::check_kind_suffix(name, "channel") {
                problems.push(finding_at(&finding, name.span()));
            }
            Some((**name).clone())
        }
        None => {
            if !args.mistyped.contains(&"name") {
                problems.push(darling::Error::custom(format!(
                    "#[channel] needs `name`: add `name = {:?}`",
                    names::suggest(&item.ident.to_string(), "channel")
                )));
            }
            None
        }
    };
    let description = match &args.description {
        Some(description) => {
            if description.trim().is_empty() {
                problems.push(
                    darling::Error::custom(
                        "the description is empty: say where the channel asks, and whom",
                    )
                    .with_span(&description.span()),
                );
            }
            Some((**description).clone())
        }
        None => {
            let doc = doc_text(&item.attrs);
            if doc.is_none() && !args.mistyped.contains(&"description") {
                problems.push(
                    darling::Error::custom(
                        "#[channel] needs a description, which says where the channel asks, and whom: add a doc comment (`/// Asks a finance manager in Slack`) or `description = \"...\"`",
                    )
                    .with_span(&item.ident),
                );
            }
            doc
        }
    };
    if !item.generics.params.is_empty() {
        problems.push(
            darling::Error::custom(
                "a channel cannot be generic: each channel is one listed type with one name; make a struct per channel",
            )
            .with_span(&item.generics),
        );
    }
    if !problems.is_empty() {
        for problem in problems {
            errors.push(problem);
        }
        return None;
    }
    Some(ResolvedChannel {
        name: name?,
        description: description?,
        krate: args.krate,
        fields: fields_of(item),
    })
}

/// `impl Channel`, its descriptor and dependencies, and the registration of the struct's type
/// as infrastructure, inside `const _: () = { .. };`.
pub fn generate(channel: &ResolvedChannel, item: &ItemStruct) -> TokenStream {
    let private = private_path(channel.krate.as_ref());
    let ident = &item.ident;
    let dependencies = gen_dependencies(&channel.fields, &private);
    let build = gen_build(
        &channel.fields,
        item,
        &private,
        &syn::Ident::new("__AGBOSS_CHANNEL", Span::call_site()),
    );
    let descriptor = gen_descriptor(channel, item, &private);
    let what = format!(
        "channel `{}` (the application lists it: `.channel::<{ident}>()`)",
        channel.name
    );
    let doc = doc_unless_documented(item, &channel.description);
    // Spanned on the struct's name: a missing `ChannelHandler` impl is reported there, once.
    let impl_header = quote_spanned! {ident.span()=>
        #[automatically_derived]
        impl #private::Channel for #ident
    };
    quote! {
        #doc
        #item

        #[allow(non_upper_case_globals, clippy::all)]
        const _: () = {
            #dependencies

            #[doc(hidden)]
            static __AGBOSS_CHANNEL: #private::ChannelDescriptor = #descriptor;

            #impl_header {
                const DESCRIPTOR: &'static #private::ChannelDescriptor = &__AGBOSS_CHANNEL;

                #build
            }

            // A channel is infrastructure: a workflow that provides one is reported
            // `[di.infrastructure-in-workflow]`.
            #private::inventory::submit! {
                #private::InfrastructureType::of::<#ident>(#what)
            }
        };
    }
}

/// The descriptor, its role read from the handler (`<Self as ChannelHandler>::Role`) by
/// `channel_descriptor`: a `const` expression.
fn gen_descriptor(
    channel: &ResolvedChannel,
    item: &ItemStruct,
    private: &TokenStream,
) -> TokenStream {
    let ident = &item.ident;
    let name = &channel.name;
    let description = &channel.description;
    let rust_type = ident.to_string();
    let location = source_location(private);
    let descriptor = quote! {
        #private::channel_descriptor::<#ident>(#name, #description, #rust_type, #location)
    };
    if channel.fields.is_empty() {
        descriptor
    } else {
        quote!(#descriptor.with_dependencies(&__AGBOSS_DEPENDENCIES))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The resolved channel, or every problem's message, one a line.
    fn resolve_on(args: TokenStream, item: TokenStream) -> Result<ResolvedChannel, String> {
        let item: ItemStruct = syn::parse2(item).unwrap();
        let mut errors = darling::Error::accumulator();
        let resolved = parse_args::<ChannelArgs>(args, KEYS, "channel", &mut errors).and_then(
            |(mut args, mistyped)| {
                args.mistyped = mistyped;
                resolve(args, &item, &mut errors)
            },
        );
        match errors.finish_with(resolved) {
            Ok(resolved) => Ok(resolved.expect("no problem reported, so resolved")),
            Err(e) => Err(e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }

    #[test]
    fn a_channel_reads_its_fields_as_dependencies() {
        let channel = resolve_on(
            quote!(name = "slack-refund-approval-channel"),
            quote! {
                /// Asks a finance manager in Slack.
                pub struct SlackRefunds {
                    execution: ExecutionContext,
                    slack: Arc<dyn Slack>,
                }
            },
        )
        .unwrap();
        assert_eq!(channel.name, "slack-refund-approval-channel");
        assert_eq!(channel.description, "Asks a finance manager in Slack.");
        let fields: Vec<(&str, &str)> = channel
            .fields
            .iter()
            .map(|f| (f.name.as_str(), f.written.as_str()))
            .collect();
        assert_eq!(
            fields,
            [
                ("execution", "ExecutionContext"),
                ("slack", "Arc<dyn Slack>")
            ]
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let problems = resolve_on(
            quote!(name = "SlackRefunds", descripton = "Asks"),
            quote!(
                pub struct SlackRefunds<T>(T);
            ),
        )
        .err()
        .unwrap();
        let lines: Vec<&str> = problems.lines().collect();
        assert_eq!(lines.len(), 3, "{problems}");
        assert!(
            lines[0]
                .starts_with("unknown #[channel] key `descripton` (did you mean `description`?)"),
            "{problems}"
        );
        assert_eq!(
            lines[1],
            "[name.kind-suffix] channel name \"SlackRefunds\" must be kebab-case ending in `-channel`: name it \"slack-refunds-channel\""
        );
        assert!(
            lines[2].starts_with("a channel cannot be generic"),
            "{problems}"
        );
    }

    #[test]
    fn a_missing_name_suggests_one() {
        let problems = resolve_on(
            quote!(description = "Asks"),
            quote!(
                pub struct SlackRefundsChannel;
            ),
        )
        .err()
        .unwrap();
        assert_eq!(
            problems,
            "#[channel] needs `name`: add `name = \"slack-refunds-channel\"`"
        );
    }
}
