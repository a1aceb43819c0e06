//! [`TokenKeeper`]: where the OAuth tokens a person's approval got are kept (an MCP server
//! with the authorization code grant, per owner), so that a restarted application uses them,
//! refreshed when they expire, instead of asking the person again. A [`CredentialProvider`]
//! names its keeper ([`CredentialProvider::oauth_tokens`]); [`FileTokens`] is the ready one.
//!
//! [`CredentialProvider`]: crate::credentials::CredentialProvider
//! [`CredentialProvider::oauth_tokens`]: crate::credentials::CredentialProvider::oauth_tokens

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use crate::credentials::Secret;

/// Whose tokens: an MCP server's, for one owner (or for the session of no owner).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TokenKey {
    server: String,
    owner: Option<String>,
}

impl TokenKey {
    /// The tokens of `server`'s session of `owner`.
    pub fn new(server: impl Into<String>, owner: Option<&str>) -> TokenKey {
        TokenKey {
            server: server.into(),
            owner: owner.map(str::to_owned),
        }
    }

    /// The MCP server's name.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The owner whose approval got them; `None` for the session of no owner.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }
}

impl fmt::Display for TokenKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.owner {
            Some(owner) => write!(f, "`{}` for `{owner}`", self.server),
            None => write!(f, "`{}`", self.server),
        }
    }
}

/// What a [`TokenKeeper`] returns: the value, or why not (said without any token).
pub type KeeperFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// Keeps OAuth tokens by [`TokenKey`]. What it keeps is a [`Secret`]: an opaque JSON text (the
/// client's id, the access and refresh tokens, the scopes, when they were got), to be stored as
/// it is and never logged. A keeper that fails makes the session fall back on the person's
/// approval, with a warning; it never stops a call by itself.
pub trait TokenKeeper: Send + Sync + 'static {
    /// The tokens kept for `key`, if any.
    fn load<'a>(&'a self, key: &'a TokenKey) -> KeeperFuture<'a, Option<Secret>>;

    /// Keeps `tokens` for `key`, replacing what was kept.
    fn save<'a>(&'a self, key: &'a TokenKey, tokens: Secret) -> KeeperFuture<'a, ()>;

    /// Forgets what is kept for `key` (the authorization server no longer takes it).
    fn clear<'a>(&'a self, key: &'a TokenKey) -> KeeperFuture<'a, ()>;
}

/// Tokens kept in files of a folder, one a key, readable by the program's user alone (mode
/// `0600` on Unix), written whole or not at all (a temporary file renamed over the old one).
/// The folder is made when first written to.
///
/// ```
/// use agboss_core::tool::{FileTokens, StaticCredentials};
///
/// let dir = std::env::temp_dir().join("desk-oauth-tokens");
/// let credentials = StaticCredentials::new().keeping_oauth_tokens(FileTokens::new(&dir));
/// # let _ = credentials;
/// ```
#[derive(Clone, Debug)]
pub struct FileTokens {
    dir: PathBuf,
}

impl FileTokens {
    /// Tokens in files of `dir`.
    pub fn new(dir: impl AsRef<Path>) -> FileTokens {
        FileTokens {
            dir: dir.as_ref().to_owned(),
        }
    }

    /// The file of `key`: its server and owner, each character outside `[A-Za-z0-9_-]`
    /// written as `%` and its two hex digits (`%2F`) (so no owner reaches another folder or another's file).
    pub fn file_of(&self, key: &TokenKey) -> PathBuf {
        let owner = key.owner().map_or_else(|| "~".to_owned(), escape);
        self.dir
            .join(format!("{}@{owner}.json", escape(key.server())))
    }
}

/// `text` with each byte outside `[A-Za-z0-9_-]` as `%` and its two hex digits (`%2F`).
fn escape(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'_' | b'-' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Runs the file work `work` off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
}

impl TokenKeeper for FileTokens {
    fn load<'a>(&'a self, key: &'a TokenKey) -> KeeperFuture<'a, Option<Secret>> {
        let file = self.file_of(key);
        Box::pin(async move {
            let shown = file.display().to_string();
            match blocking(move || std::fs::read_to_string(file)).await {
                Ok(text) => Ok(Some(Secret::new(text))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(format!("could not read {shown}: {e}")),
            }
        })
    }

    fn save<'a>(&'a self, key: &'a TokenKey, tokens: Secret) -> KeeperFuture<'a, ()> {
        let file = self.file_of(key);
        Box::pin(async move {
            let shown = file.display().to_string();
            blocking(move || write_private(&file, tokens.expose()))
                .await
                .map_err(|e| format!("could not write {shown}: {e}"))
        })
    }

    fn clear<'a>(&'a self, key: &'a TokenKey) -> KeeperFuture<'a, ()> {
        let file = self.file_of(key);
        Box::pin(async move {
            let shown = file.display().to_string();
            match blocking(move || std::fs::remove_file(file)).await {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    Err(format!("could not remove {shown}: {e}"))
                }
                _ => Ok(()),
            }
        })
    }
}

/// Writes `text` to `file` through a temporary file beside it, readable by the user alone.
fn write_private(file: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temporary = file.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(&temporary)?;
    out.write_all(text.as_bytes())?;
    out.sync_all()?;
    std::fs::rename(&temporary, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn tokens_are_kept_per_server_and_owner_in_private_files() {
        let dir = std::env::temp_dir().join(format!("agboss-file-tokens-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let keeper = FileTokens::new(&dir);
        let alice = TokenKey::new("tickets", Some("alice"));
        let sneaky = TokenKey::new("tickets", Some("../bob"));
        assert_eq!(
            keeper
                .load(&alice)
                .await
                .unwrap()
                .map(|s| s.expose().to_owned()),
            None
        );
        keeper
            .save(&alice, Secret::new(r#"{"a":1}"#))
            .await
            .unwrap();
        keeper
            .save(&sneaky, Secret::new(r#"{"b":2}"#))
            .await
            .unwrap();
        let kept = keeper.load(&alice).await.unwrap().unwrap();
        assert_eq!(kept.expose(), r#"{"a":1}"#);
        assert_eq!(keeper.file_of(&sneaky).parent(), Some(dir.as_path()));
        assert_eq!(
            keeper.file_of(&sneaky).file_name().unwrap(),
            "tickets@%2E%2E%2Fbob.json"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(keeper.file_of(&alice))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        keeper.clear(&alice).await.unwrap();
        keeper.clear(&alice).await.unwrap();
        assert!(keeper.load(&alice).await.unwrap().is_none());
        assert!(keeper.load(&sneaky).await.unwrap().is_some());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
