//! Every `#[tool]` is registered with its descriptor, across crates, before anything runs.

use agboss::prelude::*;
use agboss::tool::Tool;
use agboss::tool::registered_tools;
use agboss::units::{kilobytes, seconds};

#[dto]
pub struct Page {
    pub url: String,
}

#[dto]
pub struct PageText {
    pub text: String,
}

#[tool(
    name = "fetch-page-tool",
    description = "Fetches a web page as text",
    timeout = seconds(10),
    max_result_size = kilobytes(256),
)]
pub struct FetchPage;

impl ToolHandler for FetchPage {
    type Input = Page;
    type Output = PageText;

    async fn run(&self, input: Page) -> Result<PageText, ToolError> {
        Ok(PageText { text: input.url })
    }
}

#[tool(name = "half-kilobyte-tool", description = "Bounded to 512 bytes", max_result_size = kilobytes(0.5))]
pub struct HalfKilobyte;

impl ToolHandler for HalfKilobyte {
    type Input = Page;
    type Output = PageText;

    async fn run(&self, input: Page) -> Result<PageText, ToolError> {
        Ok(PageText { text: input.url })
    }
}

#[test]
fn tools_of_other_crates_are_registered() {
    let names: Vec<&str> = registered_tools()
        .iter()
        .map(|r| r.descriptor().name())
        .collect();
    assert!(names.contains(&"remote-clock-tool"), "{names:?}");
    assert!(names.contains(&"fetch-page-tool"), "{names:?}");
    // Keep the support crate linked: without a use, the linker may drop it.
    let _ = remote_tools::RemoteClock;
}

#[test]
fn the_registry_is_sorted_by_name() {
    let names: Vec<&str> = registered_tools()
        .iter()
        .map(|r| r.descriptor().name())
        .collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(names, sorted);
}

#[test]
fn descriptors_carry_what_assembly_and_describe_need() {
    let fetch = FetchPage::DESCRIPTOR;
    assert_eq!(fetch.description(), "Fetches a web page as text");
    assert_eq!(fetch.rust_type(), "FetchPage");
    assert_eq!(fetch.timeout(), seconds(10));
    assert_eq!(fetch.max_result_size(), Some(kilobytes(256)));
    assert_eq!(fetch.location().file, "tests/test_registry.rs");
    assert_eq!(fetch.location().module_path, "registry");
    assert!(fetch.location().line > 0);
    assert_eq!(fetch.input_schema()["required"], serde_json::json!(["url"]));

    let remote = remote_tools::RemoteClock::DESCRIPTOR;
    assert_eq!(remote.timeout().to_string(), "30 s", "the default timeout");
    assert_eq!(remote.max_result_size(), None);

    assert_eq!(
        HalfKilobyte::DESCRIPTOR.max_result_size(),
        Some(agboss::units::bytes(512))
    );
}
