//! The application's MCP servers: started together and checked, or on first use; stopped with
//! the application.

use std::sync::Arc;

use super::Application;
use crate::base::{AssemblyError, Problem};
use crate::mcp::{McpConnection, McpError, McpHub, McpServer, McpServerDescriptor};

impl Application {
    /// The connection to MCP server `S`: started on first use (or by
    /// [`start_mcp_servers`](Self::start_mcp_servers)), shared by every execution.
    pub fn mcp_server<S: McpServer>(&self) -> Arc<McpConnection> {
        self.mcp().connection(S::DESCRIPTOR)
    }

    /// The MCP servers' connections.
    pub(crate) fn mcp(&self) -> Arc<McpHub> {
        self.assembly
            .providers()
            .get::<McpHub>()
            .expect("assembly provides the MCP hub")
    }

    /// Starts every MCP server the application's tools call and checks that each offers the
    /// tools its declaration names; every problem at once (`[mcp.start-failed]`,
    /// `[mcp.tool-missing]`, `[mcp.env-missing]`). Without this call servers start on first use
    /// and a problem is the error of the call that needed them.
    pub async fn start_mcp_servers(&self) -> Result<(), AssemblyError> {
        let failures = self.mcp().start(self.used_mcp_servers()).await;
        if failures.is_empty() {
            return Ok(());
        }
        let problems = failures.iter().map(mcp_problem).collect();
        Err(AssemblyError::new(self.name().to_owned(), problems))
    }

    /// Every MCP server a workflow's tools call, each once, sorted by name.
    fn used_mcp_servers(&self) -> Vec<&'static McpServerDescriptor> {
        let mut servers: Vec<_> = self
            .workflows()
            .iter()
            .flat_map(|w| w.mcp_servers().iter().copied())
            .collect();
        servers.sort_by_key(|s| (s.name(), std::ptr::from_ref(*s) as usize));
        servers.dedup_by_key(|s| std::ptr::from_ref(*s) as usize);
        servers
    }

    /// `[mcp.env-missing]` for each variable a used server needs that is not set.
    pub(super) fn missing_mcp_env(&self) -> Vec<Problem> {
        self.mcp()
            .missing_env(self.used_mcp_servers())
            .iter()
            .map(mcp_problem)
            .collect()
    }
}

/// An MCP failure as an assembly problem.
fn mcp_problem(error: &McpError) -> Problem {
    Problem::new(error.code(), error.message())
}
