use agboss::prelude::*;

#[mcp_server(
    name = "tickets",
    command = "tickets-mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_CLIENT_ID"],
    oauth_client_id = "${TICKETS_CLIENT_ID}",
    oauth_client_secret = "s3cr3t-written-in-the-program",
)]
pub struct Tickets;

fn main() {}
