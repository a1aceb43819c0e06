//! A decision model (`DecisionModel`) reads free-text replies to pauses over real HTTP: the
//! local wire server plays an OpenAI-compatible API for both the agent's model and the decision
//! model. It may only approve or refuse; what it spends is journaled with the answer (or with
//! its refusal) and counted in the execution's usage, spend and budgets, also when another
//! application over the same store drives the execution on.

use std::sync::{Arc, Mutex};

use agboss::app::{Env, Resume};
use agboss::channel::{DecisionModel, ReplyReading};
use agboss::config::Config;
use agboss::journal::{LoopEvent, PauseResolution};
use agboss::model::Usage;
use agboss::prelude::*;
use agboss::run::{Completed, RunOutcome};
use agboss::spend::Budgets;
use agboss::store::{MemoryStore, Store};
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
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [SendMail],
)]
pub struct Mailer;

/// An OpenAI chat completion calling `tool` with `arguments`, using `input`/`output` tokens.
fn call(tool: &str, arguments: &str, input: u64, output: u64) -> Canned {
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
fn text(text: &str, input: u64, output: u64) -> Canned {
    Canned::json(
        200,
        format!(
            r#"{{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{{"index":0,"message":{{"role":"assistant","content":"{text}"}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":{input},"completion_tokens":{output},"total_tokens":{}}}}}"#,
            input + output
        ),
    )
}

/// The agent asks to mail Ada: 100 tokens in, 20 out, $0.0003 at the agent model's prices.
fn mail_ada() -> Canned {
    call("send-mail-tool", r#"{"to":"ada@example.com"}"#, 100, 20)
}

/// The decision model decides: 50 tokens in, 10 out, $0.0003 at its prices.
fn decide(arguments: &str) -> Canned {
    call("decide", arguments, 50, 10)
}

/// What one reading costs: the decision model's 50 + 10 tokens at $2 and $20 per million.
fn reading() -> ReplyReading {
    ReplyReading {
        model: "wire/decider-model".into(),
        usage: Usage {
            input_tokens: 50,
            output_tokens: 10,
        },
        cost: usd("0.0003"),
    }
}

struct Desk {
    server: WireServer,
    store: Arc<MemoryStore>,
    inbox: Arc<Inbox>,
    sent: Arc<Mutex<Vec<String>>>,
}

impl Desk {
    async fn new(responses: impl IntoIterator<Item = Canned>) -> Desk {
        Desk {
            server: WireServer::start(responses).await,
            store: Arc::new(MemoryStore::new()),
            inbox: Arc::default(),
            sent: Arc::default(),
        }
    }

    /// An application over the desk's store and server (several may share them, as processes
    /// share a store).
    fn app(&self) -> Application {
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
    async fn paused(&self, app: &Application, budgets: Budgets) -> String {
        let outcome = app.run("desk", "mail Ada").budgets(budgets).await.unwrap();
        assert!(matches!(outcome, RunOutcome::Paused(_)), "{outcome:?}");
        self.inbox.0.lock().unwrap().last().cloned().unwrap()
    }

    async fn journal(&self) -> Vec<LoopEvent> {
        let ids = self.store.execution_ids();
        self.store.events(&ids[0]).await.unwrap()
    }

    fn sent(&self) -> usize {
        self.sent.lock().unwrap().len()
    }
}

fn completed(outcome: RunOutcome) -> Completed {
    outcome.into_completed().unwrap()
}

/// The readings journaled, with the answers (`answered`) and the refusals (`rejected <code>`).
fn readings(events: &[LoopEvent]) -> Vec<(String, Option<ReplyReading>)> {
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

/// A reply the model reads as an approval lets the call run once; the model was asked with the
/// question and the reply, forced to `decide`; its tokens and cost are in the execution's usage
/// and spend, journaled with the answer.
#[tokio::test]
async fn a_reply_read_as_approval_runs_the_call_and_counts_the_reading() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"approve","reason":"they said to send it"}"#),
        text("Sent.", 130, 5),
    ])
    .await;
    let app = desk.app();
    let pause = desk.paused(&app, Budgets::none()).await;
    let done = completed(
        app.resume(Resume::reply(&pause, "yes, send it"))
            .await
            .unwrap(),
    );
    assert_eq!(desk.sent(), 1);
    assert_eq!(done.text(), Some("Sent."));
    let requests = desk.server.requests();
    assert_eq!(requests.len(), 3);
    let asked = &requests[1].body;
    assert_eq!(asked["model"], "decider-model");
    assert_eq!(asked["tool_choice"]["function"]["name"], "decide");
    let question = asked["messages"].to_string();
    assert!(question.contains("yes, send it"), "{question}");
    assert!(question.contains("ada@example.com"), "{question}");
    assert_eq!(
        done.usage,
        Usage {
            input_tokens: 100 + 50 + 130,
            output_tokens: 20 + 10 + 5,
        }
    );
    assert_eq!(done.spend, usd("0.0003") + usd("0.0003") + usd("0.00018"));
    let decider: Vec<_> = done
        .spent
        .iter()
        .filter(|e| e.service == "wire/decider-model")
        .map(|e| (e.cost, e.tool, e.call_id.clone()))
        .collect();
    assert_eq!(decider, [(usd("0.0003"), None, None)]);
    assert_eq!(
        readings(&desk.journal().await),
        [("answered".to_owned(), Some(reading()))]
    );
}

