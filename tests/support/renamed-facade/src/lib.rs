//! A crate that depends on agboss as `ag`: the macros take `crate = ag`.

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
    fn the_macros_reach_the_renamed_crate() {
        assert_eq!(super::Parrot::DESCRIPTOR.name(), "parrot-tool");
        let definition = ag::tool::tool_definition_of::<super::Parrot>().unwrap();
        assert_eq!(
            definition.input_schema["properties"]["text"]["description"],
            "What to say."
        );
    }
}
