use agboss::prelude::*;

#[mcp_server(
    name = "tickets-a",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_CLIENT_ID"],
    oauth_client_id = "${TICKETS_CLIENT_ID}",
)]
pub struct TicketsA;

#[mcp_server(
    name = "tickets-b",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    env = ["TICKETS_CLIENT_SECRET"],
    oauth_client_secret = "${TICKETS_CLIENT_SECRET}",
)]
pub struct TicketsB;

#[mcp_server(
    name = "tickets-c",
    url = "https://tickets.example.com/mcp",
    tools = ["open_ticket"],
    oauth_scopes = ["tickets:read"],
)]
pub struct TicketsC;

fn main() {}
