//! What the recovery tests run: tools with side effects that go to an effect ledger (which
//! counts each idempotency key, as a payment provider would), one per `on_crash` policy; a
//! model that decides from the conversation alone and numbers its responses; an application
//! builder over a given store, instance and clock.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::context::Signal;
use agboss::model::{ChatFuture, ChatModel, ChatRequest};
use agboss::prelude::*;
use agboss::spend::SpendRecorder;
use agboss::store::Store;
use agboss::time::ManualClock;
use agboss::units::{millis, usd};
use agboss::{Application, Workflow};
use fixtures::chat;
use tokio::sync::Notify;

/// One request a tool made of the service it changes.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub tool: &'static str,
    pub call_id: String,
    pub key: String,
    pub attempt: u32,
    pub arguments: String,
}

/// The service tools change: it keeps every request and applies each key once.
#[derive(Default)]
pub struct Effects {
    requests: Mutex<Vec<Request>>,
    applied: Mutex<HashMap<String, usize>>,
}

impl Effects {
    fn request(&self, tool: &'static str, context: &ExecutionContext, arguments: String) {
        let key = context.idempotency_key().to_owned();
        self.requests.lock().unwrap().push(Request {
            tool,
            call_id: context.call_id().to_owned(),
            key: key.clone(),
            attempt: context.attempt(),
            arguments,
        });
        self.applied.lock().unwrap().entry(key).or_insert(1);
    }

    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().unwrap().clone()
    }

    /// Keys applied (each once, whatever the number of requests).
    pub fn applied(&self) -> usize {
        self.applied.lock().unwrap().len()
    }
}

/// Holds a call in its tool until the test lets it go, to stand for a tool that is slow or
/// that a crash stops mid-way. Armed for the next call only, or for the next `n`.
#[derive(Default)]
pub struct Hold {
    /// How many of the next calls it holds.
    armed: Mutex<usize>,
    /// How many calls it holds now.
    holding: std::sync::atomic::AtomicUsize,
    entered: Notify,
    released: Notify,
    /// Whether the held call watches its signal (a cooperative tool) or not.
    pub ignores_signal: Mutex<bool>,
}

impl Hold {
    pub fn arm(&self) {
        self.arm_calls(1);
    }

    /// Holds each of the next `n` calls.
    pub fn arm_calls(&self, n: usize) {
        *self.armed.lock().unwrap() = n;
    }

