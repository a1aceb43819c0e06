//! `#[tool]` and `#[mcp_tool]`: the arguments (`args`), checked into a [`ResolvedTool`]
//! (`check`), generated as the `Tool` impl and its registration (`codegen`).

mod args;
mod check;
mod codegen;

use proc_macro2::TokenStream;
use syn::ItemStruct;

pub use args::Kind;
pub use check::ResolvedTool;

use crate::ctxt::Ctxt;
use crate::pipeline::{Attribute, Misplaced};
use crate::shape::not_generic;

impl Attribute for Kind {
    type Item = ItemStruct;
    type Args = args::ToolArgs;
    type Resolved = ResolvedTool;

    fn name(&self) -> &'static str {
        self.attribute()
    }

    fn keys(&self) -> &'static [&'static str] {
        match self {
            Kind::Tool => args::KEYS,
            Kind::Mcp => args::MCP_KEYS,
        }
    }

    fn misplaced(&self) -> Misplaced {
        Misplaced::AtName(format!(
            "#[{}] goes on a struct: its fields are the tool's dependencies, and its `ToolHandler` impl is the code",
            self.attribute()
        ))
    }

    fn check(
        &self,
        args: args::ToolArgs,
        item: &ItemStruct,
        cx: &mut Ctxt,
    ) -> Option<ResolvedTool> {
        check::check(args, *self, item, cx)
    }

    fn check_shape(&self, item: &ItemStruct, cx: &mut Ctxt) {
        not_generic(
            item,
            "a tool cannot be generic: each tool is one registered type with one name; make a struct per tool",
            cx,
        );
    }

    fn generate(&self, tool: ResolvedTool, item: &ItemStruct) -> TokenStream {
        codegen::generate(&tool, item)
    }

    fn keep_on_error(&self, args: &args::ToolArgs) -> TokenStream {
        args.keep_unit_imports()
    }
}
