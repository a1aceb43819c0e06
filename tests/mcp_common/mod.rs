//! Servers, DTOs and tools shared by the MCP tests: server-everything and server-filesystem
//! from npm (installed by `cargo xtask test`), and a scripted server for faults.

#![allow(dead_code)]

pub mod oauth_server;

use std::path::{Path, PathBuf};

use agboss::app::Env;
use agboss::prelude::*;

#[mcp_server(
    name = "everything",
    command = "${NODE}",
    args = ["${EVERYTHING_JS}", "stdio"],
    tools = ["echo", "get-structured-content", "trigger-long-running-operation"],
    env = ["NODE", "EVERYTHING_JS"],
)]
pub struct Everything;

/// server-everything over stdio behind two `tee`s, which keep what the client sent
/// (`${WIRE}/sent.jsonl`) and what the server answered (`${WIRE}/answered.jsonl`).
#[mcp_server(
    name = "everything-recorded",
    command = "sh",
    args = ["-c", "tee ${WIRE}/sent.jsonl | ${NODE} ${EVERYTHING_JS} stdio | tee ${WIRE}/answered.jsonl"],
    tools = ["echo"],
    env = ["NODE", "EVERYTHING_JS", "WIRE"],
)]
pub struct EverythingRecorded;

/// An HTTP server reached with OAuth's client-credentials grant.
#[mcp_server(
    name = "tickets-oauth",
    url = "${TICKETS_URL}",
    tools = ["echo"],
    env = ["TICKETS_URL", "TICKETS_ID", "TICKETS_SECRET"],
    oauth_client_id = "${TICKETS_ID}",
    oauth_client_secret = "${TICKETS_SECRET}",
)]
pub struct TicketsOAuth;

#[mcp_server(name = "everything-http", url = "${EVERYTHING_URL}", tools = ["echo"], env = ["EVERYTHING_URL"])]
pub struct EverythingOverHttp;

#[mcp_server(
    name = "notes-fs",
    command = "${NODE}",
    args = ["${FS_JS}", "${NOTES_DIR}"],
    tools = ["read_text_file", "write_file"],
    env = ["NODE", "FS_JS", "NOTES_DIR"],
)]
pub struct NotesFs;

#[mcp_server(
    name = "fake",
    command = "python3",
    args = ["${FAKE_PY}", "${FAKE_MODE}", "${FAKE_LOG}"],
    tools = ["hello", "wait", "elicit"],
    env = ["FAKE_PY", "FAKE_MODE", "FAKE_LOG"],
)]
pub struct Fake;

