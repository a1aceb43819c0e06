use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

#[channel_role(
    name = "RefundApproval",
    description = "Approves card refunds",
    approves = RefundInput,
    answered_by = Channel,
)]
pub struct RefundApproval;

fn main() {}
