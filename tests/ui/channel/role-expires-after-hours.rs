use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    approves = RefundInput,
    answered_by = Channel,
    expires_after = hours(24),
)]
pub struct RefundApproval;

fn main() {}
