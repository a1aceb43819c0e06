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

#[cfg(test)]
mod tests {
    use ag::tool::Tool;

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
