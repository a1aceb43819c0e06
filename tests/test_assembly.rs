//! Assembly: every problem found at once, before any model call, each with its code.

mod common;

use std::sync::Arc;

use agboss::app::{Env, Source};
use agboss::config::Config;
use agboss::prelude::*;
use agboss::units::{bytes, kilobytes};
use agboss::{Application, ToolDefaults, Workflow};
use common::*;

#[test]
fn the_support_desk_assembles() {
    let app = support_desk().build().unwrap();
    assert_eq!(app.workflows().len(), 2);
    let support = app.workflow("support").unwrap();
    assert_eq!(support.agents().len(), 2);
    let names: Vec<_> = support
        .unassigned_tools()
        .iter()
        .map(|t| t.name())
        .collect();
    assert_eq!(names, ["archive-ticket-tool"]);
    let triage = support.agent("triage").unwrap();
    assert_eq!(triage.model(), "moonshotai/kimi-k2.6");
    assert_eq!(
        triage.descriptor().prompt(),
        "You triage support requests.\nAsk for what is missing before acting."
    );
    let writer = support.agent("writer").unwrap();
    assert_eq!(
        writer.descriptor().prompt(),
        "You draft answers.\n\nBe brief."
    );
}

#[test]
fn each_bound_says_where_it_came_from() {
    let app = support_desk().build().unwrap();
    let support = app.workflow("support").unwrap();
    let triage = support.agent("triage").unwrap();
    let lookup = triage.tool("lookup-customer-tool").unwrap();
    assert_eq!(lookup.bound().to_string(), "256 KB (own)");
    let notes = triage.tool("read-notes-tool").unwrap();
    assert_eq!(notes.bound().to_string(), "32 KB (support)");
    let oncall = app.workflow("ops").unwrap().agent("oncall").unwrap();
    assert_eq!(
        oncall.tool("page-oncall-tool").unwrap().bound().to_string(),
        "128 KB (built-in)"
    );
    assert_eq!(oncall.max_result_size().source, Source::BuiltIn);

    let app = support_desk()
        .defaults(ToolDefaults::new().max_result_size(kilobytes(64)))
        .build()
        .unwrap();
    let oncall = app.workflow("ops").unwrap().agent("oncall").unwrap();
    assert_eq!(
        oncall.tool("page-oncall-tool").unwrap().bound().to_string(),
        "64 KB (support-desk)"
    );
    // The workflow's own default still wins over the application's.
    let triage = app.workflow("support").unwrap().agent("triage").unwrap();
    assert_eq!(
        triage.tool("read-notes-tool").unwrap().bound().to_string(),
        "32 KB (support)"
    );
}

#[test]
fn max_tool_calls_fall_through_agent_workflow_application_built_in() {
    let app = support_desk()
        .defaults(ToolDefaults::new().max_tool_calls(12))
        .build()
        .unwrap();
    let support = app.workflow("support").unwrap();
    assert_eq!(
        support
            .agent("triage")
            .unwrap()
            .max_tool_calls()
            .to_string(),
        "4 (own)"
    );
    assert_eq!(
        support
            .agent("writer")
            .unwrap()
            .max_tool_calls()
            .to_string(),
        "8 (support)"
    );
    let ops = app.workflow("ops").unwrap();
    assert_eq!(
        ops.agent("oncall").unwrap().max_tool_calls().to_string(),
        "12 (support-desk)"
    );
    let app = support_desk().build().unwrap();
    let ops = app.workflow("ops").unwrap();
    assert_eq!(
        ops.agent("oncall").unwrap().max_tool_calls().to_string(),
        "20 (built-in)"
    );
}

