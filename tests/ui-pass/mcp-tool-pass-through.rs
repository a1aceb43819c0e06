//! `#[mcp_tool(.., input, output)]` writes the handler: on a unit struct, beside other
//! dependencies, and on a tuple struct, without a warning.
#![deny(warnings)]

use agboss::prelude::*;
use agboss::tool::Tool;

/// A notes server.
#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["read_text_file"])]
pub struct NotesFs;

/// A note's path.
#[dto]
pub struct NotePath {
    /// The path.
    pub path: String,
}

/// Reads one of the user's notes.
#[mcp_tool(name = "read-note-tool", server = NotesFs, calls = "read_text_file", input = NotePath, output = PlainText)]
pub struct ReadNote;

/// Reads a note, with a clock of its own.
#[mcp_tool(name = "timed-read-tool", server = NotesFs, calls = "read_text_file", input = NotePath, output = PlainText)]
pub struct TimedRead {
    clock: Clock,
}

/// Reads a note; a tuple struct.
#[mcp_tool(name = "tuple-read-tool", server = NotesFs, calls = "read_text_file", input = NotePath, output = PlainText)]
pub struct TupleRead(ExecutionContext);

fn handles<T: ToolHandler<Input = NotePath, Output = PlainText>>() {}

fn main() {
    handles::<ReadNote>();
    handles::<TimedRead>();
    handles::<TupleRead>();
    let fields = |d: &agboss::tool::ToolDescriptor| {
        d.dependencies()
            .iter()
            .map(|d| format!("{}: {}", d.field(), d.type_written()))
            .collect::<Vec<_>>()
    };
    assert_eq!(fields(ReadNote::DESCRIPTOR), ["__agboss_mcp: McpClient<NotesFs>"]);
    assert_eq!(
        fields(TimedRead::DESCRIPTOR),
        ["clock: Clock", "__agboss_mcp: McpClient<NotesFs>"]
    );
    assert_eq!(
        fields(TupleRead::DESCRIPTOR),
        ["0: ExecutionContext", "1: McpClient<NotesFs>"]
    );
    let remote = ReadNote::DESCRIPTOR.origin().remote().unwrap();
    assert_eq!((remote.server(), remote.tool()), ("notes-fs", "read_text_file"));
    assert_eq!(ReadNote::DESCRIPTOR.description(), "Reads one of the user's notes.");
}

/// The other fields are the struct's own, read as any struct's.
pub fn own_fields(timed: &TimedRead, tuple: &TupleRead) {
    let _ = (&timed.clock, &tuple.0);
}
