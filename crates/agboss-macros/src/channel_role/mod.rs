//! `#[channel_role]`: a role (what a channel approves or asks, and who answers). Its arguments
//! (`args`), checked into a [`ResolvedRole`] (`check`), generated as `impl ChannelRole` with its
//! static `RoleDescriptor` (`codegen`).

mod args;
mod check;
mod codegen;

use proc_macro2::TokenStream;
use syn::ItemStruct;

pub use check::ResolvedRole;

use crate::ctxt::Ctxt;
use crate::pipeline::{Attribute, Misplaced};
use crate::shape::{not_generic, unit_struct};
use crate::units::keep_unit_import;

/// The `#[channel_role]` attribute.
pub struct ChannelRole;

impl Attribute for ChannelRole {
    type Item = ItemStruct;
    type Args = args::RoleArgs;
    type Resolved = ResolvedRole;

    fn name(&self) -> &'static str {
        "channel_role"
    }

    fn keys(&self) -> &'static [&'static str] {
        args::KEYS
    }

    fn misplaced(&self) -> Misplaced {
        Misplaced::AtName(
            "#[channel_role] goes on a unit struct: `pub struct RefundApprovalChannel;`".into(),
        )
    }

    fn check(
        &self,
        args: args::RoleArgs,
        item: &ItemStruct,
        cx: &mut Ctxt,
    ) -> Option<ResolvedRole> {
        check::check(args, item, cx)
    }

    fn check_shape(&self, item: &ItemStruct, cx: &mut Ctxt) {
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
    }

    fn generate(&self, role: ResolvedRole, item: &ItemStruct) -> TokenStream {
        codegen::generate(&role, item)
    }

    fn keep_on_error(&self, args: &args::RoleArgs) -> TokenStream {
        match &args.expires_after {
            Some(span) => keep_unit_import(span, &["millis", "seconds", "minutes"]),
            None => TokenStream::new(),
        }
    }
}
