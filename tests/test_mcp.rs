//! MCP tools against the reference servers, over stdio and streamable HTTP.

mod mcp_common;

use std::sync::Arc;
use std::time::Duration;

use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss::tool::Tool;
use agboss::units::bytes;
use fixtures::calls::invoking;
use mcp_common::*;

#[tokio::test]
async fn a_text_result_arrives_as_plain_text() {
    let tool = test_tool::<Echo>().env(env(&temp_dir("text"), &[]));
    let outcome = tool.invoke(r#"{"message": "hi"}"#).await;
    assert_eq!(outcome.content, r#"{"text":"Echo: hi"}"#);
    tool.shutdown().await;
}

#[tokio::test]
async fn structured_content_maps_to_the_output_dto() {
    let tool = test_tool::<WeatherTool>().env(env(&temp_dir("structured"), &[]));
    let weather = tool
        .run(City {
            location: "Chicago".into(),
        })
        .await
        .unwrap()
        .output;
    assert!(!weather.conditions.is_empty());
    assert!((0.0..=100.0).contains(&weather.humidity));
    tool.shutdown().await;
}

#[tokio::test]
async fn an_is_error_result_is_a_tool_error_with_the_servers_message() {
    let tool = test_tool::<WeatherTool>().env(env(&temp_dir("is-error"), &[]));
    let outcome = tool.invoke(r#"{"location": "Paris"}"#).await;
    assert!(!outcome.is_ok());
    assert!(
        outcome.content.starts_with("Tool error: "),
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains("Chicago"),
        "the server's own message lists the cities: {}",
        outcome.content
    );
    tool.shutdown().await;
}

#[tokio::test]
async fn a_path_outside_the_filesystem_servers_root_is_refused() {
    let notes = temp_dir("fs");
    std::fs::write(notes.join("dentist.txt"), "Tuesday at 9").unwrap();
    let tool = test_tool::<ReadNote>().env(env(&notes, &[]));
    let inside = format!(r#"{{"path": "{}"}}"#, notes.join("dentist.txt").display());
    assert_eq!(
        tool.invoke(&inside).await.content,
        r#"{"text":"Tuesday at 9"}"#
    );
    let outside = tool.invoke(r#"{"path": "/etc/hostname"}"#).await;
    assert!(!outside.is_ok());
    assert!(
        outside.content.to_lowercase().contains("access denied"),
        "{}",
        outside.content
    );
    tool.shutdown().await;
}

#[tokio::test]
async fn a_timeout_cancels_the_request_on_the_server() {
    let (env, log) = fake("cancel", "normal");
    let tool = Arc::new(test_tool::<Wait>().env(env));
    let call = invoking(&tool, "{}");
    // Once the server holds the request (the timeout counts from the call's start, server
    // start-up included), the clock passes the tool's timeout.
    let id = held_request(&log).await;
    tool.clock().wait_for_timers(1).await;
    tool.clock().advance(Duration::from_millis(500));
    let outcome = call.await.unwrap();
    assert_eq!(outcome.content, "Tool error: timed out after 500 ms");
    // The server hears of it: MCP's cancel notification, with the reason.
    let logged = log_with(&log, "cancelled").await;
    assert!(
        logged.contains(&format!("cancelled {id} timed out after 500 ms")),
        "{logged}"
    );
    tool.shutdown().await;
}

#[tokio::test]
async fn cancelling_the_execution_cancels_the_request_on_the_server() {
    let (env, log) = fake("cancel-by-user", "normal");
    let tool = Arc::new(test_tool::<Wait>().env(env));
    let call = invoking(&tool, "{}");
    let id = held_request(&log).await;
    tool.execution().cancel("the user left");
    let outcome = call.await.unwrap();
    assert_eq!(outcome.content, "Tool error: the user left");
    let logged = log_with(&log, "cancelled").await;
    assert!(
        logged.contains(&format!("cancelled {id} the user left")),
        "{logged}"
    );
    tool.shutdown().await;
}

#[mcp_tool(
    name = "short-echo-tool",
    description = "Echoes, briefly",
    server = Everything,
    calls = "echo",
    max_result_size = bytes(24),
)]
pub struct ShortEcho {
    server: McpClient<Everything>,
}

impl ToolHandler for ShortEcho {
    type Input = Message;
    type Output = PlainText;

    async fn run(&self, input: Message) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

#[tokio::test]
async fn an_mcp_result_is_bounded_like_any_other() {
    let tool = test_tool::<ShortEcho>().env(env(&temp_dir("bounded"), &[]));
    let outcome = tool
        .invoke(r#"{"message": "the quick brown fox jumps over the lazy dog"}"#)
        .await;
    assert!(outcome.is_result_truncated);
    assert!(outcome.is_ok(), "cut, not an error");
    assert_eq!(
        outcome.content,
        "{\"text\":\"Echo: the\n[result truncated: 60 bytes, the first 18 kept]"
    );
    tool.shutdown().await;
}

/// Echoes a message back, as the server words it.
#[mcp_tool(
    name = "pass-through-echo-tool",
    server = Everything,
    calls = "echo",
    input = Message,
    output = PlainText,
)]
pub struct PassThroughEcho;

#[tokio::test]
async fn a_tool_given_input_and_output_calls_the_server_without_a_handler() {
    let tool = test_tool::<PassThroughEcho>().env(env(&temp_dir("pass-through"), &[]));
    let output = tool
        .run(Message {
            message: "no handler".into(),
        })
        .await
        .unwrap()
        .output;
    assert_eq!(output.text, "Echo: no handler");
    assert_eq!(
        tool.invoke(r#"{"message": "as JSON"}"#).await.content,
        r#"{"text":"Echo: as JSON"}"#
    );
    tool.shutdown().await;
}

#[test]
fn a_pass_through_tool_is_described_by_its_doc_comment_and_bound_to_its_server() {
    let descriptor = PassThroughEcho::DESCRIPTOR;
    assert_eq!(
        descriptor.description(),
        "Echoes a message back, as the server words it."
    );
    let remote = descriptor.origin().remote().unwrap();
    assert_eq!(remote.protocol(), "mcp");
    assert_eq!(remote.server(), "everything");
    assert_eq!(remote.tool(), "echo");
}

#[tokio::test]
async fn a_server_killed_mid_call_is_a_tool_error_and_starts_again() {
    let tool = Arc::new(test_tool::<LongWork>().env(env(&temp_dir("killed"), &[])));
    let call = invoking(&tool, r#"{"duration": 30, "steps": 30}"#);
    let connection = tool.mcp_server::<Everything>();
    let pid = loop {
        if let Some(pid) = connection.pid().await {
            break pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    tool.clock().wait_for_timers(1).await;
    std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
        .unwrap();
    let outcome = call.await.unwrap();
    assert!(
        outcome.content.starts_with("Tool error: [mcp.server-stopped] server `everything` stopped during the call: the process signal: 9"),
        "{}",
        outcome.content
    );
    // The next call starts the server again.
    let again = tool.invoke(r#"{"duration": 0, "steps": 1}"#).await;
    assert!(again.is_ok(), "{}", again.content);
    let new_pid = connection.pid().await.unwrap();
    assert_ne!(new_pid, pid);
    tool.shutdown().await;
    assert!(
        !mcp_servers::node_pids_of("server-everything").contains(&new_pid),
        "no process is left"
    );
}

#[tokio::test]
async fn streamable_http_on_loopback() {
    let server = mcp_servers::HttpServer::start_everything().await;
    let tool = test_tool::<EchoOverHttp>()
        .env(env(&temp_dir("http"), &[("EVERYTHING_URL", server.url())]));
    assert_eq!(
        tool.invoke(r#"{"message": "over http"}"#).await.content,
        r#"{"text":"Echo: over http"}"#
    );
    tool.shutdown().await;
}

#[tokio::test]
async fn a_server_that_is_not_installed_says_so() {
    let tool = test_tool::<Echo>().env(
        env(&temp_dir("missing"), &[])
            .with("EVERYTHING_JS", "/nonexistent/server-everything/index.js"),
    );
    let outcome = tool.invoke(r#"{"message": "hi"}"#).await;
    assert!(
        outcome.content.starts_with(
            "Tool error: [mcp.start-failed] server `everything` could not be started ("
        ),
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains("Cannot find module"),
        "the server's own words: {}",
        outcome.content
    );

    let tool = test_tool::<Echo>()
        .env(env(&temp_dir("missing-2"), &[]).with("NODE", "definitely-not-a-program-here"));
    let outcome = tool.invoke(r#"{"message": "hi"}"#).await;
    assert!(
        outcome.content.contains(
            "`definitely-not-a-program-here` was not found: install it or put it on PATH"
        ),
        "{}",
        outcome.content
    );
}

/// The first JSON-RPC message of a recorded wire that has `key` (a `method`, or an `id`).
fn first_with(wire: &std::path::Path, key: &str, value: serde_json::Value) -> serde_json::Value {
    let recorded = std::fs::read_to_string(wire).unwrap();
    recorded
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .find(|message| message[key] == value)
        .unwrap_or_else(|| {
            panic!(
                "no message with {key} {value} in {}:\n{recorded}",
                wire.display()
            )
        })
}

#[tokio::test]
async fn a_session_asks_for_the_pinned_protocol_version_and_names_agboss() {
    let wire = temp_dir("wire");
    let tool = test_tool::<EchoRecorded>().env(env(
        &temp_dir("wire-root"),
        &[("WIRE", wire.display().to_string())],
    ));
    let outcome = tool.invoke(r#"{"message": "who is there"}"#).await;
    assert_eq!(outcome.content, r#"{"text":"Echo: who is there"}"#);
    tool.shutdown().await;

    let initialize = first_with(&wire.join("sent.jsonl"), "method", "initialize".into());
    let params = &initialize["params"];
    assert_eq!(agboss::mcp::PROTOCOL_VERSION, "2025-11-25");
    assert_eq!(params["protocolVersion"], "2025-11-25", "{initialize}");
    assert_eq!(params["clientInfo"]["name"], "agboss", "{initialize}");
    assert_eq!(agboss::mcp::CLIENT_NAME, "agboss");
    assert_eq!(
        params["clientInfo"]["version"],
        agboss::mcp::CLIENT_VERSION,
        "{initialize}"
    );
    assert!(!agboss::mcp::CLIENT_VERSION.is_empty());
    // The server agreed to it: the handshake went through, and the call after it.
    let answer = first_with(&wire.join("answered.jsonl"), "id", initialize["id"].clone());
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
}

#[tokio::test]
async fn an_oauth_secret_that_is_not_set_or_not_accepted_says_so_without_the_secret() {
    let unset = test_tool::<TicketsEcho>().env(env(
        &temp_dir("oauth-unset"),
        &[
            ("TICKETS_URL", "http://127.0.0.1:9/mcp".to_owned()),
            ("TICKETS_ID", "desk".to_owned()),
        ],
    ));
    let outcome = unset.invoke(r#"{"message": "hi"}"#).await;
    assert!(
        outcome.content.starts_with("Tool error: [mcp.env-missing]")
            && outcome.content.contains("TICKETS_SECRET"),
        "{}",
        outcome.content
    );

    // server-everything does no OAuth: there is no token to get, and the grant fails.
    let server = mcp_servers::HttpServer::start_everything().await;
    let refused = test_tool::<TicketsEcho>().env(env(
        &temp_dir("oauth-refused"),
        &[
            ("TICKETS_URL", server.url()),
            ("TICKETS_ID", "desk".to_owned()),
            ("TICKETS_SECRET", "marker-5ecret-value".to_owned()),
        ],
    ));
    let outcome = refused.invoke(r#"{"message": "hi"}"#).await;
    assert!(
        outcome
            .content
            .starts_with("Tool error: [mcp.start-failed] server `tickets-oauth`")
            && outcome.content.contains("OAuth"),
        "{}",
        outcome.content
    );
    assert!(
        !outcome.content.contains("marker-5ecret-value"),
        "{}",
        outcome.content
    );
    refused.shutdown().await;
}

/// Reads a note: agboss holds its path to `/tmp` before the server is asked, whatever the
/// server's own roots.
#[mcp_tool(
    name = "read-temp-note-tool",
    server = NotesFs,
    calls = "read_text_file",
    input = NotePath,
    output = PlainText,
    read_only = true,
    allow_paths(field = "path", within = ["/tmp"]),
)]
pub struct ReadTempNote;

#[tokio::test]
async fn an_mcp_tools_allowlist_refuses_a_path_before_the_server_sees_it() {
    let notes = std::path::PathBuf::from(format!("/tmp/agboss-allow-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&notes);
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("dentist.txt"), "Tuesday at 9").unwrap();
    let tool = test_tool::<ReadTempNote>().env(env(&notes, &[]));
    let inside = format!(r#"{{"path": "{}"}}"#, notes.join("dentist.txt").display());
    assert_eq!(
        tool.invoke(&inside).await.content,
        r#"{"text":"Tuesday at 9"}"#
    );
    // The server would say "access denied" too; agboss says it first, and why.
    let escaping = format!(r#"{{"path": "{}/../../etc/hostname"}}"#, notes.display());
    let outside = tool.invoke(&escaping).await;
    assert_eq!(
        outside.content,
        format!(
            "Tool error: invalid input: path: \"{}/../../etc/hostname\" is not allowed; this tool accepts only paths under /tmp",
            notes.display()
        )
    );
    tool.shutdown().await;
    let _ = std::fs::remove_dir_all(&notes);
}

/// The token number in `Echo: <message> (token <n>)`.
fn token_of(content: &str) -> u32 {
    let tail = content.rsplit("(token ").next().unwrap();
    tail.trim_end_matches(['"', '}', ')'])
        .parse()
        .unwrap_or_else(|_| panic!("{content}"))
}

#[tokio::test]
async fn an_expired_oauth_token_is_granted_again_and_the_call_goes_through() {
    let dir = temp_dir("oauth-expiring");
    let log = dir.join("grants.log");
    let server = mcp_common::oauth_server::OAuthServer::start("marker-5ecret-value", 2, &log);
    let tool = test_tool::<TicketsEcho>().env(env(
        &dir,
        &[
            ("TICKETS_URL", server.url.clone()),
            ("TICKETS_ID", "desk".to_owned()),
            ("TICKETS_SECRET", "marker-5ecret-value".to_owned()),
        ],
    ));
    let first = tool.invoke(r#"{"message": "hi"}"#).await;
    assert!(first.is_ok(), "{}", first.content);
    // The token lives 2 s: past it, the server refuses it, and the session asks for another.
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    let second = tool.invoke(r#"{"message": "again"}"#).await;
    assert!(second.is_ok(), "{}", second.content);
    assert!(
        second
            .content
            .starts_with(r#"{"text":"Echo: again (token "#),
        "{}",
        second.content
    );
    let (before, after) = (token_of(&first.content), token_of(&second.content));
    assert!(after > before, "token {before}, then {after}");
    let log = std::fs::read_to_string(&log).unwrap();
    let grants = log.lines().filter(|l| l.starts_with("grant")).count() as u32;
    assert_eq!(grants, after, "one grant per token used");
    // The session lived on: the grant was run again inside it, not by starting another.
    assert_eq!(
        log.lines().filter(|l| *l == "initialize").count(),
        1,
        "{log}"
    );
    tool.shutdown().await;
}
