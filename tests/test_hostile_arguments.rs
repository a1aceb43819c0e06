//! Fault test T11: hostile tool arguments, fourteen kinds and a fuzz run, in the call contract
//! and in the agent loop. No kind reaches `run`; the model reads a structured error; each call
//! stays within bounded time and memory. Figures go to `target/faults/t11.txt`.

#[path = "faults/report.rs"]
mod report;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agboss::model::{ScriptedModel, ToolCall, Turn};
use agboss::prelude::*;
use agboss::store::MemoryStore;
use agboss::testing::test_tool;
use agboss::tool::ToolFailure;
use agboss::units::megabytes;
use agboss::{Application, Workflow};
use proptest::prelude::*;

/// Counts the bytes this thread holds, and the most it held since the last [`Peak::start`]:
/// calls here run on the test's own thread (a current-thread runtime), so other tests of the
/// binary do not disturb the figure. The one `unsafe` of the tests: a global allocator cannot
/// be written without it.
struct Counting;

thread_local! {
    static HELD: Cell<usize> = const { Cell::new(0) };
    static MOST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every request goes to `System` unchanged; the counters are plain thread-locals that
// allocate nothing (`const` initialized, no destructor), read with `try_with` so a thread being
// torn down is simply not counted.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = HELD.try_with(|held| {
            let now = held.get() + layout.size();
            held.set(now);
            let _ = MOST.try_with(|most| most.set(most.get().max(now)));
        });
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = HELD.try_with(|held| held.set(held.get().saturating_sub(layout.size())));
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The most this thread held above what it held at `start`.
struct Peak(usize);

impl Peak {
    fn start() -> Peak {
        let held = HELD.with(Cell::get);
        MOST.with(|most| most.set(held));
        Peak(held)
    }

    fn bytes(&self) -> usize {
        MOST.with(Cell::get).saturating_sub(self.0)
    }
}

#[dto]
pub struct CopyReport {
    /// The report to read.
    pub file: String,
    /// Where to send it.
    #[schemars(url)]
    pub url: String,
    /// How many copies.
    pub copies: u32,
    /// More files to attach.
    #[serde(default)]
    pub also: Vec<String>,
}

#[dto]
pub struct Sent {
    pub sent: u32,
}

/// Counts the calls that reached `run`.
#[derive(Default)]
pub struct Runs(AtomicUsize);

#[tool(
    name = "copy-report-tool",
    description = "Sends a report to an upload URL",
    allow_paths(field = "file", within = ["/srv/reports"]),
    allow_paths(field = "also[]", within = ["/srv/reports", "/srv/exports"]),
    allow_urls(field = "url", within = ["https://uploads.example.com/in/"]),
)]
pub struct CopyReportTool {
    runs: Arc<Runs>,
}

impl ToolHandler for CopyReportTool {
    type Input = CopyReport;
    type Output = Sent;

    async fn run(&self, input: CopyReport) -> Result<Sent, ToolError> {
        self.runs.0.fetch_add(1, Ordering::SeqCst);
        Ok(Sent { sent: input.copies })
    }
}

const GOOD: &str =
    r#"{"file": "/srv/reports/q1.csv", "url": "https://uploads.example.com/in/q1", "copies": 1}"#;

