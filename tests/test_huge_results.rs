//! Fault plan T12, a 1 GiB tool result: a tool that streams 1 GiB of generated text (once as
//! lines, once as one line without a newline), in process through a `TextStream` channel, from a
//! child process's stdout (`Subprocess::stdout_stream`), and as one answer of a stdio MCP server
//! (`tests/fixtures/mcp/flood_server.py`, its id before and after the text). What the model
//! reads is at most the bound and the marker (`at least <read> bytes`: the full size was never
//! made); reading stops a few bytes past the bound (at `MESSAGE_CAP` for an MCP message); the
//! producer is stopped (the in-process one learns it, the child's process group and the MCP
//! server are gone, and the server answers again once started anew); the journal holds the
//! bounded form; and the process's peak memory stays near what it was before the call, far below
//! the gigabyte.
//!
//! Each case measures its peak memory in a process of its own: the test re-runs this binary
//! for the one case (`T12_CASE` set), which reports `VmHWM` from /proc before and after.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use agboss::Env;
use agboss::mcp::MESSAGE_CAP;
use agboss::model::ScriptedModel;
use agboss::model::Turn;
use agboss::prelude::*;
use agboss::store::{Journal, MemoryStore};
use agboss::tool::Subprocess;
use agboss::units::kilobytes;
use agboss::{Application, Workflow};
use fixtures::text::grouped;
use serde_json::json;

#[path = "faults/report.rs"]
mod reporting;

/// What the producers make: 1 GiB.
const GIB: u64 = 1 << 30;
/// The bound of the tools: 256 KB.
const BOUND: u64 = 256 * 1024;
/// The chunk the in-process producer sends.
const CHUNK: usize = 64 * 1024;

/// Bytes the in-process producer has handed over, and whether it has ended.
static SENT: AtomicU64 = AtomicU64::new(0);
static PRODUCER_ENDED: AtomicBool = AtomicBool::new(false);
/// The child process group of the last child-process call.
static GROUP: AtomicI32 = AtomicI32::new(0);

#[dto]
pub struct Shape {
    /// `lines` or `one-line`.
    pub shape: String,
}

fn chunk_of(shape: &str) -> Vec<u8> {
    match shape {
        "lines" => {
            b"2026-12-02T15:00:00Z worker-7 INFO heartbeat ok, queue depth 12\n".repeat(CHUNK / 64)
        }
        _ => vec![b'x'; CHUNK],
    }
}

/// Streams 1 GiB of logs from a task of its own, until the reader stops it.
#[tool(
    name = "firehose-tool",
    description = "Streams the whole log",
    read_only,
    max_result_size = kilobytes(256)
)]
pub struct Firehose;

impl ToolHandler for Firehose {
    type Input = Shape;
    type Output = TextStream;

    async fn run(&self, input: Shape) -> Result<TextStream, ToolError> {
        let (sender, stream) = TextStream::channel(4);
        let chunk = chunk_of(&input.shape);
        tokio::spawn(async move {
            let mut sent = 0;
            while sent < GIB && sender.send(chunk.clone()).await.is_ok() {
                sent += chunk.len() as u64;
                SENT.store(sent, Ordering::SeqCst);
            }
            PRODUCER_ENDED.store(true, Ordering::SeqCst);
        });
        Ok(stream)
    }
}

/// Streams 1 GiB a child process prints.
#[tool(
    name = "child-firehose-tool",
    description = "Prints the whole log through a child process",
    read_only,
    max_result_size = kilobytes(256)
)]
pub struct ChildFirehose {
    clock: Clock,
}

impl ToolHandler for ChildFirehose {
    type Input = Shape;
    type Output = TextStream;

