//! [`SqliteSealed`]: the [`SealStore`] of a [`SqliteStore`](super::SqliteStore), its writes
//! through the store's writer thread and its reads on the read connections (the SQL is
//! `sealed.rs`).

use std::sync::Arc;

use super::read::Readers;
use super::sealed::{SealWrite, count, unseal};
use super::writer::{Work, Writer};
use crate::store::{SealStore, SealedArguments, StoreFuture};

/// The sealed arguments of one [`SqliteStore`](super::SqliteStore), sharing its writer and
/// readers.
#[derive(Debug)]
pub(super) struct SqliteSealed {
    writer: Arc<Writer>,
    readers: Arc<Readers>,
}

impl SqliteSealed {
    pub(super) fn new(writer: &Arc<Writer>, readers: &Arc<Readers>) -> SqliteSealed {
        SqliteSealed {
            writer: Arc::clone(writer),
            readers: Arc::clone(readers),
        }
    }
}

impl SealStore for SqliteSealed {
    fn seal<'a>(&'a self, sealed: &'a SealedArguments) -> StoreFuture<'a, ()> {
        let write = SealWrite::Seal(sealed.clone());
        Box::pin(async move { self.writer.write(Work::Sealed(write)).await.map(|_| ()) })
    }

    fn unseal<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<String>> {
        let (id, call) = (execution_id.to_owned(), call_id.to_owned());
        Box::pin(self.readers.read(move |conn| unseal(conn, &id, &call)))
    }

    fn forget<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: Option<&'a str>,
    ) -> StoreFuture<'a, u64> {
        let (id, call) = (execution_id.to_owned(), call_id.map(str::to_owned));
        Box::pin(async move {
            let (counted, counted_call) = (id.clone(), call.clone());
            let held = self
                .readers
                .read(move |conn| count(conn, &counted, counted_call.as_deref()))
                .await?;
            self.writer
                .write(Work::Sealed(SealWrite::Forget(id, call)))
                .await?;
            Ok(held)
        })
    }
}
