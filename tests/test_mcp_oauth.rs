//! MCP servers a person lets the application use: OAuth's authorization code grant with PKCE,
//! through the facade, against a real HTTP MCP server with its own authorization server
//! (`fixtures/mcp/expiring_oauth_server.py`: dynamic registration, an approval page that
//! approves for the `user` it is given, PKCE checked at the token endpoint). Each owner
//! approves their own session; the default authorizer listens on the loopback redirect; a
//! refusal is an error the model reads, in the authorization server's words. The suite's
//! `auth/*` scenarios (tests/test_mcp_conformance.rs) cover discovery, scopes and step-up.

#[path = "mcp_common/oauth_server.rs"]
mod oauth_server;

use std::path::Path;
use std::sync::{Arc, Mutex};

use agboss::app::Env;
use agboss::credentials::{FileTokens, StaticCredentials};
use agboss::mcp::{AuthorizationPrompt, Authorizer, AuthorizerFuture, LoopbackAuthorizer};
use agboss::model::{Message, ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::{Application, Workflow};
use oauth_server::OAuthServer as Server;
use serde_json::json;

#[mcp_server(
    name = "tickets",
    url = "${TICKETS_URL}",
    tools = ["echo"],
    env = ["TICKETS_URL", "REDIRECT_PORT"],
    oauth_redirect = "http://127.0.0.1:${REDIRECT_PORT}/callback",
)]
pub struct Tickets;

/// What to echo.
#[dto]
pub struct Said {
    /// The message.
    pub message: String,
}

#[mcp_tool(
    name = "echo-tool",
    description = "Echoes a message through the tickets server",
    server = Tickets,
    calls = "echo",
    input = Said,
    output = PlainText,
)]
pub struct Echo;

/// Echoes.
#[agent(name = "desk", prompt = "prompts/helper.prompt.md", model = "test/model", tools = [Echo])]
pub struct Desk;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A person's browser: opens `page` as `user` (the test server's stand-in for a login) and
/// follows redirects; with `follow` false, returns where the page redirects to instead.
async fn browse(page: &str, user: &str, follow: bool) -> Result<String, String> {
    let policy = if follow {
        reqwest::redirect::Policy::limited(3)
    } else {
        reqwest::redirect::Policy::none()
    };
    let client = reqwest::Client::builder()
        .redirect(policy)
        .build()
        .map_err(|e| e.to_string())?;
    let answer = client
        .get(format!("{page}&user={user}"))
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if follow {
        return answer.text().await.map_err(|e| e.to_string());
    }
    answer
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .map(str::to_owned)
        .ok_or_else(|| format!("no redirect: {}", answer.status()))
}

/// Who was asked to approve: the server and the owner.
type Asked = Vec<(String, Option<String>)>;

/// Approves as the execution's owner would, and remembers who was asked for which server.
#[derive(Clone, Default)]
struct AsTheOwner {
    asked: Arc<Mutex<Asked>>,
}

impl Authorizer for AsTheOwner {
    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
        Box::pin(async move {
            let owner = prompt.owner().map(str::to_owned);
            self.asked
                .lock()
                .unwrap()
                .push((prompt.server().to_owned(), owner.clone()));
            browse(prompt.page(), owner.as_deref().unwrap_or("nobody"), false).await
        })
    }
}

/// The application, its model calling the tool once a run.
struct Desked {
    app: Application,
    model: ScriptedModel,
}

fn app(server: &Server, redirect_port: u16, authorizer: impl Authorizer) -> Desked {
    app_with(server, redirect_port, authorizer, StaticCredentials::new())
}

/// [`app`] with `credentials` (where OAuth tokens are kept).
fn app_with(
    server: &Server,
    redirect_port: u16,
    authorizer: impl Authorizer,
    credentials: StaticCredentials,
) -> Desked {
    let env = Env::from_pairs([
        ("TICKETS_URL", server.url.clone()),
        ("REDIRECT_PORT", redirect_port.to_string()),
    ]);
    let model = ScriptedModel::new((0..8).flat_map(|i| {
        [
            Turn::call("echo-tool", json!({"message": format!("hi {i}")})),
            Turn::text("Done."),
        ]
    }));
    let app = Application::builder("tickets-desk")
        .workflow(Workflow::new("desk").agent::<Desk>())
        .env(env)
        .authorizer(authorizer)
        .credentials(credentials)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap();
    Desked { app, model }
}

/// What the tool returned to the model in the run of `owner`, and whether it was an error.
async fn echo_as(desked: &Desked, owner: &str) -> (String, bool) {
    desked.app.run("desk", "Echo.").owner(owner).await.unwrap();
    let last = desked.model.requests().last().cloned().expect("a request");
    let read = last
        .messages
        .iter()
        .rev()
        .find_map(|message| match message {
            Message::Tool {
                content, is_error, ..
            } => Some((content.clone(), *is_error)),
            _ => None,
        });
    read.expect("the tool was called")
}

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("agboss-oauth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn each_owner_approves_once_and_calls_with_their_own_token() {
    let dir = temp_dir("owners");
    let server = Server::start("unused-secret", 600, &dir.join("grants.log"));
    let authorizer = AsTheOwner::default();
    let app = app(&server, free_port(), authorizer.clone());
    let (alice, error) = echo_as(&app, "alice").await;
    assert!(!error, "{alice}");
    assert!(alice.contains("of alice)"), "{alice}");
    let (bob, error) = echo_as(&app, "bob").await;
    assert!(!error, "{bob}");
    assert!(bob.contains("of bob)"), "{bob}");
    // Alice's second run uses the session she approved: nobody is asked again.
    let (again, _) = echo_as(&app, "alice").await;
    assert!(again.contains("of alice)"), "{again}");
    assert_eq!(
        *authorizer.asked.lock().unwrap(),
        [
            ("tickets".to_owned(), Some("alice".to_owned())),
            ("tickets".to_owned(), Some("bob".to_owned())),
        ]
    );
    let log = std::fs::read_to_string(dir.join("grants.log")).unwrap();
    assert_eq!(
        log.lines()
            .filter(|l| l.starts_with("grant"))
            .collect::<Vec<_>>(),
        ["grant 1 of alice", "grant 2 of bob"],
        "{log}"
    );
    app.app.shutdown().await;
}