#[test]
fn a_missing_provider_is_named_with_the_workflow_tool_field_and_type() {
    let error = Application::builder("bare")
        .workflow(Workflow::new("support").agent::<Triage>())
        .build()
        .err()
        .unwrap();
    assert_eq!(
        error.to_string(),
        "application `bare` cannot start: 2 problems\n\
         [di.missing-implementation] workflow `support`: tool `lookup-customer-tool` field `crm` needs `Arc<dyn Crm>`, which neither the workflow nor the application provides (provide `dyn assembly::common::Crm`)\n\
         [di.missing-implementation] workflow `support`: tool `read-notes-tool` field `notes` needs `Arc<NotesFile>`, which neither the workflow nor the application provides (provide `assembly::common::NotesFile`)"
    );
}

/// Says whose customer record an id is.
#[tool(name = "who-is-tool", description = "Names a customer")]
pub struct WhoIs {
    crm: Arc<dyn Crm>,
}

impl ToolHandler for WhoIs {
    type Input = Ask;
    type Output = Reply;

    async fn run(&self, input: Ask) -> Result<Reply, ToolError> {
        Ok(Reply {
            text: self.crm.customer(&input.text),
        })
    }
}

#[tokio::test]
async fn a_workflow_provider_serves_its_tools_before_the_applications() {
    struct OtherCrm;
    impl Crm for OtherCrm {
        fn customer(&self, _: &str) -> String {
            "Grace".into()
        }
    }
    let app = Application::builder("scoped")
        .workflow(
            Workflow::new("support")
                .agent::<Triage>()
                .tool::<WhoIs>()
                .provide::<dyn Crm>(Arc::new(OtherCrm)),
        )
        .workflow(Workflow::new("other").tool::<WhoIs>())
        .provide::<dyn Crm>(Arc::new(FixedCrm))
        .provide_from_env::<NotesFile>()
        .build()
        .unwrap();
    let ask = || Ask { text: "1".into() };
    let reply = app.tool::<WhoIs>().call(ask()).await.unwrap();
    assert_eq!(reply.text, "Grace", "the first workflow that has it");
    let reply = app
        .tool::<WhoIs>()
        .in_workflow("other")
        .call(ask())
        .await
        .unwrap();
    assert_eq!(reply.text, FixedCrm.customer("1"), "the application's");
}

#[test]
fn a_type_provided_twice_in_one_scope_is_ambiguous() {
    let error = support_desk()
        .provide::<dyn Crm>(Arc::new(FixedCrm))
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["di.ambiguous-implementation"]);
    assert_eq!(
        error.problems()[0].message(),
        "the application provides `dyn assembly::common::Crm` more than once: keep one, or give a workflow its own"
    );
}

/// A queue every workflow shares: infrastructure.
pub trait Queue: Send + Sync {}
agboss::infrastructure!(dyn Queue, "a message queue");
struct MemoryQueue;
impl Queue for MemoryQueue {}

#[test]
fn infrastructure_belongs_to_the_application() {
    let error = support_desk()
        .workflow(Workflow::new("batch").provide::<dyn Queue>(Arc::new(MemoryQueue)))
        .build()
        .err()
        .unwrap();
    assert_eq!(
        error.problems()[0].to_string(),
        "[di.infrastructure-in-workflow] workflow `batch` provides `dyn assembly::Queue`, a message queue: infrastructure serves every workflow, so provide it on the application"
    );
    // On the application it is fine.
    support_desk()
        .provide::<dyn Queue>(Arc::new(MemoryQueue))
        .build()
        .unwrap();
}

#[test]
fn two_tools_of_one_agent_may_not_share_a_name() {
    #[tool(name = "lookup-customer-tool", description = "Another lookup")]
    pub struct ImpostorLookup;
    echo!(ImpostorLookup);
    #[agent(
        name = "confused",
        description = "Has two lookups",
        prompt = "prompts/brief.prompt.md",
        model = "openai/gpt-5-mini",
        tools = [LookupCustomer, ImpostorLookup],
    )]
    pub struct Confused;

    let error = support_desk()
        .workflow(Workflow::new("mixed").agent::<Confused>())
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["tool.duplicate-name"]);
    let message = error.problems()[0].message();
    assert!(
        message.starts_with("agent `confused` (workflow `mixed`) has two tools named `lookup-customer-tool`: LookupCustomer (tests/common/mod.rs:"),
        "{message}"
    );
    assert!(
        message.contains("and ImpostorLookup (tests/test_assembly.rs:"),
        "{message}"
    );
}

