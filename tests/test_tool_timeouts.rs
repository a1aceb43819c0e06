//! Fault plan T9: tools that do not stop when their 200 ms timeout passes. One spins on a
//! blocking thread, one starts a child process (with a grandchild) that ignores SIGTERM, one
//! never yields to the runtime, and one waits on an MCP server that never answers. Each call's
//! timeout is journaled within timeout + grace (and the machine's scheduling), nothing a call
//! returns later is journaled, the child process groups are gone, and the blocking threads are
//! given back. Figures in docs/tools.md.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agboss::app::Env;
use agboss::context::Signal;
use agboss::journal::LoopEvent;
use agboss::model::{ChatFuture, ChatModel, ChatRequest};
use agboss::prelude::*;
use agboss::tool::{BlockingPool, Subprocess, TIMEOUT_GRACE, blocking};
use agboss::units::millis;
use agboss::{Application, Workflow};

#[path = "faults/report.rs"]
mod reporting;
use fixtures::chat;
use reporting::report;

const TIMEOUT: Duration = Duration::from_millis(200);
const CALLS: usize = 50;
/// What the machine's scheduling may add past the grace on a loaded machine: beside a build on
/// 2 shared cores, the worst of 50 runs was 148 ms (a call that never yields).
const SCHEDULING: Duration = Duration::from_millis(250);
const TIMED_OUT: &str = "Tool error: timed out after 200 ms";

/// What the calls saw: when each started (by call id), the process groups started, and the
/// results returned after their call was judged timed out.
#[derive(Default)]
pub struct Seen {
    started: Mutex<HashMap<String, Instant>>,
    groups: Mutex<Vec<i32>>,
    late: AtomicUsize,
}

impl Seen {
    fn start(&self, execution: &ExecutionContext) {
        let mut started = self.started.lock().unwrap();
        started.insert(execution.call_id().to_owned(), Instant::now());
    }
}

#[dto]
pub struct Nothing {}

/// Spins on a thread of the shared blocking pool until its call stops waiting.
#[tool(name = "spin-blocking-tool", timeout = millis(200))]
pub struct SpinBlocking {
    execution: ExecutionContext,
    seen: Arc<Seen>,
}

impl ToolHandler for SpinBlocking {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, _: Nothing) -> Result<PlainText, ToolError> {
        self.seen.start(&self.execution);
        blocking(|stop| {
            let until = Instant::now() + Duration::from_secs(10);
            while !stop.is_set() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(1));
            }
        })
        .await?;
        Ok(PlainText::new("spun"))
    }
}

/// Starts a shell that ignores SIGTERM and leaves a grandchild that ignores it too.
#[tool(name = "stubborn-child-tool", timeout = millis(200))]
pub struct StubbornChild {
    execution: ExecutionContext,
    clock: Clock,
    seen: Arc<Seen>,
}

impl ToolHandler for StubbornChild {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, _: Nothing) -> Result<PlainText, ToolError> {
        self.seen.start(&self.execution);
        let mut command = tokio::process::Command::new("sh");
        command.args(["-c", "trap '' TERM; sleep 30 & sleep 30; wait"]);
        let child = Subprocess::spawn(command, &self.clock)?.with_grace(Duration::from_millis(300));
        self.seen.groups.lock().unwrap().push(child.group());
        child.wait().await?;
        Ok(PlainText::new("exited"))
    }
}

/// Busy for 350 ms without an await point, then answers (late).
#[tool(name = "never-yields-tool", timeout = millis(200))]
pub struct NeverYields {
    execution: ExecutionContext,
    seen: Arc<Seen>,
}

impl ToolHandler for NeverYields {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, _: Nothing) -> Result<PlainText, ToolError> {
        self.seen.start(&self.execution);
        let until = Instant::now() + Duration::from_millis(350);
        while Instant::now() < until {
            std::hint::spin_loop();
        }
        self.seen.late.fetch_add(1, Ordering::SeqCst);
        Ok(PlainText::new("finally"))
    }
}

/// The scripted server (tests/fixtures/mcp/fake_server.py): its `wait` never answers.
#[mcp_server(
    name = "fake",
    command = "python3",
    args = ["${FAKE_PY}", "normal", "${FAKE_LOG}"],
    tools = ["wait"],
    env = ["FAKE_PY", "FAKE_LOG"],
)]
pub struct Fake;

#[mcp_tool(name = "never-answers-tool", description = "Waits for an answer that never comes", server = Fake, calls = "wait", timeout = millis(200))]
pub struct NeverAnswers {
    server: McpClient<Fake>,
    execution: ExecutionContext,
    seen: Arc<Seen>,
}

