//! `#[tool]` and `#[mcp_tool]`: the arguments (`args`), checked into a [`ResolvedTool`]
//! (`check`), generated as the `Tool` impl and its registration (`codegen`).

mod allow;
mod args;
mod artifacts;
mod check;
mod codegen;
mod consent;
mod needs;
mod results;

use syn::ItemStruct;

pub use args::Kind;
pub use check::ResolvedTool;

use crate::ctxt::Ctxt;
use crate::pipeline::{Attribute, Misplaced};
use crate::shape::not_generic;

/// `#[tool]`: a struct whose fields are its dependencies.
pub const TOOL: Attribute<ItemStruct, args::ToolArgs, ResolvedTool> = Attribute {
    name: "tool",
    keys: args::KEYS,
    misplaced: Misplaced::AtName(
        "#[tool] goes on a struct: its fields are the tool's dependencies, and its `ToolHandler` impl is the code",
    ),
    check: |args, item, cx| check::check(args, Kind::Tool, item, cx),
    check_shape,
    generate: codegen::generate,
    keep_on_error: args::ToolArgs::keep_unit_imports,
};

/// `#[mcp_tool]`: a tool bound to a tool of an MCP server.
pub const MCP_TOOL: Attribute<ItemStruct, args::ToolArgs, ResolvedTool> = Attribute {
    name: "mcp_tool",
    keys: args::MCP_KEYS,
    misplaced: Misplaced::AtName(
        "#[mcp_tool] goes on a struct: its fields are the tool's dependencies, and its `ToolHandler` impl is the code",
    ),
    check: |args, item, cx| check::check(args, Kind::Mcp, item, cx),
    ..TOOL
};

fn check_shape(item: &ItemStruct, cx: &mut Ctxt) {
    not_generic(
        item,
        "a tool cannot be generic: each tool is one registered type with one name; make a struct per tool",
        cx,
    );
}
