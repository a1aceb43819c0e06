//! An approval role, the channel that implements it with a provided dependency, and a tool that
//! waits for it, without a warning.
#![deny(warnings)]

use std::sync::Arc;

use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
    pub amount_cents: u64,
}

#[dto]
pub struct RefundOutput {
    pub status: String,
}

/// Approves card refunds.
#[channel_role(
    name = "refund-approval-channel",
    approves = RefundInput,
    answered_by = PauseAnswerer::Channel,
)]
pub struct RefundApproval;

pub trait Slack: Send + Sync {
    fn post(&self, channel: &str, text: &str, key: &str);
}

#[channel(
    name = "slack-refund-approval-channel",
    description = "Asks a finance manager in Slack"
)]
pub struct SlackRefundApproval {
    execution: ExecutionContext,
    slack: Arc<dyn Slack>,
}

impl ChannelHandler for SlackRefundApproval {
    type Role = RefundApproval;

    async fn send(
        &self,
        ask: ChannelAsk<RefundApproval>,
    ) -> Result<ChannelOutcome<RefundApproval>, ToolError> {
        let cents = ask.value.arguments.amount_cents;
        let thread = self.execution.thread_id().to_owned();
        self.slack
            .post("#finance", &format!("Refund {cents}c ({thread})?"), &ask.pause_id);
        if cents <= 5_000 {
            return Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()));
        }
        Ok(ChannelOutcome::await_reply())
    }
}

#[tool(
    name = "refund-card-tool",
    description = "Refunds a card payment",
    channel = RefundApproval,
)]
pub struct RefundCard;

impl ToolHandler for RefundCard {
    type Input = RefundInput;
    type Output = RefundOutput;

    async fn run(&self, input: RefundInput) -> Result<RefundOutput, ToolError> {
        Ok(RefundOutput {
            status: format!("refunded {}", input.order_id),
        })
    }
}

fn main() {
    use agboss::channel::{Approves, Channel, ChannelRole, PauseAnswerer};
    use agboss::tool::Tool;

    fn approves<R: Approves<I>, I>() {}
    approves::<RefundApproval, RefundInput>();
    assert_eq!(RefundApproval::DESCRIPTOR.name(), "refund-approval-channel");
    assert_eq!(
        RefundApproval::DESCRIPTOR.answered_by(),
        PauseAnswerer::Channel
    );
    assert_eq!(
        SlackRefundApproval::DESCRIPTOR.role().name(),
        "refund-approval-channel"
    );
    assert_eq!(SlackRefundApproval::DESCRIPTOR.dependencies().len(), 2);
    assert_eq!(
        RefundCard::DESCRIPTOR.approval().map(|a| a.role()),
        Some("refund-approval-channel")
    );
}
