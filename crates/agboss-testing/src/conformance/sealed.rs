//! The cases of sealed arguments: a call's unmasked arguments kept per execution and call, read
//! back byte for byte, never overwritten, kept across reopening, and forgotten one call or one
//! execution at a time. The suite of every [`SealStore`].

use agboss_core::store::{SealStore, SealedArguments};

use super::Backend;

fn sealed(execution_id: &str, call_id: &str, arguments: &str) -> SealedArguments {
    SealedArguments {
        execution_id: execution_id.into(),
        call_id: call_id.into(),
        arguments: arguments.into(),
    }
}

/// Arguments are read back whole (unicode and 100 KB included) by their execution and call
/// only; a second seal of a call leaves the first (a retry: a call's arguments never change);
/// everything survives reopening.
pub async fn keeps_sealed_arguments_per_call(mut backend: Box<dyn Backend<dyn SealStore>>) {
    let store = backend.open().await;
    let big = format!("{{\"note\":\"{}\"}}", "é".repeat(50_000));
    store.seal(&sealed("e-1", "call_0", &big)).await.unwrap();
    let mail = r#"{"to":"ada@example.com"}"#;
    store.seal(&sealed("e-1", "call_1", mail)).await.unwrap();
    store.seal(&sealed("e-2", "call_0", "{}")).await.unwrap();
    store
        .seal(&sealed("e-1", "call_1", r#"{"to":"other"}"#))
        .await
        .unwrap();

    assert_eq!(
        store.unseal("e-1", "call_0").await.unwrap(),
        Some(big.clone())
    );
    assert_eq!(
        store.unseal("e-1", "call_1").await.unwrap().as_deref(),
        Some(mail)
    );
    assert_eq!(
        store.unseal("e-2", "call_0").await.unwrap().as_deref(),
        Some("{}")
    );
    assert_eq!(
        store.unseal("e-2", "call_1").await.unwrap(),
        None,
        "another call"
    );
    assert_eq!(
        store.unseal("e-3", "call_0").await.unwrap(),
        None,
        "unknown"
    );

    drop(store);
    let store = backend.open().await;
    assert_eq!(store.unseal("e-1", "call_0").await.unwrap(), Some(big));
    assert_eq!(
        store.unseal("e-1", "call_1").await.unwrap().as_deref(),
        Some(mail)
    );
}

/// Forgetting one call's arguments forgets those only, forgetting an execution's forgets all of
/// them and no other execution's; the counts say how many; forgetting again forgets nothing;
/// it survives reopening.
pub async fn forgets_sealed_arguments_by_call_or_execution(
    mut backend: Box<dyn Backend<dyn SealStore>>,
) {
    let store = backend.open().await;
    for (execution_id, call_id) in [("e-1", "a"), ("e-1", "b"), ("e-1", "c"), ("e-2", "a")] {
        store
            .seal(&sealed(execution_id, call_id, "{\"n\":1}"))
            .await
            .unwrap();
    }
    assert_eq!(store.forget("e-1", Some("a")).await.unwrap(), 1);
    assert_eq!(store.forget("e-1", Some("a")).await.unwrap(), 0, "again");
    assert_eq!(store.unseal("e-1", "a").await.unwrap(), None);
    assert!(store.unseal("e-1", "b").await.unwrap().is_some());
    assert_eq!(store.forget("e-1", None).await.unwrap(), 2);
    assert_eq!(store.forget("e-1", None).await.unwrap(), 0, "again");
    assert_eq!(store.unseal("e-1", "c").await.unwrap(), None);
    assert!(
        store.unseal("e-2", "a").await.unwrap().is_some(),
        "another execution"
    );

    drop(store);
    let store = backend.open().await;
    assert_eq!(store.unseal("e-1", "b").await.unwrap(), None);
    assert!(store.unseal("e-2", "a").await.unwrap().is_some());
}

/// One `#[test]` per case of the sealed arguments' suite against `backend` (a
/// `Backend<dyn SealStore>`, or a whole store's).
#[macro_export]
macro_rules! seal_store_conformance {
    ($backend:expr) => {
        $crate::__store_conformance_cases!(
            $backend;
            keeps_sealed_arguments_per_call,
            forgets_sealed_arguments_by_call_or_execution,
        );
    };
}
