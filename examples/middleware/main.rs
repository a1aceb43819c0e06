//! Stages of the call pipeline an application writes, and the two error kinds a tool can raise
//! beyond the ordinary: a quota middleware that refuses a user's calls past their limit and
//! counts every call's end, a geocoder whose service answers 503 twice before it works (the
//! tool retries it, with the same idempotency key), and a payment tool whose account is closed
//! (the run ends with the tool's own code). The model is scripted, so it runs anywhere:
//!
//! ```text
//! cargo run --example middleware
//! ```

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunError;
use agboss::tool::{CallEnd, GateCall, Middleware, MiddlewareFuture, ToolOutput};
use agboss::units::millis;
use agboss::{Application, Workflow};
use serde_json::json;

/// How many calls each user may make, and what became of them.
#[derive(Default)]
pub struct QuotaLedger {
    left: Mutex<HashMap<String, u32>>,
    ended: Mutex<Vec<String>>,
}

/// The application's middleware: two calls per user, and a line for every call's end.
pub struct Quota {
    ledger: Arc<QuotaLedger>,
}

impl Middleware for Quota {
    fn name(&self) -> &str {
        "quota"
    }

    fn before<'a>(&'a self, call: &'a GateCall<'_>) -> MiddlewareFuture<'a> {
        let owner = call
            .execution()
            .owner_id()
            .unwrap_or("anonymous")
            .to_owned();
        let mut left = self.ledger.left.lock().unwrap();
        let left = left.entry(owner).or_insert(2);
        let allowed = *left > 0;
        *left = left.saturating_sub(1);
        Box::pin(async move {
            match allowed {
                true => Ok(()),
                false => Err("your quota of calls is spent for this hour; try again later".into()),
            }
        })
    }

    fn after(&self, call: &CallEnd<'_>, output: &ToolOutput) {
        let line = format!(
            "{} {} (try {})",
            call.tool().name(),
            if output.is_error() {
                "failed"
            } else {
                "answered"
            },
            call.tries()
        );
        self.ledger.ended.lock().unwrap().push(line);
    }
}

/// Where to look.
#[dto]
pub struct Place {
    /// A street address.
    pub address: String,
}

/// Where it is.
#[dto]
pub struct Point {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
}

/// A geocoding service that is busy for its first two requests.
#[derive(Default)]
pub struct Geocoder {
    requests: AtomicU32,
    keys: Mutex<Vec<String>>,
}

/// Finds the coordinates of an address, trying again when the service is busy.
#[tool(name = "geocode-tool", read_only, retries = 3, retry_backoff = millis(20))]
pub struct Geocode {
    execution: ExecutionContext,
    service: Arc<Geocoder>,
}

impl ToolHandler for Geocode {
    type Input = Place;
    type Output = Point;

    async fn run(&self, _place: Place) -> Result<Point, ToolError> {
        let key = self
            .execution
            .step()
            .idempotency_key(self.execution.execution_id());
        self.service.keys.lock().unwrap().push(key);
        match self.service.requests.fetch_add(1, Ordering::SeqCst) {
            0 | 1 => Err(ToolError::transient("the geocoder answered 503: busy")),
            _ => Ok(Point {
                lat: 52.52,
                lon: 13.40,
            }),
        }
    }
}

/// What to pay.
#[dto]
pub struct Payment {
    /// How much, in cents.
    pub cents: u64,
}

/// Pays from the user's account.
#[tool(name = "pay-tool")]
pub struct Pay;

impl ToolHandler for Pay {
    type Input = Payment;
    type Output = PlainText;

    async fn run(&self, _payment: Payment) -> Result<PlainText, ToolError> {
        Err(ToolError::fatal(
            "billing.account-closed",
            "the account was closed on 1 December",
        ))
    }
}

/// Runs errands.
#[agent(
    name = "errands",
    description = "Runs errands",
    prompt = "errands.prompt.md",
    model = "scripted/errands",
    tools = [Geocode, Pay]
)]
pub struct Errands;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ledger = Arc::new(QuotaLedger::default());
    let geocoder = Arc::new(Geocoder::default());
    let model = ScriptedModel::new([
        // Ann's first run: the geocoder is busy twice, then answers.
        Turn::call("geocode-tool", json!({"address": "Unter den Linden 1"})),
        Turn::text("It is at 52.52, 13.40."),
        // Her second: the payment's account is closed, which no model can mend.
        Turn::call("pay-tool", json!({"cents": 1200})),
        // Her third: the quota is spent, so the call does not run.
        Turn::call("geocode-tool", json!({"address": "Alexanderplatz"})),
        Turn::text("Your quota is spent."),
    ]);
    let app = Application::builder("errands")
        .workflow(Workflow::new("errands").agent::<Errands>())
        .provide(geocoder.clone())
        .middleware(Quota {
            ledger: ledger.clone(),
        })
        .chat_model(Arc::new(model))
        .build()?;

    let found = app
        .run("errands", "Where is Unter den Linden 1?")
        .owner("ann")
        .await?;
    println!("1. {}", found.text().unwrap_or_default());
    let keys = geocoder.keys.lock().unwrap().clone();
    println!(
        "   three tries, one key: {}",
        keys.windows(2).all(|w| w[0] == w[1])
    );

    match app.run("errands", "Pay the 12 euros.").owner("ann").await {
        Err(RunError::ToolFailed { code, message, .. }) => println!("2. ended: [{code}] {message}"),
        other => println!("2. unexpected: {other:?}"),
    }

    let refused = app
        .run("errands", "And Alexanderplatz?")
        .owner("ann")
        .await?;
    println!("3. {}", refused.text().unwrap_or_default());

    println!("what the middleware saw end:");
    for line in ledger.ended.lock().unwrap().iter() {
        println!("   {line}");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_example_runs() {
        super::main().unwrap();
    }
}
