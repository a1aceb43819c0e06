//! The cases of pinned MCP definitions (issue 17, fault plan T20): a tool's first definition
//! is pinned as approved, a later one that differs waits for a person, an approval takes only
//! the definition seen last, pins belong to one application, and racing first sights leave one
//! pin. The suite of every [`PinStore`].

use std::sync::Arc;

use agboss_core::store::{McpApproval, McpDefinitionSeen, McpPin, PinStore, StoreErrorKind};

use super::Backend;

fn seen(application: &str, tool: &str, hash: &str, at_ms: u64) -> McpDefinitionSeen {
    McpDefinitionSeen {
        application: application.into(),
        server: "notes-fs".into(),
        tool: tool.into(),
        hash: format!("sha256:{hash}"),
        definition: format!(r#"{{"description":"version {hash}","inputSchema":{{}}}}"#),
        at_ms,
    }
}

fn approval(tool: &str, hash: &str, at_ms: u64) -> McpApproval {
    McpApproval {
        application: "desk".into(),
        server: "notes-fs".into(),
        tool: tool.into(),
        hash: format!("sha256:{hash}"),
        by: Some("ann".into()),
        at_ms,
    }
}

fn tools(pins: &[McpPin]) -> Vec<(&str, &str, bool)> {
    pins.iter()
        .map(|p| (p.server.as_str(), p.tool.as_str(), p.is_approved()))
        .collect()
}

/// A first definition is pinned as approved; the same one again changes nothing; another is
/// kept as seen (the approved one stays) until a person approves the one seen last, which an
/// approval of any other hash cannot do (`Conflict`). Everything survives reopening the store.
pub async fn pins_a_first_definition_and_holds_a_changed_one_for_approval(
    mut backend: Box<dyn Backend<dyn PinStore>>,
) {
    let store = backend.open().await;
    assert_eq!(store.get("desk", "notes-fs", "read").await.unwrap(), None);
    assert_eq!(
        store.approve(&approval("read", "a", 1)).await.unwrap(),
        None
    );
    let first = store.see(&seen("desk", "read", "a", 10)).await.unwrap();
    assert!(first.is_approved());
    assert_eq!(
        (
            first.approved_hash.as_str(),
            first.approved_at_ms,
            first.approved_by.as_deref()
        ),
        ("sha256:a", 10, None)
    );
    let again = store.see(&seen("desk", "read", "a", 11)).await.unwrap();
    assert_eq!(again, first, "the same definition again changes nothing");
    let changed = store.see(&seen("desk", "read", "b", 12)).await.unwrap();
    assert!(!changed.is_approved());
    assert_eq!(changed.approved_hash, "sha256:a");
    assert_eq!(changed.seen_hash, "sha256:b");
    assert_eq!(
        changed.seen_definition,
        seen("desk", "read", "b", 0).definition
    );
    assert_eq!(changed.changed_at_ms, Some(12));
    assert_eq!(
        store.get("desk", "notes-fs", "read").await.unwrap(),
        Some(changed.clone())
    );
    let stale = store.approve(&approval("read", "a", 13)).await.unwrap_err();
    assert_eq!(stale.kind, StoreErrorKind::Conflict, "{stale}");
    assert_eq!(
        stale.detail,
        "tool `read` of server `notes-fs`: the definition to approve is sha256:a, but the \
         server gave sha256:b since: review that one and approve it"
    );
    drop(store);
    let store = backend.open().await;
    assert_eq!(
        store.get("desk", "notes-fs", "read").await.unwrap(),
        Some(changed.clone())
    );
    let approved = store
        .approve(&approval("read", "b", 14))
        .await
        .unwrap()
        .expect("a pin");
    assert!(approved.is_approved());
    assert_eq!(approved.approved_hash, "sha256:b");
    assert_eq!(approved.approved_definition, changed.seen_definition);
    assert_eq!(
        (approved.approved_at_ms, approved.approved_by.as_deref()),
        (14, Some("ann"))
    );
    assert_eq!(approved.changed_at_ms, None);
    drop(store);
    let store = backend.open().await;
    assert_eq!(
        store.get("desk", "notes-fs", "read").await.unwrap(),
        Some(approved)
    );
}

/// Pins belong to one application, and are listed by server, then tool.
pub async fn pins_belong_to_one_application(mut backend: Box<dyn Backend<dyn PinStore>>) {
    let store = backend.open().await;
    store.see(&seen("desk", "write", "w", 1)).await.unwrap();
    store.see(&seen("desk", "read", "a", 1)).await.unwrap();
    store.see(&seen("other", "read", "z", 1)).await.unwrap();
    store.see(&seen("desk", "read", "b", 2)).await.unwrap();
    let desk = store.list("desk").await.unwrap();
    assert_eq!(
        tools(&desk),
        [("notes-fs", "read", false), ("notes-fs", "write", true)]
    );
    let other = store.list("other").await.unwrap();
    assert_eq!(tools(&other), [("notes-fs", "read", true)]);
    assert_eq!(other[0].approved_hash, "sha256:z", "its own first sight");
    assert_eq!(store.list("nobody").await.unwrap(), []);
}

/// Applications racing to see different first definitions of one tool leave one pin, the
/// definition of one of them approved, and every racer reads that same approved hash back.
pub async fn racing_first_sights_leave_one_pin(mut backend: Box<dyn Backend<dyn PinStore>>) {
    const RACERS: usize = 8;
    let store = backend.open().await;
    let tasks: Vec<_> = (0..RACERS)
        .map(|i| {
            let store = Arc::clone(&store);
            tokio::spawn(async move {
                let seen = seen("desk", "race", &format!("h{i}"), 1);
                store.see(&seen).await.unwrap()
            })
        })
        .collect();
    let mut approved = Vec::new();
    for task in tasks {
        approved.push(task.await.expect("a racer").approved_hash);
    }
    approved.dedup();
    assert_eq!(approved.len(), 1, "one pin: {approved:?}");
    let pins = store.list("desk").await.unwrap();
    assert_eq!(pins.len(), 1);
    assert_eq!(pins[0].approved_hash, approved[0]);
}

/// One `#[test]` per case of the pins' suite against `backend` (an expression making a fresh
/// [`Backend<dyn PinStore>`](crate::conformance::Backend), evaluated once per case; a whole
/// store's backend is one, its pins found with [`Store::pins`](agboss_core::store::Store::pins)).
#[macro_export]
macro_rules! pin_store_conformance {
    ($backend:expr) => {
        $crate::__store_conformance_cases!(
            $backend;
            pins_a_first_definition_and_holds_a_changed_one_for_approval,
            pins_belong_to_one_application,
            racing_first_sights_leave_one_pin,
        );
    };
}
