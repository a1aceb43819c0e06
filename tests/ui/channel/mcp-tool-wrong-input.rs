use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

#[dto]
pub struct NotePath {
    pub path: String,
}

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    approves = RefundInput,
    answered_by = Channel,
)]
pub struct RefundApproval;

#[mcp_server(name = "notes-fs", command = "node", args = ["server.js"], tools = ["write_file"])]
pub struct NotesFs;

#[mcp_tool(
    name = "write-note-tool",
    description = "Writes a note",
    server = NotesFs,
    calls = "write_file",
    input = NotePath,
    output = PlainText,
    channel = RefundApproval,
)]
pub struct WriteNote;

fn main() {}