    async fn run(&self, input: Shape) -> Result<TextStream, ToolError> {
        let line = match input.shape.as_str() {
            "lines" => {
                "b'2026-12-02T15:00:00Z worker-7 INFO heartbeat ok, queue depth 12\\n' * 1024"
            }
            _ => "b'x' * 65536",
        };
        let program = format!(
            "import sys\nchunk = {line}\nleft = {GIB}\nwhile left > 0:\n    sys.stdout.buffer.write(chunk)\n    left -= len(chunk)\n"
        );
        let mut command = tokio::process::Command::new("python3");
        command
            .args(["-c", &program])
            .stdout(std::process::Stdio::piped());
        let child = Subprocess::spawn(command, &self.clock)?;
        GROUP.store(child.group(), Ordering::SeqCst);
        Ok(child.stdout_stream()?)
    }
}

/// A stdio server that answers `flood` with 1 GiB of text in one message.
#[mcp_server(
    name = "flood",
    command = "python3",
    args = ["${FLOOD_PY}", "${FLOOD_ORDER}", "${FLOOD_SHAPE}", "${FLOOD_LOG}"],
    tools = ["flood", "hello"],
    env = ["FLOOD_PY", "FLOOD_ORDER", "FLOOD_SHAPE", "FLOOD_LOG"],
)]
pub struct FloodServer;

#[dto]
pub struct Nothing {}

/// The server's `flood`.
#[mcp_tool(
    name = "mcp-firehose-tool",
    description = "Reads the whole log over MCP",
    server = FloodServer,
    calls = "flood",
    input = Nothing,
    output = PlainText,
    read_only = true,
    max_result_size = kilobytes(256)
)]
pub struct McpFirehose;

/// The server's `hello`: it answers once the server is started again.
#[mcp_tool(name = "mcp-hello-tool", description = "Says hello", server = FloodServer, calls = "hello", input = Nothing, output = PlainText, read_only = true)]
pub struct McpHello;

/// The same over streamable HTTP: a 1 GiB body.
#[mcp_server(name = "flood-http", url = "${FLOOD_URL}", tools = ["flood", "hello"], env = ["FLOOD_URL"])]
pub struct FloodHttpServer;

/// The HTTP server's `flood`.
#[mcp_tool(
    name = "mcp-http-firehose-tool",
    description = "Reads the whole log over MCP's HTTP",
    server = FloodHttpServer,
    calls = "flood",
    input = Nothing,
    output = PlainText,
    read_only = true,
    max_result_size = kilobytes(256)
)]
pub struct McpHttpFirehose;

/// The HTTP server's `hello`.
#[mcp_tool(name = "mcp-http-hello-tool", description = "Says hello over HTTP", server = FloodHttpServer, calls = "hello", input = Nothing, output = PlainText, read_only = true)]
pub struct McpHttpHello;

#[agent(
    name = "reader",
    description = "Reads logs",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [Firehose, ChildFirehose, McpFirehose, McpHello, McpHttpFirehose, McpHttpHello],
)]
pub struct Reader;

/// The process's peak resident memory so far, in bytes (`VmHWM`).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

/// What one case measured.
struct Measured {
    peak_before: u64,
    peak_after: u64,
    bytes_read: u64,
    cut_after: Duration,
    producer_stopped: bool,
}