/// The fourteen kinds of T11 by their number in the fault plan, some in several forms (the
/// twelfth, an unknown tool name, is the loop's: there is no tool to invoke), each with part of
/// what the model reads after `Tool error: invalid input: `.
fn kinds() -> Vec<(u8, &'static str, String, &'static str)> {
    let deep = "[".repeat(10_000) + &"]".repeat(10_000);
    let huge = "a".repeat(10 * 1024 * 1024);
    vec![
        (
            1,
            "invalid JSON",
            r#"{"file": "/srv/reports/q1.csv", "url": "#.into(),
            "malformed JSON: EOF while parsing",
        ),
        (
            2,
            "trailing garbage",
            format!("{GOOD} and more"),
            "malformed JSON: trailing characters",
        ),
        (
            3,
            "wrong type",
            GOOD.replace("\"copies\": 1", "\"copies\": \"one\""),
            "copies: expected integer, got string",
        ),
        (
            4,
            "missing required",
            r#"{"file": "/srv/reports/q1.csv", "copies": 1}"#.into(),
            "url: is required",
        ),
        (
            5,
            "unknown property",
            GOOD.replace("}", ", \"cc\": \"boss\"}"),
            "cc: is not a field here",
        ),
        (
            6,
            "number overflow 1e400",
            GOOD.replace("\"copies\": 1", "\"copies\": 1e400"),
            "malformed JSON: number out of range",
        ),
        (
            6,
            "number overflow 2^64",
            GOOD.replace("\"copies\": 1", "\"copies\": 18446744073709551616"),
            "copies: ",
        ),
        (
            7,
            "nesting depth 10,000",
            GOOD.replace("\"copies\": 1", &format!("\"copies\": 1, \"also\": {deep}")),
            "malformed JSON: recursion limit exceeded",
        ),
        (
            8,
            "duplicate keys",
            GOOD.replace("{", r#"{"file": "/srv/reports/q2.csv", "#),
            "duplicate field `file`",
        ),
        (
            8,
            "duplicate keys, the second outside",
            GOOD.replace("}", r#", "file": "/etc/passwd"}"#),
            "file: \"/etc/passwd\" is not allowed",
        ),
        (
            9,
            "NUL character",
            GOOD.replace("q1.csv", "q1\\u0000.csv"),
            "file: \"/srv/reports/q1\\u0000.csv\" holds a NUL character",
        ),
        (
            9,
            "control character",
            GOOD.replace("q1.csv", "q1\u{1}.csv"),
            "malformed JSON: control character",
        ),
        (
            10,
            "lone surrogate",
            GOOD.replace("q1.csv", "\\ud800.csv"),
            "malformed JSON: unexpected end of hex escape",
        ),
        (
            11,
            "10 MB string",
            GOOD.replace("q1.csv", &huge),
            "the arguments are 10,485,842 bytes, over the 1,048,576 bytes this tool accepts: send less, or raise the tool's `max_argument_size`",
        ),
        (
            13,
            "empty arguments",
            String::new(),
            "file: is required; url: is required; copies: is required",
        ),
        (
            14,
            "path outside the allowlist",
            GOOD.replace("/srv/reports/q1.csv", "/srv/reports/../../etc/passwd"),
            "file: \"/srv/reports/../../etc/passwd\" is not allowed; this tool accepts only paths under /srv/reports",
        ),
        (
            14,
            "URL outside the allowlist",
            GOOD.replace("uploads.example.com/in", "uploads.example.com.evil.net/in"),
            "url: \"https://uploads.example.com.evil.net/in/q1\" is not allowed; this tool accepts only URLs under https://uploads.example.com/in/",
        ),
        (
            14,
            "URL with a user",
            GOOD.replace(
                "https://uploads",
                "https://uploads.example.com@evil.net/x?https://uploads",
            ),
            "url: \"https://uploads.example.com@evil.net/x?https://uploads.e... names a user or a password",
        ),
        (
            14,
            "a listed path outside",
            GOOD.replace("}", r#", "also": ["/srv/exports/a", "/tmp/b"]}"#),
            "also[1]: \"/tmp/b\" is not allowed; this tool accepts only paths under /srv/reports, /srv/exports",
        ),
    ]
}

#[tokio::test]
async fn hostile_arguments_never_reach_run_and_stay_bounded() {
    let runs = Arc::new(Runs::default());
    let tool = test_tool::<CopyReportTool>().with(runs.clone());
    // Warm the pools and the compiled schema, so the figures are a call's own.
    assert_eq!(tool.invoke(GOOD).await.content, r#"{"sent":1}"#);
    let before = runs.0.load(Ordering::SeqCst);
    let (mut slowest, mut most) = (Duration::ZERO, 0);
    let kinds = kinds();
    let mut rejected = std::collections::BTreeSet::new();
    for (number, kind, arguments, expected) in &kinds {
        let peak = Peak::start();
        let started = Instant::now();
        let outcome = tool.invoke(arguments).await;
        slowest = slowest.max(started.elapsed());
        most = most.max(peak.bytes());
        assert!(
            matches!(outcome.failure, Some(ToolFailure::InvalidInput(_))),
            "{kind}: {:?}",
            outcome.failure
        );
        let text = outcome
            .content
            .strip_prefix("Tool error: invalid input: ")
            .unwrap_or_else(|| panic!("{kind}: {}", outcome.content));
        assert!(text.contains(expected), "{kind}: {text}");
        rejected.insert(*number);
        assert!(
            text.len() < 600,
            "{kind}: the error quotes too much: {} bytes",
            text.len()
        );
    }
    assert_eq!(runs.0.load(Ordering::SeqCst), before, "no hostile call ran");
    assert_eq!(
        rejected.len(),
        13,
        "every kind of the contract is among the cases"
    );
    // The bound holds: a 10 MB text costs the call a few kilobytes, not a copy.
    assert!(
        most < 256 * 1024,
        "a call held {most} bytes above its arguments"
    );
    assert!(slowest < Duration::from_secs(1), "{slowest:?}");
    report::report(
        "t11",
        &format!(
            "kinds rejected in the call contract {}/13 ({} forms; the 12th kind, an unknown tool name, in the loop: see `in_the_loop_...`); panics 0; max time a call {slowest:.1?}; max memory a call held above its arguments {most} bytes",
            rejected.len(),
            kinds.len(),
        ),
    );
}

#[tool(
    name = "long-notes-tool",
    description = "Keeps long notes",
    max_argument_size = megabytes(16)
)]
pub struct LongNotes;

#[dto]
pub struct Note {
    pub text: String,
}

impl ToolHandler for LongNotes {
    type Input = Note;
    type Output = Sent;

    async fn run(&self, input: Note) -> Result<Sent, ToolError> {
        Ok(Sent {
            sent: input.text.len() as u32,
        })
    }
}

#[tokio::test]
async fn a_raised_limit_lets_long_arguments_through() {
    let text = "n".repeat(10 * 1024 * 1024);
    let outcome = test_tool::<LongNotes>()
        .invoke(&format!(r#"{{"text": "{text}"}}"#))
        .await;
    assert_eq!(outcome.content, r#"{"sent":10485760}"#);
    let outcome = test_tool::<LongNotes>()
        .invoke(&format!(r#"{{"text": "{text}{text}"}}"#))
        .await;
    assert_eq!(
        outcome.content,
        "Tool error: invalid input: the arguments are 20,971,532 bytes, over the 16,777,216 bytes this tool accepts: send less, or raise the tool's `max_argument_size`"
    );
}

#[agent(
    name = "copier",
    description = "Copies reports",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [CopyReportTool],
    max_tool_calls = 40,
)]
pub struct Copier;

#[tokio::test]
async fn in_the_loop_every_kind_is_an_error_the_model_reads_and_nothing_runs() {
    agboss::model::forbid_real_requests(true);
    let mut calls: Vec<ToolCall> = kinds()
        .into_iter()
        .enumerate()
        .map(|(i, (_, _, arguments, _))| ToolCall {
            provider_id: Some(format!("c{i}")),
            name: "copy-report-tool".into(),
            arguments,
        })
        .collect();
    calls.push(ToolCall {
        provider_id: Some("unknown".into()),
        name: "copy-reports-tool".into(),
        arguments: GOOD.into(),
    });
    let count = calls.len();
    let model = ScriptedModel::new([
        Turn::tool_calls(calls),
        Turn::text("I could not send it.").expect("every call failed", move |request| {
            let errors = request
                .messages
                .iter()
                .filter(|m| matches!(m, agboss::model::Message::Tool { is_error: true, .. }))
                .count();
            if errors == count {
                Ok(())
            } else {
                Err(format!("{errors} of {count} calls were errors"))
            }
        }),
    ]);
    let runs = Arc::new(Runs::default());
    let app = Application::builder("hostile")
        .store(Arc::new(MemoryStore::new()))
        .workflow(Workflow::new("desk").agent::<Copier>())
        .provide(runs.clone())
        .chat_model(Arc::new(model))
        .build()
        .unwrap();
    let contents = Arc::new(Mutex::new(Vec::new()));
    let hook = contents.clone();
    let outcome = app
        .run("desk", "send the report")
        .on_tool_end(move |end| hook.lock().unwrap().push(end.content.to_owned()))
        .await
        .unwrap();
    assert_eq!(outcome.text(), Some("I could not send it."));
    assert_eq!(runs.0.load(Ordering::SeqCst), 0);
    let contents = contents.lock().unwrap();
    assert_eq!(contents.len(), count);
    assert!(
        contents.iter().any(|c| c
            == "Tool error: there is no tool named `copy-reports-tool`; the tools are copy-report-tool"),
        "{contents:?}"
    );
    for content in contents.iter() {
        assert!(content.starts_with("Tool error: "), "{content}");
        assert!(content.len() < 600, "{} bytes", content.len());
    }
    report::report(
        "t11-loop",
        &format!(
            "calls refused {count}/{count} in one turn (every form, and an unknown tool name); runs 0; every refusal a tool error the model read"
        ),
    );
}

/// Arguments as a model might garble them: any text, any JSON, and a good call cut or changed
/// at one place.
fn garbled() -> impl Strategy<Value = String> {
    let json = any::<u32>().prop_map(|n| n.to_string()).boxed();
    let leaf = prop_oneof![
        Just("null".to_owned()),
        any::<bool>().prop_map(|b| b.to_string()),
        any::<f64>().prop_map(|f| serde_json::to_string(&f).unwrap_or_default()),
        ".{0,40}".prop_map(|s| serde_json::to_string(&s).unwrap()),
        json,
    ];
    let value = leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just("file".to_owned()),
                        Just("url".to_owned()),
                        Just("copies".to_owned()),
                        Just("also".to_owned()),
                        "[a-z]{1,6}".prop_map(String::from)
                    ],
                    inner
                ),
                0..6
            )
            .prop_map(|members| format!(
                "{{{}}}",
                members
                    .iter()
                    .map(|(k, v)| format!("{}:{v}", serde_json::to_string(k).unwrap()))
                    .collect::<Vec<_>>()
                    .join(",")
            )),
        ]
    });
    let changed = (0..GOOD.len(), any::<u8>(), any::<bool>()).prop_map(|(at, byte, cut)| {
        let mut bytes = GOOD.as_bytes().to_vec();
        if cut {
            bytes.truncate(at);
        } else {
            bytes[at] = byte;
        }
        String::from_utf8_lossy(&bytes).into_owned()
    });
    prop_oneof![".{0,80}".prop_map(String::from), value, changed]
}

