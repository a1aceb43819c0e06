//! Test harnesses of [agboss](https://docs.rs/agboss), re-exported as `agboss::testing` with
//! the `testing` feature.
//!
//! [`test_tool`] runs one tool on its own, in the frame of a real tool call: its dependencies
//! resolved from its own container (override them with [`with`](TestTool::with)), the input and
//! output validated against their schemas, the timeout on the runner's [`ManualClock`](agboss_core::time::ManualClock), spend
//! recorded. A failure comes back as the tool raised it; the output comes back whole, unbounded.
//!
//! ```
//! use std::sync::Arc;
//! use agboss::prelude::*;
//! use agboss::testing::test_tool;
//!
//! #[dto]
//! pub struct CountQuery {
//!     /// words to search the issues for
//!     pub query: String,
//! }
//!
//! #[dto]
//! #[derive(Debug, PartialEq)]
//! pub struct CountSummary {
//!     pub summary: String,
//! }
//!
//! pub trait IssuesApi: Send + Sync {
//!     fn search(&self, query: &str) -> Vec<String>;
//! }
//!
//! #[tool(name = "count-issues-tool", description = "Counts the issues matching a query")]
//! pub struct CountIssues {
//!     issues: Arc<dyn IssuesApi>,
//! }
//!
//! impl ToolHandler for CountIssues {
//!     type Input = CountQuery;
//!     type Output = CountSummary;
//!
//!     async fn run(&self, input: CountQuery) -> Result<CountSummary, ToolError> {
//!         let found = self.issues.search(&input.query).len();
//!         Ok(CountSummary { summary: format!("{found} issues") })
//!     }
//! }
//!
//! struct TwoIssuesApi;
//! impl IssuesApi for TwoIssuesApi {
//!     fn search(&self, _query: &str) -> Vec<String> {
//!         vec!["a".into(), "b".into()]
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let count_issues = test_tool::<CountIssues>().with::<dyn IssuesApi>(Arc::new(TwoIssuesApi));
//!
//! let out = count_issues.run(CountQuery { query: "login".into() }).await.unwrap();
//!
//! assert_eq!(out.output, CountSummary { summary: "2 issues".into() });
//! # }
//! ```

pub mod conformance;
mod faulty_store;
mod test_tool;

pub use agboss_core::base::failpoint;
pub use faulty_store::FaultyStore;
pub use test_tool::{TestRun, TestTool, test_tool};
