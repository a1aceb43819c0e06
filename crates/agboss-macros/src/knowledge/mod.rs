//! `#[knowledge]`: a knowledge base, its arguments (`args`) checked into a
//! [`ResolvedKnowledge`] (`check`), generated as its `Knowledge` impl, its search tool's
//! descriptor and its registration (`codegen`).

mod args;
mod check;
mod codegen;

use syn::ItemStruct;

pub use check::ResolvedKnowledge;

use crate::pipeline::{Attribute, Misplaced, keep_nothing};
use crate::shape::not_generic;

/// `#[knowledge]`: a struct, searched by the built-in index over a `folder`, or by its own
/// `KnowledgeBase` impl (its fields then its dependencies).
pub const KNOWLEDGE: Attribute<ItemStruct, args::KnowledgeArgs, ResolvedKnowledge> = Attribute {
    name: "knowledge",
    keys: args::KEYS,
    misplaced: Misplaced::AtName(
        "#[knowledge] goes on a struct: a unit struct with `folder = \"..\"` for the built-in index, or a struct whose fields are its dependencies with an `impl KnowledgeBase`",
    ),
    check: check::check,
    check_shape: |item, cx| {
        not_generic(
            item,
            "a knowledge base cannot be generic: each is one registered type with one name; make a struct per knowledge base",
            cx,
        );
    },
    generate: codegen::generate,
    keep_on_error: keep_nothing,
};
