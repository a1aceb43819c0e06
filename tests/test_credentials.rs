//! Credentials a tool needs, through the facade: a tool declares them (`needs = ["github"]`),
//! the application's provider resolves each for every call from the call's execution (its
//! owner) just before it runs, and the tool reads them from its `Credentials` field. A missing
//! one is a tool error the model reads and a warning naming it; a name no provider knows, or
//! tools that need credentials in an application without a provider, fail assembly with a
//! code. No value reaches the journal (memory, SQLite, PostgreSQL), a trace, `describe` or a
//! `Debug` text. An MCP server gets its own credential only (T22 in `credentials/t22.rs`), and
//! a stdio server does not inherit the model provider's key.

#[path = "credentials/http_mcp.rs"]
mod http_mcp;
#[path = "faults/report.rs"]
mod report;
#[path = "credentials/t22.rs"]
mod t22;

use std::sync::{Arc, Mutex};

use agboss::credentials::{
    CredentialError, CredentialFuture, CredentialProvider, CredentialRequest, Secret,
    StaticCredentials,
};
use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::store::{MemoryStore, Store};
use agboss::{Application, Workflow};
use fixtures::stores::durable_stores;
use serde_json::json;

/// What every value the tests hand out carries: it must appear in no journal, trace or text.
const MARK: &str = "MARK-7f3c";

/// The text the model reads when the credential `github` is missing.
const MISSING: &str = "Tool error: this tool needs the credential `github`, and none is available for this execution, so it did not run";

#[dto]
pub struct Repo {
    /// The repository.
    pub repo: String,
}

/// The tokens the tool saw, with the owner of the execution it saw each in.
#[derive(Default)]
pub struct Seen(Mutex<Vec<(String, String)>>);

impl Seen {
    fn all(&self) -> Vec<(String, String)> {
        self.0.lock().unwrap().clone()
    }
}

/// Opens an issue on GitHub as the execution's owner.
#[tool(name = "open-issue-tool", needs = ["github"])]
pub struct OpenIssue {
    credentials: Credentials,
    context: ExecutionContext,
    seen: Arc<Seen>,
}

impl ToolHandler for OpenIssue {
    type Input = Repo;
    type Output = PlainText;

    async fn run(&self, input: Repo) -> Result<PlainText, ToolError> {
        let token = self.credentials.require("github")?;
        let owner = self.context.owner_id().unwrap_or("nobody").to_owned();
        self.seen
            .0
            .lock()
            .unwrap()
            .push((owner.clone(), token.expose().to_owned()));
        Ok(PlainText::new(format!(
            "opened an issue in {} as {owner}",
            input.repo
        )))
    }
}

/// Files issues.
#[agent(
    name = "desk",
    prompt = "prompts/helper.prompt.md",
    model = "test/model",
    tools = [OpenIssue]
)]
pub struct Desk;

/// GitHub tokens for alice and bob, each with the mark.
fn tokens() -> StaticCredentials {
    StaticCredentials::new()
        .for_owner("alice", "github", format!("gh-alice-{MARK}"))
        .for_owner("bob", "github", format!("gh-bob-{MARK}"))
}

fn app(
    store: Arc<dyn Store>,
    model: &ScriptedModel,
    credentials: impl CredentialProvider,
) -> (Application, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let app = Application::builder("issues")
        .workflow(Workflow::new("issues").agent::<Desk>())
        .provide(seen.clone())
        .credentials(credentials)
        .store(store)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    (app, seen)
}

/// One call of the tool, then an answer after reading `expected`.
fn script(expected: &str) -> ScriptedModel {
    let expected = expected.to_owned();
    ScriptedModel::new([
        Turn::call("open-issue-tool", json!({"repo": "acme/api"})),
        Turn::text("Done.").expect("the tool's result", move |request| {
            match request.messages.last() {
                Some(agboss::model::Message::Tool { content, .. }) if *content == expected => {
                    Ok(())
                }
                other => Err(format!("{other:?}")),
            }
        }),
    ])
}

