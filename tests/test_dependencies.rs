//! A tool's fields are its dependencies, resolved for each call.

use std::sync::Arc;

use agboss::prelude::*;
use agboss::testing::test_tool;
use agboss::tool::Tool;
use agboss::tool::ToolFailure;
use agboss::units::usd;

#[dto]
pub struct Nothing {}

#[dto]
#[derive(Debug, PartialEq)]
pub struct Report {
    pub lines: Vec<String>,
}

pub trait Directory: Send + Sync {
    fn lookup(&self, who: &str) -> String;
}

pub struct Phonebook {
    pub owner: String,
}

#[tool(
    name = "who-am-i-tool",
    description = "Says what the call knows of itself"
)]
pub struct WhoAmI {
    execution: ExecutionContext,
    spend: SpendRecorder,
    directory: Arc<dyn Directory>,
    phonebook: Arc<Phonebook>,
}

impl ToolHandler for WhoAmI {
    type Input = Nothing;
    type Output = Report;

    async fn run(&self, _: Nothing) -> Result<Report, ToolError> {
        self.spend.record("directory", usd("0.002"));
        Ok(Report {
            lines: vec![
                format!("execution {}", self.execution.execution_id()),
                format!("thread {}", self.execution.thread_id()),
                format!("owner {:?}", self.execution.owner_id()),
                format!("workflow {}", self.execution.workflow()),
                format!("call {}", self.execution.call_id()),
                format!("key {}", self.execution.idempotency_key()),
                format!("found {}", self.directory.lookup(&self.phonebook.owner)),
            ],
        })
    }
}

struct Fixed;
impl Directory for Fixed {
    fn lookup(&self, who: &str) -> String {
        format!("{who} at desk 4")
    }
}

#[tokio::test]
async fn every_kind_of_field_is_resolved_per_call() {
    let tool = test_tool::<WhoAmI>()
        .with::<dyn Directory>(Arc::new(Fixed))
        .with(Arc::new(Phonebook {
            owner: "ada".into(),
        }));
    let first = tool.run(Nothing {}).await.unwrap();
    assert_eq!(
        first.output.lines,
        [
            "execution test-execution",
            "thread test-thread",
            "owner Some(\"test-owner\")",
            "workflow test",
            "call call-1",
            "key test-execution:test:1:call-1",
            "found ada at desk 4",
        ]
    );
    assert_eq!(first.spend.len(), 1);
    assert_eq!(first.spend[0].service, "directory");
    assert_eq!(first.spend[0].cost, usd("0.002"));
    assert_eq!(first.spend[0].tool, Some("who-am-i-tool"));
    assert_eq!(first.spend[0].call_id.as_deref(), Some("call-1"));

    // The next call is a new call: its own id, key and spend.
    let second = tool.run(Nothing {}).await.unwrap();
    assert_eq!(second.output.lines[4], "call call-2");
    assert_eq!(second.spend.len(), 1);
    assert_eq!(tool.execution().spend().total(), usd("0.004"));
}

#[tokio::test]
async fn missing_providers_are_named_before_any_call() {
    let tool = test_tool::<WhoAmI>();
    let missing: Vec<String> = tool
        .missing_dependencies()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        missing,
        [
            "[di.missing-implementation] tool `who-am-i-tool` field `directory`: nothing provides `Arc<dyn Directory>` (`dyn dependencies::Directory`)",
            "[di.missing-implementation] tool `who-am-i-tool` field `phonebook`: nothing provides `Arc<Phonebook>` (`dependencies::Phonebook`)",
        ]
    );
    let failure = tool.run(Nothing {}).await.unwrap_err();
    assert!(matches!(failure, ToolFailure::Dependency(_)));
    // The model reads the same text if such a call ever reached it.
    assert_eq!(
        tool.invoke("{}").await.content,
        format!("Tool error: {}", missing[0])
    );
    assert!(tool.execution().spend().entries().is_empty(), "nothing ran");
}

#[dto]
pub struct Elapsed {
    pub millis: u64,
}

/// A tuple struct: fields are resolved by position.
#[tool(name = "stopwatch-tool", description = "Reads the application's clock")]
pub struct Stopwatch(Clock);

impl ToolHandler for Stopwatch {
    type Input = Nothing;
    type Output = Elapsed;

    async fn run(&self, _: Nothing) -> Result<Elapsed, ToolError> {
        Ok(Elapsed {
            millis: self.0.now().since_origin().as_millis() as u64,
        })
    }
}

#[tokio::test]
async fn the_clock_field_is_the_applications_clock() {
    let tool = test_tool::<Stopwatch>();
    tool.clock().advance(std::time::Duration::from_millis(1500));
    assert_eq!(tool.run(Nothing {}).await.unwrap().output.millis, 1500);
}

#[test]
fn the_descriptor_lists_the_fields_as_written() {
    let fields: Vec<(&str, &str)> = WhoAmI::DESCRIPTOR
        .dependencies()
        .iter()
        .map(|d| (d.field(), d.type_written()))
        .collect();
    assert_eq!(
        fields,
        [
            ("execution", "ExecutionContext"),
            ("spend", "SpendRecorder"),
            ("directory", "Arc<dyn Directory>"),
            ("phonebook", "Arc<Phonebook>"),
        ]
    );
    assert_eq!(Stopwatch::DESCRIPTOR.dependencies()[0].field(), "0");
}
