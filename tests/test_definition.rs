//! What each provider's model reads of a tool: snapshots of the three wire forms.

use agboss::prelude::*;
use agboss::tool::{Tool, ToolDefinition, WireFormat, tool_definition_of};

/// How urgent an issue is.
#[dto]
pub enum Priority {
    /// Someone is blocked.
    High,
    /// Sometime this week.
    Normal,
    Low,
}

#[dto]
pub enum Label {
    Bug,
    Feature,
}

/// A comment and its replies.
#[dto]
pub struct Comment {
    /// What was said.
    pub text: String,
    /// Answers to it.
    pub replies: Vec<Comment>,
}

/// Where the issue was reported.
#[dto]
pub struct Source {
    /// The page the report came from.
    #[schemars(url)]
    pub url: String,
    /// Line in the page, if known.
    pub line: Option<u32>,
}

#[dto]
pub struct FileIssue {
    /// One-line summary.
    #[schemars(length(min = 3, max = 120))]
    pub title: String,
    pub priority: Priority,
    /// Labels to attach.
    pub labels: Vec<Label>,
    /// Where it was seen.
    pub source: Option<Source>,
    /// Votes so far.
    #[schemars(range(min = 0, max = 1000))]
    pub votes: i64,
    /// Optional thread of comments.
    pub thread: Option<Comment>,
}

#[dto]
pub struct Filed {
    pub id: u64,
}

#[tool(
    name = "file-issue-tool",
    description = "Files an issue in the team's tracker"
)]
pub struct FileIssueTool;

impl ToolHandler for FileIssueTool {
    type Input = FileIssue;
    type Output = Filed;

    async fn run(&self, _: FileIssue) -> Result<Filed, ToolError> {
        Ok(Filed { id: 1 })
    }
}

#[dto]
pub struct Nothing {}

#[tool(name = "ping-tool", description = "Checks the service is up")]
pub struct Ping;

impl ToolHandler for Ping {
    type Input = Nothing;
    type Output = Nothing;

    async fn run(&self, input: Nothing) -> Result<Nothing, ToolError> {
        Ok(input)
    }
}

/// Closes an issue that is done.
///
/// Only for issues whose fix has shipped.
#[tool(name = "close-issue-tool")]
pub struct CloseIssue;

impl ToolHandler for CloseIssue {
    type Input = Nothing;
    type Output = Nothing;

    async fn run(&self, input: Nothing) -> Result<Nothing, ToolError> {
        Ok(input)
    }
}

fn definition() -> ToolDefinition {
    tool_definition_of::<FileIssueTool>().unwrap()
}

#[test]
fn openai() {
    insta::assert_json_snapshot!(definition().to_openai());
}

#[test]
fn anthropic() {
    insta::assert_json_snapshot!(definition().to_anthropic());
}

#[test]
fn gemini() {
    insta::assert_json_snapshot!(definition().to_gemini());
}

#[test]
fn gemini_has_no_references_or_unsupported_keywords() {
    let text = definition().to_gemini().to_string();
    for banned in [
        "$ref",
        "$defs",
        "$schema",
        "oneOf",
        "allOf",
        "const",
        "additionalProperties",
        "\"null\"",
        "\"format\":\"uri\"",
    ] {
        assert!(!text.contains(banned), "{banned} in {text}");
    }
}

#[test]
fn a_tool_without_parameters_still_has_an_object_root() {
    let ping = tool_definition_of::<Ping>().unwrap();
    for flavor in [
        WireFormat::OpenAi,
        WireFormat::Anthropic,
        WireFormat::Gemini,
    ] {
        let declared = ping.to_provider(flavor);
        let schema = match flavor {
            WireFormat::OpenAi => &declared["function"]["parameters"],
            WireFormat::Anthropic => &declared["input_schema"],
            WireFormat::Gemini => &declared["parameters"],
        };
        assert_eq!(schema["type"], "object", "{flavor:?}");
        assert!(schema["properties"].is_object(), "{flavor:?}");
    }
}

#[test]
fn a_tool_without_a_description_is_described_by_its_doc_comment() {
    let doc = "Closes an issue that is done.\n\nOnly for issues whose fix has shipped.";
    assert_eq!(CloseIssue::DESCRIPTOR.description(), doc);
    let close = tool_definition_of::<CloseIssue>().unwrap();
    assert_eq!(close.description, doc);
    assert_eq!(close.to_openai()["function"]["description"], doc);
}
