//! The MCP server behind its own OAuth authorization server
//! (`fixtures/mcp/expiring_oauth_server.py`), started for a test and stopped however it ends.

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// The running server and its MCP endpoint's URL.
pub struct OAuthServer {
    child: Child,
    /// `http://127.0.0.1:<port>/mcp`.
    pub url: String,
}

impl OAuthServer {
    /// A server whose client-credentials client `desk` has `secret`, whose tokens live
    /// `lifetime` seconds, logging its grants and sessions to `log`.
    pub fn start(secret: &str, lifetime: u32, log: &Path) -> OAuthServer {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/expiring_oauth_server.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(secret)
            .arg(lifetime.to_string())
            .arg(log)
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs the OAuth server");
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        OAuthServer {
            child,
            url: url.trim().to_owned(),
        }
    }
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
