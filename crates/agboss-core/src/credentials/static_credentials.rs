//! [`StaticCredentials`]: a [`CredentialProvider`] over values the program holds, shared or per
//! owner.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::credentials::{
    CredentialFuture, CredentialProvider, CredentialRequest, Secret, TokenKeeper,
};

/// Credentials the program holds: values shared by every use, and values for one owner's
/// executions only, which win over a shared one for that owner. An MCP server, which serves
/// every owner, gets shared values only.
///
/// ```
/// use agboss_core::tool::{CredentialProvider, Secret, StaticCredentials};
///
/// let credentials = StaticCredentials::new()
///     .with("weather-api", Secret::new("k-1"))
///     .for_owner("alice", "github", Secret::new("ghp_alice"));
/// assert_eq!(credentials.names(), ["github", "weather-api"]);
/// ```
#[derive(Clone, Default)]
pub struct StaticCredentials {
    shared: BTreeMap<String, Secret>,
    /// By name, then by owner.
    owned: BTreeMap<String, BTreeMap<String, Secret>>,
    /// Where OAuth tokens are kept, if anywhere.
    tokens: Option<Arc<dyn TokenKeeper>>,
}

impl fmt::Debug for StaticCredentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticCredentials")
            .field("shared", &self.shared)
            .field("owned", &self.owned)
            .field("keeps_oauth_tokens", &self.tokens.is_some())
            .finish()
    }
}

impl StaticCredentials {
    /// No credentials.
    pub fn new() -> StaticCredentials {
        StaticCredentials::default()
    }

    /// With `name` worth `value` for every use.
    pub fn with(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        self.shared.insert(name.into(), value.into());
        self
    }

    /// With `name` worth `value` in the executions of `owner` only.
    pub fn for_owner(
        mut self,
        owner: impl Into<String>,
        name: impl Into<String>,
        value: impl Into<Secret>,
    ) -> Self {
        self.owned
            .entry(name.into())
            .or_default()
            .insert(owner.into(), value.into());
        self
    }

    /// With the OAuth tokens of MCP sessions a person approved kept by `keeper` (such as
    /// [`FileTokens`](crate::credentials::FileTokens)).
    pub fn keeping_oauth_tokens(mut self, keeper: impl TokenKeeper) -> Self {
        self.tokens = Some(Arc::new(keeper));
        self
    }

    fn find(&self, request: &CredentialRequest<'_>) -> Option<Secret> {
        let owned = request
            .owner_id()
            .and_then(|owner| self.owned.get(request.name)?.get(owner));
        owned.or_else(|| self.shared.get(request.name)).cloned()
    }
}

impl CredentialProvider for StaticCredentials {
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .shared
            .keys()
            .chain(self.owned.keys())
            .cloned()
            .collect();
        names.sort();
        names.dedup();
        names
    }

    fn knows(&self, name: &str) -> bool {
        self.shared.contains_key(name) || self.owned.contains_key(name)
    }

    fn resolve<'a>(&'a self, request: CredentialRequest<'a>) -> CredentialFuture<'a> {
        let found = self.find(&request);
        Box::pin(std::future::ready(Ok(found)))
    }

    fn oauth_tokens(&self) -> Option<Arc<dyn TokenKeeper>> {
        self.tokens.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Execution;
    use crate::credentials::CredentialUse;

    fn for_owner(owner: Option<&str>) -> Option<Secret> {
        let credentials = StaticCredentials::new()
            .with("github", "shared")
            .for_owner("alice", "github", "alice's")
            .for_owner("alice", "slack", "alice's slack");
        let mut execution = Execution::builder("e1");
        if let Some(owner) = owner {
            execution = execution.owner(owner);
        }
        let execution = execution.build();
        let request = |name| CredentialRequest {
            name,
            used_by: CredentialUse::Call {
                tool: "t-tool",
                execution: &execution,
            },
        };
        assert_eq!(
            credentials.find(&request("slack")).is_some(),
            owner == Some("alice")
        );
        credentials.find(&request("github"))
    }

    #[test]
    fn an_owners_value_wins_and_is_never_anothers() {
        assert_eq!(for_owner(Some("alice")).unwrap().expose(), "alice's");
        assert_eq!(for_owner(Some("bob")).unwrap().expose(), "shared");
        assert_eq!(for_owner(None).unwrap().expose(), "shared");
    }

    #[test]
    fn a_server_gets_shared_values_only() {
        let credentials = StaticCredentials::new().for_owner("alice", "github", "alice's");
        let request = CredentialRequest {
            name: "github",
            used_by: CredentialUse::McpServer { server: "gh" },
        };
        assert!(credentials.find(&request).is_none());
        assert!(credentials.knows("github") && !credentials.knows("gitlab"));
    }
}
