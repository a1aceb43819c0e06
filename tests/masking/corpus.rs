//! The seeded corpora of fault plan T14: entities of every covered kind, each placed as plain
//! text, JSON-escaped, URL-encoded or across a tool's bound, in prose; and clean text that
//! holds none (prose, code, numbers, dates, ids, versions, prices).

use std::fmt::Write as _;

/// The bound of the page tool, whose pages carry the entities planted across it.
pub const PAGE_BOUND: usize = 2048;

/// A small, seeded generator (xorshift64*): the same corpus on every run.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }

    fn chars(&mut self, n: usize, alphabet: &[u8]) -> String {
        (0..n)
            .map(|_| char::from(alphabet[self.below(alphabet.len())]))
            .collect()
    }
}

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/// The kinds T14 plants, in report order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Email,
    Phone,
    Card,
    Iban,
    Secret,
}

pub const KINDS: [Kind; 5] = [
    Kind::Email,
    Kind::Phone,
    Kind::Card,
    Kind::Iban,
    Kind::Secret,
];

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Email => "email",
            Kind::Phone => "phone",
            Kind::Card => "card",
            Kind::Iban => "iban",
            Kind::Secret => "api-key",
        }
    }
}

/// How an entity is written where it is planted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Plain,
    JsonEscaped,
    UrlEncoded,
    /// Plain, straddling the bound of the tool that returns it.
    Boundary,
}

pub const FORMS: [Form; 4] = [
    Form::Plain,
    Form::JsonEscaped,
    Form::UrlEncoded,
    Form::Boundary,
];

/// One planted entity: its kind, its text, and its text as planted.
#[derive(Clone, Debug)]
pub struct Planted {
    pub kind: Kind,
    pub form: Form,
    pub plain: String,
    pub placed: String,
}

/// A new entity of `kind`, in one of the ways people write it.
pub fn entity(rng: &mut Rng, kind: Kind) -> String {
    match kind {
        Kind::Email => {
            let first = rng.pick(&[
                "ada", "grace", "alan", "edsger", "barbara", "ken", "margaret",
            ]);
            let last = rng.pick(&["lovelace", "hopper", "turing", "liskov", "thompson"]);
            let domain = rng.pick(&[
                "example.com",
                "mail.example.org",
                "corp.example.co.uk",
                "ex-ample.io",
            ]);
            let sep = rng.pick(&[".", "_", "+", ""]);
            format!("{first}{sep}{last}{}@{domain}", rng.below(100))
        }
        Kind::Phone => match rng.below(4) {
            0 => format!("+44 20 {} {}", rng.digits(4), rng.digits(4)),
            1 => format!("+1{}", rng.digits(10)),
            2 => format!(
                "({}) {}-{}",
                200 + rng.below(700),
                rng.digits(3),
                rng.digits(4)
            ),
            _ => format!("+49 30 {} {}", rng.digits(3), rng.digits(5)),
        },
        Kind::Card => card(rng),
        Kind::Iban => iban(rng),
        Kind::Secret => match rng.below(6) {
            0 => format!("sk-proj-{}", rng.chars(40, ALNUM)),
            1 => format!("ghp_{}", rng.chars(36, ALNUM)),
            2 => format!("xoxb-{}-{}", rng.digits(12), rng.chars(24, ALNUM)),
            3 => format!("AKIA{}", rng.chars(16, UPPER_DIGITS)),
            4 => format!(
                "eyJ{}.eyJ{}.{}",
                rng.chars(20, ALNUM),
                rng.chars(30, ALNUM),
                rng.chars(43, ALNUM)
            ),
            _ => format!("Bearer {}", rng.chars(32, ALNUM)),
        },
    }
}

