use agboss::prelude::*;

#[mcp_server(
    name = "tickets-a",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_CLIENT_SECRET"],
    oauth_redirect = "http://desk.example.com/callback",
    oauth_client_secret = "${TICKETS_CLIENT_SECRET}",
    oauth_client_metadata_url = "http://desk.example.com/client.json",
)]
pub struct TicketsA;

#[mcp_server(
    name = "tickets-b",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    oauth_client_metadata_url = "https://desk.example.com/client.json",
)]
pub struct TicketsB;

#[mcp_server(
    name = "tickets-c",
    command = "tickets-mcp",
    tools = ["open_ticket"],
    oauth_redirect = "http://127.0.0.1:8765/callback",
)]
pub struct TicketsC;

fn main() {}