/// The environment the servers' `${VAR}`s read.
pub fn env(notes_dir: &Path, extra: &[(&str, String)]) -> Env {
    let (node, everything) = mcp_servers::everything_stdio();
    let (_, filesystem) = mcp_servers::filesystem_stdio(notes_dir);
    let fake = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/fake_server.py");
    let mut pairs: Vec<(String, String)> = vec![
        ("NODE".into(), node),
        ("EVERYTHING_JS".into(), everything[0].clone()),
        ("FS_JS".into(), filesystem[0].clone()),
        ("NOTES_DIR".into(), notes_dir.display().to_string()),
        ("FAKE_PY".into(), fake.display().to_string()),
    ];
    pairs.extend(extra.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
    Env::from_pairs(pairs)
}

/// A fresh directory for a test.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agboss-mcp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The environment of the scripted server in `mode`, and the log file it writes to.
pub fn fake(name: &str, mode: &str) -> (Env, PathBuf) {
    let log = temp_dir(name).join("fake.log");
    let env = env(
        &temp_dir(&format!("{name}-root")),
        &[
            ("FAKE_MODE", mode.into()),
            ("FAKE_LOG", log.display().to_string()),
        ],
    );
    (env, log)
}

/// The scripted server's log once it contains `needle`, or as it is after 10 s.
pub async fn log_with(log: &Path, needle: &str) -> String {
    let mut logged = String::new();
    for _ in 0..500 {
        logged = std::fs::read_to_string(log).unwrap_or_default();
        if logged.contains(needle) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    logged
}

/// The id of the request the scripted server holds (a `wait` call), once it holds one.
pub async fn held_request(log: &Path) -> String {
    log_with(log, "waiting ")
        .await
        .lines()
        .find_map(|line| line.strip_prefix("waiting "))
        .expect("the call reached the server")
        .to_owned()
}

#[dto]
pub struct Message {
    /// What to echo.
    pub message: String,
}

#[mcp_tool(name = "echo-tool", description = "Echoes a message", server = Everything, calls = "echo", read_only = true)]
pub struct Echo {
    server: McpClient<Everything>,
}

impl ToolHandler for Echo {
    type Input = Message;
    type Output = PlainText;

    async fn run(&self, input: Message) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

#[mcp_tool(name = "echo-over-http-tool", description = "Echoes over HTTP", server = EverythingOverHttp, calls = "echo")]
pub struct EchoOverHttp {
    server: McpClient<EverythingOverHttp>,
}

impl ToolHandler for EchoOverHttp {
    type Input = Message;
    type Output = PlainText;

    async fn run(&self, input: Message) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

#[mcp_tool(
    name = "echo-recorded-tool",
    description = "Echoes a message, on a recorded wire",
    server = EverythingRecorded,
    calls = "echo",
    input = Message,
    output = PlainText,
)]
pub struct EchoRecorded;

#[mcp_tool(
    name = "tickets-echo-tool",
    description = "Echoes a message, authorized with OAuth",
    server = TicketsOAuth,
    calls = "echo",
    input = Message,
    output = PlainText,
)]
pub struct TicketsEcho;

/// A city, written freely (the server accepts three).
#[dto]
pub struct City {
    /// The city.
    pub location: String,
}

/// The weather, as the server structures it.
#[dto]
#[derive(Debug, PartialEq)]
pub struct Weather {
    /// Degrees Celsius.
    pub temperature: f64,
    /// The conditions.
    pub conditions: String,
    /// Percent.
    pub humidity: f64,
}

#[mcp_tool(name = "weather-tool", description = "The weather in a city", server = Everything, calls = "get-structured-content")]
pub struct WeatherTool {
    server: McpClient<Everything>,
}

impl ToolHandler for WeatherTool {
    type Input = City;
    type Output = Weather;

    async fn run(&self, input: City) -> Result<Weather, ToolError> {
        self.server.call(&input).await
    }
}

/// How long to work.
#[dto]
pub struct Work {
    /// Seconds.
    pub duration: u32,
    /// Steps.
    pub steps: u32,
}

#[mcp_tool(
    name = "long-work-tool",
    description = "Works for a while",
    server = Everything,
    calls = "trigger-long-running-operation",
    timeout = agboss::units::seconds(2),
)]
pub struct LongWork {
    server: McpClient<Everything>,
}

impl ToolHandler for LongWork {
    type Input = Work;
    type Output = PlainText;

    async fn run(&self, input: Work) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

/// A path under the notes directory.
#[dto]
pub struct NotePath {
    /// The path.
    pub path: String,
}

#[mcp_tool(name = "read-note-tool", description = "Reads a note", server = NotesFs, calls = "read_text_file", read_only = true)]
pub struct ReadNote {
    server: McpClient<NotesFs>,
}

impl ToolHandler for ReadNote {
    type Input = NotePath;
    type Output = PlainText;

    async fn run(&self, input: NotePath) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

/// Nothing.
#[dto]
pub struct Nothing {}

#[mcp_tool(name = "hello-tool", description = "Says hello", server = Fake, calls = "hello")]
pub struct Hello {
    server: McpClient<Fake>,
}

impl ToolHandler for Hello {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, input: Nothing) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

#[mcp_tool(name = "wait-tool", description = "Waits forever", server = Fake, calls = "wait", timeout = agboss::units::millis(500))]
pub struct Wait {
    server: McpClient<Fake>,
}

impl ToolHandler for Wait {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, input: Nothing) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}
