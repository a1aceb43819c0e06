//! What a tool declares of artifacts: the kind its results are kept as and the size over which
//! they are ([`ResultKind`]), and the arguments that take references ([`WantedArgument`]).

use crate::units::ByteSize;

/// `result_kind = "..", artifact_above = ..`: the kind of artifact the tool's results are kept
/// as, and the size over which they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultKind {
    /// The kind (`dataset/rows`), checked by [`agboss_rules::artifact_kind`].
    pub kind: &'static str,
    /// Results longer than this (rendered, in bytes) become artifacts. `None`: results longer
    /// than the tool's bound (`max_result_size`, else the default), which would otherwise be
    /// cut, become artifacts instead.
    pub above: Option<ByteSize>,
}

impl ResultKind {
    /// The size over which a result becomes an artifact, for a tool bounded by `bound`.
    pub fn threshold(&self, bound: ByteSize) -> ByteSize {
        self.above.unwrap_or(bound)
    }
}

/// One argument of `wants(argument = "kind")`: a field of the input that takes a reference to
/// an artifact of exactly that kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WantedArgument {
    /// The field (and property of the arguments).
    pub argument: &'static str,
    /// The kind it takes.
    pub kind: &'static str,
}