/// How many garbled calls the fuzz run makes.
const FUZZ_CASES: u32 = 3_000;

#[test]
fn fuzzed_arguments_never_panic_and_run_only_when_valid() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let runs = Arc::new(Runs::default());
    let tool = test_tool::<CopyReportTool>().with(runs.clone());
    let executions = AtomicUsize::new(0);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: FUZZ_CASES,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let result = runner.run(&garbled(), |arguments| {
        executions.fetch_add(1, Ordering::Relaxed);
        let before = runs.0.load(Ordering::SeqCst);
        let outcome = runtime.block_on(tool.invoke(&arguments));
        let ran = runs.0.load(Ordering::SeqCst) - before;
        match &outcome.failure {
            None => prop_assert_eq!(ran, 1),
            Some(ToolFailure::InvalidInput(_)) => {
                prop_assert_eq!(ran, 0);
                prop_assert!(outcome.content.starts_with("Tool error: invalid input: "));
            }
            Some(other) => prop_assert!(false, "{arguments:?}: {other:?}"),
        }
        Ok(())
    });
    let executions = executions.load(Ordering::Relaxed);
    assert!(result.is_ok(), "{result:?}");
    report::report(
        "t11-fuzz",
        &format!(
            "fuzz executions {executions}; crashes 0; calls that ran {}",
            runs.0.load(Ordering::SeqCst)
        ),
    );
}

