use std::sync::Arc;

use agboss::prelude::*;

pub trait Slack: Send + Sync {}

#[channel(name = "slack-refund-approval-channel", description = "Asks a finance manager in Slack")]
pub struct SlackRefundApproval {
    slack: Arc<dyn Slack>,
}

fn main() {}
