//! `agboss g mcp`: Rust code for an MCP server's tools, one `#[mcp_server]` and one
//! `#[mcp_tool]` per server tool, with input DTOs generated from the tools' input JSON Schemas
//! and `PlainText` output.
//!
//! [`generate`] is pure: it takes the server's tools as data ([`ListedTool`]).
//! [`from_server`] connects to the server, lists its tools, picks the ones asked for and
//! generates (and formats) the module. docs/mcp-generate.md has the naming rules and the
//! mapping from JSON Schema to Rust.
//!
//! ```
//! use agboss_cli::mcp::{ListedTool, ServerSpec, ServerTransport, generate};
//!
//! let spec = ServerSpec::new("everything", ServerTransport::Stdio {
//!     command: "npx".into(),
//!     args: vec!["-y".into(), "@modelcontextprotocol/server-everything".into(), "stdio".into()],
//! });
//! let echo = ListedTool::new("echo", serde_json::json!({
//!     "type": "object",
//!     "properties": {"message": {"type": "string", "description": "Message to echo"}},
//!     "required": ["message"],
//! }));
//! let code = generate(&spec, &[echo]).unwrap();
//! assert!(code.contains("pub struct EchoInput {"));
//! assert!(code.contains("name = \"echo-tool\","));
//! ```

mod list;
mod names;
mod render;
mod schema;
mod spec;
mod types;

use std::fmt::Write as _;

use agboss_rules::codes;
use std::time::Duration;

pub use agboss_core::mcp::ListedTool;
pub use list::{
    Generated, Request, format_source, from_server, from_server_blocking, list_tools, pick,
};
pub use names::{MAX_TOOL_NAME_LEN, tool_names};
pub use spec::{ServerSpec, ServerTransport};

use names::{Taken, pascal};
use render::{attribute, list as render_list, literal};
use schema::Mapper;
use spec::check_spec;
use types::TypeDef;

/// How long a server may take to start and list its tools, unless told otherwise: as long as
/// an application gives its servers.
pub const DEFAULT_START_TIMEOUT: Duration = agboss_core::mcp::START_TIMEOUT;

/// Why code could not be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
#[non_exhaustive]
pub enum GenerateError {
    /// An option is not usable in the generated code.
    Invalid(String),
    /// A `${VAR}` in the command, its arguments or the URL is not set.
    EnvMissing {
        /// The server.
        server: String,
        /// The variable.
        variable: String,
    },
    /// The server could not be started or did not answer.
    StartFailed {
        /// The server.
        server: String,
        /// The command line or URL.
        command: String,
        /// What went wrong.
        reason: String,
    },
    /// A tool asked for (`--tool` or `--exclude`) is not one the server offers.
    ToolMissing {
        /// The server.
        server: String,
        /// The tool asked for.
        tool: String,
        /// What it offers.
        offered: String,
    },
    /// No tool is left to generate.
    NoTools {
        /// The server.
        server: String,
        /// Why, when known.
        detail: String,
    },
    /// Something else failed (the runtime, the protocol).
    Other(String),
}

impl GenerateError {
    /// `[code] message`, the code and template from the catalogue.
    fn render(&self) -> String {
        let (code, message) = match self {
            GenerateError::Invalid(detail) => (
                &codes::MCP_GENERATE_INVALID,
                codes::MCP_GENERATE_INVALID.fill(&[("detail", detail)]),
            ),
            GenerateError::EnvMissing { server, variable } => (
                &codes::MCP_ENV_MISSING,
                codes::MCP_ENV_MISSING.fill(&[("server", server), ("variable", variable)]),
            ),
            GenerateError::StartFailed {
                server,
                command,
                reason,
            } => (
                &codes::MCP_START_FAILED,
                codes::MCP_START_FAILED.fill(&[
                    ("server", server),
                    ("command", command),
                    ("reason", reason),
                ]),
            ),
            GenerateError::ToolMissing {
                server,
                tool,
                offered,
            } => (
                &codes::MCP_TOOL_MISSING,
                codes::MCP_TOOL_MISSING.fill(&[
                    ("server", server),
                    ("tool", tool),
                    ("named_by", &"asked for"),
                    ("offered", offered),
                ]),
            ),
            GenerateError::NoTools { server, detail } => (
                &codes::MCP_GENERATE_NO_TOOLS,
                codes::MCP_GENERATE_NO_TOOLS.fill(&[("server", server), ("detail", detail)]),
            ),
            GenerateError::Other(detail) => return detail.clone(),
        };
        format!("[{}] {message}", code.id())
    }
}

