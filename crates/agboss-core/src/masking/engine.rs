//! The matching engine: each pattern searched for on its own (so each keeps the regex crate's
//! literal prefilters: `@` for emails, key prefixes for secrets), those made of digits (cards,
//! phones, IBANs) only in the windows around runs of digits (`digits.rs`); each match confirmed
//! by its entity's check; the spans found merged and replaced.

use std::borrow::Cow;
use std::ops::Range;

use regex::Regex;

use super::Entity;
use super::decode::{decode, has_escapes};
use super::digits::windows;

/// What one pattern stands for: a built-in entity, or a pattern of the user's with its
/// placeholder.
#[derive(Clone, Debug)]
pub(super) enum Kind {
    Entity(Entity),
    Named(String),
}

/// One pattern, compiled.
#[derive(Clone, Debug)]
pub(super) struct Matcher {
    pub(super) kind: Kind,
    pub(super) regex: Regex,
}

impl Matcher {
    /// Which part of `found` the entity is (see [`Entity::confirm`]).
    fn confirm(&self, found: &str) -> Option<Range<usize>> {
        match &self.kind {
            Kind::Entity(entity) => entity.confirm(found),
            Kind::Named(_) => Some(0..found.len()),
        }
    }

    /// Whether it can only match near a run of digits (cards, phones, IBANs).
    fn near_digits(&self) -> bool {
        matches!(
            self.kind,
            Kind::Entity(Entity::Card | Entity::Phone | Entity::Iban)
        )
    }

    /// What replaces what it finds.
    pub(super) fn placeholder(&self) -> Cow<'_, str> {
        match &self.kind {
            Kind::Entity(entity) => Cow::Borrowed(entity.placeholder()),
            Kind::Named(name) => Cow::Owned(format!("[{name}]")),
        }
    }
}

/// A span of the text to replace, and the matcher that found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Span {
    pub(super) range: Range<usize>,
    pub(super) matcher: usize,
}

/// The compiled patterns of one policy.
#[derive(Clone, Debug)]
pub(super) struct Engine {
    pub(super) matchers: Vec<Matcher>,
}

impl Engine {
    /// The engine over `matchers`, in order of precedence.
    pub(super) fn new(matchers: Vec<Matcher>) -> Engine {
        Engine { matchers }
    }

    /// `text` with every span found replaced; borrowed when nothing is.
    pub(super) fn mask<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let spans = self.find(text);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        Cow::Owned(self.replace(text, &spans))
    }

    /// The spans to replace in `text`, sorted and disjoint: found in the text as it is, or, when
    /// it holds escapes, in the text with them undone and mapped back.
    pub(super) fn find(&self, text: &str) -> Vec<Span> {
        if !has_escapes(text) {
            return self.spans(text);
        }
        let decoded = decode(text);
        let mut spans = self.spans(&decoded.text);
        for span in &mut spans {
            span.range = decoded.original(span.range.clone());
        }
        merge(spans)
    }

    /// `text` with each of `spans` replaced by its matcher's placeholder.
    pub(super) fn replace(&self, text: &str, spans: &[Span]) -> String {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for span in spans {
            out.push_str(&text[at..span.range.start]);
            out.push_str(&self.matchers[span.matcher].placeholder());
            at = span.range.end;
        }
        out.push_str(&text[at..]);
        out
    }

    /// The confirmed matches of every pattern in `text`, merged.
    fn spans(&self, text: &str) -> Vec<Span> {
        let mut spans = Vec::new();
        let mut near: Option<Vec<Range<usize>>> = None;
        for (index, matcher) in self.matchers.iter().enumerate() {
            if !matcher.near_digits() {
                self.matches_of(index, text, 0, &mut spans);
                continue;
            }
            for window in near.get_or_insert_with(|| windows(text)).iter() {
                self.matches_of(index, &text[window.clone()], window.start, &mut spans);
            }
        }
        merge(spans)
    }

    /// The confirmed matches of matcher `index` in `text` (which starts at `offset` of the
    /// text masked). A candidate its check refuses is searched past by one character only, so
    /// a shorter entity inside it is still found.
    fn matches_of(&self, index: usize, text: &str, offset: usize, spans: &mut Vec<Span>) {
        let matcher = &self.matchers[index];
        let mut at = 0;
        while at <= text.len() {
            let Some(found) = matcher.regex.find_at(text, at) else {
                break;
            };
            let next = next_boundary(text, found.start());
            match matcher.confirm(found.as_str()) {
                Some(part) if !part.is_empty() => {
                    let start = found.start() + part.start;
                    let end = found.start() + part.end;
                    spans.push(Span {
                        range: offset + start..offset + end,
                        matcher: index,
                    });
                    at = end.max(next);
                }
                _ => at = next,
            }
        }
    }
}

/// The first character boundary of `text` after `at`.
fn next_boundary(text: &str, at: usize) -> usize {
    let mut next = at + 1;
    while next < text.len() && !text.is_char_boundary(next) {
        next += 1;
    }
    next
}

/// `spans` sorted, overlapping ones joined into one (named by the first of them, which sorts
/// first by start, then by the matchers' precedence).
pub(super) fn merge(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_by_key(|s| (s.range.start, s.matcher));
    let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
    for span in spans {
        match merged.last_mut() {
            Some(last) if span.range.start < last.range.end => {
                last.range.end = last.range.end.max(span.range.end);
            }
            _ => merged.push(span),
        }
    }
    merged
}
