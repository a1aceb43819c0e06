//! Pinned MCP definitions (fault plan T20): what a store keeps of each MCP server tool an
//! application uses, so that a server that changes a tool after it was approved (a "rug pull")
//! is caught, and the rules every store applies to them.
//!
//! A pin is kept per application, server and tool. The first definition an application sees
//! of a tool is approved as it is (trust on first use); a later one that differs is recorded as
//! seen, and the tool stays disabled until a person approves it
//! ([`pin_after_approval`]). What a definition is and how it is hashed is the MCP layer's
//! business (docs/mcp.md, "Pinned definitions"); here a definition is its hash and its
//! canonical text.

use serde::{Deserialize, Serialize};

use super::{StoreError, StoreErrorKind};

/// One MCP server tool's pin in an application: the definition approved, and the one seen last.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpPin {
    /// The application whose pin it is (its name).
    pub application: String,
    /// The server, as its `#[mcp_server]` names it.
    pub server: String,
    /// The server's tool, by the server's name.
    pub tool: String,
    /// The hash of the definition approved (`sha256:<hex>`).
    pub approved_hash: String,
    /// The approved definition, as canonical JSON.
    pub approved_definition: String,
    /// When it was approved (pinned at first use, or approved by a person), in ms since the
    /// Unix epoch.
    pub approved_at_ms: u64,
    /// Who approved it: `None` when it was pinned at first use.
    pub approved_by: Option<String>,
    /// The hash of the definition the server gave last.
    pub seen_hash: String,
    /// That definition, as canonical JSON.
    pub seen_definition: String,
    /// When the server was first seen giving a definition other than the approved one, since it
    /// was last approved (`None`: it has not).
    pub changed_at_ms: Option<u64>,
}

impl McpPin {
    /// Whether the definition the server gave last is the approved one: calls of the tool may
    /// be sent. Otherwise it changed, and waits for a person's approval.
    pub fn is_approved(&self) -> bool {
        self.approved_hash == self.seen_hash
    }
}

/// A definition of a server tool an application saw: what a store records with
/// [`PinStore::see`](super::PinStore::see).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpDefinitionSeen {
    /// The application that saw it.
    pub application: String,
    /// The server.
    pub server: String,
    /// The server's tool.
    pub tool: String,
    /// The definition's hash.
    pub hash: String,
    /// The definition, as canonical JSON.
    pub definition: String,
    /// When, in ms since the Unix epoch.
    pub at_ms: u64,
}

/// A person's approval of the definition of a pinned tool the server gives now: what a store
/// records with [`PinStore::approve`](super::PinStore::approve).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpApproval {
    /// The application whose pin it is.
    pub application: String,
    /// The server.
    pub server: String,
    /// The server's tool.
    pub tool: String,
    /// The hash of the definition the person reviewed: approved only while it is the one seen
    /// last.
    pub hash: String,
    /// Who approves.
    pub by: Option<String>,
    /// When, in ms since the Unix epoch.
    pub at_ms: u64,
}

/// The rule every store applies when an application sees a definition: the pin to keep, given
/// the one `held` (`None`: the tool was never seen), or `None` when nothing changes (the
/// definition is the one seen last). A first sight is approved as it is; a definition other
/// than the approved one is kept as seen, the approved one staying; the approved one seen
/// again after a change is seen again (the tool may be called again, nobody had to approve).
pub fn pin_after_seen(held: Option<&McpPin>, seen: &McpDefinitionSeen) -> Option<McpPin> {
    let Some(held) = held else {
        return Some(McpPin {
            application: seen.application.clone(),
            server: seen.server.clone(),
            tool: seen.tool.clone(),
            approved_hash: seen.hash.clone(),
            approved_definition: seen.definition.clone(),
            approved_at_ms: seen.at_ms,
            approved_by: None,
            seen_hash: seen.hash.clone(),
            seen_definition: seen.definition.clone(),
            changed_at_ms: None,
        });
    };
    if held.seen_hash == seen.hash {
        return None;
    }
    let back = held.approved_hash == seen.hash;
    Some(McpPin {
        seen_hash: seen.hash.clone(),
        seen_definition: seen.definition.clone(),
        changed_at_ms: if back {
            None
        } else {
            held.changed_at_ms.or(Some(seen.at_ms))
        },
        ..held.clone()
    })
}

/// The rule every store applies when a person approves the definition of hash `hash` (the
/// one they reviewed) of a pinned tool: the pin to keep. Refused with
/// [`StoreErrorKind::Conflict`] when the server has given another definition since (the person
/// reviewed one that is no longer the server's), naming both hashes.
pub fn pin_after_approval(
    store: &str,
    held: &McpPin,
    approval: &McpApproval,
) -> Result<McpPin, StoreError> {
    let hash = &approval.hash;
    if held.seen_hash != *hash {
        return Err(StoreError::new(
            store,
            StoreErrorKind::Conflict,
            format!(
                "tool `{}` of server `{}`: the definition to approve is {hash}, but the server \
                 gave {} since: review that one and approve it",
                held.tool, held.server, held.seen_hash
            ),
        ));
    }
    Ok(McpPin {
        approved_hash: held.seen_hash.clone(),
        approved_definition: held.seen_definition.clone(),
        approved_at_ms: approval.at_ms,
        approved_by: approval.by.clone(),
        changed_at_ms: None,
        ..held.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(hash: &str, at_ms: u64) -> McpDefinitionSeen {
        McpDefinitionSeen {
            application: "desk".into(),
            server: "fs".into(),
            tool: "read".into(),
            hash: hash.into(),
            definition: format!("{{\"description\":\"{hash}\"}}"),
            at_ms,
        }
    }

    #[test]
    fn the_first_sight_is_approved_and_a_change_waits_for_a_person() {
        let first = pin_after_seen(None, &seen("a", 1)).unwrap();
        assert!(first.is_approved());
        assert_eq!(first.approved_by, None);
        assert_eq!(pin_after_seen(Some(&first), &seen("a", 2)), None);
        let changed = pin_after_seen(Some(&first), &seen("b", 3)).unwrap();
        assert!(!changed.is_approved());
        assert_eq!(
            (changed.approved_hash.as_str(), changed.changed_at_ms),
            ("a", Some(3))
        );
        let again = pin_after_seen(Some(&changed), &seen("c", 4)).unwrap();
        assert_eq!(
            again.changed_at_ms,
            Some(3),
            "changed since the first change"
        );
        let back = pin_after_seen(Some(&again), &seen("a", 5)).unwrap();
        assert!(back.is_approved());
        assert_eq!(back.changed_at_ms, None);
    }

    fn approval(hash: &str) -> McpApproval {
        McpApproval {
            application: "desk".into(),
            server: "fs".into(),
            tool: "read".into(),
            hash: hash.into(),
            by: Some("ann".into()),
            at_ms: 3,
        }
    }

    #[test]
    fn an_approval_takes_only_the_definition_seen_last() {
        let first = pin_after_seen(None, &seen("a", 1)).unwrap();
        let changed = pin_after_seen(Some(&first), &seen("b", 2)).unwrap();
        let stale = pin_after_approval("memory", &changed, &approval("c")).unwrap_err();
        assert_eq!(stale.kind, StoreErrorKind::Conflict);
        let approved = pin_after_approval("memory", &changed, &approval("b")).unwrap();
        assert!(approved.is_approved());
        assert_eq!(approved.approved_by.as_deref(), Some("ann"));
        assert_eq!(approved.approved_definition, changed.seen_definition);
        assert_eq!(approved.changed_at_ms, None);
    }
}