/// A DTO whose answer tool (`answer-customer-tool`) clashes with a tool's name.
#[dto]
pub struct CustomerTool {
    /// The name.
    pub name: String,
}

#[tool(name = "answer-customer-tool", description = "Not a framework answer")]
pub struct FakeAnswer;
echo!(FakeAnswer);

#[agent(
    name = "answers-customers",
    description = "Answers with a customer",
    prompt = "prompts/brief.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [FakeAnswer],
    output = CustomerTool,
)]
pub struct AnswersCustomers;

#[test]
fn the_answer_tool_counts_among_the_names() {
    let error = Application::builder("answers")
        .workflow(Workflow::new("w").agent::<AnswersCustomers>())
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["tool.duplicate-name"]);
    assert!(
        error.problems()[0]
            .message()
            .ends_with("and the answer tool of agent `answers-customers`; rename one"),
        "{}",
        error.problems()[0]
    );
}

/// Forces a tool it does not have.
#[agent(
    name = "picky",
    description = "Insists on a tool it lacks",
    prompt = "prompts/brief.prompt.md",
    model = "openai/gpt-5-mini",
    tools = [DraftReply],
    tool_choice = "lookup-customer-tool",
)]
pub struct Picky;

#[test]
fn a_tool_choice_must_name_one_of_the_agents_tools() {
    let error = support_desk()
        .workflow(Workflow::new("picky").agent::<Picky>())
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["agent.tool-choice-unknown"]);
    assert_eq!(
        error.problems()[0].message(),
        "agent `picky`: tool_choice names `lookup-customer-tool`, which is not one of its tools: use \"auto\", \"required\", \"none\" or one of `draft-reply-tool`"
    );
}

/// A DTO with a long name, whose answer tool name is too long for the providers.
#[dto]
pub struct AQuarterlyReportOfEveryCustomerTicketEscalatedToEngineering {
    /// The text.
    pub text: String,
}

/// A DTO whose name is not ASCII.
#[dto]
#[allow(non_camel_case_types)]
pub struct Résumé {
    /// The text.
    pub text: String,
}

#[agent(
    name = "reporter",
    description = "Reports",
    prompt = "prompts/brief.prompt.md",
    model = "openai/gpt-5-mini",
    output = AQuarterlyReportOfEveryCustomerTicketEscalatedToEngineering,
)]
pub struct Reporter;

#[agent(
    name = "recruiter",
    description = "Summarizes candidates",
    prompt = "prompts/brief.prompt.md",
    model = "openai/gpt-5-mini",
    output = Résumé,
)]
pub struct Recruiter;

#[test]
fn names_made_at_run_time_meet_the_providers_rules() {
    let error = Application::builder("names")
        .workflow(Workflow::new("w").agent::<Reporter>().agent::<Recruiter>())
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["tool.name-too-long", "tool.name-invalid"]);
    assert_eq!(
        error.problems()[0].message(),
        "the answer tool of agent `reporter`: name \"answer-a-quarterly-report-of-every-customer-ticket-escalated-to-engineering\" is 75 characters long: model providers accept at most 64; shorten it by 11"
    );
    assert_eq!(
        error.problems()[1].message(),
        "the answer tool of agent `recruiter`: name \"answer-résumé\" has characters model providers refuse ('é'): use only letters, digits, `_` and `-`"
    );
}

