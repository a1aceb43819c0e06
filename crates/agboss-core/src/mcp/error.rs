//! [`McpError`]: why a server could not be used, said so that the reader knows what to do.

use agboss_rules::codes::{self, Code};

/// Why an MCP server could not serve a call.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
#[non_exhaustive]
pub enum McpError {
    /// A variable its declaration names is not set.
    EnvMissing {
        /// The server.
        server: &'static str,
        /// The variable.
        variable: String,
    },
    /// Its program could not be started (not installed, not on `PATH`).
    StartFailed {
        /// The server.
        server: &'static str,
        /// The command line or URL.
        command: String,
        /// What went wrong, with what the server wrote on stderr.
        reason: String,
    },
    /// It does not offer a tool its declaration names.
    ToolMissing {
        /// The server.
        server: &'static str,
        /// The missing tool.
        tool: String,
        /// What it offers.
        offered: String,
    },
    /// A call names a tool the server's declaration does not.
    Undeclared {
        /// The server.
        server: &'static str,
        /// The tool.
        tool: String,
    },
    /// It stopped, or broke the protocol, during the call; the next call starts it again.
    Stopped {
        /// The server.
        server: &'static str,
        /// Why: its exit, its last words on stderr, or what it wrote that was not MCP.
        reason: String,
    },
    /// It answered with something its tool's output type does not read.
    Unreadable {
        /// The server.
        server: &'static str,
        /// The tool.
        tool: String,
        /// What was wrong.
        what: String,
    },
    /// The server asked for input during the call (elicitation), and the call stops there:
    /// the answer waits for a person (the run pauses; the call runs again once answered), or
    /// the question could not be asked.
    Elicitation {
        /// The server.
        server: &'static str,
        /// Why the call stops.
        detail: String,
    },
    /// The server changed the tool's definition since it was approved (its pin): the call was
    /// not sent, and the tool stays disabled until a person approves the new definition.
    DefinitionChanged {
        /// The server.
        server: &'static str,
        /// The server's tool.
        tool: String,
    },
    /// It failed several times in a row (a start, or a session that broke during a call), and
    /// is not started again before its backoff ends.
    BackingOff {
        /// The server.
        server: &'static str,
        /// Its failures in a row.
        failures: u32,
        /// How long until it may be started again.
        wait: std::time::Duration,
        /// The last failure's message.
        last: String,
    },
    /// The protocol failed another way (an MCP error response, a timeout of the SDK).
    Protocol {
        /// The server.
        server: &'static str,
        /// The SDK's words.
        detail: String,
    },
}

impl McpError {
    /// Its code in the catalogue: the one its message starts with in brackets
    /// (`mcp.start-failed`); `mcp` for the errors that have none of their own.
    pub fn code(&self) -> &'static Code {
        match self {
            McpError::EnvMissing { .. } => &codes::MCP_ENV_MISSING,
            McpError::StartFailed { .. } => &codes::MCP_START_FAILED,
            McpError::ToolMissing { .. } => &codes::MCP_TOOL_MISSING,
            McpError::Undeclared { .. } => &codes::MCP_UNDECLARED_TOOL,
            McpError::Stopped { .. } => &codes::MCP_SERVER_STOPPED,
            McpError::Elicitation { .. } => &codes::MCP_ELICITATION,
            McpError::DefinitionChanged { .. } => &codes::MCP_DEFINITION_CHANGED,
            McpError::BackingOff { .. } => &codes::MCP_RESTART_BACKOFF,
            McpError::Unreadable { .. } | McpError::Protocol { .. } => &codes::MCP,
        }
    }

    /// Its message without the bracketed code.
    pub fn message(&self) -> String {
        let code = self.code();
        match self {
            McpError::EnvMissing { server, variable } => {
                code.fill(&[("server", server), ("variable", variable)])
            }
            McpError::StartFailed {
                server,
                command,
                reason,
            } => code.fill(&[("server", server), ("command", command), ("reason", reason)]),
            McpError::ToolMissing {
                server,
                tool,
                offered,
            } => code.fill(&[
                ("server", server),
                ("tool", tool),
                ("named_by", &"its declaration names"),
                ("offered", offered),
            ]),
            McpError::Undeclared { server, tool } => code.fill(&[
                ("subject", &"this tool"),
                ("tool", tool),
                ("server", server),
            ]),
            McpError::BackingOff {
                server,
                failures,
                wait,
                last,
            } => code.fill(&[
                ("server", server),
                ("failures", failures),
                ("wait", &spoken(*wait)),
                ("last", last),
            ]),
            McpError::DefinitionChanged { server, tool } => {
                code.fill(&[("server", server), ("tool", tool)])
            }
            McpError::Stopped { server, reason } => {
                code.fill(&[("server", server), ("reason", reason)])
            }
            McpError::Unreadable { server, tool, what } => code.fill(&[
                ("server", server),
                ("detail", &format!("answered `{tool}` with {what}")),
            ]),
            McpError::Elicitation { server, detail } | McpError::Protocol { server, detail } => {
                code.fill(&[("server", server), ("detail", detail)])
            }
        }
    }

    /// `[code] message`, or the message alone for the errors without a code of their own.
    fn render(&self) -> String {
        match self {
            McpError::Unreadable { .. } | McpError::Protocol { .. } => self.message(),
            _ => format!("[{}] {}", self.code(), self.message()),
        }
    }
}

/// `wait` for a person: `1.5 s`, `250 ms`.
fn spoken(wait: std::time::Duration) -> String {
    if wait.as_secs() == 0 {
        format!("{} ms", wait.as_millis())
    } else if wait.subsec_millis() == 0 {
        format!("{} s", wait.as_secs())
    } else {
        format!("{:.1} s", wait.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::{McpError, spoken};

    #[test]
    fn waits_are_said_in_their_unit() {
        assert_eq!(spoken(Duration::from_millis(250)), "250 ms");
        assert_eq!(spoken(Duration::from_secs(2)), "2 s");
        assert_eq!(spoken(Duration::from_millis(1500)), "1.5 s");
    }

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
            McpError::Elicitation {
                server,
                detail: "the call waits for an answer".into(),
            },
            McpError::DefinitionChanged {
                server,
                tool: "read".into(),
            },
        ];
        for error in coded {
            let text = error.to_string();
            assert_eq!(
                format!("[{}] {}", error.code().id(), error.message()),
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
        assert_eq!(protocol.code().id(), "mcp");
        assert_eq!(protocol.message(), "server `notes-fs`: tools/list failed");
    }
}