/// The journal of `execution`, as one JSON text.
async fn journal(store: &dyn Store, execution: &str) -> String {
    let events: Vec<LoopEvent> = store.events(execution).await.unwrap();
    serde_json::to_string(&events).unwrap()
}

#[tokio::test]
async fn each_owner_s_call_gets_that_owner_s_token_and_nothing_is_written_of_it() {
    agboss::model::forbid_real_requests(true);
    let traced = fixtures::traced::traced();
    let store = Arc::new(MemoryStore::new());
    for owner in ["alice", "bob", "alice"] {
        let model = script(&format!(
            r#"{{"text":"opened an issue in acme/api as {owner}"}}"#
        ));
        let (app, seen) = app(store.clone(), &model, tokens());
        let outcome = app.run("issues", "file it").owner(owner).await.unwrap();
        assert_eq!(outcome.text(), Some("Done."));
        assert_eq!(
            seen.all(),
            [(owner.to_owned(), format!("gh-{owner}-{MARK}"))]
        );
        let journal = journal(&*store, outcome.execution_id()).await;
        assert!(!journal.contains(MARK), "the journal: {journal}");
        assert!(!format!("{outcome:?}").contains(MARK));
    }
    let traces = traced.text();
    assert!(traces.contains("open-issue-tool"), "the calls were traced");
    assert!(!traces.contains(MARK), "the traces: {traces}");
}

#[tokio::test]
async fn an_owner_without_a_token_reads_the_missing_credential_text_and_the_tool_does_not_run() {
    agboss::model::forbid_real_requests(true);
    let traced = fixtures::traced::traced();
    let store = Arc::new(MemoryStore::new());
    let model = script(MISSING);
    let (app, seen) = app(store.clone(), &model, tokens());
    let outcome = app.run("issues", "file it").owner("carol").await.unwrap();
    assert_eq!(outcome.text(), Some("Done."));
    assert_eq!(model.remaining(), 0);
    assert!(seen.all().is_empty(), "the tool did not run");
    let journal = journal(&*store, outcome.execution_id()).await;
    assert!(journal.contains("this tool needs the credential `github`"));
    assert!(!journal.contains(MARK));
    let traces = traced.text();
    assert!(
        traces.contains("a credential the tool needs is missing"),
        "a warning: {traces}"
    );
}

/// A provider whose store is out of reach.
struct Unreachable;

impl CredentialProvider for Unreachable {
    fn names(&self) -> Vec<String> {
        vec!["github".to_owned()]
    }

    fn resolve<'a>(&'a self, _request: CredentialRequest<'a>) -> CredentialFuture<'a> {
        Box::pin(async { Err(CredentialError::new("the vault is out of reach")) })
    }
}

