//! How T14 judges what it reads: escapes undone, whole entities found, what a cut left of
//! one, and false positives on the clean corpus.

use agboss::dto::PlainText;
use agboss::policy::MaskingPolicy;
use serde_json::json;

use super::corpus::{Kind, PROSE, Planted, Rng};

/// Every JSON and URL escape undone, as often as they nest: what a leak looks like once read.
pub fn deep_decode(text: &str) -> String {
    let mut text = text.to_owned();
    for _ in 0..4 {
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(c) = rest.chars().next() {
            let hex = |s: &str, n: usize| {
                s.get(..n)
                    .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
                    .and_then(char::from_u32)
            };
            let (ch, used) = match (c, rest.get(1..2)) {
                ('\\', Some("u")) => match hex(&rest[2..], 4) {
                    Some(ch) => (ch, 6),
                    None => (c, 1),
                },
                ('\\', Some("\\")) => ('\\', 2),
                ('\\', Some("\"")) => ('"', 2),
                ('\\', Some("n")) => ('\n', 2),
                ('%', _) => match hex(&rest[1..], 2) {
                    Some(ch) => (ch, 3),
                    None => (c, 1),
                },
                _ => (c, c.len_utf8()),
            };
            out.push(ch);
            rest = &rest[used..];
        }
        if out == text {
            break;
        }
        text = out;
    }
    text
}

/// Whether `planted` survives whole in `text`, as planted or once decoded.
pub fn leaks(text: &str, decoded: &str, planted: &Planted) -> bool {
    text.contains(&planted.placed) || decoded.contains(&planted.plain)
}

/// What a cut left visible of `planted` in `content` (a page's result), and whether that much
/// is enough to count: an `@`, six digits, a key's prefix, eight characters of an IBAN.
pub fn partial_left(doc: &str, content: &str, planted: &Planted) -> Option<(String, bool)> {
    let rendered = serde_json::to_string(&PlainText::new(doc.to_owned())).unwrap();
    let start = rendered.rfind("ref=").unwrap() + 4;
    let kept: usize = content
        .rsplit("the first ")
        .next()?
        .trim_end_matches(" kept]")
        .replace(',', "")
        .parse()
        .ok()?;
    let prefix = rendered.get(start..kept.max(start))?.to_owned();
    if prefix.is_empty() || !content.contains(&format!("ref={prefix}\n")) {
        return None;
    }
    let digits = prefix.bytes().filter(u8::is_ascii_digit).count();
    let enough = match planted.kind {
        Kind::Email => prefix.contains('@'),
        Kind::Phone | Kind::Card => digits >= 6,
        Kind::Iban => prefix.len() >= 8,
        Kind::Secret => ["sk-", "ghp_", "xoxb-", "AKIA", "eyJ", "Bearer "]
            .iter()
            .any(|p| prefix.starts_with(p)),
    };
    Some((prefix, enough))
}

/// The clean corpus: every prose sentence alone, 400 seeded mixes of them, and the JSON of
/// such records; returns how many texts, their bytes, and what masking changed in them.
pub fn clean_corpus_false_positives() -> (usize, usize, Vec<String>) {
    let policy = MaskingPolicy::standard();
    let mut rng = Rng::new(0xC1EA_2026);
    let mut texts: Vec<String> = PROSE.iter().map(|s| (*s).to_owned()).collect();
    for _ in 0..400 {
        let text = (0..4)
            .map(|_| rng.pick(PROSE))
            .collect::<Vec<_>>()
            .join(" ");
        texts.push(
            serde_json::to_string(&json!({ "id": rng.below(100_000), "body": text })).unwrap(),
        );
        texts.push(text);
    }
    let bytes = texts.iter().map(String::len).sum();
    let changed = texts
        .iter()
        .filter_map(|t| match policy.mask(t) {
            std::borrow::Cow::Borrowed(_) => None,
            std::borrow::Cow::Owned(masked) => Some(masked),
        })
        .collect();
    (texts.len(), bytes, changed)
}