impl ToolHandler for NeverAnswers {
    type Input = Nothing;
    type Output = PlainText;

    async fn run(&self, input: Nothing) -> Result<PlainText, ToolError> {
        self.seen.start(&self.execution);
        self.server.call(&input).await
    }
}

/// Calls what it is told.
#[agent(
    name = "caller",
    prompt = "prompts/helper.prompt.md",
    model = "test/caller",
    tools = [SpinBlocking, StubbornChild, NeverYields, NeverAnswers],
    max_tool_calls = 1000,
    max_turns = 100,
)]
pub struct Caller;

/// Asks, for input `<tool> <calls> <at once>`, for that many calls of the tool in turns of
/// that many at once, then answers.
struct Script;

impl ChatModel for Script {
    fn chat<'a>(&'a self, request: &'a ChatRequest, _: &'a Signal) -> ChatFuture<'a> {
        let input = chat::user_text(request);
        let words: Vec<&str> = input.split(' ').collect();
        let (tool, calls, at_once): (&str, usize, usize) = (
            words[0],
            words[1].parse().unwrap(),
            words[2].parse().unwrap(),
        );
        let done = chat::results_so_far(request);
        let response = if done >= calls {
            chat::answer("done")
        } else {
            chat::calling(
                (done..(done + at_once).min(calls))
                    .map(|n| chat::call(format!("call-{n}"), tool, "{}"))
                    .collect(),
            )
        };
        Box::pin(std::future::ready(Ok(response)))
    }
}