#[test]
fn configured_bounds_must_be_whole_bytes_from_one() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        [workflows.support.defaults.tools]
        max_result_size = "0.1 KB"
        [workflows.ops.defaults.tools]
        max_result_size = "64"
        "#,
    );
    let error = support_desk()
        .defaults(ToolDefaults::new().max_result_size(bytes(0)))
        .config(config)
        .build()
        .err()
        .unwrap();
    let lines: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "[tools.max-result-size-invalid] application `support-desk`: defaults.tools.max_result_size: 0 bytes keeps nothing: a bound keeps at least 1 byte",
            "[tools.max-result-size-invalid] workflow `support`: defaults.tools.max_result_size: \"0.1 KB\" is 102.4 bytes, not a whole number of bytes",
            "[tools.max-result-size-invalid] workflow `ops`: defaults.tools.max_result_size: \"64\" has no unit: write \"64 KB\" or \"64 bytes\"",
        ]
    );
}

#[test]
fn a_configured_history_bound_is_a_size_and_a_context_window_holds_tokens() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        [agents.triage]
        history_max_size = "8"
        [agents.writer]
        history_max_size = "0 KB"
        [models.openai]
        context_window = 0
        "#,
    );
    let error = support_desk().config(config).build().err().unwrap();
    let lines: Vec<String> = error.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "[agent.history-max-size-invalid] agent `triage` (workflow `support`): agents.triage.history_max_size: \"8\" has no unit: write \"8 KB\" or \"8 bytes\"",
            "[agent.history-max-size-invalid] agent `writer` (workflow `support`): agents.writer.history_max_size: \"0 KB\" keeps nothing: a bound keeps at least 1 byte",
        ]
    );
    // `oncall`'s model is OpenAI's, whose window says 0 tokens, but its own bound comes first;
    // configuration's comes before that.
    let config = Config::from_toml(
        "desk.toml",
        "[agents.oncall]\nhistory_max_size = \"2 KB\"\n",
    );
    let app = support_desk().config(config).build().unwrap();
    let oncall = app.workflow("ops").unwrap().agent("oncall").unwrap();
    assert_eq!(
        oncall.history_max_size().to_string(),
        "2 KB (configuration)"
    );
}

#[test]
fn configuration_naming_a_tool_that_does_not_exist_is_an_unknown_agent_tool() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        [agents.oncall]
        tools = ["archive-tickt-tool"]
        "#,
    );
    let error = support_desk().config(config).build().err().unwrap();
    let problem = &error.problems()[0];
    assert_eq!(problem.code(), "agent.unknown-tool");
    let unknown = problem.as_unknown_agent_tool().unwrap();
    assert_eq!(
        (unknown.agent.as_str(), unknown.tool.as_str()),
        ("oncall", "archive-tickt-tool")
    );
    assert_eq!(
        problem.to_string(),
        "[agent.unknown-tool] UnknownAgentToolError: agent `oncall` (workflow `ops`) lists the tool `archive-tickt-tool`, but no #[tool] in this program is named so (did you mean `archive-ticket-tool`?)"
    );
}

#[test]
fn configuration_overrides_an_agent() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        name = "support-desk-eu"
        [agents.oncall]
        model = "google/gemini-2.5-flash"
        max_tool_calls = 3
        tools = ["archive-ticket-tool"]
        "#,
    );
    let app = support_desk().config(config).build().unwrap();
    assert_eq!(app.name(), "support-desk-eu");
    let oncall = app.workflow("ops").unwrap().agent("oncall").unwrap();
    assert_eq!(oncall.model(), "google/gemini-2.5-flash");
    assert_eq!(oncall.max_tool_calls().to_string(), "3 (own)");
    let tools: Vec<_> = oncall
        .tools()
        .iter()
        .map(|t| t.descriptor().name())
        .collect();
    assert_eq!(
        tools,
        [
            "page-oncall-tool",
            "lookup-customer-tool",
            "archive-ticket-tool"
        ]
    );
}