/// Checks the cut result `finished` (content, is_error, truncated): the bound kept, then the
/// marker saying how much was read (within `read`); over MCP (`text_shape` given) the output's
/// JSON from the text's start. Returns the bytes read.
fn check_cut(
    finished: &(String, bool, bool),
    read: std::ops::RangeInclusive<u64>,
    text_shape: Option<&str>,
) -> u64 {
    let (content, is_error, truncated) = finished;
    assert!(
        !is_error && *truncated,
        "{}",
        &content[content.len().saturating_sub(200)..]
    );
    let marker_at = content.rfind("\n[result truncated: at least ").unwrap();
    assert!(marker_at as u64 <= BOUND, "kept {marker_at} bytes");
    assert!(
        marker_at as u64 > BOUND - 300,
        "kept only {marker_at} bytes"
    );
    let marker = &content[marker_at..];
    let bytes_read: u64 = marker["\n[result truncated: at least ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap();
    assert!(read.contains(&bytes_read), "{marker}");
    if let Some(text_shape) = text_shape {
        // What the model reads of an MCP answer is its output's JSON: the text, from its start.
        let start = match text_shape {
            "lines" => r#"{"text":"2026-12-02T15:00:00Z worker-7 INFO heartbeat ok"#,
            _ => r#"{"text":"xxxxxxxx"#,
        };
        assert!(content.starts_with(start), "{}", &content[..200]);
    }
    assert_eq!(
        marker,
        format!(
            "\n[result truncated: at least {} bytes, the first {} kept]",
            grouped(bytes_read),
            grouped(marker_at as u64)
        )
    );
    bytes_read
}

/// The reader's run of "read the log" in the application `name` over `env` and `model`, which
/// must answer "read": the application, and the tool results its journal holds, the peak RSS
/// before the run and how long the run took.
async fn read_the_log(
    name: &str,
    env: Env,
    model: &ScriptedModel,
) -> (Application, (Vec<(String, bool, bool)>, u64, Duration)) {
    let store = Arc::new(MemoryStore::new());
    let app = Application::builder(name)
        .workflow(Workflow::new("logs").agent::<Reader>())
        .store(store.clone())
        .env(env)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    let peak_before = peak_rss();
    let started = Instant::now();
    let outcome = app.run("logs", "read the log").await.unwrap();
    let cut_after = started.elapsed();
    assert_eq!(outcome.text(), Some("read"));
    let finished = results(&store, outcome.execution_id()).await;
    (app, (finished, peak_before, cut_after))
}

/// Runs `tool` with `shape` in a run of its own and checks what the model, the journal and the
/// producer show.
async fn one_case(tool: &str, shape: &str) -> Measured {
    agboss::model::forbid_real_requests(true);
    let over_mcp = tool == "mcp-firehose-tool";
    let arguments = match over_mcp {
        true => json!({}),
        false => json!({ "shape": shape }),
    };
    let mut turns = vec![Turn::call(tool, arguments), Turn::text("read")];
    if over_mcp {
        // The server, stopped in the middle of its answer, answers again once started anew.
        turns.insert(1, Turn::call("mcp-hello-tool", json!({})));
    }
    let model = ScriptedModel::new(turns);
    let log = std::env::temp_dir().join(format!("agboss-t12-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let (order, text_shape) = shape.split_once('/').unwrap_or(("id-first", shape));
    let fixture = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/mcp/flood_server.py");
    let env = Env::from_pairs([
        ("FLOOD_PY".to_owned(), fixture.to_owned()),
        ("FLOOD_ORDER".to_owned(), order.to_owned()),
        ("FLOOD_SHAPE".to_owned(), text_shape.to_owned()),
        ("FLOOD_LOG".to_owned(), log.display().to_string()),
    ]);
    let (app, read_the_log) = read_the_log("t12", env, &model).await;
    let (finished, peak_before, cut_after) = read_the_log;
    assert_eq!(finished.len(), 1 + usize::from(over_mcp), "{finished:?}");
    if over_mcp {
        assert_eq!(
            finished[1],
            (r#"{"text":"hello"}"#.to_owned(), false, false)
        );
    }
    let expected_read = match over_mcp {
        true => MESSAGE_CAP as u64..=MESSAGE_CAP as u64,
        false => BOUND + 4..=BOUND + 4,
    };
    let bytes_read = check_cut(&finished[0], expected_read, over_mcp.then_some(text_shape));
    // The model read the same text the journal holds.
    let requests = model.requests();
    let read = format!("{:?}", requests[1].messages.last().unwrap());
    let said = format!("at least {} bytes", grouped(bytes_read));
    assert!(read.contains(&said), "{}", &read[read.len() - 200..]);

    // The producer stops: the task learns it, the child's group and the server are gone.
    let server = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("pid "))
        .and_then(|pid| pid.parse::<i32>().ok());
    let producer_stopped = wait_for(Duration::from_secs(10), || match tool {
        "firehose-tool" => PRODUCER_ENDED.load(Ordering::SeqCst),
        "child-firehose-tool" => !Subprocess::is_group_alive(GROUP.load(Ordering::SeqCst)),
        _ => server.is_some_and(|pid| !Subprocess::is_group_alive(pid)),
    })
    .await;
    if over_mcp {
        let logged = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            !logged.contains("flooded"),
            "the server finished its answer: {logged}"
        );
        assert_eq!(
            logged.matches("pid ").count(),
            2,
            "started again once: {logged}"
        );
    }
    if tool == "firehose-tool" {
        let sent = SENT.load(Ordering::SeqCst);
        // What was read, what waits in the channel (4 chunks) and the one being sent.
        assert!(
            sent <= BOUND + 6 * CHUNK as u64,
            "the producer sent {sent} bytes"
        );
    }
    let peak_after = peak_rss();
    app.shutdown().await;
    Measured {
        peak_before,
        peak_after,
        bytes_read,
        cut_after,
        producer_stopped,
    }
}

/// The HTTP server's 1 GiB body (`shape` is `[sse/]lines` or `[sse/]one-line`: a JSON body, or
/// one event of an SSE body after a small one): the client reads it up to `MESSAGE_CAP` and the
/// call gets the text so far, as over stdio; the server's writing stops when the connection
/// closes, and its `hello` answers after on the same session.
async fn http_case(shape: &str) -> Measured {
    agboss::model::forbid_real_requests(true);
    let log = std::env::temp_dir().join(format!("agboss-t12-http-{}.log", std::process::id()));
    let _ = std::fs::remove_file(&log);
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/mcp/flood_http_server.py"
    );
    let mut server = tokio::process::Command::new("python3")
        .args([fixture, shape, &log.display().to_string()])
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut first = String::new();
    let stdout = server.stdout.take().unwrap();
    tokio::io::AsyncBufReadExt::read_line(&mut tokio::io::BufReader::new(stdout), &mut first)
        .await
        .unwrap();
    let port = first.trim().strip_prefix("port ").unwrap().to_owned();
    let model = ScriptedModel::new([
        Turn::call("mcp-http-firehose-tool", json!({})),
        Turn::call("mcp-http-hello-tool", json!({})),
        Turn::text("read"),
    ]);
    let env = Env::from_pairs([(
        "FLOOD_URL".to_owned(),
        format!("http://127.0.0.1:{port}/mcp"),
    )]);
    let (app, read_the_log) = read_the_log("t12-http", env, &model).await;
    let (finished, peak_before, cut_after) = read_the_log;
    assert_eq!(finished.len(), 2, "{finished:?}");
    let (body, text_shape) = shape.split_once('/').unwrap_or(("json", shape));
    // A JSON body is read to the cap; an event's data to the cap less its field names.
    let read = match body {
        "sse" => MESSAGE_CAP as u64 - 64..=MESSAGE_CAP as u64,
        _ => MESSAGE_CAP as u64..=MESSAGE_CAP as u64,
    };
    let bytes_read = check_cut(&finished[0], read, Some(text_shape));
    let requests = model.requests();
    let said = format!("at least {} bytes", grouped(bytes_read));
    assert!(format!("{:?}", requests[1].messages.last().unwrap()).contains(&said));
    assert_eq!(
        finished[1],
        (r#"{"text":"hello"}"#.to_owned(), false, false)
    );
    let stopped_after = wait_for(Duration::from_secs(10), || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("stopped after")
    })
    .await;
    let logged = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        !logged.contains("flooded"),
        "the server finished its answer: {logged}"
    );
    let written: u64 = logged
        .lines()
        .find_map(|l| l.strip_prefix("stopped after "))
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX);
    assert!(written < 64 << 20, "the server wrote {written} bytes");
    assert_eq!(
        logged.lines().filter(|line| *line == "session").count(),
        1,
        "one session throughout: {logged}"
    );
    let peak_after = peak_rss();
    app.shutdown().await;
    let _ = server.kill().await;
    Measured {
        peak_before,
        peak_after,
        bytes_read: written,
        cut_after,
        producer_stopped: stopped_after,
    }
}

