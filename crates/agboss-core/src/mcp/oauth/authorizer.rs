//! [`Authorizer`]: how a person approves an application's access to an MCP server that uses
//! OAuth's authorization code grant. The application hands the authorization server's page
//! to the person and waits for the browser to come back to the redirect address; the address
//! it came back to (with the code and the state) completes the grant. [`LoopbackAuthorizer`]
//! is the ready one for a program a person runs: it prints the page's address (and may open a
//! browser) and listens on the loopback redirect.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use agboss_rules::oauth::is_loopback_host;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// How long a person may take to approve, after which the server's start (or the call that
/// needed a new authorization) fails.
pub const AUTHORIZATION_TIMEOUT: Duration = Duration::from_secs(300);

/// What an [`Authorizer`] is asked: which server, the page the person approves on, and the
/// address the browser comes back to.
#[derive(Clone, Debug)]
pub struct AuthorizationPrompt {
    server: &'static str,
    owner: Option<String>,
    page: String,
    redirect: String,
}

impl AuthorizationPrompt {
    /// A prompt for `server`: the person opens `page`, the browser comes back to `redirect`.
    pub fn new(server: &'static str, page: String, redirect: String) -> AuthorizationPrompt {
        AuthorizationPrompt {
            server,
            owner: None,
            page,
            redirect,
        }
    }

    /// The same prompt, on behalf of `owner`.
    pub fn for_owner(mut self, owner: Option<String>) -> AuthorizationPrompt {
        self.owner = owner;
        self
    }

    /// The owner whose executions the approval is for: each owner approves their own session
    /// with the server (and gets their own token); `None` for the session of no owner (a run
    /// without an owner, or `Application::start_mcp_servers`).
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The MCP server's name, as declared.
    pub fn server(&self) -> &'static str {
        self.server
    }

    /// The authorization server's page (with the PKCE challenge and the state in its query).
    pub fn page(&self) -> &str {
        &self.page
    }

    /// The redirect address the server's declaration names.
    pub fn redirect(&self) -> &str {
        &self.redirect
    }
}

/// What [`Authorizer::authorize`] returns: the whole address the browser came back to (the
/// redirect with `code`, `state` and maybe `iss` in its query), or why there is none.
pub type AuthorizerFuture<'a> = Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'a>>;

/// Gets a person's approval for an MCP server (OAuth's authorization code grant). Given to the
/// application with `ApplicationBuilder::authorizer`; without one, a [`LoopbackAuthorizer`]
/// prints the page on standard error. Its wait is bounded by [`AUTHORIZATION_TIMEOUT`].
///
/// ```
/// use agboss_core::mcp::{AuthorizationPrompt, Authorizer, AuthorizerFuture};
///
/// /// Hands the page to a chat the person is in, and waits for the redirect it relays.
/// struct ThroughChat;
///
/// impl Authorizer for ThroughChat {
///     fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
///         Box::pin(async move {
///             // post `prompt.page()`, wait for the address the browser came back to
///             Err(format!("no chat here to approve `{}` in", prompt.server()))
///         })
///     }
/// }
/// ```
pub trait Authorizer: Send + Sync + 'static {
    /// Has the person approve on `prompt.page()`, and returns the address the browser came
    /// back to.
    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a>;
}

/// The authorizer for a program a person runs: it listens on the redirect address (an `http`
/// address on the loopback interface: `127.0.0.1`, `[::1]` or `localhost`, with a port),
/// prints the page to open on standard error, and, when asked, opens it in the person's
/// browser (`xdg-open`, `open` or `start`). The browser's return gets a short page saying
/// whether it worked; a return with an `error` is a refusal, said in the authorization
/// server's words.
#[derive(Clone, Debug, Default)]
pub struct LoopbackAuthorizer {
    open_browser: bool,
}

impl LoopbackAuthorizer {
    /// One that prints the page and does not open a browser.
    pub fn new() -> LoopbackAuthorizer {
        LoopbackAuthorizer::default()
    }

    /// The same, also opening the page in the person's browser.
    pub fn opening_browser(mut self) -> LoopbackAuthorizer {
        self.open_browser = true;
        self
    }
}

