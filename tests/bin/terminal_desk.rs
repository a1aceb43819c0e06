//! A small program run by a person at a terminal, for the tests of `TerminalUserChannel`
//! (test_channels.rs): its agent calls a tool whose role is the terminal channel, so the
//! program asks on standard output and reads the answer from standard input. The tests run it
//! with standard input piped and check what it prints after the prompt:
//!
//! ```text
//! RESULT runs=<how many times the tool ran> error=<bool> read=<what the model read, as JSON>
//! PAUSE <each pause event, in order>
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agboss::channel::TerminalUserChannel;
use agboss::dto::Value;
use agboss::journal::{LoopEvent, PauseResolution};
use agboss::model::{Message, ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::store::{Journal, MemoryStore};
use agboss::{Application, Workflow};

/// What to send.
#[dto]
pub struct Mail {
    /// To whom.
    pub to: String,
}

#[tool(
    name = "send-mail-tool",
    description = "Sends a mail",
    channel = TerminalUserChannel
)]
pub struct SendMail {
    runs: Arc<AtomicUsize>,
}

impl ToolHandler for SendMail {
    type Input = Mail;
    type Output = PlainText;

    async fn run(&self, input: Mail) -> Result<PlainText, ToolError> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        Ok(PlainText::new(format!("sent to {}", input.to)))
    }
}

/// Mails people, with the terminal's approval.
#[agent(
    name = "mailer",
    prompt = "../prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [SendMail],
)]
pub struct Mailer;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    agboss::model::forbid_real_requests(true);
    let store = Arc::new(MemoryStore::new());
    let model = ScriptedModel::new([
        Turn::call(
            "send-mail-tool",
            Value::from_iter([("to", "ada@example.com")]),
        ),
        Turn::text("done"),
    ]);
    let runs = Arc::new(AtomicUsize::new(0));
    let app = Application::builder("terminal-desk")
        .store(store.clone())
        .workflow(Workflow::new("desk").agent::<Mailer>())
        .provide(runs.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .expect("the application assembles");
    let done = app
        .run("desk", "mail Ada")
        .await
        .expect("the run completes")
        .into_completed()
        .expect("nothing waits: the terminal answers at once");
    let requests = model.requests();
    let (read, error) = match requests.last().and_then(|r| r.messages.last()) {
        Some(Message::Tool {
            content, is_error, ..
        }) => (content.clone(), *is_error),
        other => panic!("the model should have read a tool result, not {other:?}"),
    };
    println!();
    println!(
        "RESULT runs={} error={error} read={}",
        runs.load(Ordering::SeqCst),
        Value::String(read)
    );
    for event in store.events(&done.execution_id).await.expect("the journal") {
        match event {
            LoopEvent::PauseOpened(opened) => println!("PAUSE opened {}", opened.role),
            LoopEvent::PauseAwaiting { .. } => println!("PAUSE awaiting"),
            LoopEvent::PauseResolved {
                resolution: PauseResolution::Decided { answer },
                ..
            } => println!("PAUSE decided {answer}"),
            LoopEvent::PauseResolved { resolution, .. } => println!("PAUSE {resolution:?}"),
            _ => {}
        }
    }
}