#[tool(
    name = "misnamed-allowlist-tool",
    description = "Names a field its input does not have",
    allow_paths(field = "path", within = ["/srv"]),
    allow_urls(field = "copies", within = ["https://example.com/"]),
)]
pub struct MisnamedAllowlist;

impl ToolHandler for MisnamedAllowlist {
    type Input = CopyReport;
    type Output = Sent;

    async fn run(&self, input: CopyReport) -> Result<Sent, ToolError> {
        Ok(Sent { sent: input.copies })
    }
}

#[agent(
    name = "misnamed",
    description = "Has a tool whose allowlist fits no field",
    prompt = "prompts/helper.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [MisnamedAllowlist],
)]
pub struct Misnamed;

#[test]
fn an_allowlist_naming_no_text_field_fails_assembly() {
    let error = Application::builder("hostile")
        .workflow(Workflow::new("desk").agent::<Misnamed>())
        .chat_model(Arc::new(ScriptedModel::new([])))
        .build();
    let Err(error) = error else {
        panic!("the application was built")
    };
    let text = error.to_string();
    assert!(
        text.contains("[tool.schema-invalid] tool `misnamed-allowlist-tool`: the input schema has an allowlist that does not fit: `allow_paths`: the input has no field `path` (its fields are file, url, copies, also)"),
        "{text}"
    );
}
