//! Masking on the result path, beside bounding alone in the same run: a 1 MiB result bounded to
//! 128 KB, then its kept part masked with the standard policy, on clean text (prose, numbers,
//! dates, ids; nothing to mask) and on dense text (an entity every 100 bytes or so).

use std::hint::black_box;

use agboss::policy::MaskingPolicy;
use agboss::tool::{bound_text, mask_bounded};
use agboss::units::kilobytes;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

/// Clean text: prose with numbers, dates, versions, prices and ids, none of them an entity.
const CLEAN: &[&str] = &[
    "The quarterly review went well and the team shipped the migration on time.",
    "Release 2.14.3 fixes the cache eviction bug reported on 2024-03-18 at 09:41.",
    "Order #48213 totals $1,299.99 (tax $104.00) and ships in 3-5 business days.",
    "Request id 123e4567-e89b-12d3-a456-426614174000 took 238 ms at p99.",
    "fn main() { let total: u64 = items.iter().map(|i| i.price * 100).sum(); }",
    "Timestamp 1700000000123 and epoch 1699999999 in the audit table, élan.",
];

/// Dense text: every sentence carries an entity.
const DENSE: &[&str] = &[
    "Write to ada.lovelace@example.com about the invoice.",
    "Call +44 20 7946 0958 before noon.",
    "Card 4111 1111 1111 1111 was charged twice.",
    "Pay to DE89 3704 0044 0532 0130 00 by Friday.",
    "The key sk-proj-AbCdEfGhIjKlMnOpQrStUv123 leaked.",
    r#"{"to":"grace\u0040example.org","note":"call (415) 555-0100"}"#,
];

fn page(sentences: &[&str]) -> String {
    let mut page = String::with_capacity(1 << 20);
    let mut i = 0;
    while page.len() < (1 << 20) - 128 {
        page.push_str(sentences[i % sentences.len()]);
        page.push(if i % 7 == 6 { '\n' } else { ' ' });
        i += 1;
    }
    page
}

fn masking(c: &mut Criterion) {
    let policy = MaskingPolicy::standard();
    let clean = page(CLEAN);
    let dense = page(DENSE);
    let masked = mask_bounded(
        bound_text(dense.clone(), kilobytes(128)).text,
        true,
        &policy,
    );
    assert!(masked.contains("[email]") && masked.contains("[card]"));

    let mut group = c.benchmark_group("masking");
    group.bench_function("bound_only_1MiB_to_128KB", |b| {
        b.iter_batched(
            || clean.clone(),
            |text| black_box(bound_text(text, kilobytes(128))),
            BatchSize::LargeInput,
        )
    });
    for (name, page) in [("clean", &clean), ("dense", &dense)] {
        group.bench_function(format!("bound_and_mask_{name}"), |b| {
            b.iter_batched(
                || page.clone(),
                |text| {
                    let bounded = bound_text(text, kilobytes(128));
                    black_box(mask_bounded(bounded.text, bounded.truncated, &policy))
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.bench_function("mask_short_result", |b| {
        b.iter(|| black_box(policy.mask(black_box(r#"{"status":"ok","count":3}"#))))
    });
    group.finish();
}

criterion_group!(benches, masking);
criterion_main!(benches);
