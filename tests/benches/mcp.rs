//! What an `#[mcp_tool]` costs on top of the MCP round trip it makes, in one run.
//!
//! Both sides call `echo` of the reference server-everything, each on its own server process
//! started the same way (`node <entry> stdio`):
//!
//! - `raw_rmcp`: an rmcp client on the child's pipes, `tools/call` with the arguments as a JSON
//!   object: the floor any Rust MCP client pays.
//! - `mcp_tool`: the tool as an agent calls it, through `Invoker::invoke` with the model's
//!   argument text: input parsed and validated, `run` under its timeout and signal,
//!   `McpClient::call` (cancel-on-drop guard, result mapping to `PlainText`), output validated,
//!   rendered and bounded; the server's stdout passing agboss's line check on the way.
//!
//! Needs the servers `cargo xtask test` installs (`AGBOSS_MCP_SERVERS`); run with
//! `cargo xtask bench`.

#[path = "../mcp_common/mod.rs"]
mod mcp_common;

use std::hint::black_box;
use std::process::Stdio;
use std::time::{Duration, Instant};

use agboss::{Application, Workflow};
use criterion::{Criterion, criterion_group, criterion_main};
use mcp_common::{Echo, env, temp_dir};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;

const ARGUMENTS: &str = r#"{"message": "hi"}"#;

fn mcp(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();

    // The raw side: rmcp on a child's pipes, nothing else.
    let (node, everything) = mcp_servers::everything_stdio();
    let (raw, mut raw_child) = runtime.block_on(async {
        let mut child = tokio::process::Command::new(&node)
            .args(&everything)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let read = child.stdout.take().unwrap();
        let write = child.stdin.take().unwrap();
        (().serve((read, write)).await.unwrap(), child)
    });
    let arguments = serde_json::from_str::<serde_json::Value>(ARGUMENTS)
        .unwrap()
        .as_object()
        .cloned()
        .unwrap();
    let raw_call = || {
        let params = CallToolRequestParams::new("echo").with_arguments(arguments.clone());
        raw.peer().call_tool(params)
    };

    // The agboss side: the application's tool environment, as the agent loop uses it.
    let app = Application::builder("bench")
        .workflow(Workflow::new("bench").tool::<Echo>())
        .env(env(&temp_dir("bench"), &[]))
        .build()
        .unwrap();
    runtime.block_on(app.start_mcp_servers()).unwrap();
    let echo = app.tool::<Echo>();

    // The two sides must agree before they are compared.
    let raw_text = runtime.block_on(raw_call()).unwrap();
    assert_eq!(raw_text.content[0].as_text().unwrap().text, "Echo: hi");
    let outcome = runtime.block_on(echo.invoke(ARGUMENTS));
    assert_eq!(outcome.content, r#"{"text":"Echo: hi"}"#);

    let mut group = c.benchmark_group("mcp");
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("raw_rmcp", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(raw_call().await.unwrap());
                }
                start.elapsed()
            })
        })
    });
    group.bench_function("mcp_tool", |b| {
        b.iter_custom(|iters| {
            runtime.block_on(async {
                let start = Instant::now();
                for _ in 0..iters {
                    black_box(echo.invoke(black_box(ARGUMENTS)).await);
                }
                start.elapsed()
            })
        })
    });
    group.finish();

    runtime.block_on(async {
        let _ = raw.cancel().await;
        let _ = raw_child.kill().await;
        app.shutdown().await;
    });
}

criterion_group!(benches, mcp);
criterion_main!(benches);
