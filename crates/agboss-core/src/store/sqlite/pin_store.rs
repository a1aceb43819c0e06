//! [`SqlitePins`]: the SQLite store's [`PinStore`]. Definitions are seen and approved through
//! the writer thread, inside its transactions; pins are read on the read connections
//! (`pins.rs` holds the statements).

use std::sync::Arc;

use super::pins;
use super::read::Readers;
use super::writer::{self, Done, Work, Writer};
use crate::store::{McpApproval, McpDefinitionSeen, McpPin, PinStore, StoreError, StoreFuture};

/// The pins of one [`SqliteStore`](super::SqliteStore), sharing its writer and readers.
#[derive(Debug)]
pub(super) struct SqlitePins {
    writer: Arc<Writer>,
    readers: Arc<Readers>,
}

impl SqlitePins {
    pub(super) fn new(writer: &Arc<Writer>, readers: &Arc<Readers>) -> SqlitePins {
        SqlitePins {
            writer: Arc::clone(writer),
            readers: Arc::clone(readers),
        }
    }

    async fn pinned(&self, work: Work) -> Result<Option<McpPin>, StoreError> {
        match self.writer.write(work).await? {
            Done::Pinned(pin) => Ok(pin),
            Done::Written | Done::Claimed(_) => Ok(None),
        }
    }
}

impl PinStore for SqlitePins {
    fn get<'a>(
        &'a self,
        application: &'a str,
        server: &'a str,
        tool: &'a str,
    ) -> StoreFuture<'a, Option<McpPin>> {
        let key = (application.to_owned(), server.to_owned(), tool.to_owned());
        Box::pin(
            self.readers
                .read(move |conn| pins::pin(conn, &key.0, &key.1, &key.2)),
        )
    }

    fn list<'a>(&'a self, application: &'a str) -> StoreFuture<'a, Vec<McpPin>> {
        let application = application.to_owned();
        Box::pin(
            self.readers
                .read(move |conn| pins::pins(conn, &application)),
        )
    }

    fn see<'a>(&'a self, seen: &'a McpDefinitionSeen) -> StoreFuture<'a, McpPin> {
        Box::pin(async move {
            self.pinned(Work::SeeMcp(seen.clone()))
                .await?
                .ok_or_else(writer::stopped)
        })
    }

    fn approve<'a>(&'a self, approval: &'a McpApproval) -> StoreFuture<'a, Option<McpPin>> {
        Box::pin(self.pinned(Work::ApproveMcp(approval.clone())))
    }
}
