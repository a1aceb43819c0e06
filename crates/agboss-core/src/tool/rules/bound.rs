//! Bounding what a model reads of one tool result.
//!
//! A rendered result longer than its bound is cut, never turned into an error: at the last
//! whitespace (space, tab, line break) within the final [`WHITESPACE_WINDOW`] bytes it keeps,
//! else at the bound, and never inside a UTF-8 character. A line follows that says how much
//! there was and how much was kept:
//!
//! ```text
//! \n[result truncated: 1,048,587 bytes, the first 262,144 kept]
//! ```

use crate::base::{Setting, Source};
use crate::masking::MaskingPolicy;
use crate::tool::pipeline::marker::{MARKER_START, STOPPED_TOTAL, cut_point, push_marker};
pub use crate::tool::pipeline::marker::{WHITESPACE_WINDOW, truncation_marker};
use crate::tool::pipeline::{CallEnd, Part, Stage, Then, ToolOutput};
use crate::units::ByteSize;

/// The `bound` rule: the tool's text cut to the bound in effect (never a framework sentence),
/// which the later rules keep to.
pub(crate) struct BoundRule(pub(crate) ByteSize);

impl Stage for BoundRule {
    fn name(&self) -> &str {
        "bound"
    }

    fn part(&self) -> Part {
        Part::Rule
    }

    fn after(&self, _call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        output.bound = Some(self.0);
        output.cut_to(self.0.as_usize());
        Then::Keep
    }
}

/// The bound in effect for a tool: its own when it sets one (of at least 1 byte), else the
/// one it inherits (its workflow's, its application's, or the built-in 128 KB). The one place
/// this is decided: the contract and assembly both ask here.
///
/// ```
/// use agboss_core::base::{Setting, Source};
/// use agboss_core::tool::bound::effective_bound;
/// use agboss_core::units::{ByteSize, kilobytes};
///
/// let built_in = Setting::built_in(ByteSize::DEFAULT_RESULT_BOUND);
/// assert_eq!(effective_bound(Some(kilobytes(256)), built_in.clone()).source, Source::Own);
/// assert_eq!(effective_bound(None, built_in).value, kilobytes(128));
/// ```
pub fn effective_bound(own: Option<ByteSize>, inherited: Setting<ByteSize>) -> Setting<ByteSize> {
    match own.filter(|b| b.get() > 0) {
        Some(value) => Setting {
            value,
            source: Source::Own,
        },
        None => inherited,
    }
}

/// A text after bounding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundedText {
    /// The text the model reads: the kept part and, if cut, the marker line.
    pub text: String,
    /// Whether the text was cut.
    pub truncated: bool,
    /// The length of the full text in bytes.
    pub original_bytes: usize,
}

/// Bounds `text` to `max` bytes (plus the marker when cut). Works in place: the kept part is
/// not copied.
///
/// ```
/// use agboss_core::tool::bound_text;
/// use agboss_core::units::bytes;
///
/// let bounded = bound_text("one two three".to_owned(), bytes(9));
/// assert!(bounded.truncated);
/// assert_eq!(bounded.text, "one two\n[result truncated: 13 bytes, the first 7 kept]");
/// ```
pub fn bound_text(mut text: String, max: ByteSize) -> BoundedText {
    let original_bytes = text.len();
    let max = max.as_usize();
    if original_bytes <= max {
        return BoundedText {
            text,
            truncated: false,
            original_bytes,
        };
    }
    let cut = cut_point(text.as_bytes(), max);
    text.truncate(cut);
    push_marker(&mut text, "", original_bytes as u64, cut);
    // Give back what the cut freed when that is most of the buffer; shrinking in place is
    // cheap for the allocator and a long conversation keeps many results.
    if text.capacity() > 2 * text.len() {
        text.shrink_to_fit();
    }
    BoundedText {
        text,
        truncated: true,
        original_bytes,
    }
}

/// What a producer stopped near the bound ([`TextStream`](crate::tool::TextStream)) reads as: `text`,
/// made of the `bytes_read` bytes taken from it, cut to `max` bytes if longer (as
/// [`bound_text`] cuts), and a marker whose total says the full size is not known:
/// `\n[result truncated: at least 262,148 bytes, the first 262,144 kept]`.
pub(crate) fn bound_stopped(mut text: String, max: ByteSize, bytes_read: u64) -> BoundedText {
    let max = max.as_usize();
    if text.len() > max {
        let cut = cut_point(text.as_bytes(), max);
        text.truncate(cut);
    }
    let kept = text.len();
    push_marker(&mut text, STOPPED_TOTAL, bytes_read, kept);
    BoundedText {
        text,
        truncated: true,
        original_bytes: bytes_read as usize,
    }
}

impl BoundedText {
    /// This text masked by `policy` (after bounding, so only the kept part is read): the kept
    /// part with its entities replaced, what is left of one the cut went through among them,
    /// and the marker line after it, as it was.
    ///
    /// ```
    /// use agboss_core::masking::MaskingPolicy;
    /// use agboss_core::tool::bound_text;
    /// use agboss_core::units::bytes;
    ///
    /// let bounded = bound_text("mail:ada@example.com".to_owned(), bytes(12));
    /// let masked = bounded.masked(&MaskingPolicy::standard());
    /// assert_eq!(masked.text, "mail:[email]\n[result truncated: 20 bytes, the first 12 kept]");
    /// ```
    pub fn masked(self, policy: &MaskingPolicy) -> BoundedText {
        BoundedText {
            text: mask_bounded(self.text, self.truncated, policy),
            ..self
        }
    }
}

