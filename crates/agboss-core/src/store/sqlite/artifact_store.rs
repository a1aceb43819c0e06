//! [`SqliteArtifacts`]: the SQLite store's [`ArtifactStore`]. Puts and deletions go through the
//! writer thread, in its groups; reads run on the read connections (`artifacts.rs` holds the
//! table and its statements).

use std::sync::Arc;

use super::artifacts::{self, ArtifactWrite};
use super::read::Readers;
use super::writer::{Work, Writer};
use crate::store::{ArtifactStore, StoreFuture};
use crate::tool::{Artifact, ArtifactRef};

/// The artifacts of one [`SqliteStore`](super::SqliteStore), sharing its writer and readers.
#[derive(Debug)]
pub(super) struct SqliteArtifacts {
    writer: Arc<Writer>,
    readers: Arc<Readers>,
}

impl SqliteArtifacts {
    pub(super) fn new(writer: &Arc<Writer>, readers: &Arc<Readers>) -> SqliteArtifacts {
        SqliteArtifacts {
            writer: Arc::clone(writer),
            readers: Arc::clone(readers),
        }
    }
}

impl ArtifactStore for SqliteArtifacts {
    fn put<'a>(&'a self, artifact: &'a Artifact) -> StoreFuture<'a, ()> {
        let write = ArtifactWrite::Put(Box::new(artifact.clone()));
        Box::pin(async move { self.writer.write(Work::Artifacts(write)).await.map(|_| ()) })
    }

    fn get<'a>(
        &'a self,
        execution_id: &'a str,
        reference: &'a str,
    ) -> StoreFuture<'a, Option<Artifact>> {
        let (id, reference) = (execution_id.to_owned(), reference.to_owned());
        Box::pin(
            self.readers
                .read(move |conn| artifacts::get(conn, &id, &reference)),
        )
    }

    fn list<'a>(
        &'a self,
        execution_id: &'a str,
        kind: &'a str,
    ) -> StoreFuture<'a, Vec<ArtifactRef>> {
        let (id, kind) = (execution_id.to_owned(), kind.to_owned());
        Box::pin(
            self.readers
                .read(move |conn| artifacts::list(conn, &id, &kind)),
        )
    }

    fn delete<'a>(&'a self, execution_id: &'a str) -> StoreFuture<'a, u64> {
        let id = execution_id.to_owned();
        Box::pin(async move {
            let counted = id.clone();
            let held = self
                .readers
                .read(move |conn| artifacts::count(conn, &counted))
                .await?;
            let write = ArtifactWrite::Delete(id);
            self.writer.write(Work::Artifacts(write)).await?;
            Ok(held)
        })
    }
}
