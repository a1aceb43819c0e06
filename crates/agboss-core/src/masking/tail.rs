//! The end of a kept part that a cut went through: what is left there of an email address, a
//! card or phone number, an IBAN or a key is masked too, though it no longer matches whole.

use std::sync::LazyLock;

use regex::Regex;

use super::Entity;
use super::decode::{decode, has_escapes};

/// How far back from the cut a partial entity is looked for, in bytes.
const WINDOW: usize = 128;

/// What is left of each kind of entity just before a cut, anchored at the end.
static PARTS: LazyLock<Vec<(Entity, Regex)>> = LazyLock::new(|| {
    [
        (Entity::Email, r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]*\z"),
        (
            Entity::Secret,
            r"(?-u:\b)(?:sk-|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|ASIA|eyJ)[A-Za-z0-9_\-.]*\z",
        ),
        (Entity::Secret, r"[Bb]earer [A-Za-z0-9\-._~+/]*\z"),
        (
            Entity::Iban,
            r"(?-u:\b)[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{1,4}){1,8}\z",
        ),
        (Entity::Phone, r"[+(][0-9][0-9 .\-()]*\z"),
        (Entity::Card, r"(?-u:\b)[0-9][0-9 \-]*\z"),
    ]
    .into_iter()
    .filter_map(|(entity, pattern)| Regex::new(pattern).ok().map(|r| (entity, r)))
    .collect()
});

/// Where what is left of an entity at the end of `kept` starts, and its kind; escapes are
/// undone first, so a cut through `ada\u0040exam` is found as well.
pub(super) fn partial(kept: &str) -> Option<(usize, Entity)> {
    let mut from = kept.len().saturating_sub(WINDOW);
    while !kept.is_char_boundary(from) {
        from += 1;
    }
    let window = &kept[from..];
    if !has_escapes(window) {
        return found(window).map(|(start, entity)| (from + start, entity));
    }
    let decoded = decode(window);
    let (start, entity) = found(&decoded.text)?;
    let original = decoded.original(start..decoded.text.len());
    Some((from + original.start, entity))
}

/// The first kind whose remains end `window`, with where they start; digits count only when
/// there are enough of them to be more than a number.
fn found(window: &str) -> Option<(usize, Entity)> {
    PARTS.iter().find_map(|(entity, part)| {
        let m = part.find(window)?;
        let digits = m.as_str().bytes().filter(u8::is_ascii_digit).count();
        let enough = match entity {
            Entity::Phone => digits >= 5,
            Entity::Card => digits >= 6,
            Entity::Iban => m.as_str().len() >= 8,
            Entity::Email | Entity::Secret => true,
        };
        enough.then_some((m.start(), *entity))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_remains_of_each_kind_are_found() {
        assert_eq!(partial("write to ada@exam"), Some((9, Entity::Email)));
        assert_eq!(partial(r"write to ada\u0040exam"), Some((9, Entity::Email)));
        assert_eq!(partial("card 4111 1111 11"), Some((5, Entity::Card)));
        assert_eq!(partial("call +1 415 55"), Some((5, Entity::Phone)));
        assert_eq!(partial("key sk-proj-abc"), Some((4, Entity::Secret)));
        assert_eq!(partial("iban DE89 3704 00"), Some((5, Entity::Iban)));
        assert_eq!(partial("auth: Bearer abc"), Some((6, Entity::Secret)));
    }

    #[test]
    fn plain_words_and_short_numbers_are_left() {
        assert_eq!(partial("the answer is 42"), None);
        assert_eq!(partial("see the manual"), None);
        assert_eq!(partial(""), None);
    }
}
