//! docs/getting-started.md, followed line by line.
//!
//! Every fenced block of the page is a step, in order: a `sh` block's lines are run one by one
//! (`cd` moves the steps that follow), a block with `file=<path>` is written to that path, the
//! `sh server` block (starting a model server) is played by the strict replay server, and the
//! `text output` block is what the program must print. The one change the test makes: the
//! replay server listens on a port of its own, so `127.0.0.1:8080` becomes its address wherever
//! the page writes it. The project goes to the system's temporary directory (outside any
//! workspace) and builds offline into `target/new-project/`, shared with the `agboss new` test.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use wire_server::{Canned, Flavour, WireServer};

/// One step of the page.
#[derive(Debug, PartialEq)]
enum Step {
    /// A shell command line.
    Run(String),
    /// A file and its text.
    Write(String, String),
    /// The model server is started.
    Server,
    /// What the program prints.
    Output(String),
}

/// The page's steps, in order; a fenced block the test does not know fails the test, so that
/// nothing on the page goes unfollowed.
fn steps(page: &str) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut lines = page.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut body = String::new();
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            body.push_str(line);
            body.push('\n');
        }
        let words: Vec<&str> = info.split_whitespace().collect();
        let file = words.iter().find_map(|w| w.strip_prefix("file="));
        match (words.as_slice(), file) {
            (_, Some(path)) => steps.push(Step::Write(path.to_owned(), body)),
            (["sh", "server"], None) => steps.push(Step::Server),
            (["sh"], None) => steps.extend(
                body.lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty() && !l.starts_with('#'))
                    .map(|l| Step::Run(l.to_owned())),
            ),
            (["text", "output"], None) => steps.push(Step::Output(body)),
            _ => panic!("a block of docs/getting-started.md the test does not follow: ```{info}"),
        }
    }
    steps
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

/// A chat completion whose message is `message`, as llama-cpp-python answers.
fn completion(message: serde_json::Value, finish: &str) -> Canned {
    let body = json!({
        "id": "chatcmpl-hello",
        "object": "chat.completion",
        "created": 1767225601,
        "model": "qwen2.5-1.5b-instruct-q4_k_m.gguf",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 180, "completion_tokens": 20, "total_tokens": 200},
    });
    Canned::json(200, body.to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_getting_started_page_works_as_written() {
    let page = std::fs::read_to_string(workspace().join("docs/getting-started.md")).unwrap();
    // The model: a forced call of the tool on the first turn, then the answer.
    let server = WireServer::start_as(
        Flavour::LlamaCppPython,
        [
            completion(
                json!({"role": "assistant", "content": null, "tool_calls": [{
                    "id": "call_strawberry", "type": "function",
                    "function": {"name": "count-letters-tool", "arguments": "{\"word\": \"strawberry\", \"letter\": \"r\"}"},
                }]}),
                "tool_calls",
            ),
            completion(
                json!({"role": "assistant", "content": "The letter r occurs 3 times in \"strawberry\"."}),
                "stop",
            ),
        ],
    )
    .await;
    let address = server.base_url().trim_start_matches("http://").to_owned();
    let page = page.replace("127.0.0.1:8080", &address);
    let steps = steps(&page);
    assert!(
        steps.iter().any(|s| matches!(s, Step::Server)),
        "the page starts a model server"
    );

    let work = std::env::temp_dir().join(format!("agboss-getting-started-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| workspace().join("target"), PathBuf::from)
        .join("new-project")
        .join("target");
    let outputs = tokio::task::spawn_blocking({
        let work = work.clone();
        move || follow(&steps, &work, &target)
    })
    .await
    .unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    for request in &requests {
        assert_eq!(request.problems, Vec::<String>::new());
    }
    assert_eq!(requests[0].body["tool_choice"], "required");
    assert_eq!(requests[1].body["tool_choice"], "auto");
    assert_eq!(requests[0].body["model"], "qwen2.5");
    for (expected, printed) in outputs {
        for line in expected.lines() {
            assert!(
                printed.lines().any(|l| l == line),
                "the page says the program prints\n{line}\nbut it printed:\n{printed}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&work);
}

/// Follows `steps` in `dir`, building into `target`; each expected output with what the command
/// before it printed.
fn follow(steps: &[Step], dir: &Path, target: &Path) -> Vec<(String, String)> {
    let mut cwd = dir.to_path_buf();
    let mut printed = String::new();
    let mut outputs = Vec::new();
    for step in steps {
        match step {
            Step::Run(line) => {
                if let Some(to) = line.strip_prefix("cd ") {
                    cwd = cwd.join(to.trim());
                    continue;
                }
                let output = shell(line, &cwd, target).output().unwrap();
                let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
                let stderr = String::from_utf8_lossy(&output.stderr);
                assert!(
                    output.status.success(),
                    "`{line}` failed in {}:\n{stdout}{stderr}",
                    cwd.display()
                );
                printed = stdout;
            }
            Step::Write(path, text) => {
                let path = cwd.join(path);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, text).unwrap();
            }
            // The replay server is already listening.
            Step::Server => {}
            Step::Output(expected) => outputs.push((expected.clone(), printed.clone())),
        }
    }
    assert!(
        !outputs.is_empty(),
        "the page shows what the program prints"
    );
    outputs
}

/// `line` in `sh`, in `cwd`, as a user's shell runs it: `AGBOSS_DIR` is this checkout, cargo
/// works offline, builds go to `target`, and nothing cargo set for this test leaks in.
fn shell(line: &str, cwd: &Path, target: &Path) -> Command {
    let mut command = Command::new("sh");
    command.args(["-c", line]).current_dir(cwd);
    for (key, _) in std::env::vars_os() {
        let key = key.to_string_lossy();
        if key.starts_with("CARGO_") || key == "RUSTFLAGS" || key == "RUST_LOG" {
            command.env_remove(key.as_ref());
        }
    }
    if let Ok(cargo) = std::env::var("CARGO") {
        command.env("CARGO", cargo);
    }
    command
        .env("AGBOSS_DIR", workspace())
        .env("CARGO_NET_OFFLINE", "true")
        // The page's commands build as a user's would, but without debug info: with it the
        // project's build takes some 5 GB of the test machine's disk.
        .env("CARGO_PROFILE_DEV_DEBUG", "false")
        .env("CARGO_TARGET_DIR", target);
    command
}

#[test]
fn every_block_of_the_page_is_a_step() {
    let page = std::fs::read_to_string(workspace().join("docs/getting-started.md")).unwrap();
    let steps = steps(&page);
    let runs: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Run(line) => Some(line.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(runs.first(), Some(&"cargo new hello-agent"));
    assert!(
        runs.last().is_some_and(|l| l.starts_with("cargo run")),
        "{runs:?}"
    );
    let files: Vec<&str> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Write(path, _) => Some(path.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        files,
        ["src/main.rs", "src/speller.prompt.md", "hello.toml"]
    );
}
