//! Artifacts: results kept in the application's store and handed to the model by reference.
//!
//! A tool that declares `#[tool(result_kind = "dataset/rows")]` may have its result kept aside
//! ([`ResultKind`]): the call contract stores the rendered result as an [`Artifact`] of the
//! execution, and the model reads [`minted_text`] instead: the reference (`art_` and 32 random
//! hex digits), the kind and the size. A tool that declares `wants(dataset = "dataset/rows")`
//! ([`WantedArgument`]) takes such a reference as a string argument; before it runs, the
//! reference is redeemed in the execution's own artifacts and its kind compared exactly, and
//! the handler gets the data in a [`Wanted`](crate::tool::Wanted) field. The call contract reaches the
//! store through an [`ArtifactShelf`] the loop puts in the call's frame (this layer knows no
//! store); docs/policies.md ("Artifacts") has the texts and the order of the checks.

use std::future::Future;
use std::pin::Pin;

use agboss_rules::codes;

use crate::tool::WantedArgument;
use crate::units::group_thousands;

/// What every reference starts with.
pub const REFERENCE_PREFIX: &str = "art_";

/// How many random bytes follow the prefix (hex: twice as many digits).
pub const REFERENCE_RANDOM_BYTES: usize = 16;

/// A result kept in the store: whose it is (execution, tool, call), what it is (kind) and the
/// rendered result itself (its JSON text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// `art_` and 32 random hex digits: never guessable, never reused.
    pub reference: String,
    /// The execution it belongs to: only that execution's calls redeem it.
    pub execution_id: String,
    /// The tool's `result_kind`.
    pub kind: String,
    /// The tool that made it.
    pub tool: String,
    /// The call that made it.
    pub call_id: String,
    /// The rendered result: JSON text.
    pub data: String,
}

impl Artifact {
    /// The size of its data, in bytes.
    pub fn size(&self) -> u64 {
        self.data.len() as u64
    }

    /// What a listing shows of it.
    pub fn listed(&self) -> ArtifactRef {
        ArtifactRef {
            reference: self.reference.clone(),
            kind: self.kind.clone(),
            tool: self.tool.clone(),
            size: self.size(),
        }
    }
}

/// An artifact as listed, without its data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArtifactRef {
    /// Its reference.
    pub reference: String,
    /// Its kind.
    pub kind: String,
    /// The tool that made it.
    pub tool: String,
    /// The size of its data, in bytes.
    pub size: u64,
}

/// A boxed operation on an [`ArtifactShelf`]; its error is the store's message.
pub type ShelfFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, String>> + Send + 'a>>;

/// The artifacts of one execution, as the call contract reaches them: the loop gives each call
/// one over the application's store (`store::ExecutionShelf`), scoped to the call's
/// execution, so a call never sees another execution's artifacts.
pub trait ArtifactShelf: Send + Sync {
    /// Keeps `artifact` (of this shelf's execution).
    fn put<'a>(&'a self, artifact: &'a Artifact) -> ShelfFuture<'a, ()>;

    /// The artifact `reference`, if this execution holds it.
    fn get<'a>(&'a self, reference: &'a str) -> ShelfFuture<'a, Option<Artifact>>;

    /// This execution's live artifacts of kind `kind`, oldest first.
    fn live<'a>(&'a self, kind: &'a str) -> ShelfFuture<'a, Vec<ArtifactRef>>;

    /// The execution whose artifacts these are.
    fn execution_id(&self) -> &str;
}

/// A new reference: `art_` and [`REFERENCE_RANDOM_BYTES`] bytes of the system's randomness.
pub(crate) fn new_reference() -> Result<String, String> {
    crate::base::random::random_hex(REFERENCE_RANDOM_BYTES, "an artifact reference")
        .map(|hex| format!("{REFERENCE_PREFIX}{hex}"))
        .map_err(|problem| problem.to_string())
}