/// The Rust module for `tools` of the server `spec`: its `#[mcp_server]`, and for each tool
/// its input DTOs and its `#[mcp_tool]` struct (whose handler the macro writes). The tools come out
/// sorted by the server's names; the text is laid out as rustfmt would.
pub fn generate(spec: &ServerSpec, tools: &[ListedTool]) -> Result<String, GenerateError> {
    check_spec(spec)?;
    let mut tools: Vec<&ListedTool> = tools.iter().collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    if tools.is_empty() {
        return Err(GenerateError::NoTools {
            server: spec.name.clone(),
            detail: String::new(),
        });
    }
    if let Some(pair) = tools.windows(2).find(|pair| pair[0].name == pair[1].name) {
        return Err(GenerateError::Invalid(format!(
            "server `{}` lists the tool `{}` twice",
            spec.name, pair[0].name
        )));
    }
    let server_type = spec.server_type();
    let mut types = Taken::types();
    if !types.is_free(&server_type) {
        return Err(GenerateError::Invalid(format!(
            "the server type cannot be named `{server_type}`: the generated code uses that name"
        )));
    }
    types.insert(server_type.clone());
    let server_names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let tool_names = names::tool_names(&server_names);
    // Every tool's `<Stem>Tool` and `<Stem>Input` are claimed before any nested type is named.
    let stems: Vec<String> = tool_names
        .iter()
        .map(|name| {
            let base = pascal(name.strip_suffix("-tool").unwrap_or(name));
            let mut stem = base.clone();
            let mut n = 2;
            while !types.is_free(&format!("{stem}Tool")) || !types.is_free(&format!("{stem}Input"))
            {
                stem = format!("{base}{n}");
                n += 1;
            }
            types.insert(format!("{stem}Tool"));
            types.insert(format!("{stem}Input"));
            stem
        })
        .collect();
    let mut body = String::new();
    let mut uses_value = false;
    let _ = write!(body, "{}", server(spec, &server_type, &server_names));
    for ((tool, name), stem) in tools.iter().zip(&tool_names).zip(&stems) {
        let defs = Mapper::new(&tool.input_schema, &tool.name, stem, &mut types)
            .input(&format!("{stem}Input"));
        uses_value |= defs.iter().any(|def| match def {
            TypeDef::Struct { fields, .. } => fields.iter().any(|f| f.ty.uses_value()),
            TypeDef::Enum { .. } => false,
        });
        for def in &defs {
            body.push('\n');
            body.push_str(&render::type_def(def));
        }
        body.push('\n');
        body.push_str(&tool_item(spec, &server_type, tool, name, stem));
    }
    Ok(format!(
        "{}\nuse agboss::prelude::*;\n\n{body}",
        header(spec, tools.len(), uses_value)
    ))
}

/// The header comment: where the file comes from and the rules its names follow.
fn header(spec: &ServerSpec, count: usize, uses_value: bool) -> String {
    let mut text = format!(
        "Generated by `agboss g mcp` from the MCP server `{}` ({count} tool{}). Regenerating \
         overwrites this file.\n\
         \n\
         Names: the server's tool `x_y` (or `xY`) is the tool `x-y-tool`: kebab-case, letters \
         outside ASCII transliterated or dropped, at most {MAX_TOOL_NAME_LEN} characters; \
         collisions get `-2`, `-3`, ... before `-tool`, in the order of the server's names. Its \
         Rust types are `XYTool` and `XYInput`, nested DTOs `XY<Field>` (array items \
         `XY<Field>Item`, `$defs` `XY<Def>`), numbered on collisions. Fields are snake_case \
         (`type_` for a keyword), renamed to the server's property names; optional ones are \
         `Option`s. See docs/mcp-generate.md.",
        spec.name,
        if count == 1 { "" } else { "s" },
    );
    if uses_value {
        text.push_str(
            "\n\nSchemas it does not map are `agboss::dto::Value`: any JSON, unchecked \
             until the server reads it.",
        );
    }
    wrap_comment(&text)
}

/// `//` lines of at most 100 columns.
fn wrap_comment(text: &str) -> String {
    let mut out = String::new();
    for paragraph in text.split('\n') {
        let mut line = String::from("//");
        for word in paragraph.split_whitespace() {
            if line.len() + 1 + word.len() > 100 && line.len() > 2 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("//");
            }
            line.push(' ');
            line.push_str(word);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The `#[mcp_server]` item.
fn server(spec: &ServerSpec, server_type: &str, tools: &[&str]) -> String {
    let mut out = format!("/// The MCP server `{}`.\n#[mcp_server(\n", spec.name);
    let _ = writeln!(out, "    name = {},", literal(&spec.name));
    match &spec.transport {
        ServerTransport::Stdio { command, args } => {
            let _ = writeln!(out, "    command = {},", literal(command));
            if !args.is_empty() {
                out.push_str(&render_list("args", args, "    "));
            }
        }
        ServerTransport::Http { url } => {
            let _ = writeln!(out, "    url = {},", literal(url));
        }
    }
    let env = spec.env_names();
    if !env.is_empty() {
        out.push_str(&render_list("env", &env, "    "));
    }
    let tools: Vec<String> = tools.iter().map(|t| (*t).to_owned()).collect();
    out.push_str(&render_list("tools", &tools, "    "));
    let _ = writeln!(out, ")]\npub struct {server_type};");
    out
}

/// The `#[mcp_tool]` struct: its attribute names the input and output, so the macro writes
/// the handler that forwards the input to the server's tool.
fn tool_item(
    spec: &ServerSpec,
    server_type: &str,
    tool: &ListedTool,
    name: &str,
    stem: &str,
) -> String {
    let description = [tool.description.as_deref(), tool.title.as_deref()]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|d| !d.is_empty())
        .map_or_else(
            || format!("Calls `{}` on server `{}`", tool.name, spec.name),
            str::to_owned,
        );
    let input = format!("{stem}Input");
    let mut pairs = vec![
        ("name", literal(name)),
        ("description", literal(&description)),
        ("server", server_type.to_owned()),
        ("calls", literal(&tool.name)),
        ("input", input),
        ("output", "PlainText".to_owned()),
    ];
    // What the server says of its tool is shown, never believed: `read_only` and
    // `capabilities` are the user's to declare.
    if !tool.claims.is_empty() {
        let claims: Vec<String> = tool.claims.iter().map(|c| literal(c)).collect();
        pairs.push(("server_claims", format!("[{}]", claims.join(", "))));
    }
    let mut out = format!(
        "/// Calls `{}` on the MCP server `{}`.\n",
        render::one_line(&tool.name).replace('`', "'"),
        spec.name
    );
    out.push_str(&attribute("mcp_tool", &pairs));
    let _ = writeln!(out, "pub struct {stem}Tool;");
    out
}

#[cfg(test)]
mod tests;
