//! The checksums and shapes that tell a real card number, IBAN or phone number from digits that
//! only look like one. Each takes what a pattern matched and says how much of it, from its
//! start, is the entity (the longest prefix that passes), or `None`.

/// The longest prefix of `found` (digits with spaces or dashes between) that is a card number:
/// 13 to 19 digits, an issuer's prefix (Visa, Mastercard, American Express, Discover, JCB,
/// Diners), and a valid Luhn check digit.
pub(super) fn card(found: &str) -> Option<usize> {
    let digits: Vec<(u8, usize)> = found
        .bytes()
        .enumerate()
        .filter(|(_, b)| b.is_ascii_digit())
        .map(|(at, b)| (b - b'0', at + 1))
        .collect();
    if !issuer(&digits) {
        return None;
    }
    (13..=digits.len().min(19))
        .rev()
        .find(|&n| luhn(digits[..n].iter().map(|(d, _)| *d)))
        .map(|n| digits[n - 1].1)
}

/// Whether the first digits are an issuer's prefix.
fn issuer(digits: &[(u8, usize)]) -> bool {
    let lead = |n: usize| {
        digits
            .iter()
            .take(n)
            .fold(0u32, |acc, (d, _)| acc * 10 + u32::from(*d))
    };
    if digits.len() < 13 {
        return false;
    }
    match digits[0].0 {
        4 => true,
        5 => (51..=55).contains(&lead(2)),
        2 => (2221..=2720).contains(&lead(4)),
        3 => (34..=38).contains(&lead(2)) || (300..=305).contains(&lead(3)),
        6 => lead(4) == 6011 || lead(2) == 65 || (644..=649).contains(&lead(3)),
        _ => false,
    }
}

/// The Luhn check over `digits`, the check digit last.
pub(super) fn luhn(digits: impl DoubleEndedIterator<Item = u8>) -> bool {
    let mut sum = 0u32;
    for (i, d) in digits.rev().enumerate() {
        let d = u32::from(d);
        sum += match i % 2 {
            0 => d,
            _ if d * 2 > 9 => d * 2 - 9,
            _ => d * 2,
        };
    }
    sum.is_multiple_of(10)
}

/// The longest prefix of `found` (two letters, two check digits, then letters and digits,
/// maybe in groups of four) that ends at a group's end and is an IBAN: 15 to 34 characters
/// whose ISO 13616 remainder (mod 97) is 1.
pub(super) fn iban(found: &str) -> Option<usize> {
    let bytes = found.as_bytes();
    let ends = (0..=bytes.len())
        .rev()
        .filter(|&end| end == bytes.len() || bytes[end] == b' ');
    for end in ends {
        let compact: Vec<u8> = bytes[..end]
            .iter()
            .copied()
            .filter(|b| *b != b' ')
            .collect();
        if (15..=34).contains(&compact.len()) && mod97(&compact) == Some(1) {
            return Some(end);
        }
    }
    None
}

/// The remainder mod 97 of an IBAN's digits, its first four characters moved to the end and
/// letters written as two digits (A = 10); `None` on a character that is neither.
fn mod97(compact: &[u8]) -> Option<u32> {
    let (head, rest) = compact.split_at(4);
    let mut remainder = 0u32;
    for &b in rest.iter().chain(head) {
        remainder = match b {
            b'0'..=b'9' => (remainder * 10 + u32::from(b - b'0')) % 97,
            b'A'..=b'Z' => (remainder * 100 + u32::from(b - b'A' + 10)) % 97,
            _ => return None,
        };
    }
    Some(remainder)
}

/// The longest prefix of `found` that ends at the end of a run of digits and holds 7 to 15
/// digits (E.164's most), not reaching past a run of 6 digits or more (a subscriber's number,
/// or a whole number written compact): a number written right after it keeps its own digits.
pub(super) fn phone(found: &str) -> Option<usize> {
    let bytes = found.as_bytes();
    let (mut digits, mut run, mut best) = (0, 0, None);
    for (at, b) in bytes.iter().enumerate() {
        if !b.is_ascii_digit() {
            continue;
        }
        digits += 1;
        run += 1;
        if bytes.get(at + 1).is_none_or(|next| !next.is_ascii_digit()) {
            if (7..=15).contains(&digits) {
                best = Some(at + 1);
            }
            if run >= 6 && best.is_some() {
                break;
            }
            run = 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_pass_by_issuer_and_luhn_and_keep_their_longest_valid_prefix() {
        assert_eq!(card("4111 1111 1111 1111"), Some(19));
        assert_eq!(card("4111-1111-1111-1112"), None);
        assert_eq!(card("378282246310005"), Some(15));
        // A Luhn-valid number no issuer uses (a millisecond timestamp).
        assert_eq!(card("1700000000008"), None);
        // A card followed by more digits keeps the card.
        assert_eq!(card("4111111111111111 202"), Some(16));
    }

    #[test]
    fn ibans_pass_by_their_remainder() {
        assert_eq!(iban("DE89 3704 0044 0532 0130 00"), Some(27));
        assert_eq!(iban("GB82WEST12345698765432"), Some(22));
        assert_eq!(iban("GB82WEST12345698765433"), None);
        assert_eq!(iban("DE89 3704 0044 0532 0130 00 ABCD"), Some(27));
    }

    #[test]
    fn phones_count_their_digits() {
        assert_eq!(phone("+1 415 555 0100"), Some(15));
        assert_eq!(phone("+12 345"), None);
        assert_eq!(phone("+44 20 3416 3265 5395"), Some(16));
        assert_eq!(phone("+17001173062 4322"), Some(12));
    }
}
