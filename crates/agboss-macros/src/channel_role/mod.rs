//! `#[channel_role]`: a role (what a channel approves or asks, and who answers). Its arguments
//! (`args`), checked into a [`ResolvedRole`] (`check`), generated as `impl ChannelRole` with its
//! static `RoleDescriptor` (`codegen`).

mod args;
mod check;
mod codegen;

use proc_macro2::TokenStream;
use syn::ItemStruct;

pub use check::ResolvedRole;

use crate::pipeline::{Attribute, Misplaced};
use crate::shape::{not_generic, unit_struct};
use crate::units::keep_unit_import;

/// `#[channel_role]`: a unit struct, what it approves or asks and who answers in the attribute.
pub const CHANNEL_ROLE: Attribute<ItemStruct, args::RoleArgs, ResolvedRole> = Attribute {
    name: "channel_role",
    keys: args::KEYS,
    misplaced: Misplaced::AtName(
        "#[channel_role] goes on a unit struct: `pub struct RefundApprovalChannel;`",
    ),
    check: check::check,
    check_shape: |item, cx| {
        unit_struct(
            item,
            "a channel role is a unit struct (`pub struct RefundApprovalChannel;`): what it approves and who answers are in the attribute, and a `#[channel]` implements it",
            cx,
        );
        not_generic(
            item,
            "a channel role cannot be generic: each role is one type with one name; make a struct per role",
            cx,
        );
    },
    generate: codegen::generate,
    keep_on_error,
};

/// After a failed expansion: a use of the unit function `expires_after` names.
fn keep_on_error(args: &args::RoleArgs) -> TokenStream {
    match &args.expires_after {
        Some(span) => keep_unit_import(span, &["millis", "seconds", "minutes"]),
        None => TokenStream::new(),
    }
}
