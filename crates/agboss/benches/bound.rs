//! Bounding what a model reads: a 1 MiB result to the default 128 KB.

use std::hint::black_box;

use agboss::tool::bound_text;
use agboss::units::kilobytes;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

fn bound(c: &mut Criterion) {
    // Words of varied length, so the cut searches for whitespace like it would in a page.
    let words = [
        "lorem",
        "ipsum",
        "dolor",
        "sit",
        "amet,",
        "consectetur",
        "adipiscing",
        "élit",
    ];
    let mut page = String::with_capacity(1 << 20);
    let mut i = 0;
    while page.len() < (1 << 20) - 16 {
        page.push_str(words[i % words.len()]);
        page.push(if i % 13 == 12 { '\n' } else { ' ' });
        i += 1;
    }
    let bounded = bound_text(page.clone(), kilobytes(128));
    assert!(bounded.truncated);

    let mut group = c.benchmark_group("bound");
    group.bench_function("1MiB_to_128KB", |b| {
        b.iter_batched(
            || page.clone(),
            |text| black_box(bound_text(text, kilobytes(128))),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("under_the_bound", |b| {
        b.iter_batched(
            || "short result".to_owned(),
            |text| black_box(bound_text(text, kilobytes(128))),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, bound);
criterion_main!(benches);
