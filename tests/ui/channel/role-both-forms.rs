use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

#[dto]
pub struct Budget {
    pub cents: u64,
}

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    answered_by = Channel,
    approves = RefundInput,
    ask = Budget,
    answer = Budget,
)]
pub struct RefundApproval;

fn main() {}
