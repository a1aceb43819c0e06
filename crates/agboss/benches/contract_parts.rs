//! The parts of the call contract measured apart, to show where time goes: JSON trees
//! (`serde_json::Value`) against direct parsing, and validation itself. These figures are why
//! the contract validates on a reusable tape instead of a `Value` (docs/performance.md).

mod common;

use std::hint::black_box;
use std::sync::Arc;

use agboss::context::{Execution, Step};
use agboss_core::tool::CallFrame;
use common::{ARGUMENTS, Items, Query};
use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;

fn parts(c: &mut Criterion) {
    let schema = agboss::tool::input_schema_of::<Query>();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .unwrap();
    let value: serde_json::Value = serde_json::from_str(ARGUMENTS).unwrap();
    let items = Items {
        items: vec![
            "alpha login".into(),
            "beta login".into(),
            "gamma login".into(),
        ],
    };
    let items_value = serde_json::to_value(&items).unwrap();
    let execution = Execution::builder("bench").build();
    let node: Arc<str> = Arc::from("agent");
    let call_id: Arc<str> = Arc::from("call_1");

    let mut group = c.benchmark_group("contract_parts");
    group.bench_function("parse_to_value", |b| {
        b.iter(|| {
            black_box(serde_json::from_str::<serde_json::Value>(black_box(ARGUMENTS)).unwrap())
        })
    });
    group.bench_function("parse_to_struct", |b| {
        b.iter(|| black_box(serde_json::from_str::<Query>(black_box(ARGUMENTS)).unwrap()))
    });
    group.bench_function("validate_value", |b| {
        b.iter(|| black_box(validator.is_valid(black_box(&value))))
    });
    group.bench_function("struct_from_value", |b| {
        b.iter(|| black_box(Query::deserialize(black_box(&value)).unwrap()))
    });
    group.bench_function("output_to_value", |b| {
        b.iter(|| black_box(serde_json::to_value(black_box(&items)).unwrap()))
    });
    group.bench_function("value_to_text", |b| {
        b.iter(|| black_box(serde_json::to_string(black_box(&items_value)).unwrap()))
    });
    group.bench_function("output_to_text", |b| {
        b.iter(|| black_box(serde_json::to_string(black_box(&items)).unwrap()))
    });
    group.bench_function("call_frame", |b| {
        b.iter(|| {
            black_box(CallFrame::new(
                execution.clone(),
                Step::new(node.clone(), 1, call_id.clone()),
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, parts);
criterion_main!(benches);
