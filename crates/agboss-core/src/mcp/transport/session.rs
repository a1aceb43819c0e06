//! What a session says of itself in its `initialize` request: the protocol revision it asks
//! for and the client's name and version. Pinned here, once, for stdio and HTTP sessions alike.

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};

/// The MCP protocol revision every session asks for in its `initialize` request.
///
/// Pinned rather than left to the SDK. rmcp's default is the newest revision it knows
/// (`2026-07-28`), which has no `initialize` handshake any more: its lifecycle travels in each
/// request's metadata. Servers of today (the reference servers, the official conformance
/// suite) speak the handshake and expect a revision that has it, so a session started with
/// the SDK's default is refused or answered with a downgrade (the conformance suite's
/// `initialize` scenario fails with `Version mismatch: expected 2025-11-25`). This is the
/// newest revision with the handshake; a server that only knows an older one answers with
/// that one, as the handshake allows. Move it forward when agboss supports a newer revision
/// and the servers it is tested against do too (docs/mcp.md, "Protocol version").
pub const PROTOCOL_VERSION: &str = "2025-11-25";

/// The name a session introduces itself with (`clientInfo.name` of `initialize`).
pub const CLIENT_NAME: &str = "agboss";

/// The version a session introduces itself with (`clientInfo.version`): agboss's own.
pub const CLIENT_VERSION: &str = env!("CARGO_PKG_VERSION");

/// [`PROTOCOL_VERSION`] as the SDK's type: one of the revisions it knows.
fn protocol_version() -> ProtocolVersion {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .find(|known| known.as_str() == PROTOCOL_VERSION)
        .cloned()
        .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// The `initialize` parameters of a session offering `capabilities`.
pub(crate) fn client_config(capabilities: ClientCapabilities) -> ClientConfig {
    ClientConfig::new(
        capabilities,
        Implementation::new(CLIENT_NAME, CLIENT_VERSION),
    )
    .with_protocol_version(protocol_version())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pinned_version_is_one_the_sdk_knows_and_has_the_handshake() {
        let version = protocol_version();
        assert_eq!(version.as_str(), PROTOCOL_VERSION);
        assert!(version.has_initialize());
    }

    #[test]
    fn sessions_introduce_themselves_as_agboss() {
        let config = client_config(ClientCapabilities::default());
        assert_eq!(config.protocol_version.as_str(), "2025-11-25");
        assert_eq!(config.client_info.name, "agboss");
        assert_eq!(config.client_info.version, env!("CARGO_PKG_VERSION"));
    }
}
