//! [`ToolOrigin`]: where a tool's work is done, said without naming the transport's types, so
//! that the tool layer stays under the layers that reach other programs (MCP).

use std::any::Any;
use std::fmt;

/// Where a tool's work is done: in this program, or by a tool of another program that it
/// forwards to (a tool of an MCP server, for an `#[mcp_tool]`).
#[derive(Clone, Copy, Debug, Default)]
pub enum ToolOrigin {
    /// Its own code, in this program.
    #[default]
    Local,
    /// A tool of another program.
    Remote(RemoteTool),
}

impl ToolOrigin {
    /// `local`, or the server's name: the `source` spans, hooks and `describe` print.
    pub fn source(&self) -> &'static str {
        match self {
            ToolOrigin::Local => "local",
            ToolOrigin::Remote(remote) => remote.server,
        }
    }

    /// The remote tool, if the tool forwards to one.
    pub fn remote(&self) -> Option<&RemoteTool> {
        match self {
            ToolOrigin::Local => None,
            ToolOrigin::Remote(remote) => Some(remote),
        }
    }
}

/// A tool of another program: the protocol it is reached by, the server, the server's own name
/// for the tool, and the server's declaration, which only the layer that speaks the protocol
/// reads.
#[derive(Clone, Copy)]
pub struct RemoteTool {
    protocol: &'static str,
    server: &'static str,
    tool: &'static str,
    declaration: &'static (dyn Any + Send + Sync),
}

impl RemoteTool {
    /// Tool `tool` of server `server` (declared by `declaration`), reached by `protocol`.
    pub const fn new(
        protocol: &'static str,
        server: &'static str,
        tool: &'static str,
        declaration: &'static (dyn Any + Send + Sync),
    ) -> RemoteTool {
        RemoteTool {
            protocol,
            server,
            tool,
            declaration,
        }
    }

    /// The protocol: `mcp`.
    pub fn protocol(&self) -> &'static str {
        self.protocol
    }

    /// The server's name.
    pub fn server(&self) -> &'static str {
        self.server
    }

    /// The server's own name for the tool (`read_text_file`); models never see it.
    pub fn tool(&self) -> &'static str {
        self.tool
    }

    /// The server's declaration, if it is a `D`.
    pub fn declaration<D: Any>(&self) -> Option<&'static D> {
        self.declaration.downcast_ref::<D>()
    }
}

impl fmt::Debug for RemoteTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RemoteTool")
            .field("protocol", &self.protocol)
            .field("server", &self.server)
            .field("tool", &self.tool)
            .finish_non_exhaustive()
    }
}
