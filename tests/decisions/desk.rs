//! The application of the decision model's tests (test_decision_model.rs): an agent that mails
//! people once a channel-answered role approves, whose replies a `DecisionModel` reads, with the
//! wire server's canned answers for both models and the helpers that read the journal.

use std::sync::{Arc, Mutex};

use agboss::app::Env;
use agboss::channel::{DecisionModel, ReplyReading};
use agboss::config::Config;
use agboss::journal::{LoopEvent, PauseResolution};
use agboss::model::Usage;
use agboss::prelude::*;
use agboss::run::{Completed, RunOutcome};
use agboss::spend::Budgets;
use agboss::store::{Journal, MemoryStore};
use agboss::units::usd;
use agboss::{Application, Workflow};
use wire_server::{Canned, WireServer};

/// What to send.
#[dto]
pub struct Mail {
    /// To whom.
    pub to: String,
}

/// Reads replies to a mail's approval.
#[derive(Default)]
pub struct MailDecider;

impl DecisionModel for MailDecider {
    const MODEL: &'static str = "wire/decider-model";
}

/// Approves mails; whoever holds the pause's id answers, in their own words.
#[channel_role(
    name = "mail-approval-channel",
    approves = Mail,
    answered_by = Channel,
    reply_interpreter = MailDecider,
)]
pub struct MailApproval;

/// The pause ids the inbox channel was given, in order.
#[derive(Default)]
pub struct Inbox(Mutex<Vec<String>>);

/// Puts the question in an inbox; the answer comes later.
#[channel(
    name = "inbox-mail-approval-channel",
    description = "Asks in the inbox"
)]
pub struct InboxMailApproval {
    inbox: Arc<Inbox>,
}

impl ChannelHandler for InboxMailApproval {
    type Role = MailApproval;

    async fn send(
        &self,
        ask: ChannelAsk<MailApproval>,
    ) -> Result<ChannelOutcome<MailApproval>, ToolError> {
        self.inbox.0.lock().unwrap().push(ask.pause_id);
        Ok(ChannelOutcome::await_reply())
    }
}

#[tool(name = "send-mail-tool", description = "Sends a mail", channel = MailApproval)]
pub struct SendMail {
    sent: Arc<Mutex<Vec<String>>>,
}

impl ToolHandler for SendMail {
    type Input = Mail;
    type Output = PlainText;

    async fn run(&self, input: Mail) -> Result<PlainText, ToolError> {
        self.sent.lock().unwrap().push(input.to.clone());
        Ok(PlainText::new(format!("sent to {}", input.to)))
    }
}

/// Mails people once someone approves.
#[agent(
    name = "mailer",
    prompt = "../prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [SendMail],
)]
pub struct Mailer;

/// An OpenAI chat completion calling `tool` with `arguments`, using `input`/`output` tokens.
pub fn call(tool: &str, arguments: &str, input: u64, output: u64) -> Canned {
    let arguments = serde_json::to_string(arguments).unwrap();
    Canned::json(
        200,
        format!(
            r#"{{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{{"index":0,"message":{{"role":"assistant","content":null,"tool_calls":[{{"id":"call_{tool}","type":"function","function":{{"name":"{tool}","arguments":{arguments}}}}}]}},"finish_reason":"tool_calls"}}],"usage":{{"prompt_tokens":{input},"completion_tokens":{output},"total_tokens":{}}}}}"#,
            input + output
        ),
    )
}

/// An OpenAI chat completion answering `text`.
pub fn text(text: &str, input: u64, output: u64) -> Canned {
    Canned::json(
        200,
        format!(
            r#"{{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{{"index":0,"message":{{"role":"assistant","content":"{text}"}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":{input},"completion_tokens":{output},"total_tokens":{}}}}}"#,
            input + output
        ),
    )
}

/// The agent asks to mail Ada: 100 tokens in, 20 out, $0.0003 at the agent model's prices.
pub fn mail_ada() -> Canned {
    call("send-mail-tool", r#"{"to":"ada@example.com"}"#, 100, 20)
}

/// The decision model decides: 50 tokens in, 10 out, $0.0003 at its prices.
pub fn decide(arguments: &str) -> Canned {
    call("decide", arguments, 50, 10)
}

/// What one reading costs: the decision model's 50 + 10 tokens at $2 and $20 per million.
pub fn reading() -> ReplyReading {
    ReplyReading {
        model: "wire/decider-model".into(),
        usage: Usage {
            input_tokens: 50,
            output_tokens: 10,
        },
        cost: usd("0.0003"),
    }
}

/// A wire server, a store, and what the channel and the tool saw.
pub struct Desk {
    /// The server both models are asked at.
    pub server: WireServer,
    store: Arc<MemoryStore>,
    inbox: Arc<Inbox>,
    sent: Arc<Mutex<Vec<String>>>,
}

impl Desk {
    /// A desk whose server gives `responses`, in order.
    pub async fn new(responses: impl IntoIterator<Item = Canned>) -> Desk {
        Desk {
            server: WireServer::start(responses).await,
            store: Arc::new(MemoryStore::new()),
            inbox: Arc::default(),
            sent: Arc::default(),
        }
    }

    /// An application over the desk's store and server (several may share them, as processes
    /// share a store).
    pub fn app(&self) -> Application {
        let config = Config::from_toml(
            "wire.toml",
            &format!(
                r#"
                [agents.mailer]
                model = "wire/agent-model"

                [models.wire]
                kind = "openai"
                base_url = "{}"
                api_key_env = "WIRE_KEY"

                [models.wire.prices."agent-model"]
                input = "1.00"
                output = "10.00"

                [models.wire.prices."decider-model"]
                input = "2.00"
                output = "20.00"
                "#,
                self.server.base_url()
            ),
        );
        Application::builder("decisions")
            .store(self.store.clone())
            .workflow(Workflow::new("desk").agent::<Mailer>())
            .channel::<InboxMailApproval>()
            .provide(self.inbox.clone())
            .provide(self.sent.clone())
            .config(config)
            .env(Env::from_pairs([("WIRE_KEY", "test-key")]))
            .build()
            .unwrap()
    }

    /// Runs the agent until it waits for the mail's approval; the pause's id.
    pub async fn paused(&self, app: &Application, budgets: Budgets) -> String {
        let outcome = app.run("desk", "mail Ada").budgets(budgets).await.unwrap();
        assert!(matches!(outcome, RunOutcome::Paused(_)), "{outcome:?}");
        self.inbox.0.lock().unwrap().last().cloned().unwrap()
    }

    /// The journal of the desk's only execution.
    pub async fn journal(&self) -> Vec<LoopEvent> {
        let ids = self.store.execution_ids();
        self.store.events(&ids[0]).await.unwrap()
    }

    /// How many mails were sent.
    pub fn sent(&self) -> usize {
        self.sent.lock().unwrap().len()
    }
}

/// The completed run `outcome` is (a paused one fails the test).
pub fn completed(outcome: RunOutcome) -> Completed {
    outcome.into_completed().unwrap()
}

/// The readings journaled, with the answers (`answered`) and the refusals (`rejected <code>`).
pub fn readings(events: &[LoopEvent]) -> Vec<(String, Option<ReplyReading>)> {
    events
        .iter()
        .filter_map(|event| match event {
            LoopEvent::PauseResolved {
                resolution: PauseResolution::Answered { reading, .. },
                ..
            } => Some(("answered".to_owned(), reading.clone())),
            LoopEvent::PauseAnswerRejected { code, reading, .. } => {
                Some((format!("rejected {code}"), reading.clone()))
            }
            _ => None,
        })
        .collect()
}