/// A Luhn-valid card number of a real issuer's shape, compact or in groups.
fn card(rng: &mut Rng) -> String {
    let (prefix, len) = match rng.below(4) {
        0 => ("4".to_owned(), 16),
        1 => (format!("5{}", 1 + rng.below(5)), 16),
        2 => (rng.pick(&["34", "37"]).to_owned(), 15),
        _ => ("6011".to_owned(), 16),
    };
    let mut digits: Vec<u32> = prefix.chars().map(|c| c.to_digit(10).unwrap()).collect();
    while digits.len() < len - 1 {
        digits.push(rng.below(10) as u32);
    }
    let sum: u32 = digits
        .iter()
        .rev()
        .enumerate()
        .map(|(i, &d)| {
            if i % 2 == 0 {
                if d * 2 > 9 { d * 2 - 9 } else { d * 2 }
            } else {
                d
            }
        })
        .sum();
    digits.push((10 - sum % 10) % 10);
    let compact: String = digits
        .iter()
        .map(|d| char::from_digit(*d, 10).unwrap())
        .collect();
    match rng.below(3) {
        0 => compact,
        sep => group(&compact, if sep == 1 { ' ' } else { '-' }),
    }
}

/// A valid IBAN of Germany, Britain or France, compact or in groups of four.
fn iban(rng: &mut Rng) -> String {
    let (country, bban) = match rng.below(3) {
        0 => ("DE", rng.digits(18)),
        1 => (
            "GB",
            format!(
                "{}{}",
                rng.chars(4, b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
                rng.digits(14)
            ),
        ),
        _ => (
            "FR",
            format!(
                "{}{}{}",
                rng.digits(10),
                rng.chars(11, UPPER_DIGITS),
                rng.digits(2)
            ),
        ),
    };
    let numeric: String = format!("{bban}{country}00")
        .chars()
        .map(|c| match c.to_digit(36) {
            Some(v) => v.to_string(),
            None => String::new(),
        })
        .collect();
    let remainder = numeric
        .bytes()
        .fold(0u32, |r, b| (r * 10 + u32::from(b - b'0')) % 97);
    let compact = format!("{country}{:02}{bban}", 98 - remainder);
    if rng.below(2) == 0 {
        compact
    } else {
        group(&compact, ' ')
    }
}

fn group(compact: &str, sep: char) -> String {
    let mut out = String::new();
    for (i, c) in compact.chars().enumerate() {
        if i > 0 && i % 4 == 0 {
            out.push(sep);
        }
        out.push(c);
    }
    out
}

/// `plain` as JSON text spells it with escapes: its first character, `@`, `+`, `-` and spaces.
pub fn json_escaped(plain: &str) -> String {
    plain
        .chars()
        .enumerate()
        .map(|(i, c)| match c {
            '@' | '+' | '-' | ' ' => format!("\\u{:04x}", c as u32),
            _ if i == 0 => format!("\\u{:04x}", c as u32),
            _ => c.to_string(),
        })
        .collect()
}

/// `plain` URL-encoded: `@`, `+`, `(`, `)` and spaces.
pub fn url_encoded(plain: &str) -> String {
    plain
        .chars()
        .map(|c| match c {
            '@' | '+' | ' ' | '(' | ')' => format!("%{:02X}", c as u32),
            _ => c.to_string(),
        })
        .collect()
}

/// Prose around planted entities, and the clean corpus's sentences.
pub const PROSE: &[&str] = &[
    "The quarterly review went well and the team shipped the migration on time.",
    "Please find the summary below; the numbers are preliminary until Friday.",
    "Release 2.14.3 fixes the cache eviction bug reported on 2024-03-18 at 09:41.",
    "Order #48213 totals $1,299.99 (tax $104.00) and ships in 3-5 business days.",
    "Build 20240318.4 of version v1.8.0-rc.2 passed 1,204 of 1,211 tests.",
    "Request id 123e4567-e89b-12d3-a456-426614174000 took 238 ms at p99.",
    "fn main() { let total: u64 = items.iter().map(|i| i.price * 100).sum(); }",
    "SELECT id, created_at FROM orders WHERE amount > 1000 LIMIT 50;",
    "The meeting moved to 14:30 on 12/05/2024; room 4.12, building B.",
    "Coordinates 48.8566, 2.3522 and elevation 35 m; temperature 21.5 C.",
    "Invoice INV-2024-00931 is due 2024-07-01; ref 9981-2210-77.",
    "The commit 3f9a1c2e8b7d6f5a4c3b2a1f0e9d8c7b6a5f4e3d touched 14 files.",
    "Latency fell from 1.25 s to 310 ms after the 3.0.1 upgrade on 2023-11-02.",
    "ISBN 978-0-13-468599-1 and DOI 10.1145/3290605.3300233 are cited twice.",
    "Stock rose 2.75% to 184.32 while volume reached 12,450,000 shares.",
    "port 8080, pid 48213, uptime 1d 04:12:55, memory 1.9 GiB of 15.6 GiB",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "Timestamp 1700000000123 and epoch 1699999999 in the audit table.",
    "The recipe needs 250 g flour, 3 eggs and 2 tbsp sugar at 180 C for 25 min.",
    "git tag v0.4.12 && cargo publish --allow-dirty; semver 1.0.0+build.5",
];

/// Filler with no whitespace: a bound inside it cuts at its byte, not at a space before it.
pub fn dense(rng: &mut Rng, len: usize) -> String {
    let mut out = String::with_capacity(len);
    while out.len() < len {
        out.push_str(&format!("k{}={};", rng.below(1000), rng.below(10_000)));
    }
    out.truncate(len);
    out
}

/// The planted corpus: documents, and what each holds.
pub struct Corpus {
    pub docs: Vec<String>,
    /// Per document: its tool, and what is planted in it.
    pub planted: Vec<(&'static str, Vec<Planted>)>,
}

/// 500 entities, 100 of each kind, 25 in each form: five to a record for the first three
/// forms, one to a page for those across the bound.
pub fn planted_corpus(rng: &mut Rng) -> Corpus {
    let mut inline: Vec<Planted> = Vec::new();
    let mut boundary: Vec<Planted> = Vec::new();
    for n in 0..500 {
        let kind = KINDS[n % 5];
        let form = FORMS[(n / 5) % 4];
        let plain = entity(rng, kind);
        let placed = match form {
            Form::JsonEscaped => json_escaped(&plain),
            Form::UrlEncoded => url_encoded(&plain),
            Form::Plain | Form::Boundary => plain.clone(),
        };
        let planted = Planted {
            kind,
            form,
            plain,
            placed,
        };
        match form {
            Form::Boundary => boundary.push(planted),
            _ => inline.push(planted),
        }
    }
    let mut corpus = Corpus {
        docs: Vec::new(),
        planted: Vec::new(),
    };
    for chunk in inline.chunks(5) {
        let mut doc = format!("doc-{}: ", corpus.docs.len());
        for planted in chunk {
            let _ = write!(doc, "{} Contact: {} ", rng.pick(PROSE), planted.placed);
        }
        corpus.docs.push(doc);
        corpus.planted.push(("fetch-record-tool", chunk.to_vec()));
    }
    for planted in boundary {
        let head = format!(
            "doc-{}: {} {} ",
            corpus.docs.len(),
            rng.pick(PROSE),
            rng.pick(PROSE)
        );
        // The entity's first byte lands `keep` bytes before the bound, in the rendered text
        // (`"` + the document + `"`), with no whitespace in the 300 bytes before it.
        let keep = 1 + rng.below(planted.plain.len() - 1);
        let filler = PAGE_BOUND - keep - 1 - head.len() - "ref=".len();
        let doc = format!(
            "{head}{}ref={} {} {}",
            dense(rng, filler),
            planted.placed,
            rng.pick(PROSE),
            rng.pick(PROSE)
        );
        corpus.docs.push(doc);
        corpus.planted.push(("fetch-page-tool", vec![planted]));
    }
    corpus
}
