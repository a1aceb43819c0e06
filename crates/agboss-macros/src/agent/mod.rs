//! `#[agent]`: the arguments (`args`), checked into a [`ResolvedAgent`] (`check`), generated as
//! the descriptor, `impl Agent` and its registration (`codegen`).

mod args;
mod check;
mod codegen;

use proc_macro2::TokenStream;
use syn::ItemStruct;

pub use check::ResolvedAgent;

use crate::ctxt::Ctxt;
use crate::pipeline::{Attribute, Misplaced};
use crate::shape::{not_generic, unit_struct};

/// The `#[agent]` attribute.
pub struct Agent;

impl Attribute for Agent {
    type Item = ItemStruct;
    type Args = args::AgentArgs;
    type Resolved = ResolvedAgent;

    fn name(&self) -> &'static str {
        "agent"
    }

    fn keys(&self) -> &'static [&'static str] {
        args::KEYS
    }

    fn misplaced(&self) -> Misplaced {
        Misplaced::AtName("#[agent] goes on a unit struct: `pub struct Scout;`".into())
    }

    fn check(
        &self,
        args: args::AgentArgs,
        item: &ItemStruct,
        cx: &mut Ctxt,
    ) -> Option<ResolvedAgent> {
        check::check(args, item, cx)
    }

    fn check_shape(&self, item: &ItemStruct, cx: &mut Ctxt) {
        unit_struct(
            item,
            "an agent is a unit struct (`pub struct Scout;`): its tools, prompt and model are in the attribute",
            cx,
        );
        not_generic(item, "an agent cannot be generic", cx);
    }

    fn generate(&self, agent: ResolvedAgent, item: &ItemStruct) -> TokenStream {
        codegen::generate(&agent, item)
    }
}
