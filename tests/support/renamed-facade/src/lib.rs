//! A crate that depends on agboss as `ag`: the macros take `crate = ag`, roles and channels
//! included.

use ag::prelude::ToolHandler;

/// A message.
#[ag::dto(crate = ag)]
pub struct Message {
    /// What to say.
    pub text: String,
}

/// Repeats a message.
#[ag::tool(name = "parrot-tool", description = "Repeats what it hears", crate = ag)]
pub struct Parrot;

impl ToolHandler for Parrot {
    type Input = Message;
    type Output = Message;

    async fn run(&self, input: Message) -> Result<Message, ag::prelude::ToolError> {
        Ok(input)
    }
}

/// A server that echoes.
#[ag::mcp_server(name = "echo-server", command = "node", args = ["server.js"], tools = ["echo"], crate = ag)]
pub struct EchoServer;

/// Repeats a message through the server: the macro writes the handler.
#[ag::mcp_tool(
    name = "server-parrot-tool",
    server = EchoServer,
    calls = "echo",
    input = Message,
    output = Message,
    crate = ag,
)]
pub struct ServerParrot;

/// Approves what the parrot repeats.
#[ag::channel_role(
    name = "parrot-approval-channel",
    approves = Message,
    answered_by = ThreadOwner,
    crate = ag,
)]
pub struct ParrotApproval;

/// Asks the parrot's owner, who answers later.
#[ag::channel(name = "owner-parrot-approval-channel", crate = ag)]
pub struct OwnerParrotApproval {
    clock: ag::prelude::Clock,
}

impl ag::prelude::ChannelHandler for OwnerParrotApproval {
    type Role = ParrotApproval;

    async fn send(
        &self,
        _: ag::prelude::ChannelAsk<ParrotApproval>,
    ) -> Result<ag::prelude::ChannelOutcome<ParrotApproval>, ag::prelude::ToolError> {
        let _ = self.clock.now();
        Ok(ag::prelude::ChannelOutcome::await_reply())
    }
}

/// Repeats a message once its owner approves.
#[ag::tool(name = "careful-parrot-tool", channel = ParrotApproval, crate = ag)]
pub struct CarefulParrot;

impl ToolHandler for CarefulParrot {
    type Input = Message;
    type Output = Message;

    async fn run(&self, input: Message) -> Result<Message, ag::prelude::ToolError> {
        Ok(input)
    }
}

#[cfg(test)]
mod tests {
    use ag::tool::Tool;

    fn handles_messages<
        T: ag::prelude::ToolHandler<Input = super::Message, Output = super::Message>,
    >() {
    }

    #[test]
    fn a_pass_through_mcp_tool_reaches_the_renamed_crate() {
        handles_messages::<super::ServerParrot>();
        let descriptor = super::ServerParrot::DESCRIPTOR;
        assert_eq!(
            descriptor.description(),
            "Repeats a message through the server: the macro writes the handler."
        );
        assert_eq!(
            descriptor.dependencies()[0].type_written(),
            "McpClient<EchoServer>"
        );
    }

    #[test]
    fn roles_and_channels_reach_the_renamed_crate() {
        use ag::channel::{Channel, ChannelRole, PauseAnswerer};
        let role = super::ParrotApproval::DESCRIPTOR;
        assert_eq!(role.name(), "parrot-approval-channel");
        assert_eq!(role.answered_by(), PauseAnswerer::ThreadOwner);
        let channel = super::OwnerParrotApproval::DESCRIPTOR;
        assert!(std::ptr::eq(channel.role(), role));
        assert_eq!(
            channel.dependencies()[0].type_written(),
            "ag::prelude::Clock"
        );
        assert_eq!(
            super::CarefulParrot::DESCRIPTOR
                .approval()
                .map(|a| a.role()),
            Some("parrot-approval-channel")
        );
    }

    #[test]
    fn the_macros_reach_the_renamed_crate() {
        assert_eq!(super::Parrot::DESCRIPTOR.name(), "parrot-tool");
        let definition = ag::tool::tool_definition_of::<super::Parrot>().unwrap();
        assert_eq!(
            definition.input_schema["properties"]["text"]["description"],
            "What to say."
        );
    }
}
