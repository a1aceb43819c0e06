//! Listing a server's tools (the server is started, asked for `tools/list` and stopped), picking
//! the ones asked for, and formatting the generated module with rustfmt.

use std::io::Write as _;
use std::process::{Command, Stdio};
use std::time::Duration;

use agboss_core::base::Env;
use agboss_core::mcp::{ListError, ListedTool, ServerAddress};

use super::{GenerateError, ServerSpec, ServerTransport, generate};

/// What `agboss g mcp` asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// The server.
    pub spec: ServerSpec,
    /// The server's tools to generate, by the server's names; empty for all of them.
    pub tools: Vec<String>,
    /// The server's tools to leave out.
    pub exclude: Vec<String>,
    /// How long the server may take to start and list its tools.
    pub timeout: Duration,
}

/// A generated module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Generated {
    /// The Rust code.
    pub code: String,
    /// The server's tools it calls, sorted.
    pub tools: Vec<String>,
    /// Whether rustfmt formatted it (else it is as generated, which is laid out the same way
    /// in the common cases).
    pub formatted: bool,
}

/// Starts the server, lists its tools and stops it; starting and listing may each take
/// `timeout`. `${VAR}`s in the command, its arguments or the URL are read from `env`; the
/// variables of [`ServerSpec::env_names`] that `env` sets are handed to a stdio server.
pub async fn list_tools(
    spec: &ServerSpec,
    env: &Env,
    timeout: Duration,
) -> Result<Vec<ListedTool>, GenerateError> {
    let address = match &spec.transport {
        ServerTransport::Stdio { command, args } => ServerAddress::Stdio {
            command: command.clone(),
            args: args.clone(),
        },
        ServerTransport::Http { url } => ServerAddress::Http { url: url.clone() },
    };
    agboss_core::mcp::list_tools(&address, &spec.env_names(), env, timeout)
        .await
        .map_err(|error| match error {
            ListError::EnvMissing(variable) => GenerateError::EnvMissing {
                server: spec.name.clone(),
                variable,
            },
            ListError::StartFailed { address, reason } => GenerateError::StartFailed {
                server: spec.name.clone(),
                command: address,
                reason,
            },
        })
}

/// The tools of `listed` the request asks for: those `--tool` names (all when none), minus those
/// `--exclude` names. A name the server does not offer is an error; a tool the server lists
/// twice is taken once.
pub fn pick(request: &Request, listed: Vec<ListedTool>) -> Result<Vec<ListedTool>, GenerateError> {
    let server = &request.spec.name;
    let mut offered: Vec<String> = listed.iter().map(|t| t.name.clone()).collect();
    offered.sort_unstable();
    offered.dedup();
    for tool in request.tools.iter().chain(&request.exclude) {
        if !offered.contains(tool) {
            return Err(GenerateError::ToolMissing {
                server: server.clone(),
                tool: tool.clone(),
                offered: if offered.is_empty() {
                    "none".into()
                } else {
                    offered.join(", ")
                },
            });
        }
    }
    let mut picked: Vec<ListedTool> = Vec::new();
    for tool in listed {
        let wanted = request.tools.is_empty() || request.tools.contains(&tool.name);
        if wanted
            && !request.exclude.contains(&tool.name)
            && !picked.iter().any(|p| p.name == tool.name)
        {
            picked.push(tool);
        }
    }
    if picked.is_empty() {
        let detail = if offered.is_empty() {
            " (it lists none)"
        } else {
            " (every one is excluded)"
        };
        return Err(GenerateError::NoTools {
            server: server.clone(),
            detail: detail.into(),
        });
    }
    Ok(picked)
}

/// Lists the server's tools, picks those asked for, generates the module and formats it.
pub async fn from_server(request: &Request, env: &Env) -> Result<Generated, GenerateError> {
    // The spec is checked before a server is started for nothing.
    super::check_spec(&request.spec)?;
    let listed = list_tools(&request.spec, env, request.timeout).await?;
    let picked = pick(request, listed)?;
    let code = generate(&request.spec, &picked)?;
    let mut tools: Vec<String> = picked.into_iter().map(|t| t.name).collect();
    tools.sort();
    let formatted = format_source(&code);
    Ok(Generated {
        formatted: formatted.is_some(),
        code: formatted.unwrap_or(code),
        tools,
    })
}

/// [`from_server`] on a runtime of its own, in a thread of its own (so that it also works when
/// called from inside another runtime).
pub fn from_server_blocking(request: &Request, env: &Env) -> Result<Generated, GenerateError> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| {
                        GenerateError::Other(format!("could not start a Tokio runtime: {e}"))
                    })?;
                runtime.block_on(from_server(request, env))
            })
            .join()
            .unwrap_or_else(|_| Err(GenerateError::Other("the generator panicked".into())))
    })
}

/// `code` formatted by rustfmt (`$RUSTFMT`, else `rustfmt` on `PATH`, edition 2024), or `None`
/// when rustfmt is not there or refuses it.
pub fn format_source(code: &str) -> Option<String> {
    let rustfmt = std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into());
    let mut child = Command::new(rustfmt)
        .args(["--edition", "2024"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = code.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    let written = writer.join().ok().and_then(Result::ok);
    let text = String::from_utf8(output.stdout).ok()?;
    (output.status.success() && written.is_some() && !text.trim().is_empty()).then_some(text)
}
