//! [`ToolOutput`]: a call's result as the rules shape it, and [`CallOutcome`], what the model
//! then reads of it.
//!
//! The parts stay apart until the end: the tool's own text (its output's JSON text, or
//! `Tool error: ...`), kept whole or cut; the framework's notes; and, when the text was cut,
//! the marker line. [`render`](ToolOutput::render) writes them in that order, so the marker is
//! always last, and the bound only ever cuts the tool's text: a note, or a sentence the
//! framework says instead of the text (a ceiling's refusal, an artifact's reference), is never
//! cut.

use super::marker::{MARKER_START, STOPPED_TOTAL, cut_point, push_marker};
use crate::tool::{CallDigest, ToolFailure};
use crate::units::ByteSize;

/// How a result's text was cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cut {
    /// To the bound: its full size is known.
    Bound,
    /// By its producer, stopped after `bytes_read` bytes: its full size is not known.
    Producer {
        /// How many bytes were read before it stopped.
        bytes_read: u64,
    },
}

/// One call's result on its way to the model.
#[derive(Debug)]
pub struct ToolOutput {
    /// The tool's text, or the framework's sentence in its place.
    pub(crate) text: String,
    /// Why the call failed, if it did; boxed, so that an output moves as a small value
    /// between the stages of the common call, which succeeds.
    pub(crate) failure: Option<Box<ToolFailure>>,
    /// The size of the full text, in bytes, before any cut.
    pub(crate) total: usize,
    pub(crate) cut: Option<Cut>,
    /// The text is the framework's own sentence: nothing cuts or masks it.
    pub(crate) exempt: bool,
    /// The text was read from a stream: no ceiling measures it and it is never kept aside.
    pub(crate) streamed: bool,
    /// The framework's notes, each after a blank line.
    pub(crate) notes: Vec<String>,
    /// The bound the text is held to, once the `bound` rule set it.
    pub(crate) bound: Option<ByteSize>,
    /// What later calls are compared by, once the `notes` rule took it.
    pub(crate) digest: Option<CallDigest>,
}

impl ToolOutput {
    /// A call that answered with `text` (its output's JSON text).
    pub(crate) fn answered(text: String) -> ToolOutput {
        ToolOutput {
            total: text.len(),
            text,
            failure: None,
            cut: None,
            exempt: false,
            streamed: false,
            notes: Vec::new(),
            bound: None,
            digest: None,
        }
    }

    /// A call that failed: its text is `Tool error: <failure>`.
    pub(crate) fn failed(failure: ToolFailure) -> ToolOutput {
        let mut output = ToolOutput::answered(failure.for_model());
        output.failure = Some(Box::new(failure));
        output
    }

    /// A call whose answer, `text`, its producer stopped after `bytes_read` bytes (a stream,
    /// a server's message cut at the cap).
    pub(crate) fn stopped(text: String, bytes_read: u64) -> ToolOutput {
        let mut output = ToolOutput::answered(text);
        output.cut = Some(Cut::Producer { bytes_read });
        output
    }

    /// A call whose answer, `text`, was read from a stream whole.
    pub(crate) fn streamed(text: String) -> ToolOutput {
        let mut output = ToolOutput::answered(text);
        output.streamed = true;
        output
    }

    /// A stream read up to the bound: whole, or (`truncated`) stopped past it after
    /// `bytes_read` bytes, its marker in `text`.
    pub(crate) fn read(text: String, truncated: bool, bytes_read: u64) -> ToolOutput {
        let mut output = match truncated {
            false => ToolOutput::streamed(text),
            true => {
                let mut text = text;
                let kept = text.rfind(MARKER_START).unwrap_or(text.len());
                text.truncate(kept);
                ToolOutput::stopped(text, bytes_read)
            }
        };
        output.streamed = true;
        output
    }

    /// A failed call whose text is the framework's `sentence`, never cut (a ceiling's refusal).
    pub(crate) fn sentence(failure: ToolFailure, total: usize) -> ToolOutput {
        let mut output = ToolOutput::failed(failure);
        output.total = total;
        output.exempt = true;
        output
    }

    /// The text as it is now: the tool's (kept part only once cut), or the framework's
    /// sentence; without notes or marker.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the call failed.
    pub fn is_error(&self) -> bool {
        self.failure.is_some()
    }

