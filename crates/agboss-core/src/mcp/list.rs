//! Listing the tools of a server that no `#[mcp_server]` declares: started (or reached), asked
//! for `tools/list` and stopped. What `agboss g mcp` generates code from.

use std::time::Duration;

use serde_json::Value;

use super::elicitation::Elicitor;
use super::server::{Endpoint, Live};
use crate::base::Env;
use crate::time::Clock;

/// How to reach a server; `${VAR}`s are expanded from the environment when it is listed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerAddress {
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
    },
    /// A streamable-HTTP endpoint.
    Http {
        /// The endpoint's URL.
        url: String,
    },
}

/// A tool a server lists, as plain data.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedTool {
    /// The server's name of the tool.
    pub name: String,
    /// Its human-readable title.
    pub title: Option<String>,
    /// Its description.
    pub description: Option<String>,
    /// Its input JSON Schema.
    pub input_schema: Value,
    /// What the server says of the tool (its annotations: `readOnlyHint=true`,
    /// `destructiveHint=false`, ...), in that spelling. Claims, never decisions: `g mcp`
    /// copies them as `server_claims`, `describe` shows them, and nothing is decided by them.
    pub claims: Vec<String>,
}

impl ListedTool {
    /// A tool with no title, no description and no claims.
    pub fn new(name: impl Into<String>, input_schema: Value) -> ListedTool {
        ListedTool {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            claims: Vec::new(),
        }
    }
}

/// Why a server's tools could not be listed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// A `${VAR}` of its address is not set.
    #[error("the environment variable {0} is not set")]
    EnvMissing(String),
    /// It could not be started or reached, or did not answer in time.
    #[error("{address}: {reason}")]
    StartFailed {
        /// The command line or URL, expanded.
        address: String,
        /// What went wrong, in the server's own words where it left some.
        reason: String,
    },
}

/// Starts (or reaches) the server at `address`, lists its tools and stops it; starting and
/// listing may each take `timeout`. The variables `env_names` names that `env` sets are handed
/// to a stdio server; a failure says which of them were not set.
pub async fn list_tools(
    address: &ServerAddress,
    env_names: &[String],
    env: &Env,
    timeout: Duration,
) -> Result<Vec<ListedTool>, ListError> {
    let endpoint = match address {
        ServerAddress::Stdio { command, args } => Endpoint::stdio(command, args, env),
        ServerAddress::Http { url } => Endpoint::http(url, env),
    }
    .map_err(ListError::EnvMissing)?;
    let pairs: Vec<(String, String)> = env_names
        .iter()
        .filter_map(|name| env.get(name).map(|value| (name.clone(), value)))
        .collect();
    let unset: Vec<&str> = env_names
        .iter()
        .map(String::as_str)
        .filter(|name| env.get(name).is_none())
        .collect();
    let failed = |reason: String| ListError::StartFailed {
        address: endpoint.to_string(),
        reason: if unset.is_empty() {
            reason
        } else {
            format!(
                "{reason}; the variables {} it needs are not set",
                unset.join(", ")
            )
        },
    };
    // Nothing here belongs to an application, so no application clock: the system's.
    let clock = Clock::system();
    let live = Live::open(&endpoint, &pairs, &clock, timeout, Elicitor::declining())
        .await
        .map_err(failed)?;
    let listed = live.list_tools(&clock, timeout).await;
    live.stop().await;
    let listed = listed.and_then(|listed| listed).map_err(failed)?;
    Ok(listed.iter().map(listed_tool).collect())
}

/// A listed tool as plain data.
fn listed_tool(tool: &rmcp::model::Tool) -> ListedTool {
    let annotations = tool.annotations.as_ref();
    ListedTool {
        name: tool.name.to_string(),
        title: tool
            .title
            .clone()
            .or_else(|| annotations.and_then(|a| a.title.clone())),
        description: tool.description.as_ref().map(ToString::to_string),
        input_schema: Value::Object((*tool.input_schema).clone()),
        claims: annotations.map(claims_of).unwrap_or_default(),
    }
}

/// The hints of `annotations` the server set, as `name=value`.
fn claims_of(annotations: &rmcp::model::ToolAnnotations) -> Vec<String> {
    [
        ("readOnlyHint", annotations.read_only_hint),
        ("destructiveHint", annotations.destructive_hint),
        ("idempotentHint", annotations.idempotent_hint),
        ("openWorldHint", annotations.open_world_hint),
    ]
    .into_iter()
    .filter_map(|(name, value)| value.map(|v| format!("{name}={v}")))
    .collect()
}