#[tokio::test]
async fn a_failing_provider_is_the_same_missing_credential_never_a_panic() {
    agboss::model::forbid_real_requests(true);
    let model = script(MISSING);
    let (app, seen) = app(Arc::new(MemoryStore::new()), &model, Unreachable);
    let outcome = app.run("issues", "file it").owner("alice").await.unwrap();
    assert_eq!(outcome.text(), Some("Done."));
    assert!(seen.all().is_empty());
    // Called on its own, the tool reads the same text.
    let slice = app.tool::<OpenIssue>().owner("alice");
    let called = slice.invoke(r#"{"repo": "acme/api"}"#).await;
    assert_eq!(called.content, MISSING);
}

#[tokio::test]
async fn a_tool_called_on_its_own_gets_the_owner_s_token() {
    let model = ScriptedModel::new([]);
    let (app, seen) = app(Arc::new(MemoryStore::new()), &model, tokens());
    let called = app
        .tool::<OpenIssue>()
        .owner("bob")
        .invoke(r#"{"repo": "acme/web"}"#)
        .await;
    assert_eq!(
        called.content,
        r#"{"text":"opened an issue in acme/web as bob"}"#
    );
    assert_eq!(seen.all(), [("bob".to_owned(), format!("gh-bob-{MARK}"))]);
}

#[test]
fn needed_credentials_without_a_provider_or_unknown_to_it_fail_assembly_with_codes() {
    let build = |credentials: Option<StaticCredentials>| {
        let mut builder = Application::builder("issues")
            .workflow(Workflow::new("issues").agent::<Desk>())
            .provide(Arc::new(Seen::default()));
        if let Some(credentials) = credentials {
            builder = builder.credentials(credentials);
        }
        builder
            .build()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    let none = build(None);
    assert!(
        none.contains("[credentials.no-provider] tool `open-issue-tool` needs the credential `github`, and the application has no credential provider: set one with `ApplicationBuilder::credentials(..)`"),
        "{none}"
    );
    let unknown = build(Some(StaticCredentials::new().with("gitlab", "x")));
    assert!(
        unknown.contains("[credentials.unknown] tool `open-issue-tool` needs the credential `github`, which the credential provider does not know (it knows: `gitlab`); did you mean `gitlab`?"),
        "{unknown}"
    );
    assert!(build(Some(tokens())).is_empty());
}

#[test]
fn a_secret_and_the_credentials_field_print_no_value() {
    let secret = Secret::new(format!("gh-{MARK}"));
    assert_eq!(format!("{secret}"), "<redacted>");
    assert_eq!(format!("{secret:?}"), "Secret(<redacted>)");
    assert_eq!(
        format!("{:#?}", Some(&secret)),
        "Some(\n    Secret(<redacted>),\n)"
    );
    assert_eq!(secret.expose(), format!("gh-{MARK}"));
    let provider = format!("{:?}", tokens());
    assert!(!provider.contains(MARK), "{provider}");
}

#[test]
fn describe_shows_the_names_only() {
    let model = ScriptedModel::new([]);
    let (app, _) = app(Arc::new(MemoryStore::new()), &model, tokens());
    let text = agboss::describe::text(&app);
    assert!(text.contains("needs: github"), "{text}");
    let json = agboss::describe::json(&app).to_string();
    assert!(json.contains(r#""needs":["github"]"#), "{json}");
    assert!(!text.contains(MARK) && !json.contains(MARK));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sqlite_and_postgres_each_owner_gets_its_own_and_the_journal_holds_none() {
    agboss::model::forbid_real_requests(true);
    for (name, store, _keep) in durable_stores().await {
        for owner in ["alice", "bob", "carol"] {
            let expected = match owner {
                "carol" => MISSING.to_owned(),
                _ => format!(r#"{{"text":"opened an issue in acme/api as {owner}"}}"#),
            };
            let model = script(&expected);
            let (app, seen) = app(store.clone(), &model, tokens());
            let outcome = app.run("issues", "file it").owner(owner).await;
            let outcome = outcome.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(outcome.text(), Some("Done."), "{name}");
            let tokens: Vec<String> = seen.all().into_iter().map(|(_, t)| t).collect();
            match owner {
                "carol" => assert!(tokens.is_empty(), "{name}"),
                _ => assert_eq!(tokens, [format!("gh-{owner}-{MARK}")], "{name}"),
            }
            let journal = journal(&*store, outcome.execution_id()).await;
            assert!(!journal.contains(MARK), "{name}: {journal}");
        }
    }
}

#[tokio::test]
async fn test_tool_resolves_through_the_provider_it_is_given() {
    let seen = Arc::new(Seen::default());
    let tool = agboss::testing::test_tool::<OpenIssue>()
        .with(seen.clone())
        .credentials(StaticCredentials::new().for_owner("test-owner", "github", "t-1"));
    let run = tool
        .run(Repo {
            repo: "acme/api".into(),
        })
        .await
        .unwrap();
    assert_eq!(run.output.text, "opened an issue in acme/api as test-owner");
    assert_eq!(seen.all(), [("test-owner".to_owned(), "t-1".to_owned())]);
    let bare = agboss::testing::test_tool::<OpenIssue>().with(seen.clone());
    assert_eq!(
        bare.invoke(r#"{"repo": "acme/api"}"#).await.content,
        MISSING
    );
}
