//! What a credential costs a call, in one run: the same search through the call contract
//!
//! - `plain`: a tool that needs no credential and records no spend (the `invoke` bench's
//!   `contract`);
//! - `credential_and_note`: a tool that needs one credential, resolved through the
//!   application's provider just before `run` (a `StaticCredentials`), reads it, and writes one
//!   note to the spend ledger.
//!
//! The difference of the two is the price of the feature per call; docs/performance.md keeps
//! the figures. Futures finish on their first poll, so each call is driven by one poll with a
//! no-op waker.

mod common;

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use agboss::context::{Execution, Step};
use agboss::credentials::StaticCredentials;
use agboss::prelude::*;
use agboss::units::usd;
// The contract itself, below the facade: what the loop runs for every call.
use agboss_core::tool::{CallFrame, Invoker, ToolEnv};
use common::{ARGUMENTS, Items, Query};
use criterion::{Criterion, criterion_group, criterion_main};

fn found(query: &Query) -> Items {
    let n = query.limit.min(3) as usize;
    Items {
        items: ["alpha", "beta", "gamma"][..n]
            .iter()
            .map(|s| format!("{s} {}", query.query))
            .collect(),
    }
}

/// The search, needing nothing.
#[tool(name = "search-tool", description = "Searches")]
pub struct Search;

impl ToolHandler for Search {
    type Input = Query;
    type Output = Items;

    async fn run(&self, input: Query) -> Result<Items, ToolError> {
        Ok(found(&input))
    }
}

/// The same search, on a paid API that needs a key and is noted in the spend ledger.
#[tool(name = "paid-search-tool", description = "Searches", needs = ["search-api"])]
pub struct PaidSearch {
    credentials: Credentials,
    spend: SpendRecorder,
}

impl ToolHandler for PaidSearch {
    type Input = Query;
    type Output = Items;

    async fn run(&self, input: Query) -> Result<Items, ToolError> {
        black_box(self.credentials.require("search-api")?.expose());
        self.spend.record("search-api", usd("0.001"));
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

fn credentials(c: &mut Criterion) {
    let env = ToolEnv::default().with_credentials(Some(Arc::new(
        StaticCredentials::new().with("search-api", "k-123"),
    )));
    let plain = Invoker::<Search>::new(env.clone());
    let paid = Invoker::<PaidSearch>::new(env);
    let node: Arc<str> = Arc::from("agent");
    let call_id: Arc<str> = Arc::from("call_1");
    // A fresh execution per call: the ledger does not grow across iterations.
    let frame = || {
        CallFrame::new(
            Execution::builder("bench").build(),
            Step::new(node.clone(), 1, call_id.clone()),
        )
    };

    // The two sides must agree before they are compared.
    let plain_text = poll_once(plain.invoke(ARGUMENTS, &frame())).content;
    let checked = frame();
    assert_eq!(
        poll_once(paid.invoke(ARGUMENTS, &checked)).content,
        plain_text
    );
    assert_eq!(checked.execution().spend().len(), 1, "one note");

    // `AGBOSS_CREDENTIALS_COUNT=plain|credential_and_note` (and `AGBOSS_CREDENTIALS_N`,
    // default 10,000) makes exactly that many calls of one side and exits, for callgrind.
    if let Ok(side) = std::env::var("AGBOSS_CREDENTIALS_COUNT") {
        let n: usize = std::env::var("AGBOSS_CREDENTIALS_N")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(10_000);
        for _ in 0..n {
            match side.as_str() {
                "plain" => black_box(poll_once(plain.invoke(black_box(ARGUMENTS), &frame()))),
                "credential_and_note" => {
                    black_box(poll_once(paid.invoke(black_box(ARGUMENTS), &frame())))
                }
                other => {
                    panic!("AGBOSS_CREDENTIALS_COUNT={other}: use plain or credential_and_note")
                }
            };
        }
        std::process::exit(0);
    }

    let mut group = c.benchmark_group("credentials");
    group.bench_function("plain", |b| {
        b.iter(|| black_box(poll_once(plain.invoke(black_box(ARGUMENTS), &frame()))))
    });
    group.bench_function("credential_and_note", |b| {
        b.iter(|| black_box(poll_once(paid.invoke(black_box(ARGUMENTS), &frame()))))
    });
    group.finish();
}

criterion_group!(benches, credentials);
criterion_main!(benches);
