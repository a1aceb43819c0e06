//! [`Entity`]: the kinds of personal data and secrets masking knows without being told, each
//! with its pattern and the check that confirms a match.

use std::fmt;
use std::ops::Range;

use super::checks;

/// A kind of personal data or secret that [`MaskingPolicy::standard`](super::MaskingPolicy::standard)
/// finds. Each is replaced by its placeholder, its name in brackets (`[email]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Entity {
    /// An email address (`ada@example.com`).
    Email,
    /// A phone number written with its country code (`+44 20 7946 0958`, `+14155550100`) or in
    /// the North American forms `(415) 555-0100` and `415-555-0100`: 7 to 15 digits.
    Phone,
    /// A payment card number: 13 to 19 digits, maybe in groups, with an issuer's prefix and a
    /// valid Luhn check digit.
    Card,
    /// An IBAN, compact or in groups of four, whose check digits hold (ISO 13616, mod 97).
    Iban,
    /// An API key or token by its shape: `sk-...` (OpenAI, Anthropic), `ghp_...` and GitHub's
    /// other tokens, Slack's `xoxb-...`/`xoxp-...`, AWS access key ids (`AKIA...`), JWTs
    /// (`eyJ...`), and the token after `Bearer `.
    Secret,
}

impl Entity {
    /// Every kind, in the order placeholders are chosen when two overlap.
    pub const ALL: [Entity; 5] = [
        Entity::Secret,
        Entity::Email,
        Entity::Iban,
        Entity::Card,
        Entity::Phone,
    ];

    /// Its name: `email`, `phone`, `card`, `iban` or `secret`.
    pub fn name(self) -> &'static str {
        match self {
            Entity::Email => "email",
            Entity::Phone => "phone",
            Entity::Card => "card",
            Entity::Iban => "iban",
            Entity::Secret => "secret",
        }
    }

    /// What replaces it: its name in brackets (`[card]`).
    pub fn placeholder(self) -> &'static str {
        match self {
            Entity::Email => "[email]",
            Entity::Phone => "[phone]",
            Entity::Card => "[card]",
            Entity::Iban => "[iban]",
            Entity::Secret => "[secret]",
        }
    }

    /// The regular expression that finds candidates (ASCII only: word boundaries are ASCII's,
    /// which keeps the search on the regex crate's fast engines).
    pub(super) fn pattern(self) -> &'static str {
        match self {
            Entity::Email => {
                r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}"
            }
            // Simple repetitions: small automata, fast searches; the checks find the entity's
            // end among what they take.
            Entity::Phone => concat!(
                r"(?:\+[0-9](?:[ .\-()]{0,2}[0-9]){6,14}",
                r"|\([0-9]{3}\)[ .\-]?[0-9]{3}[ .\-][0-9]{4}",
                r"|(?-u:\b)[0-9]{3}[.\-][0-9]{3}[.\-][0-9]{4})(?-u:\b)"
            ),
            Entity::Card => r"(?-u:\b)[2-6](?:[0-9][ \-]?){11,17}[0-9](?-u:\b)",
            Entity::Iban => r"(?-u:\b)[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}(?-u:\b)",
            Entity::Secret => concat!(
                r"(?-u:\b)(?:sk-(?:proj-|ant-(?:api03-)?)?[A-Za-z0-9_\-]{20,}",
                r"|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}",
                r"|xox[abposr]-[A-Za-z0-9\-]{10,}|(?:AKIA|ASIA)[A-Z0-9]{16}",
                r"|eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}(?:\.[A-Za-z0-9_\-]+)?",
                r"|[Bb]earer [A-Za-z0-9\-._~+/]{16,}=*)"
            ),
        }
    }

    /// Which part of a candidate `found` is the entity: all of it, a prefix that passes its
    /// check (cards, IBANs, phones), the token after `Bearer `, or none.
    pub(super) fn confirm(self, found: &str) -> Option<Range<usize>> {
        match self {
            Entity::Card => checks::card(found).map(|end| 0..end),
            Entity::Iban => checks::iban(found).map(|end| 0..end),
            Entity::Phone => checks::phone(found).map(|end| 0..end),
            Entity::Secret if found.starts_with("Bearer ") || found.starts_with("bearer ") => {
                Some("Bearer ".len()..found.len())
            }
            Entity::Email | Entity::Secret => Some(0..found.len()),
        }
    }
}

impl fmt::Display for Entity {
    /// Its [`name`](Entity::name).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