    /// How many calls it holds now.
    pub fn holding(&self) -> usize {
        self.holding.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Waits until a call is held.
    pub async fn entered(&self) {
        self.entered.notified().await;
    }

    pub fn release(&self) {
        self.released.notify_waiters();
    }

    async fn maybe_hold(&self, signal: &Signal) {
        {
            let mut armed = self.armed.lock().unwrap();
            if *armed == 0 {
                return;
            }
            *armed -= 1;
        }
        let released = self.released.notified();
        tokio::pin!(released);
        released.as_mut().enable();
        self.holding
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.entered.notify_one();
        if *self.ignores_signal.lock().unwrap() {
            released.await;
        } else {
            tokio::select! {
                () = released => {}
                _ = signal.cancelled() => {}
            }
        }
        self.holding
            .fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[dto]
pub struct EmailInput {
    pub to: String,
}

/// Sends an email; the mail service takes the idempotency key (`on_crash` is the default,
/// `rerun`). Records what it pays.
#[tool(name = "send-email-tool")]
pub struct SendEmail {
    execution: ExecutionContext,
    spend: SpendRecorder,
    effects: Arc<Effects>,
    hold: Arc<Hold>,
}

impl ToolHandler for SendEmail {
    type Input = EmailInput;
    type Output = PlainText;

    async fn run(&self, input: EmailInput) -> Result<PlainText, ToolError> {
        self.effects
            .request("send-email-tool", &self.execution, input.to.clone());
        self.spend.record("mail", usd("0.40"));
        self.hold.maybe_hold(self.execution.signal()).await;
        Ok(PlainText::new(format!("sent to {}", input.to)))
    }
}

#[dto]
pub struct ChargeInput {
    pub cents: u64,
}

/// Charges a card through a provider that takes no key: it may not run twice.
#[tool(name = "charge-card-tool", on_crash = report)]
pub struct ChargeCard {
    execution: ExecutionContext,
    effects: Arc<Effects>,
    hold: Arc<Hold>,
}

impl ToolHandler for ChargeCard {
    type Input = ChargeInput;
    type Output = PlainText;

    async fn run(&self, input: ChargeInput) -> Result<PlainText, ToolError> {
        self.effects
            .request("charge-card-tool", &self.execution, input.cents.to_string());
        self.hold.maybe_hold(self.execution.signal()).await;
        Ok(PlainText::new(format!("charged {}", input.cents)))
    }
}

/// Approves refunds; the thread's owner answers.
#[channel_role(name = "refund-approval-channel", approves = ChargeInput, answered_by = ThreadOwner)]
pub struct RefundApproval;

fixtures::inbox! {
    /// Posts the question; the answer comes later.
    #[channel(name = "refund-inbox-channel")]
    pub struct RefundInbox for RefundApproval;
}

/// Refunds once approved; after a crash, its role is asked whether to run it again.
#[tool(name = "refund-tool", channel = RefundApproval, on_crash = ask)]
pub struct Refund {
    execution: ExecutionContext,
    effects: Arc<Effects>,
    hold: Arc<Hold>,
}

impl ToolHandler for Refund {
    type Input = ChargeInput;
    type Output = PlainText;

    async fn run(&self, input: ChargeInput) -> Result<PlainText, ToolError> {
        self.effects
            .request("refund-tool", &self.execution, input.cents.to_string());
        self.hold.maybe_hold(self.execution.signal()).await;
        Ok(PlainText::new(format!("refunded {}", input.cents)))
    }
}

/// Sends emails.
#[agent(name = "mailer", prompt = "../prompts/helper.prompt.md", model = "test/recovery", tools = [SendEmail])]
pub struct Mailer;

/// Charges cards.
#[agent(name = "charger", prompt = "../prompts/helper.prompt.md", model = "test/recovery", tools = [ChargeCard])]
pub struct Charger;

/// Refunds, once approved.
#[agent(name = "refunder", prompt = "../prompts/helper.prompt.md", model = "test/recovery", tools = [Refund])]
pub struct Refunder;

/// Decides from the conversation: without a tool result yet, it asks for its agent's one call
/// (provider id `p<n>`, n counting its responses); after one, it answers. Can be made to wait
/// on a given response, to stand for a crash during a model call.
#[derive(Default)]
pub struct RecoveryModel {
    responses: AtomicUsize,
    hold_at: Mutex<Option<usize>>,
    held: Notify,
}

impl RecoveryModel {
    pub fn responses(&self) -> usize {
        self.responses.load(Ordering::SeqCst)
    }

    /// Response `n` (from 1) never comes: the call waits until its run is dropped.
    pub fn hold_response(&self, n: usize) {
        *self.hold_at.lock().unwrap() = Some(n);
    }

    pub async fn held(&self) {
        self.held.notified().await;
    }
}

impl ChatModel for RecoveryModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        Box::pin(async move {
            let n = self.responses.fetch_add(1, Ordering::SeqCst) + 1;
            if *self.hold_at.lock().unwrap() == Some(n) {
                self.held.notify_one();
                std::future::pending::<()>().await;
            }
            let answered = chat::results_so_far(request) > 0;
            let tool = request
                .tools
                .first()
                .map(|t| t.name.clone())
                .unwrap_or_default();
            let arguments = if tool == "send-email-tool" {
                r#"{"to": "ada@example.com"}"#
            } else {
                r#"{"cents": 4200}"#
            };
            Ok(if answered {
                chat::answer("done")
            } else {
                chat::calling(vec![chat::call(format!("p{n}"), &tool, arguments)])
            })
        })
    }
}

/// What one instance of the application shares with the others: the store, the effects, the
/// model, the clock.
#[derive(Clone)]
pub struct World {
    pub effects: Arc<Effects>,
    pub hold: Arc<Hold>,
    pub model: Arc<RecoveryModel>,
    pub clock: ManualClock,
}

pub const TTL: Duration = Duration::from_millis(900);

impl World {
    pub fn new() -> World {
        World {
            effects: Arc::default(),
            hold: Arc::default(),
            model: Arc::default(),
            clock: ManualClock::new(),
        }
    }

    /// An instance named `instance` on `store`, its leases lasting [`TTL`], on the world's
    /// clock (or `clock`).
    pub fn app(&self, instance: &str, store: Arc<dyn Store>) -> Application {
        self.app_on(instance, store, self.clock.clone())
    }

    pub fn app_on(&self, instance: &str, store: Arc<dyn Store>, clock: ManualClock) -> Application {
        Application::builder("recovery")
            .workflow(
                Workflow::new("desk")
                    .agent::<Mailer>()
                    .agent::<Charger>()
                    .agent::<Refunder>(),
            )
            .provide(self.effects.clone())
            .provide(self.hold.clone())
            .channel::<RefundInbox>()
            .chat_model(self.model.clone())
            .store(store)
            .clock(clock)
            .instance(instance)
            .lease_ttl(millis(TTL.as_millis() as u64))
            .build()
            .unwrap()
    }

    /// Lets the leases of stopped instances run out.
    pub fn after_the_lease(&self) {
        self.clock.advance(TTL + Duration::from_millis(1));
    }
}
