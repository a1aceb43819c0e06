//! [`context_block`]: what a knowledge base in context mode adds to a run's input message.

use super::Passage;
use crate::tool::{BoundedText, bound_text};
use crate::units::ByteSize;

/// The block knowledge base `name` adds to the input message for `passages`, bounded to
/// `bound` bytes with the same cut and marker as a tool result (the agent's bound for tool
/// results: its workflow's `defaults.tools`, else 128 KB). `None` when nothing was found: the
/// message is left as it was.
///
/// ```
/// use agboss_core::knowledge::{Passage, context_block};
/// use agboss_core::units::kilobytes;
///
/// let found = vec![Passage {
///     source: "guides/refunds.md".into(),
///     heading: "Refunds > Delays".into(),
///     line: 12,
///     end_line: 14,
///     text: "Refunds take five working days.".into(),
///     score: 3.2,
/// }];
/// let block = context_block("faq-rag", &found, kilobytes(128)).unwrap();
/// assert_eq!(
///     block.text,
///     "[knowledge base faq-rag: 1 passage]\n\n[1] guides/refunds.md:12-14 (Refunds > Delays)\nRefunds take five working days.\n",
/// );
/// ```
pub fn context_block(name: &str, passages: &[Passage], bound: ByteSize) -> Option<BoundedText> {
    if passages.is_empty() {
        return None;
    }
    let plural = if passages.len() == 1 { "" } else { "s" };
    let mut text = format!(
        "[knowledge base {name}: {} passage{plural}]\n",
        passages.len()
    );
    for (i, passage) in passages.iter().enumerate() {
        text.push_str(&format!("\n[{}] {}", i + 1, passage.location()));
        if !passage.heading.is_empty() {
            text.push_str(&format!(" ({})", passage.heading));
        }
        text.push('\n');
        text.push_str(passage.text.trim_end());
        text.push('\n');
    }
    Some(bound_text(text, bound))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::bytes;

    fn passage(text: &str) -> Passage {
        Passage {
            source: "a.md".into(),
            heading: String::new(),
            line: 1,
            end_line: 1,
            text: text.into(),
            score: 1.0,
        }
    }

    #[test]
    fn nothing_found_adds_nothing() {
        assert!(context_block("a-rag", &[], bytes(100)).is_none());
    }

    #[test]
    fn a_block_over_its_bound_is_cut_with_the_marker() {
        let found = vec![passage(&"word ".repeat(100))];
        let block = context_block("a-rag", &found, bytes(64)).unwrap();
        assert!(block.truncated);
        assert!(
            block.text.contains("\n[result truncated: "),
            "{}",
            block.text
        );
        assert!(
            block
                .text
                .starts_with("[knowledge base a-rag: 1 passage]\n\n[1] a.md:1\n")
        );
    }
}
