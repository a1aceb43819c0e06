//! A program that names `agboss_dylib` takes agboss from the shared object, and everything a
//! user's code declares still works through it: its `#[tool]`s register with the registry
//! inside the shared object, and a call goes through the whole contract (schema, validation,
//! the generated check, rendering) there.

use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss_dylib as _;

/// Words to count.
#[dto]
pub struct Words {
    /// The text, at most 40 characters.
    #[schemars(length(max = 40))]
    pub text: String,
}

/// How many words the text had.
#[dto]
pub struct Count {
    /// The number of words.
    pub words: u64,
}

#[tool(name = "count-words-tool", description = "Counts the words of a text")]
pub struct CountWords;

impl ToolHandler for CountWords {
    type Input = Words;
    type Output = Count;

    async fn run(&self, input: Words) -> Result<Count, ToolError> {
        let words = input.text.split_whitespace().count() as u64;
        Ok(Count { words })
    }
}

/// The shared objects this process has mapped, by file name.
fn mapped() -> Vec<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").expect("Linux has /proc/self/maps");
    maps.lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter_map(|path| path.rsplit('/').next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_program_maps_agboss_as_a_shared_object() {
    let objects = mapped();
    assert!(
        objects
            .iter()
            .any(|o| o.starts_with("libagboss_dylib") && o.ends_with(".so")),
        "libagboss_dylib.so is not mapped: {objects:?}"
    );
}

#[test]
fn a_tool_of_the_program_registers_with_the_shared_registry() {
    let names: Vec<&str> = agboss::tool::registered_tools()
        .iter()
        .map(|registration| registration.descriptor().name())
        .collect();
    assert!(names.contains(&"count-words-tool"), "{names:?}");
}

#[tokio::test]
async fn a_call_goes_through_the_whole_contract() {
    let tool = test_tool::<CountWords>();
    let counted = tool.invoke(r#"{"text": "one two three"}"#).await;
    assert!(counted.is_ok(), "{}", counted.content);
    assert_eq!(counted.content, r#"{"words":3}"#);

    let long = "word ".repeat(10);
    let refused = tool.invoke(&format!(r#"{{"text": "{long}"}}"#)).await;
    assert!(!refused.is_ok());
    assert_eq!(
        refused.content,
        "Tool error: invalid input: text: must be at most 40 characters long, got 50"
    );
}
