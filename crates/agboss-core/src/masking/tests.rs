//! The masking policy's behaviour on each kind of entity, escaped forms and cut texts.

use std::borrow::Cow;

use super::{Entity, MaskingPolicy};

fn masked(text: &str) -> String {
    MaskingPolicy::standard().mask(text).into_owned()
}

#[test]
fn each_built_in_entity_is_replaced_by_its_placeholder() {
    let cases = [
        (
            "mail ada.lovelace+x@mail.example.co.uk now",
            "mail [email] now",
        ),
        ("call +44 20 7946 0958.", "call [phone]."),
        (
            "call (415) 555-0100 or 415-555-0199",
            "call [phone] or [phone]",
        ),
        ("pay 4111 1111 1111 1111 today", "pay [card] today"),
        ("pay 378282246310005", "pay [card]"),
        ("iban DE89 3704 0044 0532 0130 00 ok", "iban [iban] ok"),
        ("iban GB82WEST12345698765432", "iban [iban]"),
        ("key sk-proj-AbCdEfGhIjKlMnOpQrStUv123", "key [secret]"),
        (
            "token ghp_0123456789abcdefghijABCDEFGHIJ012345",
            "token [secret]",
        ),
        ("slack xoxb-123456789012-abcdefABCDEF", "slack [secret]"),
        ("aws AKIAIOSFODNN7EXAMPLE", "aws [secret]"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "jwt [secret]",
        ),
        (
            "Authorization: Bearer abcdefghijklmnopqrstuvwxyz",
            "Authorization: Bearer [secret]",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(masked(text), expected, "{text}");
    }
}

#[test]
fn numbers_that_only_look_like_entities_stay() {
    let clean = [
        "card 4111 1111 1111 1112 fails its check",
        "order 1700000000008 at 2024-01-15 10:30",
        "price $1,299.99, version 1.24.3, uuid 123e4567-e89b-12d3-a456-426614174000",
        "GB82WEST12345698765433 is not an IBAN",
        "sk-short and task-1234 and ghp_short",
    ];
    for text in clean {
        assert!(
            matches!(MaskingPolicy::standard().mask(text), Cow::Borrowed(_)),
            "{text}"
        );
    }
}

#[test]
fn escaped_forms_are_found_and_the_escapes_masked_with_them() {
    assert_eq!(
        masked(r#"{"to":"ada\u0040example.com"}"#),
        r#"{"to":"[email]"}"#
    );
    assert_eq!(masked("mailto%3Aada%40example.com"), "mailto%3A[email]");
    assert_eq!(
        masked(r#"{"note":"card:\n4111111111111111"}"#),
        r#"{"note":"card:\n[card]"}"#
    );
    assert_eq!(
        masked(r"\u0034\u0031\u0031\u0031111111111111"),
        "[card]",
        "a card spelled in escapes"
    );
}

#[test]
fn entities_can_be_turned_off_and_patterns_added() {
    let policy = MaskingPolicy::standard().without(Entity::Email);
    assert_eq!(policy.mask("ada@example.com"), "ada@example.com");
    assert_eq!(
        policy.with(Entity::Email).mask("ada@example.com"),
        "[email]"
    );
    let own = MaskingPolicy::empty()
        .with_pattern("ticket", r"TCK-[0-9]{4}")
        .unwrap();
    assert_eq!(
        own.mask("see TCK-0042 and ada@example.com"),
        "see [ticket] and ada@example.com"
    );
    assert_eq!(own.entities(), &[] as &[Entity]);
    assert_eq!(
        own.patterns().collect::<Vec<_>>(),
        [("ticket", r"TCK-[0-9]{4}")]
    );
}

#[test]
fn an_unusable_pattern_is_an_error_naming_it() {
    let error = MaskingPolicy::standard()
        .with_pattern("employee-id", r"EMP-(\d{6}")
        .unwrap_err();
    assert_eq!(error.name, "employee-id");
    assert!(
        error
            .to_string()
            .starts_with("masking pattern `employee-id`: not a valid regular expression"),
        "{error}"
    );
    let named = |name: &str| {
        MaskingPolicy::standard()
            .with_pattern(name, "x")
            .unwrap_err()
            .why
    };
    assert!(named("Bad Name").contains("lowercase"));
    assert!(named("email").contains("taken"));
    assert!(MaskingPolicy::standard().with_pattern("any", "x*").is_err());
}

#[test]
fn policies_compare_by_what_they_mask() {
    assert_eq!(MaskingPolicy::standard(), MaskingPolicy::standard());
    assert_ne!(
        MaskingPolicy::standard(),
        MaskingPolicy::standard().without(Entity::Card)
    );
    assert_eq!(
        MaskingPolicy::empty()
            .with(Entity::Card)
            .with(Entity::Email),
        MaskingPolicy::empty()
            .with(Entity::Email)
            .with(Entity::Card)
    );
}

#[test]
fn the_end_of_a_kept_part_is_masked_conservatively() {
    let policy = MaskingPolicy::standard();
    assert_eq!(policy.mask_kept("a@b.io and c@d"), "[email] and [email]");
    assert_eq!(policy.mask_kept("pay 4111 1111 1111"), "pay [card]");
    assert_eq!(
        policy.mask_kept(r#"{"key":"sk-proj-abc"#),
        r#"{"key":"[secret]"#
    );
    assert!(matches!(
        policy.mask_kept("nothing at the end"),
        Cow::Borrowed(_)
    ));
    // An entity turned off is not guessed at either.
    assert_eq!(
        policy.without(Entity::Email).mask_kept("write to ada@exam"),
        "write to ada@exam"
    );
}
