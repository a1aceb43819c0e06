use agboss::channel::AutoApproveChannel;
use agboss::prelude::*;

#[channel(name = "slack-refunds-channel", description = "Asks a finance manager in Slack")]
pub struct SlackRefunds {
    webhook: String,
}

impl ChannelHandler for SlackRefunds {
    type Role = AutoApproveChannel;

    async fn send(
        &self,
        _: ChannelAsk<AutoApproveChannel>,
    ) -> Result<ChannelOutcome<AutoApproveChannel>, ToolError> {
        let _ = &self.webhook;
        Ok(ChannelOutcome::await_reply())
    }
}

fn main() {}
