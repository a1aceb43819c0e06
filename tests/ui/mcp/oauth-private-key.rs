use agboss::prelude::*;

#[mcp_server(
    name = "tickets-a",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_CLIENT_ID", "TICKETS_CLIENT_SECRET"],
    oauth_client_id = "${TICKETS_CLIENT_ID}",
    oauth_client_secret = "${TICKETS_CLIENT_SECRET}",
    oauth_private_key = "-----BEGIN PRIVATE KEY-----",
)]
pub struct TicketsA;

#[mcp_server(
    name = "tickets-b",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_KEY"],
    oauth_private_key = "${TICKETS_KEY}",
)]
pub struct TicketsB;

#[mcp_server(
    name = "tickets-c",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_KEY"],
    oauth_redirect = "http://127.0.0.1:8765/callback",
    oauth_private_key = "${TICKETS_KEY}",
)]
pub struct TicketsC;

fn main() {}
