use agboss::prelude::*;

#[channel(name = "slack_refunds", description = "Asks a finance manager in Slack")]
pub struct SlackRefunds;

impl ChannelHandler for SlackRefunds {
    type Role = AutoApproveChannel;

    async fn send(
        &self,
        _: ChannelAsk<AutoApproveChannel>,
    ) -> Result<ChannelOutcome<AutoApproveChannel>, ToolError> {
        Ok(ChannelOutcome::await_reply())
    }
}

use agboss::channel::AutoApproveChannel;

fn main() {}
