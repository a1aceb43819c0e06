// A type that is not a `#[tool]` where a tool is expected.
use agboss::tool::tool_definition_of;

pub struct NotATool;

fn main() {
    let _ = tool_definition_of::<NotATool>();
}
