//! A `TextStream` result whose producer stalls or whose execution is cancelled while it is
//! read: the call ends by its timeout (on the application's clock) or with the cancellation's
//! reason, like any call, and the producer learns it was stopped at its next send.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss::tool::{Stopped, TextSender};
use agboss::units::seconds;
use fixtures::calls::invoking;

#[dto]
pub struct Nothing {}

/// The sender the last call's producer holds, for the test to try after the call ended.
type Held = Arc<Mutex<Option<TextSender>>>;

/// Sends one chunk, then holds its sender without sending more or closing it.
#[tool(name = "stalled-tool", description = "Streams a line, then stalls", timeout = seconds(5))]
pub struct Stalled {
    held: Held,
}

impl ToolHandler for Stalled {
    type Input = Nothing;
    type Output = TextStream;

    async fn run(&self, _: Nothing) -> Result<TextStream, ToolError> {
        let (sender, stream) = TextStream::channel(4);
        sender
            .send("first line\n")
            .await
            .map_err(|_| ToolError::new("stopped before it began"))?;
        *self.held.lock().unwrap() = Some(sender);
        Ok(stream)
    }
}

/// Waits until the call has started reading (its timeout's timer and the tool's are set).
async fn reading(held: &Held) {
    while held.lock().unwrap().is_none() {
        tokio::task::yield_now().await;
    }
}

#[tokio::test]
async fn a_stalled_producer_ends_by_the_timeout_and_is_told_it_was_stopped() {
    let held: Held = Arc::default();
    let tool = Arc::new(test_tool::<Stalled>().with(held.clone()));
    let call = invoking(&tool, "{}");
    reading(&held).await;
    tool.clock().wait_for_timers(1).await;
    tool.clock().advance(Duration::from_secs(4));
    tokio::task::yield_now().await;
    assert!(!call.is_finished(), "not yet: 4 s of 5");
    tool.clock().advance(Duration::from_secs(1));
    let outcome = call.await.unwrap();
    assert!(!outcome.is_ok());
    assert_eq!(outcome.content, "Tool error: timed out after 5 s");
    // The stream was dropped with the call: the producer's next send fails.
    let sender = held.lock().unwrap().take().unwrap();
    assert_eq!(sender.send("more\n").await, Err(Stopped));
}

#[tokio::test]
async fn cancelling_the_execution_while_a_stream_is_read_ends_the_call_with_the_reason() {
    let held: Held = Arc::default();
    let tool = Arc::new(test_tool::<Stalled>().with(held.clone()));
    let call = invoking(&tool, "{}");
    reading(&held).await;
    tool.execution().cancel("the user left");
    let outcome = tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("the call ends at once")
        .unwrap();
    assert!(!outcome.is_ok());
    assert_eq!(outcome.content, "Tool error: the user left");
    let sender = held.lock().unwrap().take().unwrap();
    assert_eq!(sender.send("more\n").await, Err(Stopped));
}
