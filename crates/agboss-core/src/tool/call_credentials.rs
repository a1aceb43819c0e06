//! [`Credentials`]: the field a tool reads the credentials it `needs` from, resolved for each
//! call (`gates/needs.rs`).

use std::fmt;
use std::sync::Arc;

use crate::credentials::Secret;

/// The credentials of one call, by name, as the tool's `needs` lists them: a field of this type
/// receives them.
///
/// ```ignore
/// #[tool(name = "open-issue-tool", needs = ["github"])]
/// pub struct OpenIssue { credentials: Credentials }
///
/// // in `run`:
/// let token = self.credentials.require("github")?.expose();
/// ```
#[derive(Clone, Default)]
pub struct Credentials {
    values: Values,
}

/// The values, one inline (the usual case: no allocation, a clone is a count), or many.
#[derive(Clone, Default)]
enum Values {
    #[default]
    None,
    One((&'static str, Secret)),
    Many(Arc<[(&'static str, Secret)]>),
}

impl Credentials {
    /// Credentials holding `values`.
    pub(crate) fn new(mut values: Vec<(&'static str, Secret)>) -> Credentials {
        let values = match values.len() {
            0 => Values::None,
            1 => Values::One(values.swap_remove(0)),
            _ => Values::Many(values.into()),
        };
        Credentials { values }
    }

    /// The one credential `name` worth `secret`.
    pub(crate) fn one(name: &'static str, secret: Secret) -> Credentials {
        Credentials {
            values: Values::One((name, secret)),
        }
    }

    fn entries(&self) -> &[(&'static str, Secret)] {
        match &self.values {
            Values::None => &[],
            Values::One(pair) => std::slice::from_ref(pair),
            Values::Many(values) => values,
        }
    }

    /// The credential `name`, if the call has it (every name of the tool's `needs` when `run`
    /// is called).
    pub fn get(&self, name: &str) -> Option<&Secret> {
        match &self.values {
            Values::None => None,
            Values::One((known, secret)) => (*known == name).then_some(secret),
            Values::Many(values) => values
                .iter()
                .find(|(known, _)| *known == name)
                .map(|(_, secret)| secret),
        }
    }

    /// The credential `name`, or a tool error saying the tool does not declare it, for `?` in
    /// `run`.
    pub fn require(&self, name: &str) -> Result<&Secret, crate::tool::ToolError> {
        self.get(name).ok_or_else(|| {
            crate::tool::ToolError::new(format!(
                "the credential `{name}` is not among this tool's `needs`"
            ))
        })
    }

    /// The names it holds, in the order of `needs`.
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.entries().iter().map(|(name, _)| *name)
    }
}

impl fmt::Debug for Credentials {
    /// The names only.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}