/// The default authorizer, with a browser that opens the page it is shown.
struct LoopbackWithABrowser;

impl Authorizer for LoopbackWithABrowser {
    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
        let page = prompt.page().to_owned();
        Box::pin(async move {
            // The person opens the page a moment later; the browser comes back to the
            // listener and reads its page.
            let browser = tokio::spawn(async move { browse(&page, "carol", true).await });
            let back = LoopbackAuthorizer::new().authorize(prompt).await;
            let shown = browser.await.map_err(|e| e.to_string())??;
            assert!(shown.starts_with("Authorized"), "{shown}");
            back
        })
    }
}

#[tokio::test]
async fn the_loopback_authorizer_takes_the_browser_s_return_to_the_redirect() {
    let dir = temp_dir("loopback");
    let server = Server::start("unused-secret", 600, &dir.join("grants.log"));
    let app = app(&server, free_port(), LoopbackWithABrowser);
    let (said, error) = echo_as(&app, "carol").await;
    assert!(!error, "{said}");
    assert!(said.contains("of carol)"), "{said}");
    app.app.shutdown().await;
}

#[tokio::test]
async fn a_refused_approval_is_a_tool_error_in_the_authorization_server_s_words() {
    let dir = temp_dir("refused");
    let server = Server::start("unused-secret", 600, &dir.join("grants.log"));
    /// The person refuses: the page redirects with `error=access_denied`.
    struct Refuses;
    impl Authorizer for Refuses {
        fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
            let page = prompt.page().to_owned();
            Box::pin(async move {
                let browser = tokio::spawn(async move { browse(&page, "nobody", true).await });
                let back = LoopbackAuthorizer::new().authorize(prompt).await;
                let _ = browser.await;
                back
            })
        }
    }
    let app = app(&server, free_port(), Refuses);
    let (said, error) = echo_as(&app, "dave").await;
    assert!(error, "{said}");
    assert!(
        said.contains("the approval failed: the authorization server refused (access_denied)"),
        "{said}"
    );
    app.app.shutdown().await;
}

/// The grants the server logged.
fn grants(log: &Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("grant"))
        .map(str::to_owned)
        .collect()
}

#[tokio::test]
async fn kept_tokens_spare_a_restarted_application_the_approval() {
    let dir = temp_dir("kept");
    let server = Server::start("unused-secret", 600, &dir.join("grants.log"));
    let kept = dir.join("tokens");
    let port = free_port();
    let first = AsTheOwner::default();
    let tokens = || StaticCredentials::new().keeping_oauth_tokens(FileTokens::new(&kept));
    let before = app_with(&server, port, first.clone(), tokens());
    let (said, _) = echo_as(&before, "alice").await;
    assert!(said.contains("(token 1 of alice)"), "{said}");
    before.app.shutdown().await;
    let file = FileTokens::new(&kept).file_of(&agboss::credentials::TokenKey::new(
        "tickets",
        Some("alice"),
    ));
    assert!(file.exists(), "{}", file.display());
    // Another application, as after a restart: alice's kept token, nobody asked.
    let second = AsTheOwner::default();
    let after = app_with(&server, port, second.clone(), tokens());
    let (said, _) = echo_as(&after, "alice").await;
    assert!(said.contains("(token 1 of alice)"), "{said}");
    assert_eq!(first.asked.lock().unwrap().len(), 1);
    assert!(second.asked.lock().unwrap().is_empty());
    assert_eq!(grants(&dir.join("grants.log")), ["grant 1 of alice"]);
    after.app.shutdown().await;
}

#[tokio::test]
async fn an_expired_token_is_refreshed_without_asking_again() {
    let dir = temp_dir("refresh");
    let log = dir.join("grants.log");
    let server = Server::start("unused-secret", 4, &log);
    let authorizer = AsTheOwner::default();
    let app = app(&server, free_port(), authorizer.clone());
    let (said, _) = echo_as(&app, "alice").await;
    assert!(said.contains("(token 1 of alice)"), "{said}");
    // Past the token's 4 s, the refresh token gets another: nobody is asked.
    tokio::time::sleep(std::time::Duration::from_millis(4_500)).await;
    let (said, error) = echo_as(&app, "alice").await;
    assert!(!error, "{said}");
    assert!(said.contains("(token 2 of alice)"), "{said}");
    assert_eq!(authorizer.asked.lock().unwrap().len(), 1);
    assert_eq!(
        grants(&log),
        ["grant 1 of alice", "grant 2 of alice (refresh)"]
    );
    app.app.shutdown().await;
}
