//! The role, channel, servers, tools, agents and applications of the elicitation tests
//! (tests/test_mcp_elicitation.rs).

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::app::Env;
use agboss::mcp::{ElicitationAnswer, ElicitationQuestion};
use agboss::model::ScriptedModel;
use agboss::prelude::*;
use agboss::store::{SqliteStore, Store};
use agboss::{Application, Workflow};

use crate::mcp_common::{Fake, Nothing, env, temp_dir};

/// Asks the thread's owner what a server needs to go on.
#[channel_role(
    name = "server-input-channel",
    ask = ElicitationQuestion,
    answer = ElicitationAnswer,
    answered_by = ThreadOwner
)]
pub struct ServerInputRole;

/// Puts the server's question in the owner's inbox; the answer comes later.
#[channel(name = "server-input-inbox-channel")]
pub struct ServerInputInbox {
    asked: Arc<Asked>,
}

/// The questions the inbox was given, and how long it takes to say the answer comes later.
#[derive(Default)]
pub struct Asked(pub Mutex<Vec<ElicitationQuestion>>, pub Duration);

impl ChannelHandler for ServerInputInbox {
    type Role = ServerInputRole;

    async fn send(
        &self,
        ask: ChannelAsk<ServerInputRole>,
    ) -> Result<ChannelOutcome<ServerInputRole>, ToolError> {
        self.asked.0.lock().unwrap().push(ask.value);
        tokio::time::sleep(self.asked.1).await;
        Ok(ChannelOutcome::await_reply())
    }
}

#[mcp_server(
    name = "everything-asking",
    command = "${NODE}",
    args = ["${EVERYTHING_JS}", "stdio"],
    tools = ["trigger-elicitation-request"],
    env = ["NODE", "EVERYTHING_JS"],
    elicitation = ServerInputRole,
)]
pub struct EverythingAsking;

#[mcp_tool(
    name = "profile-form-tool",
    description = "Fills in the user's profile",
    server = EverythingAsking,
    calls = "trigger-elicitation-request",
    input = Nothing,
    output = PlainText,
)]
pub struct ProfileForm;

#[mcp_server(
    name = "everything-asking-http",
    url = "${EVERYTHING_URL}",
    tools = ["trigger-elicitation-request"],
    env = ["EVERYTHING_URL"],
    elicitation = ServerInputRole,
)]
pub struct EverythingAskingOverHttp;

#[mcp_tool(
    name = "profile-form-over-http-tool",
    description = "Fills in the user's profile, over HTTP",
    server = EverythingAskingOverHttp,
    calls = "trigger-elicitation-request",
    input = Nothing,
    output = PlainText,
)]
pub struct ProfileFormOverHttp;

#[mcp_server(
    name = "fake-asking",
    command = "python3",
    args = ["${FAKE_PY}", "${FAKE_MODE}", "${FAKE_LOG}"],
    tools = ["elicit"],
    env = ["FAKE_PY", "FAKE_MODE", "FAKE_LOG"],
    elicitation = ServerInputRole,
)]
pub struct FakeAsking;

#[mcp_tool(
    name = "quick-colour-tool",
    description = "Asks the user for a colour, and gives up after a second",
    server = FakeAsking,
    calls = "elicit",
    input = Nothing,
    output = PlainText,
    timeout = agboss::units::seconds(1),
)]
pub struct QuickColour;

#[mcp_tool(
    name = "colour-tool",
    description = "Asks the user for a colour",
    server = Fake,
    calls = "elicit",
    input = Nothing,
    output = PlainText,
)]
pub struct Colour;

/// Fills in the user's profile through the server's client, with a handler of its own: a
/// `#[tool]` declares the server's role itself to be asked.
#[tool(name = "profile-by-hand-tool", asks = [ServerInputRole])]
pub struct ProfileByHand {
    server: McpClient<EverythingAsking>,
}

impl ToolHandler for ProfileByHand {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, input: Nothing) -> Result<PlainText, ToolError> {
        let form: PlainText = self
            .server
            .call_tool("trigger-elicitation-request", &input)
            .await?;
        Ok(PlainText::new(format!("by hand: {}", form.text)))
    }
}

/// Fills in profiles by hand.
#[agent(
    name = "hand-profiler",
    prompt = "../prompts/helper.prompt.md",
    model = "test/model",
    tools = [ProfileByHand]
)]
pub struct HandProfiler;

/// Fills in profiles.
#[agent(
    name = "profiler",
    prompt = "../prompts/helper.prompt.md",
    model = "test/model",
    tools = [ProfileForm]
)]
pub struct Profiler;

/// Fills in profiles, over HTTP.
#[agent(
    name = "http-profiler",
    prompt = "../prompts/helper.prompt.md",
    model = "test/model",
    tools = [ProfileFormOverHttp]
)]
pub struct HttpProfiler;

/// Picks colours.
#[agent(
    name = "colourist",
    prompt = "../prompts/helper.prompt.md",
    model = "test/model",
    tools = [QuickColour]
)]
pub struct Colourist;

pub fn app(store: Arc<dyn Store>, model: &ScriptedModel, asked: &Arc<Asked>) -> Application {
    app_with(store, model, asked, servers(&[]))
}

/// The variables of every server here, the HTTP one at an address nobody listens on unless
/// `extra` says otherwise (a server starts only when a call needs it).
pub fn servers(extra: &[(&str, String)]) -> Env {
    let mut pairs = vec![
        ("EVERYTHING_URL", "http://127.0.0.1:9/mcp".to_owned()),
        ("FAKE_MODE", "normal".to_owned()),
        (
            "FAKE_LOG",
            temp_dir("elicit-log")
                .join("fake.log")
                .display()
                .to_string(),
        ),
    ];
    pairs.extend(extra.iter().cloned());
    env(&temp_dir("elicit"), &pairs)
}

pub fn app_with(
    store: Arc<dyn Store>,
    model: &ScriptedModel,
    asked: &Arc<Asked>,
    env: Env,
) -> Application {
    let workflows = [
        Workflow::new("desk").agent::<Profiler>(),
        Workflow::new("http-desk").agent::<HttpProfiler>(),
        Workflow::new("hand-desk").agent::<HandProfiler>(),
    ];
    built(workflows, store, model, asked, env)
}

/// The colourist's application alone: its one server can be started up front.
pub fn colour_app(
    store: Arc<dyn Store>,
    model: &ScriptedModel,
    asked: &Arc<Asked>,
    env: Env,
) -> Application {
    let workflows = [Workflow::new("colour-desk").agent::<Colourist>()];
    built(workflows, store, model, asked, env)
}

fn built(
    workflows: impl IntoIterator<Item = Workflow>,
    store: Arc<dyn Store>,
    model: &ScriptedModel,
    asked: &Arc<Asked>,
    env: Env,
) -> Application {
    let mut builder = Application::builder("profiles");
    for workflow in workflows {
        builder = builder.workflow(workflow);
    }
    builder
        .channel::<ServerInputInbox>()
        .provide(asked.clone())
        .env(env)
        .store(store)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

pub async fn sqlite() -> (Arc<dyn Store>, tempfile::TempDir) {
    let folder = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(folder.path().join("agboss.db"))
        .await
        .unwrap();
    (Arc::new(store), folder)
}
