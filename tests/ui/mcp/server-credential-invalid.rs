use agboss::prelude::*;

/// An HTTP server given a variable for its credential.
#[mcp_server(
    name = "tickets",
    url = "http://127.0.0.1:3001/mcp",
    tools = ["echo"],
    credential = "tickets-api",
    credential_env = "TICKETS_TOKEN"
)]
pub struct Tickets;

/// A stdio server whose credential has no variable to go in.
#[mcp_server(name = "notes", command = "notes-server", tools = ["read"], credential = "notes-api")]
pub struct Notes;

/// A stdio server given a header, and a credential name that is not kebab-case.
#[mcp_server(
    name = "files",
    command = "files-server",
    tools = ["read"],
    credential = "Files API",
    credential_header = "X-Api-Key"
)]
pub struct Files;

/// A header without a credential.
#[mcp_server(name = "wiki", url = "http://127.0.0.1:3002/mcp", tools = ["read"], credential_header = "X-Api-Key")]
pub struct Wiki;

fn main() {}