/// A reply read as a refusal: the tool never runs and the model reads the decision model's
/// reason.
#[tokio::test]
async fn a_reply_read_as_refusal_keeps_the_call_from_running() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"refuse","reason":"the person wants to wait until Monday"}"#),
        text("Not sent.", 130, 5),
    ])
    .await;
    let app = desk.app();
    let pause = desk.paused(&app, Budgets::none()).await;
    let done = completed(
        app.resume(Resume::reply(&pause, "hold it until Monday"))
            .await
            .unwrap(),
    );
    assert_eq!(desk.sent(), 0);
    let read = &desk.server.requests()[2].body["messages"];
    let result = read.as_array().unwrap().last().unwrap();
    assert_eq!(result["role"], "tool");
    assert_eq!(
        result["content"],
        "Tool error: the call was refused: the person wants to wait until Monday"
    );
    assert_eq!(done.usage.total(), 120 + 60 + 135);
}

/// The model may only approve or refuse: anything else (a verdict outside the two, or no
/// `decide` call at all) refuses the reply with `pause.reply-unclear`, the pause stays open,
/// and what each reading cost is still counted (journaled with the refusal).
#[tokio::test]
async fn a_decision_model_may_only_approve_or_refuse() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"escalate","reason":"unsure"}"#),
        text("I am not sure.", 50, 10),
        text("Sent.", 130, 5),
    ])
    .await;
    let app = desk.app();
    let pause = desk.paused(&app, Budgets::none()).await;

    let refused = app
        .resume(Resume::reply(&pause, "ask my manager"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "pause.reply-unclear");
    assert!(!refused.answer_was_taken());
    let message = refused.to_string();
    assert!(
        message.starts_with(&format!(
            "[pause.reply-unclear] the reply to pause `{pause}` could not be read as an answer: the decision model `wire/decider-model` called `decide` with {{\"decision\":\"escalate\",\"reason\":\"unsure\"}}, which is not `approve` or `refuse` with a reason ("
        )),
        "{message}"
    );
    assert!(
        message.ends_with("): answer with a decision instead"),
        "{message}"
    );

    let refused = app.resume(Resume::reply(&pause, "hmm")).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "[pause.reply-unclear] the reply to pause `{pause}` could not be read as an answer: the decision model `wire/decider-model` did not call `decide` (it answered \"I am not sure.\"): answer with a decision instead"
        )
    );
    assert_eq!(desk.sent(), 0);

    // The pause is still open: a decision answers it, and the two readings count.
    let done = completed(
        app.resume(Resume::decision(
            &pause,
            ToolCallApprovalDecision::<Mail>::approve(),
        ))
        .await
        .unwrap(),
    );
    assert_eq!(desk.sent(), 1);
    assert_eq!(done.usage.total(), 120 + 60 + 60 + 135);
    assert_eq!(
        done.spend,
        usd("0.0003") + usd("0.0003") + usd("0.0003") + usd("0.00018")
    );
    let unclear = Some(reading());
    assert_eq!(
        readings(&desk.journal().await),
        [
            ("rejected pause.reply-unclear".to_owned(), unclear.clone()),
            ("rejected pause.reply-unclear".to_owned(), unclear),
            ("answered".to_owned(), None),
        ]
    );
}

