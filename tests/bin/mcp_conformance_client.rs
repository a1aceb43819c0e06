//! The MCP client the official conformance suite drives (tests/test_mcp_conformance.rs): an
//! agboss application written as a user writes one, through the facade. The suite runs it as
//! `mcp-conformance-client <server-url>` with `MCP_CONFORMANCE_SCENARIO` naming the scenario:
//!
//! - `initialize`: lists the server's tools with `agboss::mcp::list_tools` (what `agboss g
//!   mcp` does), which opens a session, so the suite sees the `initialize` request;
//! - `tools_call`, `sse-retry`, `elicitation-sep1034-client-defaults`: an agent calls an
//!   `#[mcp_tool]` of an `#[mcp_server]` at the URL, its model scripted to call the tool once;
//!   the elicitation scenario's server is declared with a question role whose channel accepts
//!   at once with no fields, so agboss sends the schema's defaults;
//! - anything else (the `auth/*` scenarios): connects as for `tools_call`, and fails as agboss
//!   fails against a server that needs OAuth.
//!
//! It prints what the tool returned to the model and exits with 0, or prints why and exits 1.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use agboss::app::Env;
use agboss::dto::Value;
use agboss::mcp::{ElicitationAnswer, ElicitationQuestion, ServerAddress};
use agboss::model::{Message, ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::{Application, Workflow};
use serde_json::json;

/// Two numbers.
#[dto]
pub struct Numbers {
    /// The first.
    pub a: f64,
    /// The second.
    pub b: f64,
}

/// Nothing.
#[dto]
pub struct Nothing {}

#[mcp_server(
    name = "conformance-tools",
    url = "${MCP_SERVER_URL}",
    tools = ["add_numbers"],
    env = ["MCP_SERVER_URL"],
)]
pub struct ToolsServer;

#[mcp_server(
    name = "conformance-sse",
    url = "${MCP_SERVER_URL}",
    tools = ["test_reconnection"],
    env = ["MCP_SERVER_URL"],
)]
pub struct SseServer;

/// Asks for the fields a server wants during a call.
#[channel_role(
    name = "server-form-channel",
    ask = ElicitationQuestion,
    answer = ElicitationAnswer,
    answered_by = ThreadOwner
)]
pub struct ServerForm;

/// Accepts every form at once with no fields of its own: the server gets the defaults its
/// schema declares.
#[channel(name = "accept-defaults-channel")]
pub struct AcceptDefaults;

impl ChannelHandler for AcceptDefaults {
    type Role = ServerForm;

    async fn send(
        &self,
        _ask: ChannelAsk<ServerForm>,
    ) -> Result<ChannelOutcome<ServerForm>, ToolError> {
        let no_fields: [(String, Value); 0] = [];
        Ok(ChannelOutcome::decided(ElicitationAnswer::accept(
            no_fields,
        )))
    }
}

#[mcp_server(
    name = "conformance-elicitation",
    url = "${MCP_SERVER_URL}",
    tools = ["test_client_elicitation_defaults"],
    env = ["MCP_SERVER_URL"],
    elicitation = ServerForm,
)]
pub struct ElicitingServer;

#[mcp_tool(
    name = "add-numbers-tool",
    description = "Adds two numbers",
    server = ToolsServer,
    calls = "add_numbers",
    input = Numbers,
    output = PlainText,
)]
pub struct AddNumbers;

#[mcp_tool(
    name = "reconnection-tool",
    description = "Answers after the server closed its stream once",
    server = SseServer,
    calls = "test_reconnection",
    input = Nothing,
    output = PlainText,
)]
pub struct Reconnection;

#[mcp_tool(
    name = "form-defaults-tool",
    description = "Asks for a form whose fields all have defaults",
    server = ElicitingServer,
    calls = "test_client_elicitation_defaults",
    input = Nothing,
    output = PlainText,
)]
pub struct FormDefaults;

/// Adds numbers.
#[agent(name = "adder", prompt = "../prompts/helper.prompt.md", model = "test/conformance", tools = [AddNumbers])]
pub struct Adder;

/// Waits for a reconnection.
#[agent(name = "reconnector", prompt = "../prompts/helper.prompt.md", model = "test/conformance", tools = [Reconnection])]
pub struct Reconnector;

/// Fills in forms.
#[agent(name = "form-filler", prompt = "../prompts/helper.prompt.md", model = "test/conformance", tools = [FormDefaults])]
pub struct FormFiller;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: mcp-conformance-client <server-url> (MCP_CONFORMANCE_SCENARIO set)");
        return ExitCode::from(2);
    };
    let done = match scenario.as_str() {
        "initialize" => list(&url).await,
        "sse-retry" => call(&url, "reconnector", "reconnection-tool", json!({})).await,
        "elicitation-sep1034-client-defaults" => {
            call(&url, "form-filler", "form-defaults-tool", json!({})).await
        }
        _ => call(&url, "adder", "add-numbers-tool", json!({"a": 2, "b": 3})).await,
    };
    match done {
        Ok(said) => {
            println!("{scenario}: {said}");
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("{scenario}: {why}");
            ExitCode::FAILURE
        }
    }
}

/// Opens a session with the server at `url` and lists its tools.
async fn list(url: &str) -> Result<String, String> {
    let address = ServerAddress::Http {
        url: url.to_owned(),
    };
    let tools = agboss::mcp::list_tools(&address, &[], &Env::process(), TIMEOUT)
        .await
        .map_err(|e| e.to_string())?;
    Ok(format!("{} tools listed", tools.len()))
}

/// How long starting a session and each request may take.
const TIMEOUT: Duration = Duration::from_secs(15);

/// Runs `agent`, whose model calls `tool` with `arguments` once, against the server at `url`;
/// what the tool returned to the model, or why it failed.
async fn call(url: &str, agent: &str, tool: &str, arguments: Value) -> Result<String, String> {
    let model = ScriptedModel::new([Turn::call(tool, arguments), Turn::text("Done.")]);
    let app = Application::builder("conformance-client")
        .workflow(Workflow::new("adder").agent::<Adder>())
        .workflow(Workflow::new("reconnector").agent::<Reconnector>())
        .workflow(Workflow::new("form-filler").agent::<FormFiller>())
        .channel::<AcceptDefaults>()
        .env(Env::from_pairs([("MCP_SERVER_URL", url)]))
        .chat_model(Arc::new(model.clone()))
        .build()
        .map_err(|e| e.to_string())?;
    let outcome = app
        .run(agent, "Go.")
        .owner("conformance")
        .await
        .map_err(|e| e.to_string());
    app.shutdown().await;
    outcome?;
    let read = model
        .requests()
        .iter()
        .flat_map(|request| request.messages.clone())
        .find_map(|message| match message {
            Message::Tool {
                content, is_error, ..
            } => Some((content, is_error)),
            _ => None,
        });
    match read {
        Some((content, false)) => Ok(content),
        Some((content, true)) => Err(content),
        None => Err("the tool was not called".to_owned()),
    }
}
