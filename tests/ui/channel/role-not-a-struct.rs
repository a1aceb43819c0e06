use agboss::prelude::*;

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    answered_by = Channel,
)]
pub enum RefundApproval {}

fn main() {}
