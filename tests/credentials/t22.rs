//! T22: credentials stay with what they belong to. Two fake streamable-HTTP MCP servers record
//! every header they receive; 100 runs on behalf of alice, bob and carol (who has no token)
//! call a tool that needs the owner's GitHub token and a tool of each server; every value
//! carries a marker. Reported: foreign tokens seen by a server (0), calls that got another
//! owner's token (0), and the marker in the journal, the traces, the log lines and the model's
//! context (0 each). Beside it, a stdio server gets its own variable and none of the model
//! providers' keys the application's process has.

use std::sync::Arc;

use agboss::Application;
use agboss::Workflow;
use agboss::app::Env;
use agboss::credentials::StaticCredentials;
use agboss::model::{ScriptedModel, ToolCall, Turn};
use agboss::prelude::*;
use agboss::store::{Journal, MemoryStore, Store};

use crate::http_mcp::FakeHttpServer;
use crate::{MARK, OpenIssue, Seen};

#[dto]
pub struct Nothing {
    /// Unused.
    pub note: Option<String>,
}

#[mcp_server(
    name = "alpha-http",
    url = "${ALPHA_URL}",
    tools = ["whoami"],
    env = ["ALPHA_URL"],
    credential = "alpha-api"
)]
pub struct Alpha;

#[mcp_server(
    name = "beta-http",
    url = "${BETA_URL}",
    tools = ["whoami"],
    env = ["BETA_URL"],
    credential = "beta-api",
    credential_header = "X-Api-Key"
)]
pub struct Beta;

/// Asks alpha who it is.
#[mcp_tool(name = "alpha-whoami-tool", server = Alpha, calls = "whoami", input = Nothing, output = PlainText)]
pub struct AlphaWhoami;

/// Asks beta who it is.
#[mcp_tool(name = "beta-whoami-tool", server = Beta, calls = "whoami", input = Nothing, output = PlainText)]
pub struct BetaWhoami;

/// Files issues and checks two services.
#[agent(
    name = "t22-desk",
    prompt = "../prompts/helper.prompt.md",
    model = "test/model",
    tools = [OpenIssue, AlphaWhoami, BetaWhoami]
)]
pub struct T22Desk;

const RUNS: usize = 100;

fn owner_of(run: usize) -> &'static str {
    match run % 10 {
        9 => "carol",
        n if n % 2 == 0 => "alice",
        _ => "bob",
    }
}