impl Authorizer for LoopbackAuthorizer {
    fn authorize<'a>(&'a self, prompt: &'a AuthorizationPrompt) -> AuthorizerFuture<'a> {
        Box::pin(async move {
            let redirect = Redirect::parse(prompt.redirect())?;
            // Listening before the page is shown: a quick browser finds it.
            let listener = TcpListener::bind((redirect.bind_host.as_str(), redirect.port))
                .await
                .map_err(|e| format!("could not listen on {}: {e}", prompt.redirect()))?;
            let on_behalf = prompt
                .owner()
                .map_or_else(String::new, |owner| format!(" for `{owner}`"));
            eprintln!(
                "To let this application use the MCP server `{}`{on_behalf}, open this page and approve:\n  {}",
                prompt.server(),
                prompt.page()
            );
            tracing::info!(
                server = prompt.server(),
                owner = prompt.owner(),
                page = prompt.page(),
                "waiting for an OAuth approval"
            );
            if self.open_browser {
                open_in_browser(prompt.page());
            }
            wait_for_return(listener, &redirect).await
        })
    }
}

/// The redirect address, read for listening on it.
struct Redirect {
    /// How it was written, up to its path (`http://127.0.0.1:8765`).
    origin: String,
    bind_host: String,
    port: u16,
    path: String,
}

impl Redirect {
    fn parse(text: &str) -> Result<Redirect, String> {
        let url = reqwest::Url::parse(text)
            .map_err(|e| format!("the redirect `{text}` is not an address: {e}"))?;
        let refuse = |why: &str| {
            Err(format!(
                "the redirect `{text}` {why}: the loopback authorizer listens on `http://127.0.0.1:<port>/<path>`; give the application an `Authorizer` of its own for another"
            ))
        };
        if url.scheme() != "http" {
            return refuse("is not `http`");
        }
        let host = url.host_str().unwrap_or_default();
        if !is_loopback_host(host) {
            return refuse("is not on the loopback interface");
        }
        // `localhost` is listened for on IPv4's loopback, where browsers try it first.
        let bind_host = if host == "[::1]" { "::1" } else { "127.0.0.1" };
        let Some(port) = url.port() else {
            return refuse("names no port");
        };
        Ok(Redirect {
            origin: format!("http://{host}:{port}"),
            bind_host: bind_host.to_owned(),
            port,
            path: url.path().to_owned(),
        })
    }
}

/// Each browser connection in a task of its own (a browser may open one it never uses); the
/// first that comes back to the redirect's path ends the wait.
async fn wait_for_return(listener: TcpListener, redirect: &Redirect) -> Result<String, String> {
    let (found, mut returns) = tokio::sync::mpsc::channel(1);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = accepted.map_err(|e| format!("the redirect's listener failed: {e}"))?;
                let (found, path) = (found.clone(), redirect.path.clone());
                connections.spawn(async move {
                    if let Some(returned) = answer(stream, &path).await {
                        let _ = found.send(returned).await;
                    }
                });
            }
            Some(returned) = returns.recv() => {
                return returned.map(|target| format!("{}{target}", redirect.origin));
            }
        }
    }
}

