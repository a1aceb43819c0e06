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
    expires_after = weeks(2),
)]
pub struct RefundApproval;

fn main() {}