fn app(seen: &Arc<Seen>) -> Application {
    let dir = std::env::temp_dir().join(format!("agboss-t9-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fake = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/fake_server.py");
    Application::builder("t9")
        .workflow(Workflow::new("desk").agent::<Caller>())
        .chat_model(Arc::new(Script))
        .provide(seen.clone())
        .env(Env::from_pairs([
            ("FAKE_PY".to_owned(), fake.display().to_string()),
            (
                "FAKE_LOG".to_owned(),
                dir.join("fake.log").display().to_string(),
            ),
        ]))
        .build()
        .unwrap()
}

/// What one kind's calls showed: the overrun past the timeout of each, and the results
/// journaled that were not the timeout.
struct Kind {
    overruns: Vec<Duration>,
    late_committed: usize,
}

/// Runs `calls` calls of `tool`, `at_once` at a time, and reads what was journaled.
async fn run_kind(app: &Application, seen: &Seen, tool: &str, at_once: usize) -> Kind {
    let ended: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let id = format!("t9-{tool}");
    let outcome = app
        .run("desk", format!("{tool} {CALLS} {at_once}"))
        .execution_id(&id)
        .on_tool_end({
            let ended = ended.clone();
            move |end| {
                ended
                    .lock()
                    .unwrap()
                    .insert(end.call_id.to_owned(), Instant::now());
            }
        })
        .await
        .unwrap();
    assert!(outcome.completed().is_some());
    let events = app.store().events(&id).await.unwrap();
    let results: Vec<(&str, &str)> = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolFinished {
                call_id, content, ..
            } => Some((call_id.as_str(), content.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(results.len(), CALLS, "one result per call");
    // Every result is the timeout (a repeated one with the note on repeated calls after it).
    let late_committed = results
        .iter()
        .filter(|(_, c)| !c.starts_with(TIMED_OUT))
        .count();
    let started = seen.started.lock().unwrap();
    let ended = ended.lock().unwrap();
    let overruns = results
        .iter()
        .map(|(call_id, _)| {
            let took = ended[*call_id].duration_since(started[*call_id]);
            took.saturating_sub(TIMEOUT)
        })
        .collect();
    Kind {
        overruns,
        late_committed,
    }
}

fn p99(overruns: &[Duration]) -> Duration {
    let mut sorted = overruns.to_vec();
    sorted.sort();
    sorted[(sorted.len() * 99).div_ceil(100) - 1]
}

/// Waits up to `wait` for `done`.
async fn eventually(wait: Duration, done: impl Fn() -> bool) -> bool {
    let until = Instant::now() + wait;
    while !done() && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    done()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 6)]
async fn uncooperative_tools_time_out_and_leave_nothing_behind() {
    let seen = Arc::new(Seen::default());
    let app = app(&seen);
    app.start_mcp_servers().await.unwrap();
    let kinds = [
        ("spin-blocking-tool", 5),
        ("stubborn-child-tool", 10),
        ("never-yields-tool", 2),
        ("never-answers-tool", 10),
    ];
    let mut figures = Vec::new();
    let mut late_committed = 0;
    for (tool, at_once) in kinds {
        let kind = run_kind(&app, &seen, tool, at_once).await;
        late_committed += kind.late_committed;
        let (p99, max) = (p99(&kind.overruns), kind.overruns.iter().max().copied());
        figures.push(format!(
            "{tool} overrun p99 {} ms (max {} ms)",
            p99.as_millis(),
            max.unwrap_or_default().as_millis()
        ));
        assert!(
            p99 <= TIMEOUT_GRACE + SCHEDULING,
            "{tool}: the timeout was journaled {p99:?} after it passed"
        );
    }
    // The process groups get SIGTERM, then SIGKILL after their 300 ms grace.
    let groups = seen.groups.lock().unwrap().clone();
    assert_eq!(groups.len(), CALLS);
    eventually(Duration::from_secs(5), || {
        groups.iter().all(|g| !Subprocess::is_group_alive(*g))
    })
    .await;
    let orphans = groups
        .iter()
        .filter(|g| Subprocess::is_group_alive(**g))
        .count();
    let unreaped = groups.iter().filter(|g| is_our_zombie(**g)).count();
    // The spinning closures read their stop flags and return their threads.
    let pool = BlockingPool::shared();
    eventually(Duration::from_secs(5), || pool.in_use() == 0).await;
    let in_use = pool.in_use();
    // The busy calls returned after all, every one of them after its timeout was journaled.
    eventually(Duration::from_secs(5), || {
        seen.late.load(Ordering::SeqCst) == CALLS
    })
    .await;
    let late = seen.late.load(Ordering::SeqCst);
    report(
        "t9",
        &format!(
            "{calls} calls of each kind, timeout 200 ms, grace {grace} ms: {figures}; late results returned {late}, committed {late_committed}; process groups left alive {orphans} of {groups} (unreaped children {unreaped}); blocking threads in use at the end {in_use} (bound {bound})",
            calls = CALLS,
            grace = TIMEOUT_GRACE.as_millis(),
            figures = figures.join(", "),
            groups = groups.len(),
            bound = pool.limit(),
        ),
    );
    assert_eq!(late_committed, 0);
    assert_eq!(late, CALLS);
    assert_eq!(orphans, 0);
    assert_eq!(unreaped, 0);
    assert_eq!(in_use, 0);
    app.shutdown().await;
}

/// Whether process `pid` is a zombie this process has not reaped.
fn is_our_zombie(pid: i32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let rest = &stat[stat.rfind(')').unwrap() + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next();
    let parent = fields.next().and_then(|p| p.parse::<u32>().ok());
    state == Some("Z") && parent == Some(std::process::id())
}

/// How long to hold a thread.
#[dto]
pub struct Hold {
    /// Milliseconds to hold the thread, whatever the stop flag says.
    pub ms: u64,
}

/// Holds a thread of its own pool, whatever the stop flag says.
#[tool(name = "hold-thread-tool", timeout = millis(200))]
pub struct HoldThread {
    pool: Arc<BlockingPool>,
}

impl ToolHandler for HoldThread {
    type Input = Hold;
    type Output = PlainText;

    async fn run(&self, input: Hold) -> Result<PlainText, ToolError> {
        self.pool
            .run(move |_| std::thread::sleep(Duration::from_millis(input.ms)))
            .await?;
        Ok(PlainText::new("held"))
    }
}

/// Blocking work beyond a pool's bound is refused with a clear error, never queued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_pool_refuses_blocking_work() {
    let pool = Arc::new(BlockingPool::new(2));
    let tool = Arc::new(agboss::testing::test_tool::<HoldThread>().with(pool.clone()));
    let calls: Vec<_> = (0..2)
        .map(|_| {
            let tool = tool.clone();
            tokio::spawn(async move { tool.invoke(r#"{"ms": 400}"#).await })
        })
        .collect();
    assert!(eventually(Duration::from_secs(5), || pool.in_use() == 2).await);
    let refused = tool.invoke(r#"{"ms": 1}"#).await;
    assert_eq!(
        refused.content,
        "Tool error: [tool.blocking-full] the blocking pool is full: 2 of 2 threads are held by work that has not returned (its calls may have stopped waiting); try again later, or give the pool a higher bound"
    );
    for call in calls {
        call.await.unwrap();
    }
    // The threads are given back as the work returns.
    assert!(eventually(Duration::from_secs(5), || pool.in_use() == 0).await);
    assert_eq!(
        tool.invoke(r#"{"ms": 1}"#).await.content,
        r#"{"text":"held"}"#
    );
}