/// Reads one request's head and answers it: when it is `GET` of `path`, with a page for the
/// person, and returns the request's target, or the authorization server's refusal it carries.
/// Other requests get a 404 and return nothing.
async fn answer(mut stream: TcpStream, path: &str) -> Option<Result<String, String>> {
    const MOST: usize = 16 * 1024;
    let mut head = Vec::with_capacity(1024);
    let mut buffer = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MOST {
        let read = stream.read(&mut buffer).await.ok()?;
        if read == 0 {
            break;
        }
        head.extend_from_slice(&buffer[..read]);
    }
    let head = String::from_utf8_lossy(&head);
    let mut line = head.lines().next().unwrap_or_default().split(' ');
    let (method, target) = (line.next()?, line.next()?);
    let target_path = target.split('?').next().unwrap_or_default();
    let returned = (method == "GET" && target_path == path)
        .then(|| refusal_in(target).map_or_else(|| Ok(target.to_owned()), Err));
    let (status, page) = match &returned {
        None => ("404 Not Found", "Nothing here.".to_owned()),
        Some(Err(why)) => ("400 Bad Request", format!("Not authorized: {why}")),
        Some(Ok(_)) => (
            "200 OK",
            "Authorized: you can close this page and go back to the application.".to_owned(),
        ),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
    returned
}

/// The authorization server's refusal in a redirect's query (`error`, `error_description`).
fn refusal_in(target: &str) -> Option<String> {
    let url = reqwest::Url::parse("http://redirect.invalid")
        .ok()?
        .join(target)
        .ok()?;
    let field = |name: &str| {
        url.query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    let error = field("error")?;
    Some(match field("error_description") {
        Some(description) => format!("the authorization server refused ({error}): {description}"),
        None => format!("the authorization server refused ({error})"),
    })
}

/// Opens `page` in the person's browser, best effort (a failure is logged, the printed page
/// still works).
fn open_in_browser(page: &str) {
    let opener = if cfg!(target_os = "macos") {
        ("open", vec![page])
    } else if cfg!(windows) {
        ("cmd", vec!["/C", "start", "", page])
    } else {
        ("xdg-open", vec![page])
    };
    if let Err(e) = std::process::Command::new(opener.0)
        .args(opener.1)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        tracing::warn!(opener = opener.0, error = %e, "could not open a browser");
    }
}

impl fmt::Display for AuthorizationPrompt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "approve `{}` at {}", self.server, self.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_loopback_http_redirect_with_a_port_is_listened_on() {
        let ok = Redirect::parse("http://localhost:8765/callback").unwrap();
        assert_eq!(
            (ok.bind_host.as_str(), ok.port, ok.path.as_str()),
            ("127.0.0.1", 8765, "/callback")
        );
        assert_eq!(ok.origin, "http://localhost:8765");
        for (text, why) in [
            ("https://127.0.0.1:8765/cb", "is not `http`"),
            (
                "http://example.com:8765/cb",
                "is not on the loopback interface",
            ),
            ("http://127.0.0.1/cb", "names no port"),
        ] {
            let error = Redirect::parse(text).err().unwrap();
            assert!(error.contains(why), "{text}: {error}");
        }
    }

    /// What a browser's `GET target` of `port` reads back: the status line.
    async fn browse(port: u16, target: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let request = format!("GET {target} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer.lines().next().unwrap_or_default().to_owned()
    }

    fn free_port() -> u16 {
        std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    #[tokio::test]
    async fn the_browser_s_return_to_the_redirect_is_the_answer() {
        let port = free_port();
        let prompt = AuthorizationPrompt::new(
            "tickets",
            "https://auth.example/authorize?state=s".to_owned(),
            format!("http://localhost:{port}/callback"),
        );
        let authorizer = LoopbackAuthorizer::new();
        let waiting = tokio::spawn(async move { authorizer.authorize(&prompt).await });
        // The listener is up before the page is shown; give the task a moment to bind.
        let mut tries = 0;
        while TcpStream::connect(("127.0.0.1", port)).await.is_err() && tries < 200 {
            tokio::task::yield_now().await;
            tokio::time::sleep(Duration::from_millis(5)).await;
            tries += 1;
        }
        // A connection that never says anything (a browser's preconnect) blocks nothing.
        let _idle = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        assert_eq!(browse(port, "/favicon.ico").await, "HTTP/1.1 404 Not Found");
        assert_eq!(
            browse(port, "/callback?code=c0de&state=s").await,
            "HTTP/1.1 200 OK"
        );
        let back = waiting.await.unwrap().unwrap();
        assert_eq!(
            back,
            format!("http://localhost:{port}/callback?code=c0de&state=s")
        );
    }

    #[tokio::test]
    async fn a_refusal_at_the_redirect_is_an_error_in_the_server_s_words() {
        let port = free_port();
        let prompt = AuthorizationPrompt::new(
            "tickets",
            "https://auth.example/authorize".to_owned(),
            format!("http://127.0.0.1:{port}/cb"),
        );
        let waiting =
            tokio::spawn(async move { LoopbackAuthorizer::new().authorize(&prompt).await });
        let mut tries = 0;
        while TcpStream::connect(("127.0.0.1", port)).await.is_err() && tries < 200 {
            tokio::time::sleep(Duration::from_millis(5)).await;
            tries += 1;
        }
        assert_eq!(
            browse(port, "/cb?error=access_denied&state=s").await,
            "HTTP/1.1 400 Bad Request"
        );
        let refused = waiting.await.unwrap().unwrap_err();
        assert_eq!(refused, "the authorization server refused (access_denied)");
    }

    #[test]
    fn a_refusal_is_read_from_the_query() {
        assert_eq!(
            refusal_in("/cb?error=access_denied&error_description=the+person+said+no&state=x"),
            Some("the authorization server refused (access_denied): the person said no".to_owned())
        );
        assert_eq!(refusal_in("/cb?code=c&state=s"), None);
    }
}
