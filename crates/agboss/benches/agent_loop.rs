//! The agent loop at full speed: a zero-latency model asks for 4 parallel tool calls on each of
//! 1,000 turns, then answers. Everything else is real: the contract for each call (its own task
//! and signal), the journal in a `MemoryStore`, results fed back in order.
//!
//! The same again with a tool that declares a capability an allowing permission checker governs:
//! what a call through a permission check costs (the check and its journaled decision).

use std::hint::black_box;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agboss::channel::AutoRejectChannel;
use agboss::context::Signal;
use agboss::model::{ChatFuture, ChatModel, ChatRequest, ChatResponse, FinishReason, ToolCall};
use agboss::policy::{Permission, PermissionChecker, PermissionRequest};
use agboss::prelude::*;
use agboss::tool::Capability;
use agboss::{Application, Workflow};
use criterion::{Criterion, criterion_group, criterion_main};

const TURNS: u32 = 1_000;
const CALLS_PER_TURN: u32 = 4;

/// The tools' input and output.
#[dto]
pub struct Query {
    /// Words.
    pub words: String,
}

/// Answers at once.
#[tool(name = "echo-tool", description = "Echoes", read_only = true)]
pub struct Echo;

impl ToolHandler for Echo {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

/// Answers at once; declares that it moves money.
#[tool(name = "guarded-echo-tool", description = "Echoes", read_only = true, capabilities = [Money])]
pub struct GuardedEcho;

impl ToolHandler for GuardedEcho {
    type Input = Query;
    type Output = Query;

    async fn run(&self, input: Query) -> Result<Query, ToolError> {
        Ok(input)
    }
}

/// Lets every call run.
struct AllowAll;

impl PermissionChecker for AllowAll {
    fn name(&self) -> &str {
        "allow-all"
    }

    fn governs(&self) -> &[Capability] {
        &[Capability::Money]
    }

    fn check(&self, _request: &PermissionRequest<'_>) -> Permission {
        Permission::allow("bench")
    }
}

/// The agent under load.
#[agent(
    name = "worker",
    description = "Works",
    prompt = "loop.prompt.md",
    model = "bench/zero",
    tools = [Echo, GuardedEcho],
    max_tool_calls = 10_000,
    max_turns = 10_000,
)]
pub struct Worker;

/// `AGBOSS_LOOP_DISTINCT=1`: every call's arguments differ, so no call repeats an earlier one.
fn distinct_arguments() -> bool {
    static DISTINCT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DISTINCT.get_or_init(|| std::env::var_os("AGBOSS_LOOP_DISTINCT").is_some())
}

/// Asks for `CALLS_PER_TURN` calls of `tool` per turn, `TURNS` times, then answers; no latency.
struct Zero {
    turn: AtomicU32,
    tool: &'static str,
}

impl ChatModel for Zero {
    fn chat<'a>(&'a self, _: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        let turn = self.turn.fetch_add(1, Ordering::Relaxed);
        let response = if turn < TURNS {
            ChatResponse {
                tool_calls: (0..CALLS_PER_TURN)
                    .map(|i| ToolCall {
                        provider_id: Some(format!("call_{turn}_{i}")),
                        name: self.tool.into(),
                        arguments: match distinct_arguments() {
                            true => format!(r#"{{"words": "words {turn} {i}"}}"#),
                            false => r#"{"words": "a few words"}"#.into(),
                        },
                    })
                    .collect(),
                finish: FinishReason::ToolCalls,
                ..ChatResponse::default()
            }
        } else {
            ChatResponse {
                text: Some("done".into()),
                ..ChatResponse::default()
            }
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn agent_loop(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let run = |tool: &'static str| async move {
        let mut builder = Application::builder("bench")
            .workflow(Workflow::new("load").agent::<Worker>())
            .chat_model(Arc::new(Zero {
                turn: AtomicU32::new(0),
                tool,
            }));
        if tool == "guarded-echo-tool" {
            // The role is never asked: the checker allows every call.
            builder = builder
                .permissions(AllowAll)
                .check_in_role::<AutoRejectChannel>();
        }
        let app = builder.build().unwrap();
        app.run("load", "go")
            .await
            .unwrap()
            .into_completed()
            .unwrap()
    };
    // A run lives in a task of the runtime, as in a server; driving it from `block_on` on the
    // main thread would add two thread hand-offs per turn that no deployment has.
    let in_task = |tool| runtime.block_on(runtime.spawn(run(tool))).unwrap();
    let outcome = in_task("guarded-echo-tool");
    assert_eq!(outcome.tool_calls, TURNS * CALLS_PER_TURN);
    // `AGBOSS_LOOP_TOOL=guarded-echo-tool` counts the loop through a permission check.
    let tool: &'static str = match std::env::var("AGBOSS_LOOP_TOOL").as_deref() {
        Ok("guarded-echo-tool") => "guarded-echo-tool",
        _ => "echo-tool",
    };
    // A fixed number of runs and nothing else, for counting instructions (callgrind): the
    // machine's noise does not change them.
    if let Some(runs) = std::env::var("AGBOSS_LOOP_RUNS")
        .ok()
        .and_then(|n| n.parse::<u32>().ok())
    {
        for _ in 0..runs {
            black_box(in_task(tool));
        }
        std::process::exit(0);
    }

    let mut group = c.benchmark_group("agent_loop");
    group.sample_size(10);
    group.throughput(criterion::Throughput::Elements(u64::from(
        TURNS * CALLS_PER_TURN,
    )));
    group.bench_function("1000_turns_x_4_calls", |b| {
        b.iter(|| black_box(in_task("echo-tool")))
    });
    group.bench_function("1000_turns_x_4_calls_permission_allows", |b| {
        b.iter(|| black_box(in_task("guarded-echo-tool")))
    });
    group.bench_function("1000_turns_x_4_calls_from_block_on", |b| {
        b.iter(|| black_box(runtime.block_on(run("echo-tool"))))
    });
    group.finish();
}

criterion_group!(benches, agent_loop);
criterion_main!(benches);
