//! The cases of artifacts: results kept by reference per execution, redeemed only within it,
//! listed by kind oldest first, kept across reopening, and deleted with their execution. The
//! suite of every [`ArtifactStore`].

use agboss_core::store::ArtifactStore;
use agboss_core::tool::{Artifact, ArtifactRef};

use super::Backend;

fn artifact(reference: &str, execution_id: &str, kind: &str, data: &str) -> Artifact {
    Artifact {
        reference: reference.into(),
        execution_id: execution_id.into(),
        kind: kind.into(),
        tool: "get-rows-tool".into(),
        call_id: format!("call-{reference}"),
        data: data.into(),
    }
}

async fn references(store: &dyn ArtifactStore, execution_id: &str, kind: &str) -> Vec<String> {
    let listed: Vec<ArtifactRef> = store.list(execution_id, kind).await.unwrap();
    listed.into_iter().map(|a| a.reference).collect()
}

/// An artifact is read back whole (data byte for byte, unicode and 100 KB included) by its
/// execution only: another execution asking for its reference gets nothing, as does an unknown
/// reference. A second put of a reference held already leaves the first. Listings are per
/// execution and exact kind, oldest first, without data; everything survives reopening.
pub async fn keeps_artifacts_per_execution_and_lists_them_by_kind(
    mut backend: Box<dyn Backend<dyn ArtifactStore>>,
) {
    let store = backend.open().await;
    let big = format!("[\"{}\"]", "é".repeat(50_000));
    let rows = artifact("art_a", "e-1", "dataset/rows", &big);
    store.put(&rows).await.unwrap();
    let pdf = artifact("art_b", "e-1", "report/pdf", "{\"pages\":3}");
    store.put(&pdf).await.unwrap();
    let later = artifact("art_c", "e-1", "dataset/rows", "[1]");
    store.put(&later).await.unwrap();
    store
        .put(&artifact("art_d", "e-2", "dataset/rows", "[2]"))
        .await
        .unwrap();
    // A retried put changes nothing.
    let retried = artifact("art_a", "e-1", "dataset/rows", "[\"other\"]");
    store.put(&retried).await.unwrap();

    assert_eq!(store.get("e-1", "art_a").await.unwrap(), Some(rows.clone()));
    assert_eq!(store.get("e-2", "art_a").await.unwrap(), None, "foreign");
    assert_eq!(store.get("e-1", "art_zz").await.unwrap(), None, "unknown");
    assert_eq!(
        references(&*store, "e-1", "dataset/rows").await,
        ["art_a", "art_c"]
    );
    assert_eq!(references(&*store, "e-1", "report/pdf").await, ["art_b"]);
    assert_eq!(
        references(&*store, "e-1", "dataset").await,
        Vec::<String>::new()
    );
    assert_eq!(
        references(&*store, "e-3", "dataset/rows").await,
        Vec::<String>::new()
    );
    let listed = store.list("e-1", "report/pdf").await.unwrap();
    assert_eq!(listed, [pdf.listed()]);
    assert_eq!(listed[0].size, 11);

    drop(store);
    let store = backend.open().await;
    assert_eq!(store.get("e-1", "art_a").await.unwrap(), Some(rows));
    assert_eq!(
        references(&*store, "e-1", "dataset/rows").await,
        ["art_a", "art_c"]
    );
}

/// Deleting an execution's artifacts deletes all of them (the count says how many) and no other
/// execution's; deleting again deletes nothing; the deletion survives reopening.
pub async fn deletes_artifacts_with_their_execution(
    mut backend: Box<dyn Backend<dyn ArtifactStore>>,
) {
    let store = backend.open().await;
    for (reference, execution) in [("art_1", "e-1"), ("art_2", "e-1"), ("art_3", "e-2")] {
        let made = artifact(reference, execution, "dataset/rows", "[]");
        store.put(&made).await.unwrap();
    }
    assert_eq!(store.delete("e-1").await.unwrap(), 2);
    assert_eq!(store.delete("e-1").await.unwrap(), 0);
    assert_eq!(store.get("e-1", "art_1").await.unwrap(), None);
    assert_eq!(
        references(&*store, "e-1", "dataset/rows").await,
        Vec::<String>::new()
    );
    assert_eq!(references(&*store, "e-2", "dataset/rows").await, ["art_3"]);
    drop(store);
    let store = backend.open().await;
    assert_eq!(store.get("e-1", "art_2").await.unwrap(), None);
    assert!(store.get("e-2", "art_3").await.unwrap().is_some());
}

/// One `#[test]` per case of the artifacts' suite against `backend` (an expression making a
/// fresh [`Backend<dyn ArtifactStore>`](crate::conformance::Backend), evaluated once per case; a
/// whole store's backend is one, its artifacts found with
/// [`Store::artifacts`](agboss_core::store::Store::artifacts)).
#[macro_export]
macro_rules! artifact_store_conformance {
    ($backend:expr) => {
        $crate::__store_conformance_cases!(
            $backend;
            keeps_artifacts_per_execution_and_lists_them_by_kind,
            deletes_artifacts_with_their_execution,
        );
    };
}
