//! [`McpError`]: why a server could not be used, said so that the reader knows what to do.

/// Why an MCP server could not serve a call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// A variable its declaration names is not set.
    #[error(
        "[mcp.env-missing] server `{server}` needs the environment variable {variable}, which is not set"
    )]
    EnvMissing {
        /// The server.
        server: &'static str,
        /// The variable.
        variable: String,
    },
    /// Its program could not be started (not installed, not on `PATH`).
    #[error("[mcp.start-failed] server `{server}` could not be started ({command}): {reason}")]
    StartFailed {
        /// The server.
        server: &'static str,
        /// The command line or URL.
        command: String,
        /// What went wrong, with what the server wrote on stderr.
        reason: String,
    },
    /// It does not offer a tool its declaration names.
    #[error(
        "[mcp.tool-missing] server `{server}` does not offer the tool `{tool}` its declaration names (it offers: {offered})"
    )]
    ToolMissing {
        /// The server.
        server: &'static str,
        /// The missing tool.
        tool: String,
        /// What it offers.
        offered: String,
    },
    /// A call names a tool the server's declaration does not.
    #[error(
        "[mcp.undeclared-tool] server `{server}` is not declared with the tool `{tool}`: add it to `tools = [..]` of its #[mcp_server]"
    )]
    Undeclared {
        /// The server.
        server: &'static str,
        /// The tool.
        tool: String,
    },
    /// It stopped, or broke the protocol, during the call; the next call starts it again.
    #[error("[mcp.server-stopped] server `{server}` stopped during the call: {reason}")]
    Stopped {
        /// The server.
        server: &'static str,
        /// Why: its exit, its last words on stderr, or what it wrote that was not MCP.
        reason: String,
    },
    /// It answered with something its tool's output type does not read.
    #[error("server `{server}` answered `{tool}` with {what}")]
    Unreadable {
        /// The server.
        server: &'static str,
        /// The tool.
        tool: String,
        /// What was wrong.
        what: String,
    },
    /// The protocol failed another way (an MCP error response, a timeout of the SDK).
    #[error("server `{server}`: {detail}")]
    Protocol {
        /// The server.
        server: &'static str,
        /// The SDK's words.
        detail: String,
    },
}

impl McpError {
    /// Its code, the one its message starts with in brackets (`mcp.start-failed`); `mcp` for the
    /// errors that have none of their own.
    pub fn code(&self) -> &'static str {
        match self {
            McpError::EnvMissing { .. } => "mcp.env-missing",
            McpError::StartFailed { .. } => "mcp.start-failed",
            McpError::ToolMissing { .. } => "mcp.tool-missing",
            McpError::Undeclared { .. } => "mcp.undeclared-tool",
            McpError::Stopped { .. } => "mcp.server-stopped",
            McpError::Unreadable { .. } | McpError::Protocol { .. } => "mcp",
        }
    }

    /// Its message without the bracketed code.
    pub(crate) fn message(&self) -> String {
        let text = self.to_string();
        match text.strip_prefix(&format!("[{}] ", self.code())) {
            Some(message) => message.to_owned(),
            None => text,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::McpError;

    #[test]
    fn each_code_is_the_one_its_message_starts_with() {
        let server = "notes-fs";
        let coded = [
            McpError::EnvMissing {
                server,
                variable: "NOTES_DIR".into(),
            },
            McpError::StartFailed {
                server,
                command: "npx".into(),
                reason: "`npx` was not found".into(),
            },
            McpError::ToolMissing {
                server,
                tool: "read".into(),
                offered: "write".into(),
            },
            McpError::Undeclared {
                server,
                tool: "read".into(),
            },
            McpError::Stopped {
                server,
                reason: "the process exited".into(),
            },
        ];
        for error in coded {
            let text = error.to_string();
            assert_eq!(
                format!("[{}] {}", error.code(), error.message()),
                text,
                "{text}"
            );
        }
        assert_eq!(
            McpError::EnvMissing {
                server,
                variable: "NOTES_DIR".into()
            }
            .message(),
            "server `notes-fs` needs the environment variable NOTES_DIR, which is not set"
        );
        let protocol = McpError::Protocol {
            server,
            detail: "tools/list failed".into(),
        };
        assert_eq!(protocol.code(), "mcp");
        assert_eq!(protocol.message(), "server `notes-fs`: tools/list failed");
    }
}
