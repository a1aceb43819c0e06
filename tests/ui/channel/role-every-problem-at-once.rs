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
    name = "refund_approval",
    answered_by = Manager,
    approves = RefundInput,
    ask = Budget,
    expires_after = 24,
)]
pub struct RefundApproval(u64);

fn main() {}
