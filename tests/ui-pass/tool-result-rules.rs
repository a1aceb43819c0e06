//! A result ceiling with its hint and each `repeated_when` compile without a warning, on
//! `#[tool]` and `#[mcp_tool]`, and reach the descriptor.
#![deny(warnings)]

use agboss::prelude::*;
use agboss::tool::{RepeatedWhen, Tool};
use agboss::units::{bytes, kilobytes};

/// Words to look for.
#[dto]
pub struct Query {
    /// The words.
    pub query: String,
}

/// Searches the logs; a fractional ceiling of whole bytes.
#[tool(
    name = "search-logs-tool",
    max_result_size = kilobytes(8),
    result_ceiling = kilobytes(1.5),
    ceiling_hint = "ask for one day at a time",
    repeated_when = arguments_and_result,
)]
pub struct SearchLogs;

/// Renders a screen stamped with a version.
#[tool(name = "render-screen-tool", repeated_when = arguments)]
pub struct RenderScreen;

/// Pings.
#[tool(name = "ping-tool", repeated_when = never)]
pub struct Ping;

macro_rules! echo {
    ($($ty:ty),*) => {$(
        impl ToolHandler for $ty {
            type Input = Query;
            type Output = Query;

            async fn run(&self, input: Query) -> Result<Query, ToolError> {
                Ok(input)
            }
        }
    )*};
}

echo!(SearchLogs, RenderScreen, Ping);

/// A notes server.
#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

/// Reads a note, refusing more than 100 bytes.
#[mcp_tool(
    name = "read-note-tool",
    server = NotesFs,
    calls = "read_text_file",
    input = Query,
    output = PlainText,
    result_ceiling = bytes(100),
    ceiling_hint = "read a shorter note",
    repeated_when = never,
)]
pub struct ReadNote;

fn main() {
    let ceiling = SearchLogs::DESCRIPTOR.result_ceiling().unwrap();
    assert_eq!(ceiling.size, bytes(1536));
    assert_eq!(ceiling.hint, "ask for one day at a time");
    assert_eq!(SearchLogs::DESCRIPTOR.repeated_when(), RepeatedWhen::ArgumentsAndResult);
    assert_eq!(RenderScreen::DESCRIPTOR.repeated_when(), RepeatedWhen::Arguments);
    assert_eq!(Ping::DESCRIPTOR.repeated_when(), RepeatedWhen::Never);
    assert_eq!(ReadNote::DESCRIPTOR.result_ceiling().unwrap().size, bytes(100));
    assert_eq!(ReadNote::DESCRIPTOR.repeated_when(), RepeatedWhen::Never);
}
