//! MCP servers in an application: checked at start-up, shared, described, stopped; and the
//! faults a server can show.

mod mcp_common;

use std::sync::Arc;

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss::{Application, Workflow};
use mcp_common::*;

#[tokio::test]
async fn garbage_on_stdout_is_a_clear_error() {
    let (env, _) = fake("banner", "banner");
    let tool = test_tool::<Hello>().env(env);
    let outcome = tool.invoke("{}").await;
    assert!(
        outcome.content.starts_with(
            "Tool error: [mcp.start-failed] server `fake` could not be started (python3 "
        ),
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains(r#"line 1 of its stdout is not JSON-RPC: "fake server 1.0 starting on stdio"; a stdio MCP server must write only protocol messages to stdout"#),
        "{}",
        outcome.content
    );
}

#[tokio::test]
async fn invalid_utf8_on_stdout_is_a_clear_error() {
    let (env, _) = fake("utf8", "bad-utf8");
    let tool = test_tool::<Hello>().env(env);
    let outcome = tool.invoke("{}").await;
    assert!(
        outcome.content.starts_with("Tool error: [mcp.server-stopped] server `fake` stopped during the call: line 3 of its stdout is not UTF-8 (byte 1 of the line: 0xff)"),
        "{}",
        outcome.content
    );
    tool.shutdown().await;
}

#[agent(
    name = "librarian",
    description = "Reads notes",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Echo, ReadNote, WeatherTool],
)]
pub struct Librarian;

/// A server that declares a tool the real one does not have.
#[mcp_server(
    name = "everything-wishful",
    command = "${NODE}",
    args = ["${EVERYTHING_JS}", "stdio"],
    tools = ["echo", "make-coffee"],
    env = ["NODE", "EVERYTHING_JS"],
)]
pub struct Wishful;

#[mcp_tool(name = "coffee-tool", description = "Makes coffee", server = Wishful, calls = "make-coffee")]
pub struct Coffee {
    server: McpClient<Wishful>,
}

impl ToolHandler for Coffee {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, input: Nothing) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

#[agent(
    name = "barista",
    description = "Makes coffee",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Coffee],
)]
pub struct Barista;

fn library(model: ScriptedModel, notes: &std::path::Path) -> Application {
    Application::builder("library")
        .workflow(Workflow::new("desk").agent::<Librarian>())
        .env(env(notes, &[]))
        .chat_model(Arc::new(model))
        .build()
        .unwrap()
}

#[tokio::test]
async fn start_up_compares_tools_list_with_the_declarations() {
    let app = Application::builder("cafe")
        .workflow(
            Workflow::new("desk")
                .agent::<Barista>()
                .agent::<Librarian>(),
        )
        .env(env(&temp_dir("wishful"), &[]))
        .build()
        .unwrap();
    let problems = app.start_mcp_servers().await.unwrap_err();
    assert_eq!(problems.codes(), ["mcp.tool-missing"]);
    assert!(
        problems.problems()[0].message().starts_with("server `everything-wishful` does not offer the tool `make-coffee` its declaration names (it offers: "),
        "{}",
        problems.problems()[0]
    );
    app.shutdown().await;
}

#[tokio::test]
async fn an_agent_calls_mcp_tools_and_describe_says_where_they_come_from() {
    let notes = temp_dir("library");
    std::fs::write(notes.join("dentist.txt"), "Tuesday at 9").unwrap();
    let path = notes.join("dentist.txt").display().to_string();
    let model = ScriptedModel::new([
        Turn::call("read-note-tool", serde_json::json!({ "path": path })),
        Turn::text("Tuesday at 9.").expect_tool_result("Tuesday at 9"),
    ]);
    let app = library(model.clone(), &notes);
    let text = agboss::describe::text(&app);
    assert!(
        text.contains("· read-note-tool (read, mcp notes-fs) — Reads a note"),
        "{text}"
    );
    let json = agboss::describe::json(&app);
    assert_eq!(
        json["schemas"]["tools"]["read-note-tool"]["source"],
        "notes-fs"
    );
    assert_eq!(
        json["schemas"]["tools"]["read-note-tool"]["mcp"]["tool"],
        "read_text_file"
    );

    app.start_mcp_servers().await.unwrap();
    let sources = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = sources.clone();
    let outcome = app
        .run("desk", "When is the dentist?")
        .on_tool_end(move |end| seen.lock().unwrap().push(end.source.to_owned()))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("Tuesday at 9."));
    assert_eq!(*sources.lock().unwrap(), ["notes-fs"]);
    // The model is offered the #[mcp_tool]s; the servers' own tool names stay inside.
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["echo-tool", "read-note-tool", "weather-tool"]);

    // One server process per server, shared, and none left after shutdown.
    let pid = app.mcp_server::<NotesFs>().pid().await.unwrap();
    app.shutdown().await;
    assert!(!mcp_servers::node_pids_of("server-filesystem").contains(&pid));
}

