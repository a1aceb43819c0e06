use agboss::prelude::*;

#[channel_role(
    name = "refund-approval-channel",
    description = "Approves card refunds",
    answered_by = Channel,
)]
pub struct RefundApproval;

fn main() {}
