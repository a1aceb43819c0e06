//! `#[channel]`: a channel (the code that asks a role's question somewhere), its fields as
//! dependencies, generated as `impl Channel` with its static `ChannelDescriptor`, and its type
//! registered as infrastructure: the application lists channels, a workflow never provides one.

use darling::FromMeta;
use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemStruct;

use crate::ctxt::Ctxt;
use crate::emit::{self, Builder, Descriptor, submit};
use crate::fields::{Field, dependencies_of, fields_of, gen_dependent_impl};
use crate::header::{self, Describing, Header, HeaderArgs, Naming};
use crate::pipeline::{Attribute, Misplaced, keep_nothing};
use crate::shape::not_generic;

/// The keys `#[channel]` accepts.
pub const KEYS: &[&str] = &["name", "description", "crate"];

/// How channels are named and described.
const CHANNEL_KIND: header::Kind = header::Kind {
    naming: Naming::Suffixed("channel"),
    describing: Some(Describing {
        says: "where the channel asks, and whom",
        which: "says where the channel asks, and whom",
        example: "Asks a finance manager in Slack",
    }),
};

/// `#[channel]`: a struct whose fields are its dependencies.
pub const CHANNEL: Attribute<ItemStruct, ChannelArgs, ResolvedChannel> = Attribute {
    name: "channel",
    keys: KEYS,
    misplaced: Misplaced::AtName(
        "#[channel] goes on a struct: its fields are the channel's dependencies, and its `ChannelHandler` impl is the code",
    ),
    check,
    check_shape: |item, cx| {
        not_generic(
            item,
            "a channel cannot be generic: each channel is one listed type with one name; make a struct per channel",
            cx,
        );
    },
    generate,
    keep_on_error: keep_nothing,
};

/// `#[channel(..)]` as written: the header's keys only.
#[derive(Debug, FromMeta)]
pub struct ChannelArgs {
    #[darling(flatten)]
    pub header: HeaderArgs,
}

/// A channel attribute that passed every check.
pub struct ResolvedChannel {
    /// Its name, description (`description = ".."`, else the struct's doc comment) and crate.
    pub header: Header,
    /// The struct's fields: its dependencies.
    pub fields: Vec<Field>,
}

/// Checks the header; the fields are read as they are.
fn check(args: ChannelArgs, item: &ItemStruct, cx: &mut Ctxt) -> Option<ResolvedChannel> {
    let header = CHANNEL_KIND.check(args.header, item, cx).finish()?;
    Some(ResolvedChannel {
        header,
        fields: fields_of(item),
    })
}

/// `impl Channel`, its descriptor and dependencies, and the registration of the struct's type
/// as infrastructure, inside `const _: () = { .. };`.
fn generate(channel: &ResolvedChannel, item: &ItemStruct, _: &TokenStream) -> TokenStream {
    let private = channel.header.private();
    let ident = &item.ident;
    let descriptor = Descriptor::new(&private, "__AGBOSS_CHANNEL", "ChannelDescriptor", "Channel");
    // The descriptor, its role read from the handler (`<Self as ChannelHandler>::Role`) by
    // `channel_descriptor`: a `const` expression.
    let head = channel.header.descriptor_args(item, &private);
    let value = Builder::new(quote!(#private::channel_descriptor::<#ident>(#head)));
    let value = dependencies_of(value, &channel.fields);
    let implementation = gen_dependent_impl(&channel.fields, item, &descriptor, value);
    let what = format!(
        "channel `{}` (the application lists it: `.channel::<{ident}>()`)",
        channel.header.name
    );
    // A channel is infrastructure: a workflow that provides one is reported
    // `[di.infrastructure-in-workflow]`.
    let registration = submit(
        &private,
        quote!(#private::InfrastructureType::of::<#ident>(#what)),
    );
    emit::component(
        channel.header.doc(item),
        item,
        &[implementation, registration],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use quote::quote;

    use crate::fields::named;

    #[test]
    fn a_channel_reads_its_fields_as_dependencies() {
        let channel = CHANNEL.resolve(
            quote!(name = "slack-refund-approval-channel"),
            quote! {
                /// Asks a finance manager in Slack.
                pub struct SlackRefunds {
                    execution: ExecutionContext,
                    slack: Arc<dyn Slack>,
                }
            },
        );
        assert_eq!(channel.header.name, "slack-refund-approval-channel");
        assert_eq!(
            channel.header.description,
            "Asks a finance manager in Slack."
        );
        assert_eq!(
            named(&channel.fields),
            [
                ("execution", "ExecutionContext"),
                ("slack", "Arc<dyn Slack>")
            ]
        );
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let problems = CHANNEL.problems(
            quote!(name = "SlackRefunds", descripton = "Asks"),
            quote!(
                pub struct SlackRefunds<T>(T);
            ),
        );
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
        let problems = CHANNEL.problems(
            quote!(description = "Asks"),
            quote!(
                pub struct SlackRefundsChannel;
            ),
        );
        assert_eq!(
            problems,
            "#[channel] needs `name`: add `name = \"slack-refunds-channel\"`"
        );
    }
}