#[test]
fn configuration_holds_variable_names_never_secrets() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        [models.openai]
        base_url = "https://api.openai.com/v1"
        api_key_env = "sk-proj-4fG7hJ2kL9mN3pQ8rS1tU6vW"
        [models.anthropic]
        api_key_env = "anthropic key"
        [agents.triage]
        model = "sk-ant-api03-4fG7hJ2kL9mN3pQ8"
        "#,
    );
    let error = support_desk().config(config).build().err().unwrap();
    assert_eq!(
        error.codes(),
        [
            "config.secret-value",
            "config.env-name-invalid",
            "config.secret-value",
            "agent.model-invalid"
        ]
    );
    let secret = error.problems()[2].to_string();
    assert!(
        secret.contains(
            "desk.toml: models.openai.api_key_env holds what looks like a secret (\"sk-p…\")"
        ),
        "{secret}"
    );
    // The secret itself is never repeated whole.
    assert!(!error.to_string().contains("4fG7hJ2kL9mN3pQ8rS1tU6vW"));
}

#[test]
fn broken_configuration_is_reported_with_its_place() {
    let error = support_desk()
        .config(Config::from_toml(
            "desk.toml",
            "[agents.oncall]\nmodel = \n",
        ))
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["config.invalid"]);
    assert!(
        error.problems()[0].message().starts_with("desk.toml: "),
        "{}",
        error.problems()[0]
    );
    assert!(
        error.problems()[0].message().contains("line 2"),
        "{}",
        error.problems()[0]
    );

    let error = support_desk()
        .config(Config::load("/nonexistent/desk.toml"))
        .build()
        .err()
        .unwrap();
    assert_eq!(error.codes(), ["config.invalid"]);
}

#[test]
fn five_different_problems_come_in_one_error() {
    let config = Config::from_toml(
        "desk.toml",
        r#"
        [defaults.tools]
        max_result_size = "0 KB"
        [agents.writer]
        tools = ["no-such-tool"]
        [agents.nobody]
        model = "openai/gpt-5-mini"
        "#,
    );
    let error = Application::builder("broken")
        .workflow(Workflow::new("support").agent::<Triage>().agent::<Writer>())
        .workflow(Workflow::new("batch").provide::<dyn Queue>(Arc::new(MemoryQueue)))
        .config(config)
        .env(Env::from_pairs::<&str, &str>([]))
        .build()
        .err()
        .unwrap();
    assert_eq!(
        error.codes(),
        [
            "tools.max-result-size-invalid",
            "di.missing-implementation",
            "di.missing-implementation",
            "agent.unknown-tool",
            "di.infrastructure-in-workflow",
            "config.unknown-agent",
        ]
    );
    let text = error.to_string();
    assert!(
        text.starts_with(
            "application `broken` cannot start: 6 problems\n[tools.max-result-size-invalid]"
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 7, "one line per problem");
}

#[test]
fn duplicate_agents_and_workflows_are_named() {
    let error = support_desk()
        .workflow(Workflow::new("ops").agent::<Oncall>().agent::<Oncall>())
        .build()
        .err()
        .unwrap();
    assert_eq!(
        error.codes(),
        ["workflow.duplicate-name", "agent.duplicate-name"]
    );
}

#[tokio::test]
async fn environment_backed_providers_are_made_on_first_use() {
    // Assembly reads no variable: it succeeds with none set.
    let app = support_desk()
        .env(Env::from_pairs::<&str, &str>([]))
        .build()
        .unwrap();
    let problems = app.check_environment().unwrap_err();
    assert_eq!(
        problems.problems()[0].to_string(),
        "[config.env-missing] `assembly::common::NotesFile` (provided by the application) cannot be made: NOTES_FILE is not set"
    );
    // A call that needs it says why it cannot run.
    let triage = app.workflow("support").unwrap().agent("triage").unwrap();
    let notes = triage.tool("read-notes-tool").unwrap();
    assert_eq!(notes.env_vars(), ["NOTES_FILE"]);
    let outcome = app.tool::<ReadNotes>().invoke(r#"{"text": "x"}"#).await;
    assert_eq!(
        outcome.content,
        "Tool error: tool `read-notes-tool` field `notes`: `assembly::common::NotesFile` is unavailable: NOTES_FILE is not set"
    );
    // With the variable set, the same application works.
    let app = support_desk().build().unwrap();
    app.check_environment().unwrap();
}
