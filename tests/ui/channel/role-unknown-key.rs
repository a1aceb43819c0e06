use agboss::prelude::*;

#[dto]
pub struct RefundInput {
    pub order_id: String,
}

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    approve = RefundInput,
    answered_by = Channel,
)]
pub struct RefundApproval;

fn main() {}
