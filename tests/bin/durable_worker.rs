//! The worker process of the durability fault tests (test_durability.rs): an agboss application
//! whose tool applies effects at an effect server on loopback (with the call's idempotency
//! key), whose model decides from the conversation alone, and which the tests kill, stop and
//! restart. `AGBOSS_FAILPOINTS` kills it with SIGKILL at a journal boundary.
//!
//! ```text
//! durable-worker --store sqlite:/tmp/x.db --effects 127.0.0.1:4000 --instance w1 submit 20
//! durable-worker --store sqlite:/tmp/x.db --effects 127.0.0.1:4000 --instance w1 work [--until-idle]
//! ```
//!
//! It prints `ready` once it works, and `end <execution> <completed|paused|lost|elsewhere|failed:<code>> <ms>`
//! as each execution's driver stops (milliseconds since the process started).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agboss::context::Signal;
use agboss::model::{ChatFuture, ChatModel, ChatRequest};
use agboss::prelude::*;
use agboss::run::{RunError, RunOutcome};
use agboss::store::Store;
use agboss::units::millis;
use agboss::{Application, Workflow};
use clap::{Parser, Subcommand};
use fixtures::chat;

#[derive(Parser)]
struct Cli {
    /// `sqlite:<path>` or `postgres:<url>`.
    #[arg(long)]
    store: String,
    /// The effect server, `host:port`.
    #[arg(long)]
    effects: String,
    /// This instance's name in leases and at the effect server.
    #[arg(long)]
    instance: String,
    /// The lease's ttl, in milliseconds.
    #[arg(long, default_value_t = 1_000)]
    ttl_ms: u64,
    /// How long the tool takes after its effect is applied, in milliseconds.
    #[arg(long, default_value_t = 0)]
    tool_ms: u64,
    #[command(subcommand)]
    command: Mode,
}

#[derive(Subcommand)]
enum Mode {
    /// Journals the start of `n` executions, `<prefix>-<i>`, and exits.
    Submit {
        n: usize,
        #[arg(long, default_value = "exec")]
        prefix: String,
    },
    /// Works on the store's executions.
    Work {
        #[arg(long, default_value_t = 4)]
        concurrency: usize,
        #[arg(long, default_value_t = 50)]
        poll_ms: u64,
        #[arg(long)]
        until_idle: bool,
    },
}

/// Talks to the effect server: one line out, one line back.
struct EffectServer {
    address: String,
    instance: String,
}

impl EffectServer {
    fn say(&self, line: String) -> Result<String, String> {
        let mut stream = TcpStream::connect(&self.address).map_err(|e| e.to_string())?;
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .map_err(|e| e.to_string())?;
        writeln!(stream, "{line}").map_err(|e| e.to_string())?;
        let mut reply = String::new();
        BufReader::new(stream)
            .read_line(&mut reply)
            .map_err(|e| e.to_string())?;
        Ok(reply.trim().to_owned())
    }
}

#[dto]
pub struct EffectInput {
    pub n: u32,
}

/// Applies effect `n` at the effect server, with the call's key.
#[tool(name = "effect-tool")]
pub struct Effect {
    execution: ExecutionContext,
    server: Arc<EffectServer>,
    pace: Arc<ToolPace>,
}

/// How long the tool works after its effect is applied.
pub struct ToolPace(Duration);

impl ToolHandler for Effect {
    type Input = EffectInput;
    type Output = PlainText;

    async fn run(&self, input: EffectInput) -> Result<PlainText, ToolError> {
        let line = format!(
            "EFFECT {} {} {} {} n={}",
            self.server.instance,
            self.execution.execution_id(),
            self.execution.call_id(),
            self.execution.idempotency_key(),
            input.n
        );
        let server = self.server.clone();
        let reply = tokio::task::spawn_blocking(move || server.say(line))
            .await
            .map_err(|e| ToolError::new(e.to_string()))?
            .map_err(ToolError::new)?;
        agboss::testing::failpoint("tool-running");
        if !self.pace.0.is_zero() {
            tokio::select! {
                () = tokio::time::sleep(self.pace.0) => {}
                _ = self.execution.signal().cancelled() => {}
            }
        }
        Ok(PlainText::new(reply))
    }
}