/// What the model reads in place of a result kept as artifact `reference` of `kind`, `size`
/// bytes long:
///
/// `artifact art_0123456789abcdef0123456789abcdef (dataset/rows, 48,213 bytes): the result is kept
/// out of the conversation; pass "art_0123456789abcdef0123456789abcdef" to a tool that wants
/// dataset/rows`
pub fn minted_text(reference: &str, kind: &str, size: u64) -> String {
    let mut bytes = String::new();
    group_thousands(size, &mut bytes);
    format!(
        "artifact {reference} ({kind}, {bytes} bytes): the result is kept out of the conversation; pass \"{reference}\" to a tool that wants {kind}"
    )
}

/// Why a reference passed to a `wants` argument was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The execution holds no artifact of that reference: never made, deleted, another
    /// execution's, or not a reference at all (the model cannot tell these apart, by design).
    Unknown(String),
    /// The execution holds it, of another kind.
    OtherKind {
        /// The reference.
        reference: String,
        /// Its kind.
        kind: String,
    },
}

/// The refusal the model reads after `Tool error: ` (`[tool.artifact-refused]`): the argument,
/// the kind it wants, why, and the live references of that kind (`none` when there are none).
pub fn refusal_text(wanted: &WantedArgument, why: &Refusal, live: &[ArtifactRef]) -> String {
    let why = match why {
        Refusal::Unknown(reference) => format!("`{reference}` is no live artifact of this run"),
        Refusal::OtherKind { reference, kind } => {
            format!("`{reference}` is an artifact of kind `{kind}`")
        }
    };
    let live = if live.is_empty() {
        "none".to_owned()
    } else {
        live.iter()
            .map(|a| {
                let mut size = String::new();
                group_thousands(a.size, &mut size);
                format!("{} (from {}, {size} bytes)", a.reference, a.tool)
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    codes::TOOL_ARTIFACT_REFUSED.fill(&[
        ("argument", &wanted.argument),
        ("kind", &wanted.kind),
        ("why", &why),
        ("live", &live),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ResultKind;
    use crate::units::kilobytes;

    #[test]
    fn references_are_the_prefix_and_32_random_hex_digits() {
        let (a, b) = (new_reference().unwrap(), new_reference().unwrap());
        assert_ne!(a, b);
        assert_eq!(a.len(), 4 + 32);
        assert!(a.starts_with("art_"));
        assert!(a[4..].bytes().all(|c| c.is_ascii_hexdigit()));
    }

    #[test]
    fn the_texts_say_the_reference_the_kind_the_size_and_the_live_ones() {
        assert_eq!(
            minted_text("art_1", "dataset/rows", 48_213),
            "artifact art_1 (dataset/rows, 48,213 bytes): the result is kept out of the conversation; pass \"art_1\" to a tool that wants dataset/rows"
        );
        let wanted = WantedArgument {
            argument: "dataset",
            kind: "dataset/rows",
        };
        let live = [ArtifactRef {
            reference: "art_2".into(),
            kind: "dataset/rows".into(),
            tool: "get-rows-tool".into(),
            size: 1_500,
        }];
        assert_eq!(
            refusal_text(&wanted, &Refusal::Unknown("art_9".into()), &live),
            "argument `dataset` wants an artifact of kind `dataset/rows`, and `art_9` is no live artifact of this run, so the tool did not run; the live references of kind `dataset/rows` in this run: art_2 (from get-rows-tool, 1,500 bytes)"
        );
        let other = Refusal::OtherKind {
            reference: "art_3".into(),
            kind: "report/pdf".into(),
        };
        assert!(refusal_text(&wanted, &other, &[]).ends_with(
            "`art_3` is an artifact of kind `report/pdf`, so the tool did not run; the live references of kind `dataset/rows` in this run: none"
        ));
        let kind = ResultKind {
            kind: "dataset/rows",
            above: None,
        };
        assert_eq!(kind.threshold(kilobytes(128)), kilobytes(128));
    }
}
