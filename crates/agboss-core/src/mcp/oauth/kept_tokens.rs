//! The OAuth tokens of a session a person approved, kept by the application's
//! [`TokenKeeper`] as rmcp's credential store: read when the session opens (a restarted
//! application uses them, refreshed when expired), written after each approval and refresh.
//! A copy stays in memory, so a keeper that fails costs a warning and the next restart's
//! approval, never the session's token.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::transport::auth::{
    AuthError, CredentialStore, InMemoryCredentialStore, StoredCredentials,
};

use crate::tool::{Secret, TokenKeeper, TokenKey};

/// What rmcp's store methods return.
type Stored<'a, T> = Pin<Box<dyn Future<Output = Result<T, AuthError>> + Send + 'a>>;

/// One session's tokens: in memory, and with the keeper.
pub(crate) struct KeptTokens {
    keeper: Arc<dyn TokenKeeper>,
    key: TokenKey,
    memory: InMemoryCredentialStore,
}

impl KeptTokens {
    /// The tokens of `key`, kept by `keeper`.
    pub(crate) fn new(keeper: Arc<dyn TokenKeeper>, key: TokenKey) -> KeptTokens {
        KeptTokens {
            keeper,
            key,
            memory: InMemoryCredentialStore::new(),
        }
    }

    /// What the keeper has, read once into memory; nothing when it has none or fails.
    async fn read_keeper(&self) -> Option<StoredCredentials> {
        let kept = match self.keeper.load(&self.key).await {
            Ok(kept) => kept?,
            Err(why) => {
                tracing::warn!(tokens = %self.key, %why, "kept OAuth tokens could not be read");
                return None;
            }
        };
        match serde_json::from_str::<StoredCredentials>(kept.expose()) {
            Ok(stored) => Some(stored),
            Err(e) => {
                tracing::warn!(tokens = %self.key, error = %e, "kept OAuth tokens are not readable, and are ignored");
                None
            }
        }
    }
}

impl CredentialStore for KeptTokens {
    fn load<'life0, 'async_trait>(&'life0 self) -> Stored<'async_trait, Option<StoredCredentials>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            if let Some(stored) = self.memory.load().await? {
                return Ok(Some(stored));
            }
            let Some(stored) = self.read_keeper().await else {
                return Ok(None);
            };
            self.memory.save(stored.clone()).await?;
            Ok(Some(stored))
        })
    }

    fn save<'life0, 'async_trait>(
        &'life0 self,
        credentials: StoredCredentials,
    ) -> Stored<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            let text = serde_json::to_string(&credentials)
                .map_err(|e| AuthError::CredentialStoreError(e.to_string()))?;
            self.memory.save(credentials).await?;
            if let Err(why) = self.keeper.save(&self.key, Secret::new(text)).await {
                tracing::warn!(tokens = %self.key, %why, "OAuth tokens could not be kept; they live with the session");
            }
            Ok(())
        })
    }

    fn clear<'life0, 'async_trait>(&'life0 self) -> Stored<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        Box::pin(async move {
            self.memory.clear().await?;
            if let Err(why) = self.keeper.clear(&self.key).await {
                tracing::warn!(tokens = %self.key, %why, "kept OAuth tokens could not be forgotten");
            }
            Ok(())
        })
    }
}
