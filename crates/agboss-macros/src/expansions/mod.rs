//! The expansions of representative items, pretty-printed and compared with the reviewed
//! snapshots in `tests/expanded/*.expanded.snap`: a change to what a macro generates shows
//! there as a diff. The snapshots are Rust, named so that tools reading source pass them over
//! (generated code repeats itself by design). `AGBOSS_BLESS=1 cargo test -p agboss-macros
//! expansions` writes them anew.

mod cases;

use std::path::PathBuf;

use proc_macro2::TokenStream;

/// The attribute `attribute(args)` on `item`, as the compiler would call it.
fn expand(attribute: &str, args: TokenStream, item: TokenStream) -> TokenStream {
    match attribute {
        "tool" => crate::tool::TOOL.expand(args, item),
        "mcp_tool" => crate::tool::MCP_TOOL.expand(args, item),
        "mcp_server" => crate::mcp_server::MCP_SERVER.expand(args, item),
        "dto" => crate::dto::DTO.expand(args, item),
        "agent" => crate::agent::AGENT.expand(args, item),
        "channel_role" => crate::channel_role::CHANNEL_ROLE.expand(args, item),
        "channel" => crate::channel::CHANNEL.expand(args, item),
        other => panic!("no attribute `{other}`"),
    }
}

/// The expansion as a reader sees it: formatted by `prettyplease`.
fn pretty(tokens: TokenStream) -> String {
    let file = syn::parse2::<syn::File>(tokens.clone())
        .unwrap_or_else(|e| panic!("the expansion is not a file of items ({e}): {tokens}"));
    prettyplease::unparse(&file)
}

/// Compares the expansion with `tests/expanded/{name}.expanded.snap`, or writes it there when
/// `AGBOSS_BLESS` is set.
pub fn check(name: &str, attribute: &str, args: TokenStream, item: TokenStream) {
    let actual = format!(
        "// #[{attribute}({args})]\n// {item}\n\n{}",
        pretty(expand(attribute, args.clone(), item.clone()))
    );
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expanded")
        .join(format!("{name}.expanded.snap"));
    if std::env::var_os("AGBOSS_BLESS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; write it with AGBOSS_BLESS=1 and review it",
            path.display()
        )
    });
    assert!(
        expected == actual,
        "the expansion of `{name}` changed; if it should, bless it (AGBOSS_BLESS=1) and review the diff of {}",
        path.display()
    );
}
