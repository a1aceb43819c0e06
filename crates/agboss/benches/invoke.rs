//! The call contract against its floor, in one run.
//!
//! - `floor`: serde parse of the JSON arguments, the same `run`, serialize the output. No
//!   validation, no timeout, no cancellation, no bound.
//! - `contract`: the typed `Invoker::invoke`: input parsed and validated, cancellation checked,
//!   `run` under its timeout and signal with panics caught, output validated, rendered and
//!   bounded; a fresh call frame per call.
//! - `contract_dyn`: the same through `DynTool`, as the agent loop holds tools (one boxed
//!   future per call).
//!
//! Futures here finish on their first poll, so both sides are driven by one poll with a no-op
//! waker: what is measured is the work, not a runtime.

mod common;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use agboss::context::{Execution, Step};
use agboss::prelude::*;
// The contract itself, below the facade: what the loop runs for every call.
use agboss_core::tool::{CallFrame, DynTool, Invoker, ToolEnv};
use common::{ARGUMENTS, Items, Query};
use criterion::{Criterion, criterion_group, criterion_main};

/// A search whose work is the same as the floor's.
#[tool(name = "search-tool", description = "Searches")]
pub struct Search;

fn found(query: &Query) -> Items {
    let n = query.limit.min(3) as usize;
    Items {
        items: ["alpha", "beta", "gamma"][..n]
            .iter()
            .map(|s| format!("{s} {}", query.query))
            .collect(),
    }
}

impl ToolHandler for Search {
    type Input = Query;
    type Output = Items;

    async fn run(&self, input: Query) -> Result<Items, ToolError> {
        Ok(found(&input))
    }
}

fn poll_once<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    match future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the benchmarked call waited"),
    }
}

fn invoke(c: &mut Criterion) {
    let tool = Search;
    let invoker = Invoker::<Search>::new(ToolEnv::default());
    let erased: Arc<dyn DynTool> = Arc::new(invoker.clone());
    let execution = Execution::builder("bench").build();
    // The loop holds the node's id and the call's id (parsed from the model's answer) already.
    let node: Arc<str> = Arc::from("agent");
    let call_id: Arc<str> = Arc::from("call_1");
    let frame = || {
        CallFrame::new(
            execution.clone(),
            Step::new(node.clone(), 1, call_id.clone()),
        )
    };

    // The two sides must agree before they are compared.
    let floor_text =
        serde_json::to_string(&found(&serde_json::from_str(ARGUMENTS).unwrap())).unwrap();
    let outcome = poll_once(invoker.invoke(ARGUMENTS, &frame()));
    assert_eq!(outcome.content, floor_text);
    // The future of one call is one allocation on the dyn path: past 1,032 bytes it no longer
    // comes from glibc's per-thread cache, which cost the dyn path a quarter once (1,240 bytes).
    let call_frame = frame();
    let future_bytes = std::mem::size_of_val(&invoker.invoke(ARGUMENTS, &call_frame));
    eprintln!("invoke: one call's future is {future_bytes} bytes");
    assert!(
        future_bytes <= 1024,
        "a call's future grew to {future_bytes} bytes: box what only some tools await"
    );

    // `AGBOSS_INVOKE_COUNT=floor|contract|contract_dyn` (and `AGBOSS_INVOKE_N`, default 10,000)
    // makes exactly that many calls of one side and exits: for counting instructions with
    // `valgrind --tool=callgrind`, which this noisy machine cannot disturb.
    if let Ok(side) = std::env::var("AGBOSS_INVOKE_COUNT") {
        let n: usize = std::env::var("AGBOSS_INVOKE_N")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(10_000);
        for _ in 0..n {
            match side.as_str() {
                "floor" => {
                    let input: Query = serde_json::from_str(black_box(ARGUMENTS)).unwrap();
                    let output = poll_once(tool.run(input)).unwrap();
                    black_box(serde_json::to_string(&output).unwrap());
                }
                "contract" => {
                    black_box(poll_once(invoker.invoke(black_box(ARGUMENTS), &frame())));
                }
                "contract_dyn" => {
                    black_box(poll_once(erased.invoke(black_box(ARGUMENTS), &frame())));
                }
                other => panic!("AGBOSS_INVOKE_COUNT={other}: use floor, contract or contract_dyn"),
            }
        }
        std::process::exit(0);
    }

    let mut group = c.benchmark_group("invoke");
    group.bench_function("floor", |b| {
        b.iter(|| {
            let input: Query = serde_json::from_str(black_box(ARGUMENTS)).unwrap();
            let output = poll_once(tool.run(input)).unwrap();
            black_box(serde_json::to_string(&output).unwrap())
        })
    });
    group.bench_function("contract", |b| {
        b.iter(|| black_box(poll_once(invoker.invoke(black_box(ARGUMENTS), &frame()))))
    });
    group.bench_function("contract_dyn", |b| {
        b.iter(|| black_box(poll_once(erased.invoke(black_box(ARGUMENTS), &frame()))))
    });
    group.finish();
}

criterion_group!(benches, invoke);
criterion_main!(benches);