/// Applies two effects, then answers.
#[agent(name = "effector", prompt = "../prompts/helper.prompt.md", model = "test/durable", tools = [Effect])]
pub struct Effector;

/// Asks for two effects when the conversation has no result yet, else answers; tells the
/// effect server of each call (counted by instance).
struct DurableModel {
    server: Arc<EffectServer>,
}

impl ChatModel for DurableModel {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        Box::pin(async move {
            let input = chat::user_text(request);
            let line = format!("MODEL {} {input}", self.server.instance);
            let server = self.server.clone();
            let _ = tokio::task::spawn_blocking(move || server.say(line)).await;
            let effect =
                |id: &str, n: u32| chat::call(id, "effect-tool", format!(r#"{{"n": {n}}}"#));
            Ok(if chat::results_so_far(request) > 0 {
                chat::answer("done")
            } else {
                chat::calling(vec![effect("a", 1), effect("b", 2)])
            })
        })
    }
}

async fn open(spec: &str) -> Arc<dyn Store> {
    if let Some(path) = spec.strip_prefix("sqlite:") {
        return Arc::new(
            agboss::store::SqliteStore::open(path)
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    if let Some(url) = spec.strip_prefix("postgres:") {
        return Arc::new(
            agboss::store::PostgresStore::connect(url)
                .await
                .unwrap_or_else(|e| panic!("{e}")),
        );
    }
    panic!("unknown store `{spec}`: sqlite:<path> or postgres:<url>");
}

fn outcome_word(outcome: &Result<RunOutcome, RunError>) -> String {
    match outcome {
        Ok(RunOutcome::Completed(_)) => "completed".into(),
        Ok(RunOutcome::Paused(_)) => "paused".into(),
        Ok(RunOutcome::Elsewhere(_)) => "elsewhere".into(),
        Err(RunError::LeaseLost(_)) => "lost".into(),
        Err(error) => format!("failed:{}", error.code()),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let started = Instant::now();
    let cli = Cli::parse();
    let server = Arc::new(EffectServer {
        address: cli.effects.clone(),
        instance: cli.instance.clone(),
    });
    let store = open(&cli.store).await;
    let app = Application::builder("durable")
        .workflow(Workflow::new("desk").agent::<Effector>())
        .provide(server.clone())
        .provide(Arc::new(ToolPace(Duration::from_millis(cli.tool_ms))))
        .chat_model(Arc::new(DurableModel {
            server: server.clone(),
        }))
        .store(store)
        .instance(&cli.instance)
        .lease_ttl(millis(cli.ttl_ms))
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    match cli.command {
        Mode::Submit { n, prefix } => {
            for i in 0..n {
                let id = format!("{prefix}-{i}");
                app.run("desk", format!("apply for {id}"))
                    .execution_id(&id)
                    .submit()
                    .await
                    .unwrap_or_else(|e| panic!("{e}"));
            }
            println!("submitted {n}");
        }
        Mode::Work {
            concurrency,
            poll_ms,
            until_idle,
        } => {
            println!("ready");
            let _ = std::io::stdout().flush();
            let mut worker = app
                .worker()
                .concurrency(concurrency)
                .poll(millis(poll_ms))
                .on_end(|(id, outcome)| {
                    println!(
                        "end {id} {} {}",
                        outcome_word(outcome),
                        started.elapsed().as_millis()
                    );
                    let _ = std::io::stdout().flush();
                });
            if until_idle {
                worker = worker.until_idle();
            }
            let report = worker.run(Signal::new()).await;
            println!("idle {} {}", report.claimed, report.completed);
        }
    }
}
