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
//! - `auth/*`: calls the server's `test-tool`; when the suite gives a client id and secret
//!   (`MCP_CONFORMANCE_CONTEXT`), through a server declared with `oauth_client_id` and
//!   `oauth_client_secret` (OAuth's client-credentials grant, feature `mcp-oauth`), else
//!   through one declared with `oauth_redirect` (the authorization code grant), whose
//!   approval an [`Authorizer`] of this program gives the way the suite's authorization
//!   server expects of a client without a browser: it fetches the approval page and takes the
//!   address the page redirects to.
//!
//! It prints what the tool returned to the model and exits with 0, or prints why and exits 1.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use agboss::app::Env;
use agboss::dto::Value;
use agboss::mcp::{
    AuthorizationPrompt, Authorizer, AuthorizerFuture, ElicitationAnswer, ElicitationQuestion,
    ServerAddress,
};
use agboss::model::{Message, ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::{Application, Workflow};
use serde_json::json;

#[mcp_server(
    name = "conformance-protected",
    url = "${MCP_SERVER_URL}",
    tools = ["test-tool"],
    env = ["MCP_SERVER_URL", "OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET"],
    oauth_client_id = "${OAUTH_CLIENT_ID}",
    oauth_client_secret = "${OAUTH_CLIENT_SECRET}",
)]
pub struct ProtectedServer;

#[mcp_tool(
    name = "protected-test-tool",
    description = "The test tool of a server called with OAuth client credentials",
    server = ProtectedServer,
    calls = "test-tool",
    input = Nothing,
    output = PlainText,
)]
pub struct ProtectedTest;

#[mcp_server(
    name = "conformance-jwt",
    url = "${MCP_SERVER_URL}",
    tools = ["test-tool"],
    env = ["MCP_SERVER_URL", "OAUTH_CLIENT_ID", "OAUTH_PRIVATE_KEY"],
    oauth_client_id = "${OAUTH_CLIENT_ID}",
    oauth_private_key = "${OAUTH_PRIVATE_KEY}",
)]
pub struct JwtServer;

#[mcp_tool(
    name = "jwt-test-tool",
    description = "The test tool of a server called with a client proving itself with a signed JWT",
    server = JwtServer,
    calls = "test-tool",
    input = Nothing,
    output = PlainText,
)]
pub struct JwtTest;

/// The suite's scenarios that need a person's approval: no client registered ahead, so the
/// client identifies itself by its metadata document where the authorization server takes
/// one, else registers itself.
#[mcp_server(
    name = "conformance-approved",
    url = "${MCP_SERVER_URL}",
    tools = ["test-tool"],
    env = ["MCP_SERVER_URL"],
    oauth_redirect = "http://localhost:3000/callback",
    oauth_client_metadata_url = "https://conformance-test.local/client-metadata.json",
)]
pub struct ApprovedServer;

#[mcp_tool(
    name = "approved-test-tool",
    description = "The test tool of a server called with a person's approval (OAuth's authorization code grant)",
    server = ApprovedServer,
    calls = "test-tool",
    input = Nothing,
    output = PlainText,
)]
pub struct ApprovedTest;

/// Approves as the suite's authorization server lets a client without a browser: the approval
/// page answers with a redirect to the redirect address, which is returned as is.
struct FollowTheRedirect;

impl Authorizer for FollowTheRedirect {
    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
        Box::pin(async move {
            let client = reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| e.to_string())?;
            let answer = client
                .get(prompt.page())
                .send()
                .await
                .map_err(|e| format!("the approval page could not be fetched: {e}"))?;
            answer
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|location| location.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!(
                        "the approval page answered {} without a redirect",
                        answer.status()
                    )
                })
        })
    }
}

/// Calls a server's test tool.
#[agent(name = "tester", prompt = "../prompts/helper.prompt.md", model = "test/conformance", tools = [ProtectedTest, JwtTest, ApprovedTest])]
pub struct Tester;

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
        auth if auth.starts_with("auth/") => match client_credentials() {
            Some((tool, credentials)) => {
                call_with(&url, "tester", tool, json!({}), &credentials).await
            }
            None => call(&url, "tester", "approved-test-tool", json!({})).await,
        },
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

/// The client the suite gives a scenario (`MCP_CONFORMANCE_CONTEXT`): its id and secret, or
/// its id and private key; the tool of the server declared for it and the variables that
/// server reads them from. None when it gives neither.
fn client_credentials() -> Option<(&'static str, Vec<(&'static str, String)>)> {
    let context = std::env::var("MCP_CONFORMANCE_CONTEXT").ok()?;
    let context: Value = serde_json::from_str(&context).ok()?;
    let text = |key: &str| context[key].as_str().map(str::to_owned);
    let id = ("OAUTH_CLIENT_ID", text("client_id")?);
    if let Some(key) = text("private_key_pem") {
        return Some(("jwt-test-tool", vec![id, ("OAUTH_PRIVATE_KEY", key)]));
    }
    let secret = ("OAUTH_CLIENT_SECRET", text("client_secret")?);
    Some(("protected-test-tool", vec![id, secret]))
}

/// Runs `agent`, whose model calls `tool` with `arguments` once, against the server at `url`;
/// what the tool returned to the model, or why it failed.
async fn call(url: &str, agent: &str, tool: &str, arguments: Value) -> Result<String, String> {
    call_with(url, agent, tool, arguments, &[]).await
}

/// [`call`] with the variables `extra` set too.
async fn call_with(
    url: &str,
    agent: &str,
    tool: &str,
    arguments: Value,
    extra: &[(&str, String)],
) -> Result<String, String> {
    let mut env = Env::from_pairs([("MCP_SERVER_URL", url)]);
    for (name, value) in extra {
        env = env.with(*name, value.clone());
    }
    let model = ScriptedModel::new([Turn::call(tool, arguments), Turn::text("Done.")]);
    let app = Application::builder("conformance-client")
        .workflow(Workflow::new("adder").agent::<Adder>())
        .workflow(Workflow::new("reconnector").agent::<Reconnector>())
        .workflow(Workflow::new("form-filler").agent::<FormFiller>())
        .workflow(Workflow::new("tester").agent::<Tester>())
        .channel::<AcceptDefaults>()
        .authorizer(FollowTheRedirect)
        .env(env)
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