/// Each run: the three calls in one turn, then an answer.
fn script() -> ScriptedModel {
    let turns = (0..RUNS).flat_map(|_| {
        let call = |i: usize, name: &str, arguments: &str| ToolCall {
            provider_id: Some(format!("call_{i}")),
            name: name.to_owned(),
            arguments: arguments.to_owned(),
        };
        [
            Turn::tool_calls(vec![
                call(0, "open-issue-tool", r#"{"repo": "acme/api"}"#),
                call(1, "alpha-whoami-tool", "{}"),
                call(2, "beta-whoami-tool", "{}"),
            ]),
            Turn::text("Done."),
        ]
    });
    ScriptedModel::new(turns.collect::<Vec<_>>())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn t22_no_credential_reaches_what_it_does_not_belong_to() {
    agboss::model::forbid_real_requests(true);
    let traced = fixtures::traced::traced();
    let (alpha, beta) = (FakeHttpServer::start().await, FakeHttpServer::start().await);
    let credentials = StaticCredentials::new()
        .with("alpha-api", format!("alpha-{MARK}"))
        .with("beta-api", format!("beta-{MARK}"))
        .for_owner("alice", "github", format!("gh-alice-{MARK}"))
        .for_owner("bob", "github", format!("gh-bob-{MARK}"));
    let env = Env::from_pairs([
        ("ALPHA_URL", alpha.url().to_owned()),
        ("BETA_URL", beta.url().to_owned()),
        ("OPENAI_API_KEY", format!("sk-model-{MARK}")),
    ]);
    let store = Arc::new(MemoryStore::new());
    let seen = Arc::new(Seen::default());
    let model = script();
    let app = Application::builder("t22")
        .workflow(Workflow::new("t22").agent::<T22Desk>())
        .provide(seen.clone())
        .credentials(credentials)
        .env(env)
        .store(store.clone())
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    let mut journal = String::new();
    let mut logs = String::new();
    for run in 0..RUNS {
        let outcome = app.run("t22", "file it").owner(owner_of(run)).await;
        let outcome = outcome.unwrap_or_else(|e| panic!("run {run}: {e}"));
        assert_eq!(outcome.text(), Some("Done."), "run {run}");
        logs.push_str(&format!("{outcome:?}\n"));
        let events = store.events(outcome.execution_id()).await.unwrap();
        journal.push_str(&serde_json::to_string(&events).unwrap());
    }
    app.shutdown().await;
    assert_eq!(model.remaining(), 0);

    // What each server saw: its own token only.
    let own = [
        (&alpha, format!("authorization: Bearer alpha-{MARK}")),
        (&beta, format!("x-api-key: beta-{MARK}")),
    ];
    let (mut foreign, mut lines, mut own_seen) = (0, 0, [0; 2]);
    for (i, (server, expected)) in own.iter().enumerate() {
        for line in server.headers() {
            lines += 1;
            if line == *expected {
                own_seen[i] += 1;
            } else if line.contains(MARK) || line.contains("gh-") || line.contains("sk-") {
                foreign += 1;
            }
        }
    }
    // Which token each call of the GitHub tool got.
    let uses = seen.all();
    let cross = uses
        .iter()
        .filter(|(owner, token)| *token != format!("gh-{owner}-{MARK}"))
        .count();
    let carol_runs = (0..RUNS).filter(|r| owner_of(*r) == "carol").count();
    let traces = traced.text();
    let context = format!("{:?}", model.requests());
    let count = |text: &str| text.matches(MARK).count();
    crate::report::report(
        "t22",
        &format!(
            "runs {RUNS} (alice {}, bob {}, carol {carol_runs} without a token); foreign tokens at the servers {foreign} of {lines} header lines (alpha's own {}, beta's own {}); cross-owner uses {cross} of {}; the marker in the journal {}, the traces {}, the log lines {}, the model's context {}",
            (0..RUNS).filter(|r| owner_of(*r) == "alice").count(),
            (0..RUNS).filter(|r| owner_of(*r) == "bob").count(),
            own_seen[0],
            own_seen[1],
            uses.len(),
            count(&journal),
            count(&traces),
            count(&logs),
            count(&context),
        ),
    );
    assert_eq!(foreign, 0, "foreign tokens");
    assert!(
        own_seen[0] > 0 && own_seen[1] > 0,
        "each server got its own"
    );
    assert_eq!(cross, 0, "cross-owner uses");
    assert_eq!(uses.len(), RUNS - carol_runs, "carol's calls did not run");
    assert_eq!(
        journal
            .matches(crate::MISSING.trim_start_matches("Tool error: "))
            .count(),
        carol_runs
    );
    assert_eq!(count(&journal), 0, "the journal");
    assert_eq!(count(&traces), 0, "the traces");
    assert_eq!(count(&logs), 0, "the log lines");
    assert_eq!(count(&context), 0, "the model's context");
}

/// A stdio server that writes its environment to `${ENV_OUT}`, then serves MCP.
#[mcp_server(
    name = "gamma-stdio",
    command = "sh",
    args = ["-c", "env > ${ENV_OUT}; exec python3 ${FAKE_PY} normal ${FAKE_LOG}"],
    tools = ["hello"],
    env = ["ENV_OUT", "FAKE_PY", "FAKE_LOG"],
    credential = "gamma-api",
    credential_env = "GAMMA_TOKEN"
)]
pub struct Gamma;

/// Says hello through gamma.
#[mcp_tool(name = "gamma-hello-tool", server = Gamma, calls = "hello", input = Nothing, output = PlainText)]
pub struct GammaHello;

/// The model providers' keys a stdio server must not inherit.
const KEYS: [&str; 2] = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"];

#[test]
fn a_stdio_server_gets_its_own_variable_and_not_the_model_providers_keys() {
    // The probe runs in a process of its own whose environment holds the keys, as a program's
    // would: this one's environment is not changed under the other tests' feet.
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "t22::stdio_probe", "--ignored", "--quiet"])
        .envs(KEYS.map(|key| (key, format!("sk-{key}-{MARK}"))))
        .status()
        .unwrap();
    assert!(status.success(), "the probe failed: {status}");
}

#[tokio::test]
#[ignore = "run by a_stdio_server_gets_its_own_variable_and_not_the_model_providers_keys, in a process with the keys set"]
async fn stdio_probe() {
    assert!(
        std::env::var("OPENAI_API_KEY").is_ok(),
        "run by its parent test, with the keys set"
    );
    let folder = tempfile::tempdir().unwrap();
    let out = folder.path().join("env.txt");
    let fake = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/fake_server.py");
    let env = Env::from_pairs([
        ("ENV_OUT", out.display().to_string()),
        ("FAKE_PY", fake.display().to_string()),
        (
            "FAKE_LOG",
            folder.path().join("fake.log").display().to_string(),
        ),
    ]);
    let app = Application::builder("gamma")
        .workflow(Workflow::new("gamma").tool::<GammaHello>())
        .credentials(StaticCredentials::new().with("gamma-api", format!("gamma-{MARK}")))
        .env(env)
        .store(Arc::new(MemoryStore::new()) as Arc<dyn Store>)
        .build()
        .unwrap();
    let called = app.tool::<GammaHello>().invoke("{}").await;
    assert_eq!(called.content, r#"{"text":"hello"}"#);
    app.shutdown().await;
    let seen = std::fs::read_to_string(&out).unwrap();
    assert!(
        seen.lines()
            .any(|l| l == format!("GAMMA_TOKEN=gamma-{MARK}")),
        "its own credential: {seen}"
    );
    for key in KEYS {
        assert!(!seen.contains(key), "{key} leaked to the server: {seen}");
    }
}