/// The reading is journaled, so another application over the same store (another process)
/// that drives the execution on counts it: one takes the reply without driving the run
/// (`Application::answer`), the other resumes the execution from its journal.
#[tokio::test]
async fn a_reading_counts_in_the_application_that_drives_the_run_on() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"approve","reason":"yes"}"#),
        text("Sent.", 130, 5),
    ])
    .await;
    let first = desk.app();
    let pause = desk.paused(&first, Budgets::none()).await;
    let execution = first
        .answer(Resume::reply(&pause, "go ahead"))
        .await
        .unwrap();
    drop(first);
    let second = desk.app();
    let done = completed(second.resume_execution(&execution, None).await.unwrap());
    assert_eq!(desk.sent(), 1);
    assert_eq!(done.usage.total(), 120 + 60 + 135);
    assert_eq!(done.spend, usd("0.0003") + usd("0.0003") + usd("0.00018"));
    assert!(done.spent.iter().any(|e| e.service == "wire/decider-model"));
}

/// A budget counts the reading: the answer is taken, the approved call runs, and the run stops
/// before its next model call, because the reading spent what was left.
#[tokio::test]
async fn a_budget_stops_the_run_a_reading_spent() {
    for (budgets, code) in [
        // $0.0003 by the agent, then $0.0003 by the reading: over $0.0005.
        (Budgets::none().usd(usd("0.0005")), "budgets.usd"),
        // 120 tokens by the agent, then 60 by the reading: over 150.
        (Budgets::none().tokens(150), "budgets.tokens"),
    ] {
        let desk = Desk::new([
            mail_ada(),
            decide(r#"{"decision":"approve","reason":"yes"}"#),
            text("never asked for", 1, 1),
        ])
        .await;
        let app = desk.app();
        let pause = desk.paused(&app, budgets).await;
        let stopped = app.resume(Resume::reply(&pause, "yes")).await.unwrap_err();
        assert_eq!(stopped.code(), code);
        assert!(stopped.answer_was_taken());
        assert_eq!(desk.sent(), 1);
        assert_eq!(desk.server.requests().len(), 2, "{code}");
    }
}

/// Once the execution's budget is spent, no model reads a reply (it would spend more): the
/// reply is refused, saying so, and a decision still answers the pause.
#[tokio::test]
async fn no_model_reads_a_reply_once_the_budget_is_spent() {
    let desk = Desk::new([mail_ada()]).await;
    let app = desk.app();
    // The agent's first call costs $0.0003: over the budget once it answered.
    let pause = desk.paused(&app, Budgets::none().usd(usd("0.0002"))).await;
    let refused = app.resume(Resume::reply(&pause, "yes")).await.unwrap_err();
    assert_eq!(refused.code(), "pause.reply-unclear");
    assert_eq!(
        refused.to_string(),
        format!(
            "[pause.reply-unclear] the reply to pause `{pause}` could not be read as an answer: no model reads it, as the execution's budget is spent ([budgets.usd] BudgetExceededError: budget `usd` is spent: $0.0003 of $0.0002): answer with a decision instead"
        )
    );
    assert_eq!(
        desk.server.requests().len(),
        1,
        "the decision model was not asked"
    );
    let stopped = app
        .resume(Resume::decision(
            &pause,
            ToolCallApprovalDecision::<Mail>::approve(),
        ))
        .await
        .unwrap_err();
    assert!(stopped.answer_was_taken());
    assert_eq!(stopped.code(), "budgets.usd");
    assert_eq!(desk.sent(), 1);
}
