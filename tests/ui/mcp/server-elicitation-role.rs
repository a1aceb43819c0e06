use agboss::mcp::{ElicitationAnswer, ElicitationQuestion};
use agboss::prelude::*;

#[dto]
pub struct Path {
    pub path: String,
}

#[dto]
pub struct Colour {
    pub colour: String,
}

/// Approves reads.
#[channel_role(name = "read-approval-channel", approves = Path, answered_by = Channel)]
pub struct ReadApproval;

/// Asks for a colour, not for what a server asks.
#[channel_role(name = "colour-channel", ask = Colour, answer = Colour, answered_by = ThreadOwner)]
pub struct ColourRole;

/// Answers what a server asks.
#[channel_role(
    name = "server-input-channel",
    ask = ElicitationQuestion,
    answer = ElicitationAnswer,
    answered_by = ThreadOwner
)]
pub struct ServerInput;

#[mcp_server(name = "approving", command = "node", tools = [], elicitation = ReadApproval)]
pub struct Approving;

#[mcp_server(name = "colours", command = "node", tools = [], elicitation = ColourRole)]
pub struct Colours;

#[mcp_server(name = "quoted", command = "node", tools = [], elicitation = "server-input-channel")]
pub struct Quoted;

#[mcp_server(name = "asking", command = "node", tools = [], elicitation = ServerInput)]
pub struct Asking;

fn main() {}