/// Each tool result the journal of execution `id` holds: (content, is_error, truncated).
async fn results(store: &MemoryStore, id: &str) -> Vec<(String, bool, bool)> {
    let events = store.events(id).await.unwrap();
    let results = fixtures::journal::tool_results(&events).into_iter();
    results
        .map(|r| (r.content, r.is_error, r.truncated))
        .collect()
}

async fn wait_for(limit: Duration, done: impl Fn() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    done()
}

/// Runs case `name` in a process of its own and reports what it measured.
fn in_own_process(name: &str, tool: &str, shape: &str) {
    if std::env::var("T12_CASE").as_deref() == Ok(name) {
        let measured = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
            .block_on(async {
                match tool {
                    "mcp-http-firehose-tool" => http_case(shape).await,
                    _ => one_case(tool, shape).await,
                }
            });
        println!(
            "T12-MEASURED {} {} {} {} {}",
            measured.peak_before,
            measured.peak_after,
            measured.bytes_read,
            measured.cut_after.as_micros(),
            measured.producer_stopped
        );
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads", "1"])
        .env("T12_CASE", name)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let figures: Vec<&str> = stdout
        .lines()
        .find_map(|l| l.split_once("T12-MEASURED ").map(|(_, figures)| figures))
        .unwrap_or_else(|| panic!("no figures in {stdout}"))
        .split(' ')
        .collect();
    let mib = |s: &str| s.parse::<u64>().unwrap() as f64 / (1024.0 * 1024.0);
    let (before, after) = (mib(figures[0]), mib(figures[1]));
    let stopped = figures[4] == "true";
    assert!(stopped, "the producer was not stopped");
    // The result's share: the bound, what waits in the pipe or the channel, a copy or two of
    // the kept text (the model's request, the journal); over MCP, the few copies of the 4 MiB
    // read of the message that the SDK's parsing and the output's rendering make before the
    // bound. Far from the gigabyte either way.
    let limit = match name.starts_with("mcp") {
        true => 64.0,
        false => 16.0,
    };
    assert!(
        after - before < limit,
        "peak {before:.1} MiB -> {after:.1} MiB"
    );
    reporting::report(
        &format!("t12_{name}"),
        &format!(
            "1 GiB offered; peak RSS {after:.1} MiB (before the run {before:.1} MiB, +{:.1} MiB); {} {}; time to cut {:.1} ms; producer stopped {}",
            after - before,
            match name.contains("http") {
                true => "bytes the server wrote before its connection closed",
                false => "bytes read before the cut",
            },
            figures[2],
            figures[3].parse::<f64>().unwrap() / 1000.0,
            if stopped { "yes" } else { "no" },
        ),
    );
}

/// Each case a test of its own, run in a process of its own: `test => tool, shape;`.
macro_rules! cases {
    ($($test:ident => $tool:literal, $shape:literal;)*) => {$(
        #[test]
        fn $test() {
            in_own_process(stringify!($test), $tool, $shape);
        }
    )*};
}

cases! {
    in_process_lines => "firehose-tool", "lines";
    in_process_one_line => "firehose-tool", "one-line";
    child_process_lines => "child-firehose-tool", "lines";
    child_process_one_line => "child-firehose-tool", "one-line";
    mcp_http_lines => "mcp-http-firehose-tool", "lines";
    mcp_http_one_line => "mcp-http-firehose-tool", "one-line";
    mcp_http_sse_lines => "mcp-http-firehose-tool", "sse/lines";
    mcp_http_sse_one_line => "mcp-http-firehose-tool", "sse/one-line";
    mcp_stdio_lines => "mcp-firehose-tool", "id-first/lines";
    mcp_stdio_one_line_id_last => "mcp-firehose-tool", "id-last/one-line";
}
