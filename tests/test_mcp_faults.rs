//! Fault plan T19, the cases `test_mcp_lifecycle.rs` and `test_mcp.rs` leave: an MCP server that
//! exits during `initialize`, one that answers a request id the client never sent, and one that
//! never answers. Each call fails with a clear error within its timeout, a failing server is
//! started again with a bounded backoff, and no zombie process is left; the scripted server
//! (`tests/fixtures/mcp/fake_server.py`) shows each fault.

mod mcp_common;
#[path = "faults/report.rs"]
mod reporting;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agboss::mcp::FIRST_BACKOFF;
use agboss::testing::test_tool;
use agboss::time::ManualClock;
use agboss::{Application, Workflow};
use fixtures::calls::invoking;
use mcp_common::*;

/// The children of this process that are zombies (exited, not reaped), once the runtime has
/// had up to 2 s to reap them.
async fn zombies() -> Vec<u32> {
    let me = std::process::id();
    let mut found = Vec::new();
    for _ in 0..100 {
        found = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
            .filter(|pid| {
                let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
                let Some((_, rest)) = stat.rsplit_once(") ") else {
                    return false;
                };
                let mut fields = rest.split(' ');
                let state = fields.next();
                let parent = fields.next().and_then(|p| p.parse::<u32>().ok());
                state == Some("Z") && parent == Some(me)
            })
            .collect();
        if found.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    found
}

/// The scripted server's mode, read from a file at each start.
fn set_mode(file: &Path, mode: &str) {
    std::fs::write(file, mode).unwrap();
}

/// How the cases went.
#[derive(Default)]
struct Tally {
    cases: usize,
    clear: usize,
    zombies: usize,
    notes: Vec<String>,
}

impl Tally {
    fn clear(&mut self, case: &str, ok: bool, text: &str) {
        self.cases += 1;
        self.clear += usize::from(ok);
        assert!(ok, "{case}: {text}");
    }
}

/// A server that exits during `initialize`: the call says so with the exit status and the
/// server's last words; the next call starts it again at once, then the calls are refused at
/// once until the backoff ends; once the server is fixed, the first start after the backoff
/// answers. `Hello` has the default timeout: nothing here waits on it.
async fn exits_during_initialize(tally: &mut Tally) {
    let (env, log) = fake("t19-exit", "normal");
    let mode = log.with_file_name("mode");
    set_mode(&mode, "exit-on-initialize");
    let env = env.with("FAKE_MODE", format!("@{}", mode.display()));
    let tool = test_tool::<Hello>().env(env);
    let first = tool.invoke("{}").await.content;
    let said = first
        .starts_with("Tool error: [mcp.start-failed] server `fake` could not be started (python3 ")
        && first.contains("exit status: 3")
        && first.contains("fake: no licence for this machine, giving up");
    tally.clear("exits during initialize", said, &first);
    let again = tool.invoke("{}").await.content;
    assert!(
        again.contains("[mcp.start-failed]"),
        "started again at once: {again}"
    );
    for _ in 0..10 {
        let refused = tool.invoke("{}").await.content;
        let said = refused.starts_with("Tool error: [mcp.restart-backoff] server `fake` failed 2 times in a row, so it is not started again for 1 s; the last failure: [mcp.start-failed] server `fake` could not be started");
        assert!(said, "{refused}");
    }
    let connection = tool.mcp_server::<Fake>();
    let starts = connection.starts();
    assert_eq!(starts, 2, "12 calls, 2 starts");
    // The server is fixed; the backoff (1 s after the second failure) still runs its course.
    set_mode(&mode, "normal");
    let fixed = tool.clock().elapsed();
    tool.clock().advance(FIRST_BACKOFF);
    let answered = tool.invoke("{}").await.content;
    assert_eq!(answered, r#"{"text":"hello"}"#);
    let recovered = tool.clock().elapsed() - fixed;
    tally.notes.push(format!(
        "exits during initialize: 12 calls in one moment, {starts} starts (bound 2), then 1 start after the {} s backoff; recovered {} ms after the fix",
        FIRST_BACKOFF.as_secs(),
        recovered.as_millis()
    ));
    tool.shutdown().await;
    tally.zombies += zombies().await.len();
}

/// A server that answers a request id the client never sent: the session ends at once, the
/// call failing with what the server wrote; no time passes on the clock.
async fn answers_an_unknown_id(tally: &mut Tally) {
    let (env, _) = fake("t19-unknown-id", "unknown-id");
    let tool = test_tool::<Wait>().env(env);
    let before = tool.clock().elapsed();
    let outcome = tool.invoke("{}").await.content;
    let said = outcome.starts_with(
        "Tool error: [mcp.server-stopped] server `fake` stopped during the call: line ",
    ) && outcome.contains("of its stdout answers request id 10")
        && outcome.contains(
            ", which the client never sent; a server answers only the requests it is sent",
        );
    tally.clear("answers an unknown id", said, &outcome);
    assert_eq!(
        tool.clock().elapsed(),
        before,
        "within the 500 ms timeout: no time passed"
    );
    let again = tool.invoke("{}").await.content;
    assert!(again.contains("which the client never sent"), "{again}");
    let refused = tool.invoke("{}").await.content;
    assert!(refused.contains("[mcp.restart-backoff]"), "{refused}");
    let starts = tool.mcp_server::<Fake>().starts();
    assert_eq!(starts, 2);
    tally.notes.push(format!(
        "answers an unknown id: 3 calls, {starts} starts (bound 2)"
    ));
    tool.shutdown().await;
    tally.zombies += zombies().await.len();
}

/// A server that never answers `initialize`: a call fails at its own timeout, the process
/// started for it is killed; `start_mcp_servers` fails at the start timeout, saying so.
async fn never_answers(tally: &mut Tally) {
    let (env, log) = fake("t19-silent", "silent");
    let tool = Arc::new(test_tool::<Wait>().env(env.clone()));
    let call = invoking(&tool, "{}");
    log_with(&log, "initialize ignored").await;
    tool.clock().wait_for_timers(1).await;
    tool.clock().advance(Duration::from_millis(500));
    let outcome = call.await.unwrap().content;
    tally.clear(
        "never answers a call",
        outcome == "Tool error: timed out after 500 ms",
        &outcome,
    );
    tool.shutdown().await;
    tally.zombies += zombies().await.len();

    let clock = ManualClock::new();
    let app = Application::builder("t19-silent")
        .workflow(Workflow::new("desk").tool::<Hello>())
        .env(env)
        .clock(clock.clone())
        .build()
        .unwrap();
    let app = Arc::new(app);
    let starting = tokio::spawn({
        let app = app.clone();
        async move { app.start_mcp_servers().await }
    });
    clock.wait_for_timers(1).await;
    clock.advance(agboss::mcp::START_TIMEOUT);
    let problems = starting.await.unwrap().unwrap_err().to_string();
    let said = problems.contains("[mcp.start-failed] server `fake` could not be started (python3 ")
        && problems.contains("it did not answer within 60 s");
    tally.clear("never answers initialize", said, &problems);
    assert!(!app.mcp_server::<Fake>().is_running().await);
    app.shutdown().await;
    tally.zombies += zombies().await.len();
    tally.notes.push(format!(
        "never answers: a call ends at its 500 ms timeout, a start at {} s",
        agboss::mcp::START_TIMEOUT.as_secs()
    ));
}

#[tokio::test]
async fn t19_exits_unknown_ids_and_silence_are_clear_errors_with_bounded_restarts() {
    let mut tally = Tally::default();
    exits_during_initialize(&mut tally).await;
    answers_an_unknown_id(&mut tally).await;
    never_answers(&mut tally).await;
    let figures = format!(
        "clear errors {}/{}; zombies {}; {}",
        tally.clear,
        tally.cases,
        tally.zombies,
        tally.notes.join("; ")
    );
    reporting::report("t19", &figures);
    assert_eq!(tally.zombies, 0, "{figures}");
}
