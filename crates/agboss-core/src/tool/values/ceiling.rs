//! [`ResultCeiling`]: the size over which a tool's result is refused rather than cut, and the
//! refusal the model reads (the `ceiling` rule that applies it is `rules/ceiling.rs`).

use agboss_rules::codes;

use crate::units::{ByteSize, group_thousands};

/// A tool's ceiling on the size of its rendered results, and what the model reads to ask for
/// less.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResultCeiling {
    /// Results longer than this (in bytes of the rendered UTF-8 text) are refused.
    pub size: ByteSize,
    /// How a call is narrowed, in the tool author's words (`ask for one day at a time with
    /// `since``).
    pub hint: &'static str,
}

impl ResultCeiling {
    /// Whether a rendered result of `bytes` bytes is over the ceiling.
    pub fn refuses(&self, bytes: usize) -> bool {
        bytes as u64 > self.size.get()
    }

    /// What the model reads after `Tool error: ` about a result of `bytes` bytes:
    /// `the result is 1,048,587 bytes, over this tool's ceiling of 65,536 bytes, so none of it is
    /// shown; to narrow the call: <hint>`.
    pub fn refusal(&self, bytes: usize) -> String {
        let (mut size, mut ceiling) = (String::new(), String::new());
        group_thousands(bytes as u64, &mut size);
        group_thousands(self.size.get(), &mut ceiling);
        codes::TOOL_RESULT_OVER_CEILING.fill(&[
            ("size", &size),
            ("ceiling", &ceiling),
            ("hint", &self.hint),
        ])
    }
}
