//! `#[agent]`: the arguments (`args`), checked into a [`ResolvedAgent`] (`check`), generated as
//! the descriptor, `impl Agent` and its registration (`codegen`).

mod args;
mod check;
mod codegen;

use syn::ItemStruct;

pub use check::ResolvedAgent;

use crate::pipeline::{Attribute, Misplaced};
use crate::shape::{not_generic, unit_struct};

/// `#[agent]`: a unit struct, its settings all in the attribute.
pub const AGENT: Attribute<ItemStruct, args::AgentArgs, ResolvedAgent> = Attribute {
    name: "agent",
    keys: args::KEYS,
    misplaced: Misplaced::AtName("#[agent] goes on a unit struct: `pub struct Scout;`"),
    check: check::check,
    check_shape: |item, cx| {
        unit_struct(
            item,
            "an agent is a unit struct (`pub struct Scout;`): its tools, prompt and model are in the attribute",
            cx,
        );
        not_generic(item, "an agent cannot be generic", cx);
    },
    generate: codegen::generate,
    keep_on_error: args::AgentArgs::keep_unit_imports,
};