/// `text`, a bounded result (`truncated` when [`bound_text`] cut it), masked by `policy`: the
/// kept part masked as [`MaskingPolicy::mask_kept`] does when cut (else as
/// [`MaskingPolicy::mask`]), the marker line left as it is after it. Not copied when nothing is
/// found. A cut text's kept part is never longer masked than it was: placeholders longer than
/// what they hide are cut at the end, so the bound still holds.
pub fn mask_bounded(text: String, truncated: bool, policy: &MaskingPolicy) -> String {
    let kept = match truncated {
        true => text.rfind(MARKER_START).unwrap_or(text.len()),
        false => text.len(),
    };
    let masked = match truncated {
        true => policy.mask_kept(&text[..kept]),
        false => policy.mask(&text),
    };
    match masked {
        std::borrow::Cow::Borrowed(_) => text,
        std::borrow::Cow::Owned(mut masked) => {
            // A placeholder longer than what it hides (`a@b.io` is `[email]`) must not make the
            // model read more than the bound: the kept part is cut back to its length.
            if truncated && masked.len() > kept {
                let mut end = kept;
                while !masked.is_char_boundary(end) {
                    end -= 1;
                }
                masked.truncate(end);
            }
            masked.push_str(&text[kept..]);
            masked
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::{bytes, group_thousands, kilobytes};
    use proptest::prelude::*;

    /// Masking a cut text's kept part does not make it longer than the bound kept: the
    /// placeholder of an entity shorter than it is cut at the end.
    #[test]
    fn a_placeholder_longer_than_its_entity_does_not_break_the_bound() {
        let text = format!("{} mail a@b.io and more after it", "x".repeat(20));
        let bounded = bound_text(text, bytes(35));
        let kept = bounded.text.find('\n').unwrap();
        assert!(bounded.text[..kept].ends_with("a@b.io"), "{}", bounded.text);
        let masked = bounded.clone().masked(&MaskingPolicy::standard());
        let masked_kept = masked.text.find('\n').unwrap();
        assert_eq!(masked_kept, kept, "{}", masked.text);
        assert!(masked.text.contains("mail [email"), "{}", masked.text);
        assert!(!masked.text.contains("a@b.io"));
        assert_eq!(masked.text[masked_kept..], bounded.text[kept..]);
    }

    fn marker(total: usize, kept: usize) -> String {
        let mut m = String::from("\n[result truncated: ");
        group_thousands(total as u64, &mut m);
        m.push_str(" bytes, the first ");
        group_thousands(kept as u64, &mut m);
        m.push_str(" kept]");
        m
    }

    #[test]
    fn short_text_is_untouched() {
        let bounded = bound_text("hello".into(), bytes(5));
        assert_eq!(bounded.text, "hello");
        assert!(!bounded.truncated);
    }

    #[test]
    fn the_spec_example_marker() {
        let text = "x".repeat(1_048_587);
        let bounded = bound_text(text, kilobytes(256));
        assert!(bounded.truncated);
        assert!(
            bounded
                .text
                .ends_with("\n[result truncated: 1,048,587 bytes, the first 262,144 kept]")
        );
        assert_eq!(bounded.original_bytes, 1_048_587);
    }

    #[test]
    fn never_cuts_inside_a_character() {
        // "é" is two bytes; a bound of 3 falls inside the second one.
        let bounded = bound_text("éééé".into(), bytes(3));
        assert_eq!(bounded.text, format!("é{}", marker(8, 2)));
    }

    #[test]
    fn whitespace_outside_the_window_is_not_used() {
        let text = format!("a {}", "b".repeat(600));
        let bounded = bound_text(text, bytes(400));
        assert_eq!(bounded.text.len(), 400 + marker(602, 400).len());
    }

    proptest! {
        #[test]
        fn bounding_keeps_its_promises(text in "\\PC{0,600}", max in 1usize..700) {
            let bounded = bound_text(text.clone(), bytes(max as u64));
            if text.len() <= max {
                prop_assert_eq!(&bounded.text, &text);
                prop_assert!(!bounded.truncated);
            } else {
                prop_assert!(bounded.truncated);
                let kept_len = bounded.text.rfind("\n[result truncated: ").unwrap();
                let kept = &bounded.text[..kept_len];
                // A prefix of the text: whole characters only.
                prop_assert!(text.starts_with(kept));
                prop_assert!(kept.len() <= max);
                // The marker, exactly.
                prop_assert_eq!(&bounded.text[kept_len..], marker(text.len(), kept.len()));
                // Prefers whitespace in the final window, else cuts at the last boundary.
                let mut end = max;
                while !text.is_char_boundary(end) { end -= 1; }
                let window = &text.as_bytes()[end.saturating_sub(WHITESPACE_WINDOW)..end];
                if window.iter().any(|b| b" \t\n\r".contains(b)) {
                    prop_assert!(b" \t\n\r".contains(&text.as_bytes()[kept.len()]));
                    prop_assert!(!text.as_bytes()[kept.len() + 1..end].iter().any(|b| b" \t\n\r".contains(b)));
                } else {
                    prop_assert_eq!(kept.len(), end);
                }
            }
        }
    }
}
