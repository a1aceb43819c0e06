//! `test_tool`: the tool alone, in a real call frame, with its output whole.

use std::sync::Arc;

use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss::units::kilobytes;

#[dto]
pub struct PageQuery {
    pub url: String,
}

#[dto]
#[derive(Debug)]
pub struct PageContent {
    pub text: String,
}

pub trait PageReader: Send + Sync {
    fn text_of(&self, url: &str) -> String;
}

#[tool(
    name = "fetch-page-tool",
    description = "Fetches a web page as text",
    max_result_size = kilobytes(1),
)]
pub struct FetchPageTool {
    pages: Arc<dyn PageReader>,
}

impl ToolHandler for FetchPageTool {
    type Input = PageQuery;
    type Output = PageContent;

    async fn run(&self, input: PageQuery) -> Result<PageContent, ToolError> {
        Ok(PageContent {
            text: self.pages.text_of(&input.url),
        })
    }
}

struct LongPages;
impl PageReader for LongPages {
    fn text_of(&self, url: &str) -> String {
        format!("{url} ") + &"lorem ipsum ".repeat(1000)
    }
}

struct ShortPages;
impl PageReader for ShortPages {
    fn text_of(&self, url: &str) -> String {
        format!("{url}: short")
    }
}

#[tokio::test]
async fn run_returns_the_whole_output_and_the_model_reads_it_bounded() {
    let tool = test_tool::<FetchPageTool>().with::<dyn PageReader>(Arc::new(LongPages));
    let whole = tool
        .run(PageQuery {
            url: "https://example.com".into(),
        })
        .await
        .unwrap();
    assert_eq!(whole.output.text.len(), 20 + 12_000);

    let read = tool.invoke(r#"{"url": "https://example.com"}"#).await;
    assert!(read.is_result_truncated);
    assert_eq!(read.result_bytes, 12_031);
    assert!(
        read.content
            .ends_with("\n[result truncated: 12,031 bytes, the first 1,018 kept]"),
        "{}",
        read.content
    );
    // Cut, but not an error.
    assert!(read.is_ok());
}

#[tokio::test]
async fn a_later_override_replaces_an_earlier_one() {
    let tool = test_tool::<FetchPageTool>()
        .with::<dyn PageReader>(Arc::new(LongPages))
        .with::<dyn PageReader>(Arc::new(ShortPages));
    let out = tool.run(PageQuery { url: "x".into() }).await.unwrap();
    assert_eq!(out.output.text, "x: short");
}

#[tokio::test]
async fn the_bound_can_be_set_for_a_test() {
    let tool = test_tool::<FetchPageTool>()
        .with::<dyn PageReader>(Arc::new(ShortPages))
        .bound(agboss::units::bytes(8));
    let read = tool.invoke(r#"{"url": "abc"}"#).await;
    assert_eq!(
        read.content,
        "{\"text\":\n[result truncated: 21 bytes, the first 8 kept]"
    );
}