    /// Why the call failed, if it did.
    pub fn failure(&self) -> Option<&ToolFailure> {
        self.failure.as_deref()
    }

    /// Whether the text was cut.
    pub fn is_cut(&self) -> bool {
        self.cut.is_some()
    }

    /// The framework's notes so far.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Cuts the tool's text to at most `max` bytes, as the bound cuts (at whitespace near the
    /// end, never inside a character); a framework sentence is never cut.
    #[inline]
    pub(crate) fn cut_to(&mut self, max: usize) {
        if self.exempt || self.text.len() <= max {
            return;
        }
        let end = cut_point(self.text.as_bytes(), max);
        self.text.truncate(end);
        if self.text.capacity() > 2 * self.text.len() {
            self.text.shrink_to_fit();
        }
        self.cut.get_or_insert(Cut::Bound);
    }

    /// How many bytes the notes take, with the blank lines before them.
    pub(crate) fn notes_len(&self) -> usize {
        self.notes.iter().map(|n| n.len() + 2).sum()
    }

    /// The text with its marker when cut, without notes: what repeated calls are compared by.
    pub(crate) fn marked(&self) -> std::borrow::Cow<'_, str> {
        let mut text = match self.cut {
            None => return std::borrow::Cow::Borrowed(&self.text),
            Some(_) => self.text.clone(),
        };
        self.push_marker(&mut text, self.text.len());
        std::borrow::Cow::Owned(text)
    }

    /// Appends the marker of a cut after `kept` bytes of text.
    fn push_marker(&self, text: &mut String, kept: usize) {
        match self.cut {
            Some(Cut::Bound) => push_marker(text, "", self.total as u64, kept),
            Some(Cut::Producer { bytes_read }) => {
                push_marker(text, STOPPED_TOTAL, bytes_read, kept)
            }
            None => {}
        }
    }

    /// What the model reads: the text, each note after a blank line, then the marker when the
    /// text was cut.
    #[inline]
    pub(crate) fn render(mut self) -> CallOutcome {
        // The common call: its whole text, nothing added.
        if self.cut.is_none() && self.notes.is_empty() {
            return CallOutcome {
                content: self.text,
                is_result_truncated: false,
                result_bytes: self.total,
                failure: self.failure.map(|failure| *failure),
            };
        }
        let mut text = std::mem::take(&mut self.text);
        let kept = text.len();
        for note in &self.notes {
            text.push_str("\n\n");
            text.push_str(note);
        }
        self.push_marker(&mut text, kept);
        let result_bytes = match self.cut {
            Some(Cut::Producer { bytes_read }) => bytes_read as usize,
            _ => self.total,
        };
        CallOutcome {
            content: text,
            is_result_truncated: self.cut.is_some(),
            result_bytes,
            failure: self.failure.map(|failure| *failure),
        }
    }
}

/// The outcome of one tool call, as the agent loop feeds it back to the model.
#[derive(Debug)]
pub struct CallOutcome {
    /// What the model reads: the output's JSON text or `Tool error: <message>`, bounded.
    pub content: String,
    /// Whether `content` was cut to the bound.
    pub is_result_truncated: bool,
    /// The length of the full rendered result in bytes, before bounding.
    pub result_bytes: usize,
    /// Why the call failed, if it did.
    pub failure: Option<ToolFailure>,
}

impl CallOutcome {
    /// A call that answered with the JSON text `output`, bounded to `bound`.
    pub fn succeeded(output: String, bound: ByteSize) -> CallOutcome {
        let mut output = ToolOutput::answered(output);
        output.cut_to(bound.as_usize());
        output.render()
    }

    /// A call that failed: the model reads `Tool error: <message>`, bounded to `bound`.
    pub fn failed(failure: ToolFailure, bound: ByteSize) -> CallOutcome {
        let mut output = ToolOutput::failed(failure);
        output.cut_to(bound.as_usize());
        output.render()
    }

    /// A call whose answer, the JSON text `output`, a dependency cut after reading
    /// `bytes_read` bytes of it: bounded to `bound`, with the marker of a stopped producer
    /// (`at least <bytes_read> bytes`).
    pub fn cut(output: String, bound: ByteSize, bytes_read: u64) -> CallOutcome {
        let mut output = ToolOutput::stopped(output, bytes_read);
        output.cut_to(bound.as_usize());
        output.render()
    }

    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.failure.is_none()
    }
}
