use agboss::channel::AutoApproveChannel;
use agboss::prelude::*;

/// Asks a finance manager in Slack.
#[channel(name = "slack-refunds-channel", role = AutoApproveChannel)]
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

fn main() {}
