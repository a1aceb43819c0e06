//! [`Capability`]: what a tool touches, as its author declares it (`#[tool(capabilities =
//! [..])]`). Never inferred: a tool that declares nothing is never asked about.

use std::fmt;

/// What a tool touches. A [`PermissionChecker`](crate::policy::PermissionChecker) that governs a
/// capability is asked about each call of a tool that declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Capability {
    /// It reaches a network beyond the application (a URL, an email, a webhook).
    ExternalNet,
    /// It reads or writes a person's data.
    UserData,
    /// It moves money.
    Money,
    /// It deletes or overwrites what cannot be had back.
    Destructive,
    /// One of the application's own, by name (`Custom("prod-database")`).
    Custom(&'static str),
}

impl Capability {
    /// Its name as journals, traces and `describe` write it: `external_net`, `user_data`,
    /// `money`, `destructive`, or the custom name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Capability::ExternalNet => "external_net",
            Capability::UserData => "user_data",
            Capability::Money => "money",
            Capability::Destructive => "destructive",
            Capability::Custom(name) => name,
        }
    }
}

impl fmt::Display for Capability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
