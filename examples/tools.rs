//! The Tools page's two tools in Rust: `search-issues-tool` and `fetch-page-tool`, run end to
//! end against a fake issues API on 127.0.0.1, printing what a model would read.
//!
//! ```text
//! cargo run --example tools
//! ```

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use agboss::prelude::*;
use agboss::tool::tool_definition_of;
use agboss::units::{kilobytes, seconds};
use agboss::{Application, Workflow};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};

/// One issue of the tracker.
#[dto]
pub struct Issue {
    /// The issue's title.
    pub title: String,
    /// Where to read it.
    #[schemars(url)]
    pub url: String,
}

/// What to search for.
#[dto]
pub struct IssueQuery {
    /// words to search the issues for
    pub query: String,
}

/// The issues found.
#[dto]
pub struct IssueList {
    /// The matching issues, most recent first.
    pub issues: Vec<Issue>,
}

/// A page to read.
#[dto]
pub struct PageQuery {
    /// The page's address.
    #[schemars(url)]
    pub url: String,
}

/// A page's text.
#[dto]
pub struct PageContent {
    /// The text of the page.
    pub text: String,
}

/// The issue tracker's HTTP API.
pub struct IssuesApi {
    http: reqwest::Client,
    base: String,
}

impl IssuesApi {
    /// Searches, giving up when `signal` fires (the call's timeout, or a cancel).
    async fn search(
        &self,
        query: &str,
        signal: &agboss::context::Signal,
    ) -> Result<Vec<Issue>, ToolError> {
        let request = self
            .http
            .get(format!("{}/search", self.base))
            .query(&[("q", query)])
            .send();
        let response = tokio::select! {
            response = request => response?,
            () = signal.cancelled() => return Err(ToolError::new("the search was cancelled")),
        };
        if !response.status().is_success() {
            return Err(ToolError::new(format!(
                "the issues API answered {}",
                response.status()
            )));
        }
        Ok(response.json().await?)
    }
}

#[tool(
    name = "search-issues-tool",
    description = "Search the team's issues",
    timeout = seconds(10),
)]
pub struct SearchIssues {
    execution: ExecutionContext,
    issues: Arc<IssuesApi>,
}

impl ToolHandler for SearchIssues {
    type Input = IssueQuery;
    type Output = IssueList;

    async fn run(&self, IssueQuery { query }: IssueQuery) -> Result<IssueList, ToolError> {
        let issues = self.issues.search(&query, self.execution.signal()).await?;
        Ok(IssueList { issues })
    }
}

/// Reads web pages as text.
pub struct PageReader {
    http: reqwest::Client,
}

impl PageReader {
    async fn text_of(&self, url: &str) -> Result<String, ToolError> {
        let response = self.http.get(url).send().await?;
        if response.status() == StatusCode::NOT_FOUND {
            return Err(ToolError::new(format!("no page at {url}")));
        }
        Ok(response.error_for_status()?.text().await?)
    }
}

#[tool(
    name = "fetch-page-tool",
    description = "Fetches a web page as text",
    timeout = seconds(10),
    max_result_size = kilobytes(256),
)]
pub struct FetchPageTool {
    pages: Arc<PageReader>,
}

impl ToolHandler for FetchPageTool {
    type Input = PageQuery;
    type Output = PageContent;

    async fn run(&self, PageQuery { url }: PageQuery) -> Result<PageContent, ToolError> {
        Ok(PageContent {
            text: self.pages.text_of(&url).await?,
        })
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // agboss builds reqwest without a process-wide TLS provider (its own clients get one each);
    // a program that makes its own reqwest client installs one.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let address = serve_fake_api().await?;
    let base = format!("http://{address}");
    let http = reqwest::Client::new();

    // The two tools in a workflow of their own, with the services they need.
    let app = Application::builder("tools-example")
        .workflow(
            Workflow::new("desk")
                .tool::<SearchIssues>()
                .tool::<FetchPageTool>(),
        )
        .provide(Arc::new(IssuesApi {
            http: http.clone(),
            base: base.clone(),
        }))
        .provide(Arc::new(PageReader { http }))
        .build()?;
    let search = app.tool::<SearchIssues>();
    let fetch = app.tool::<FetchPageTool>();

    println!("== what the model is told (OpenAI form)\n");
    for definition in [
        tool_definition_of::<SearchIssues>()?,
        tool_definition_of::<FetchPageTool>()?,
    ] {
        println!(
            "{}\n",
            serde_json::to_string_pretty(&definition.to_openai())?
        );
    }

    println!("== what the model reads\n");
    let outcome = search.invoke(r#"{"query": "login"}"#).await;
    show(
        "search-issues-tool {query: login}",
        &outcome.content,
        outcome.is_result_truncated,
    );

    let outcome = search.invoke(r#"{"q": "login"}"#).await;
    show(
        "search-issues-tool {q: login}",
        &outcome.content,
        outcome.is_result_truncated,
    );

    let outcome = fetch.invoke(r#"{"url": "not a url"}"#).await;
    show(
        "fetch-page-tool {url: not a url}",
        &outcome.content,
        outcome.is_result_truncated,
    );

    let missing = format!(r#"{{"url": "{base}/pages/missing"}}"#);
    let outcome = fetch.invoke(&missing).await;
    show(
        "fetch-page-tool (a page that is not there)",
        &outcome.content,
        outcome.is_result_truncated,
    );

    let handbook = format!(r#"{{"url": "{base}/pages/handbook"}}"#);
    let outcome = fetch.invoke(&handbook).await;
    let tail = &outcome.content[outcome.content.len() - 120..];
    show(
        &format!(
            "fetch-page-tool (a 1 MiB page, bound 256 KB; {} bytes read, the last 120:)",
            outcome.content.len()
        ),
        tail,
        outcome.is_result_truncated,
    );
    Ok(())
}

fn show(call: &str, content: &str, truncated: bool) {
    println!("-> {call}\n   truncated: {truncated}\n   {content}\n");
}

/// The fake tracker: `/search?q=..` answers issues, `/pages/handbook` a 1 MiB page.
async fn serve_fake_api() -> std::io::Result<SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let address = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| answer(request, address));
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Ok(address)
}

async fn answer(
    request: Request<Incoming>,
    address: SocketAddr,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let (status, body) = match request.uri().path() {
        "/search" => {
            let query = request.uri().query().unwrap_or("").replace("q=", "");
            let issues = serde_json::json!([
                {"title": format!("Cannot {query} with SSO"), "url": format!("http://{address}/issues/41")},
                {"title": format!("{query} page times out"), "url": format!("http://{address}/issues/57")},
            ]);
            (StatusCode::OK, issues.to_string())
        }
        "/pages/handbook" => (StatusCode::OK, "The handbook. ".repeat(75_000)),
        _ => (StatusCode::NOT_FOUND, "not found".to_owned()),
    };
    Ok(Response::builder()
        .status(status)
        .body(Full::new(Bytes::from(body)))
        .expect("a valid response"))
}

#[cfg(test)]
mod tests {
    /// The example, run end to end as `cargo run --example tools` runs it.
    #[test]
    fn the_example_runs() {
        super::main().expect("the example runs");
    }
}
