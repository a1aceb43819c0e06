//! Shipping an order, which waits for a person: the order, the approval role the thread's owner
//! answers, the inbox that leaves the question for later, and the tool (test_artifacts.rs,
//! test_results.rs). An application that gives an agent `ShipOrder` adds
//! `.channel::<ShipInbox>()`.

use agboss::prelude::*;

#[dto]
pub struct Order {
    /// The order.
    pub order: String,
}

/// Approves shipping; the thread's owner answers.
#[channel_role(name = "ship-approval-channel", approves = Order, answered_by = ThreadOwner)]
pub struct ShipApproval;

fixtures::inbox! {
    /// Leaves the question in the owner's inbox.
    #[channel(name = "ship-inbox-channel")]
    pub struct ShipInbox for ShipApproval;
}

/// Ships an order, once a person approves.
#[tool(name = "ship-order-tool", channel = ShipApproval)]
pub struct ShipOrder;

impl ToolHandler for ShipOrder {
    type Input = Order;
    type Output = PlainText;

    async fn run(&self, input: Order) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("shipping {}", input.order)))
    }
}