#[tokio::test]
async fn servers_start_on_first_use_and_every_execution_shares_them() {
    let echo = |message: &str| Turn::call("echo-tool", serde_json::json!({ "message": message }));
    let model = ScriptedModel::new([
        echo("one"),
        Turn::text("1").expect_tool_result("Echo: one"),
        echo("two"),
        Turn::text("2").expect_tool_result("Echo: two"),
    ]);
    let app = library(model, &temp_dir("lazy"));
    let everything = app.mcp_server::<Everything>();
    assert!(!everything.is_running().await, "building starts nothing");

    app.run("desk", "one").await.unwrap();
    let pid = everything.pid().await.expect("started by the first call");
    app.run("desk", "two").await.unwrap();
    assert_eq!(everything.pid().await, Some(pid), "the same process");
    // Only the servers a call used were started.
    assert!(!app.mcp_server::<NotesFs>().is_running().await);
    app.shutdown().await;
}

/// server-everything started by a shell that stays its parent, as `npx` does, beside a helper
/// (`sleep`) that does not stop when the server's stdin closes.
#[mcp_server(
    name = "everything-via-shell",
    command = "sh",
    args = ["-c", "sleep 600 & \"$0\" \"$1\" stdio; exit $?", "${NODE}", "${EVERYTHING_JS}"],
    tools = ["echo"],
    env = ["NODE", "EVERYTHING_JS"],
)]
pub struct EverythingViaShell;

#[mcp_tool(name = "shell-echo-tool", description = "Echoes through a shell", server = EverythingViaShell, calls = "echo")]
pub struct ShellEcho {
    server: McpClient<EverythingViaShell>,
}

impl ToolHandler for ShellEcho {
    type Input = Message;
    type Output = PlainText;

    async fn run(&self, input: Message) -> Result<PlainText, ToolError> {
        self.server.call(&input).await
    }
}

/// The children of process `parent`, from /proc.
fn children_of(parent: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // pid (comm) state ppid ...: comm may hold spaces, so read after its `)`.
            stat.rsplit_once(") ")
                .and_then(|(_, rest)| rest.split(' ').nth(1)?.parse::<u32>().ok())
                == Some(parent)
        })
        .collect()
}

/// Whether `pid` still runs (a zombie waiting for its reaper does not).
fn is_running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

#[tokio::test]
async fn dropping_the_application_stops_the_servers_grandchildren_too() {
    let app = Application::builder("shell")
        .workflow(Workflow::new("desk").tool::<ShellEcho>())
        .env(env(&temp_dir("shell"), &[]))
        .build()
        .unwrap();
    app.start_mcp_servers().await.unwrap();
    let shell = app.mcp_server::<EverythingViaShell>().pid().await.unwrap();
    let mut children = children_of(shell);
    for _ in 0..200 {
        if children.len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        children = children_of(shell);
    }
    assert_eq!(
        children.len(),
        2,
        "the shell runs node and sleep: {children:?}"
    );

    drop(app);
    let mut left = children.clone();
    for _ in 0..200 {
        left.retain(|pid| is_running(*pid));
        if left.is_empty() && !is_running(shell) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(
        left.is_empty() && !is_running(shell),
        "{left:?} (children of the shell {shell}) outlived the application"
    );
}

#[tokio::test]
async fn check_environment_names_the_variables_mcp_servers_miss() {
    let app = Application::builder("unset")
        .workflow(Workflow::new("desk").tool::<ShellEcho>().tool::<ReadNote>())
        .env(agboss::app::Env::from_pairs([("NODE", "node")]))
        .build()
        .unwrap();
    let problems = app.check_environment().unwrap_err();
    // NODE is set; the shell's server misses EVERYTHING_JS, the filesystem server FS_JS and
    // NOTES_DIR.
    assert_eq!(problems.codes(), ["mcp.env-missing"; 3], "{problems}");
    let text = problems.to_string();
    assert!(text.contains("server `everything-via-shell` needs the environment variable EVERYTHING_JS, which is not set"), "{text}");
    assert!(
        text.contains(
            "server `notes-fs` needs the environment variable NOTES_DIR, which is not set"
        ),
        "{text}"
    );
    assert!(
        !app.mcp_server::<NotesFs>().is_running().await,
        "nothing was started"
    );
}
