//! agboss: LLM agents whose tools are plain Rust structs under attribute macros.
//!
//! A tool is a struct whose fields are its dependencies and whose
//! [`ToolHandler`](prelude::ToolHandler) impl is its code. `#[tool]` checks its name at compile
//! time, generates the JSON Schemas the model reads from the input and output DTOs, and
//! registers it. Every call goes through one contract: input validated, not started when
//! cancelled, run under its timeout on the application's clock, output validated, and the
//! result a value (never a panic) bounded before the model reads it.
//!
//! New here? docs/getting-started.md goes from `cargo new` to a first tool called by an agent
//! on a model server of your own.
//!
//! A file of tools, DTOs, agents, channel roles or channels needs one line,
//! `use agboss::prelude::*;`. A `main` needs `use agboss::{Application, Workflow, ...};` and the
//! modules it reaches into.
//!
//! ```
//! use std::sync::Arc;
//! use agboss::prelude::*;
//! use agboss::units::seconds;
//!
//! #[dto]
//! pub struct IssueQuery {
//!     /// words to search the issues for
//!     pub query: String,
//! }
//!
//! #[dto]
//! pub struct IssueList {
//!     pub issues: Vec<String>,
//! }
//!
//! pub trait IssuesApi: Send + Sync {
//!     fn search(&self, query: &str) -> Vec<String>;
//! }
//!
//! #[tool(
//!     name = "search-issues-tool",
//!     description = "Search the team's issues",
//!     timeout = seconds(10),
//! )]
//! pub struct SearchIssues {
//!     issues: Arc<dyn IssuesApi>,
//! }
//!
//! impl ToolHandler for SearchIssues {
//!     type Input = IssueQuery;
//!     type Output = IssueList;
//!
//!     async fn run(&self, input: IssueQuery) -> Result<IssueList, ToolError> {
//!         Ok(IssueList { issues: self.issues.search(&input.query) })
//!     }
//! }
//!
//! let definition = agboss::tool::tool_definition_of::<SearchIssues>().unwrap();
//! assert_eq!(definition.name, "search-issues-tool");
//! assert_eq!(
//!     definition.input_schema["properties"]["query"]["description"],
//!     "words to search the issues for"
//! );
//! ```
//!
//! Modules: [`units`] (`seconds(10)`, `kilobytes(256)`, `usd("0.25")`), [`dto`](mod@dto),
//! [`component`] (what every kind of component shares), [`tool`](mod@tool) (the call
//! contract), [`credentials`] (what tools and MCP servers need to sign in),
//! [`agent`](mod@agent), [`app`] (workflows, applications, assembly), [`run`]
//! (outcomes and errors), [`model`] (chat models, providers, scripted models), [`journal`]
//! (events and the records derived from them), [`store`] (where journals are kept, and
//! `store::implement` for those who write one), [`channel`](mod@channel) (approval roles and
//! the channels that answer them), [`context`], [`spend`] (spend and budgets), [`time`] (the
//! clock, and the manual one of tests), [`describe`], and with their features
//! [`mcp`](mod@mcp), `config`, `cli` and `testing`.
//!
//! Every public item has one path, in the module of its concept. The [`prelude`] and a few
//! shortcuts at the root ([`Application`], [`Workflow`], [`Resume`], [`AgentDefaults`],
//! [`ToolDefaults`], [`AssemblyError`], [`Env`], [`FromEnv`], and `Config`) name the most used
//! ones again, for `use` lines that stay short.
//!
//! Features, all on by default but `testing`, `postgres` and `mcp-oauth`: `mcp`, `openai`,
//! `anthropic`, `gemini`, `config`, `cli`, `sqlite`; `testing` adds
//! [`test_tool`](testing::test_tool) and scripted models, `postgres` the PostgreSQL store,
//! `mcp-oauth` OAuth's client-credentials grant for HTTP MCP servers.

// The macros generate `::agboss::__private` paths; this makes them resolve inside this crate's
// own tests too.
#[allow(unused_extern_crates)]
extern crate self as agboss;

#[doc(inline)]
pub use agboss_macros::{agent, channel, channel_role, dto, knowledge, tool};
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use agboss_macros::{mcp_server, mcp_tool};

pub use agboss_core::app::{Application, Resume};
pub use agboss_core::assembly::{AgentDefaults, ToolDefaults, Workflow};
pub use agboss_core::base::{AssemblyError, Env, FromEnv};
#[cfg(feature = "config")]
pub use agboss_core::config::Config;

/// Marks a type as infrastructure: only the application may provide it, never a workflow
/// (`[di.infrastructure-in-workflow]`).
///
/// ```
/// pub trait MessageQueue: Send + Sync {}
/// agboss::infrastructure!(dyn MessageQueue, "a message queue");
/// ```
pub use agboss_core::infrastructure;

/// What a file of tools, DTOs, agents, roles or channels needs: `use agboss::prelude::*;`.
pub mod prelude {
    pub use agboss_core::channel::{
        ChannelAsk, ChannelHandler, ChannelOutcome, PauseAnswerer, ToolCallApprovalAsk,
        ToolCallApprovalDecision,
    };
    pub use agboss_core::channel::{QuestionError, Questions};
    pub use agboss_core::context::{ExecutionContext, Progress};
    pub use agboss_core::dto::PlainText;
    pub use agboss_core::knowledge::{KnowledgeBase, KnowledgeError, KnowledgeQuery, Passage};
    #[cfg(feature = "mcp")]
    pub use agboss_core::mcp::McpClient;
    pub use agboss_core::model::ModelClient;
    pub use agboss_core::spend::SpendRecorder;
    pub use agboss_core::time::Clock;
    pub use agboss_core::tool::Credentials;
    pub use agboss_core::tool::TextStream;
    pub use agboss_core::tool::Wanted;
    pub use agboss_core::tool::{ToolError, ToolHandler};
    pub use agboss_macros::{agent, channel, channel_role, dto, knowledge, tool};
    #[cfg(feature = "mcp")]
    pub use agboss_macros::{mcp_server, mcp_tool};
}

/// Values with units: `seconds(10)`, `kilobytes(256)`, `usd("0.25")`.
pub mod units {
    pub use agboss_core::units::*;
}

/// DTOs the framework defines, and the JSON value type for free-form fields of DTOs.
pub mod dto {
    pub use agboss_core::dto::PlainText;
    /// Any JSON value: the type of a DTO field whose shape is free (what `agboss g mcp`
    /// generates for schema parts it cannot type).
    pub use serde_json::Value;
}

/// What every kind of component (tool, agent, channel role, channel, MCP server) shares: the
/// header its descriptor derefs to (name, description, Rust type, source location, fields), and
/// what is said when one of its fields has no value.
pub mod component {
    pub use agboss_core::component::{
        Component, ComponentKind, DependencyError, DependencySpec, MissingDependency, Requirement,
        SourceLocation,
    };
}

/// Tools: the handler you write, what `#[tool]` registers, the call contract's results and
/// errors, and tools as models see them.
pub mod tool {
    pub use agboss_core::tool::{
        AllowKind, AllowList, BoundedText, CallDigest, CallOutcome, Capability, CheckIn,
        Dependency, Digest, Issue, Issues, OnCrash, RemoteTool, RepeatedWhen, Repeats,
        ResultCeiling, RoleRef, SchemaError, Tool, ToolDescriptor, ToolError, ToolFailure,
        ToolHandler, ToolOrigin, ToolRegistration, bound_text, input_schema_of, mask_bounded,
        output_schema_of, registered_tools, truncation_marker,
    };
    // Tools as models see them, in each provider's wire format (kept in `agboss_core::model`).
    pub use agboss_core::model::{ToolDefinition, WireFormat, tool_definition_of};
    // Uncooperative work inside a tool (fault plan T9): bounded blocking threads, child process
    // groups stopped with the call, and the grace before the step judges a call from outside.
    pub use agboss_core::tool::{BlockingPool, StopFlag, Subprocess, TIMEOUT_GRACE, blocking};
    // Bytes a tool did not write, as text a model may read (docs/tools.md).
    pub use agboss_core::tool::{LossyText, TextOutput, text_from_bytes};
    // Results read while they are made, up to the bound (fault plan T12, docs/tools.md).
    pub use agboss_core::tool::{Stopped, StreamedText, TextSender, TextStream};
    // Artifacts (`result_kind`, `wants`; docs/policies.md).
    pub use agboss_core::tool::{
        Artifact, ArtifactRef, ArtifactShelf, REFERENCE_PREFIX, ResultKind, ShelfFuture, Wanted,
        WantedArgument, WantsField, minted_text,
    };
    // The call's pipeline: its stages and their order, the middleware an application writes,
    // and the retries of transient errors (docs/tools.md, "The call's pipeline").
    pub use agboss_core::tool::{
        AskPerson, CallEnd, CallHistory, Check, GATE_ORDER, GateCall, MAX_RETRY_BACKOFF,
        MIDDLEWARE, Middleware, MiddlewareFuture, Part, Pipeline, Place, RULE_ORDER, Stage,
        StageFuture, Then, ToolOutput, Verdict,
    };
}

/// Credentials tools declare they need (`#[tool(needs = ["github"])]`) and MCP servers declare
/// (`#[mcp_server(credential = "..")]`): the provider an application resolves them with, the
/// field a tool reads them from, and the value that redacts itself (docs/policies.md).
pub mod credentials {
    pub use agboss_core::credentials::{
        CredentialError, CredentialFuture, CredentialProvider, CredentialRequest, CredentialUse,
        FileTokens, KeeperFuture, Secret, StaticCredentials, TokenKeeper, TokenKey,
    };
    pub use agboss_core::tool::Credentials;
}

/// Policies over tool calls: the application's permission checker and the built-in policy
/// against prompt injection (docs/policies.md), and the masking of personal data and secrets in
/// what models, people and journals read of tool results (docs/privacy.md).
pub mod policy {
    pub use agboss_core::masking::{Entity, MaskingPatternError, MaskingPolicy};
    pub use agboss_core::policy::{
        CallSeen, Permission, PermissionChecker, PermissionKind, PermissionRequest,
        UntrustedContentPolicy,
    };
}

/// Agents: what `#[agent]` registers, and an agent as assembly left it.
pub mod agent {
    pub use agboss_core::agent::{
        Agent, AgentDescriptor, AnswerSpec, AppAgent, AppTool, History, PromptFile,
        registered_agents,
    };
}

/// Applications: workflows, providers and defaults, assembly and its problems, and starting
/// runs.
pub mod app {
    pub use agboss_core::app::{
        Application, ApplicationBuilder, Resume, ResumeError, RunBuilder, ToolSlice, WorkEnd,
        WorkReport, Worker,
    };
    pub use agboss_core::assembly::{
        AgentDefaults, AppWorkflow, CONFIG_DOCUMENT_VERSION, DEFAULT_ANSWER_RETRIES,
        DEFAULT_HISTORY_MAX_SIZE, DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TURNS, OnConfigChange,
        ToolDefaults, Workflow,
    };
    pub use agboss_core::base::{
        AssemblyError, Env, FromEnv, Problem, Setting, Source, UnknownAgentToolError,
    };
    pub use agboss_core::deps::InfrastructureType;
}

/// What a run's spans are called and carry (OpenTelemetry's `gen_ai.*` conventions and the
/// framework's `agboss.*`), for a `tracing` subscriber of one's own or a dashboard; docs/observability.md.
pub mod telemetry {
    pub use agboss_core::base::telemetry::{field, operation, span};
    /// Exporting runs' spans and metrics over OTLP (feature `otel`).
    #[cfg(feature = "otel")]
    pub use agboss_core::otel::{Otel, OtelError, OtelGuard, metrics::RunMetrics};
}

/// Runs: how they end, their answers, and the errors they end with (their budgets are in
/// [`spend`]).
pub mod run {
    pub use agboss_core::app::RunStream;
    pub use agboss_core::journal::Answer;
    pub use agboss_core::run::ArtifactRetention;
    pub use agboss_core::run::RunEvent;
    pub use agboss_core::run::{
        Completed, Elsewhere, ExecutionLeaseLostError, LeaseLoss, LimitExceededError, Paused,
        PendingPause, RunError, RunOutcome, ToolEnd, TurnLimitError,
    };
    // An agent's time budget (`max_duration`), spent.
    pub use agboss_core::run::DurationLimitError;
}

/// Chat models: messages, the [`ChatModel`](model::ChatModel) trait, the router and the HTTP
/// providers.
pub mod model {
    pub use agboss_core::model::{
        ChatDelta, ChatFuture, ChatModel, ChatRequest, ChatResponse, DeltaSink, FinishReason,
        Message, ModelClient, ModelError, ModelRoute, ModelRouter, Prices, Reasoning,
        ScriptedModel, SignedPart, Thinking, ToolCall, ToolChoice, ToolChoiceFailure, Turn, Usage,
        forbid_real_requests,
    };
    /// Providers over HTTP, by wire format ([`WireFormat`](crate::tool::WireFormat)).
    #[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
    pub mod providers {
        pub use agboss_core::model::providers::{ProviderSettings, RetryPolicy, connect};
    }
}

/// The journal: the events a run is made of, the state they fold into, and the records a
/// store derives from them (executions, pauses). Where journals are kept is [`store`].
pub mod journal {
    pub use agboss_core::journal::{
        AskedIn, CallPause, CallPermission, CallResult, ExecutionRecord, ExecutionStatus,
        INTENTS_SINCE, JournalError, LoopEvent, LoopState, Next, PauseOpened, PauseQuery,
        PauseRecord, PauseResolution, PendingCall, PermissionDecision, STATE_VERSION, Spent,
        ThreadOwner,
    };
}

/// Stores: where journals are kept. A store is one [`Store`](store::Store), made of a
/// [`Journal`](store::Journal) with its [`Leases`](store::Leases) and the sub-stores beside them
/// ([`ArtifactStore`](store::ArtifactStore), [`PinStore`](store::PinStore)).
/// [`MemoryStore`](store::MemoryStore) keeps them in this process (for tests),
/// [`SqliteStore`](store::SqliteStore) in an embedded SQLite file (feature `sqlite`),
/// [`PostgresStore`](store::PostgresStore) in a PostgreSQL database shared by instances
/// (feature `postgres`); docs/stores.md says what each guarantees, and what to implement to
/// write one. Hand one to [`ApplicationBuilder::store`](app::ApplicationBuilder::store).
pub mod store {
    pub use agboss_core::journal::{Fence, JournalEntry, Lease, LeaseState};
    pub use agboss_core::store::{
        ArtifactStore, ExecutionShelf, Journal, Leases, McpApproval, McpDefinitionSeen, McpPin,
        MemoryStore, PinStore, SealStore, SealedArguments, Store, StoreError, StoreErrorKind,
        StoreFuture,
    };
    #[cfg(feature = "sqlite")]
    pub use agboss_core::store::{Durability, SqliteOptions, SqliteStore};
    #[cfg(feature = "postgres")]
    pub use agboss_core::store::{PostgresOptions, PostgresStore};

    /// For those who write a store: the rules every store decides with, so that each decides
    /// alike (the next record of an execution, a pause's change, a fence's refusal, an append
    /// already taken), and the records derived again from a journal. The conformance suite
    /// (`agboss::testing::conformance`, feature `testing`) checks a store against them.
    pub mod implement {
        pub use agboss_core::journal::{
            PauseChange, derive_records, next_record, owner_mismatch, pause_change,
        };
        pub use agboss_core::store::{
            fence_refusal, pin_after_approval, pin_after_seen, renew_refusal, taken_seq,
            thread_owner_change,
        };
    }
}

/// Approval channels: roles, the channels that answer them, and their questions and answers.
///
/// A role (`#[channel_role]`) says what is approved and who answers; a channel (`#[channel]`)
/// asks; a tool names the role (`#[tool(.., channel = Role)]`) and its calls wait for the
/// decision. docs/pauses.md tells how calls pause and are answered.
///
/// ```
/// use std::sync::Arc;
/// use agboss::prelude::*;
/// use agboss::{Application, Workflow};
///
/// #[dto]
/// pub struct RefundInput {
///     pub order_id: String,
///     pub amount_cents: u64,
/// }
///
/// /// Approves card refunds.
/// #[channel_role(name = "refund-approval-channel", approves = RefundInput, answered_by = Channel)]
/// pub struct RefundApproval;
///
/// /// Approves refunds up to $50 at once; waits for a manager on larger ones.
/// #[channel(name = "small-refunds-channel")]
/// pub struct SmallRefunds;
///
/// impl ChannelHandler for SmallRefunds {
///     type Role = RefundApproval;
///
///     async fn send(
///         &self,
///         ask: ChannelAsk<RefundApproval>,
///     ) -> Result<ChannelOutcome<RefundApproval>, ToolError> {
///         if ask.value.arguments.amount_cents <= 5_000 {
///             return Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()));
///         }
///         Ok(ChannelOutcome::await_reply())
///     }
/// }
///
/// /// Refunds a card payment.
/// #[tool(name = "refund-card-tool", channel = RefundApproval)]
/// pub struct RefundCard;
///
/// impl ToolHandler for RefundCard {
///     type Input = RefundInput;
///     type Output = PlainText;
///
///     async fn run(&self, input: RefundInput) -> Result<PlainText, ToolError> {
///         Ok(PlainText::new(format!("refunded {}", input.order_id)))
///     }
/// }
///
/// let app = Application::builder("refunds")
///     .workflow(Workflow::new("desk").tool::<RefundCard>())
///     .channel::<SmallRefunds>()
///     .build();
/// assert!(app.is_ok());
/// ```
pub mod channel {
    pub use agboss_core::channel::{
        Approves, Asked, AutoApproveChannel, AutoRejectChannel, Channel, ChannelAsk,
        ChannelDescriptor, ChannelHandler, ChannelOutcome, ChannelRole, DecisionModel,
        InterpretContext, Interrupted, PauseAnswerer, QuestionError, Questions,
        ReplyInterpretation, ReplyInterpreter, ReplyReading, RoleDescriptor, RoleForm,
        TerminalUserChannel, ToolCallApprovalAsk, ToolCallApprovalDecision,
    };
}

/// What a call runs in: its execution, its step and its cancellation signal.
pub mod context {
    pub use agboss_core::context::{
        AbortKind, AbortReason, Execution, ExecutionContext, Progress, Signal, Step, Tenant,
    };
}

/// Spend: what an execution paid, and its budgets.
pub mod spend {
    pub use agboss_core::spend::{
        BudgetExceededError, Budgets, SpendEntry, SpendLedger, SpendRecorder,
    };
}

/// The application's clock.
pub mod time {
    pub use agboss_core::time::{Clock, ManualClock, WallOffset};
}

/// `describe`: who can use which tool, with what limits, as text or versioned JSON.
pub mod describe {
    pub use agboss_core::describe::{
        DESCRIBE_VERSION, Level, Lint, check, check_stored, findings_json, json, text,
    };
}

/// Knowledge bases (`#[knowledge]`): documents an agent searches through its tool
/// `search-<name>-tool` or has added to its input (docs/knowledge.md).
pub mod knowledge {
    /// The built-in index of a folder (feature `knowledge`): what `#[knowledge(folder = ..)]`
    /// searches, usable on its own.
    #[cfg(feature = "knowledge")]
    pub use agboss_core::knowledge::folder;
    pub use agboss_core::knowledge::{
        DEFAULT_KNOWLEDGE_DIR, FolderSource, Knowledge, KnowledgeBase, KnowledgeDescriptor,
        KnowledgeError, KnowledgeHits, KnowledgeMode, KnowledgeQuery, KnowledgeRegistration,
        KnowledgeShelf, KnowledgeSource, Passage, SearchKnowledge, context_block,
        registered_knowledge,
    };
}

/// MCP servers and their tools (`#[mcp_server]`, `#[mcp_tool]`).
#[cfg(feature = "mcp")]
pub mod mcp {
    pub use agboss_core::mcp::{
        AUTHORIZATION_TIMEOUT, AuthorizationPrompt, Authorizer, AuthorizerFuture, CLIENT_NAME,
        CLIENT_VERSION, Definition, ElicitationAnswer, ElicitationQuestion, ElicitationTypes,
        FIRST_BACKOFF, ListError, ListedTool, LoopbackAuthorizer, MAX_BACKOFF, MESSAGE_CAP,
        MOST_STEP_UPS, McpClient, McpConnection, McpCredential, McpCredentialCarrier, McpError,
        McpGrant, McpOAuth, McpServer, McpServerDescriptor, McpTransport, MemoryPins,
        PROTOCOL_VERSION, PinFuture, PinKeeper, START_TIMEOUT, ServerAddress, Verdict,
        canonical_json, list_tools, registered_mcp_servers,
    };
}

/// Configuration files (TOML): what they set for agents, tools and model providers.
#[cfg(feature = "config")]
pub mod config {
    pub use agboss_core::agent::AgentSettings;
    pub use agboss_core::config::{AgentDefaultSettings, Config, ToolSettings};
    pub use agboss_core::model::{ModelSettings, PriceSettings};
}

/// The subcommands a program mounts in its own command line (`myapp agboss describe`, `myapp
/// agboss g mcp`): [`Command`](cli::Command) as a clap `Subcommand`, [`AgbossArgs`](cli::AgbossArgs)
/// as clap `Args`; [`command`](cli::command) reads the process's arguments for a program without
/// a command line of its own.
#[cfg(feature = "cli")]
pub mod cli {
    #[cfg(feature = "knowledge")]
    pub use agboss_cli::KnowledgeCommand;
    pub use agboss_cli::{
        AgbossArgs, Answerer, Command, PauseCommand, USER_VARIABLES, WorkerArgs, command,
        command_from, current_user, current_user_or, render_pause,
    };
    #[cfg(feature = "mcp")]
    pub use agboss_cli::{Generate, GenerateMcp, McpCommand};
}

/// Test harnesses: [`test_tool`](testing::test_tool), a store that fails on cue
/// ([`FaultyStore`](testing::FaultyStore)), the stores' conformance suites (a whole store's,
/// [`store_conformance!`](testing::store_conformance), and one per part of a store) and
/// failpoints. The
/// doubles a test plugs into an application have their own homes: the manual clock in
/// [`time`], scripted models in [`model`].
#[cfg(feature = "testing")]
pub mod testing {
    pub use agboss_testing::{
        FaultyStore, TestRun, TestTool, artifact_store_conformance, conformance, failpoint,
        journal_conformance, leases_conformance, pin_store_conformance, seal_store_conformance,
        store_conformance, test_tool,
    };
}

/// Not public API: what generated code reaches. It may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use agboss_core::__private::*;
    pub use inventory;
    pub use schemars;
    pub use serde;
    pub use serde_json;
}

/// The macros' generated `::agboss::__private` paths resolve inside this crate too.
#[cfg(test)]
mod tests {
    use crate::prelude::*;

    #[dto]
    pub struct Ping {
        pub text: String,
    }

    #[tool(name = "echo-tool", description = "Echoes its input")]
    pub struct Echo;

    impl ToolHandler for Echo {
        type Input = Ping;
        type Output = Ping;

        async fn run(&self, input: Ping) -> Result<Ping, ToolError> {
            Ok(input)
        }
    }

    #[test]
    fn the_facade_can_use_its_own_macros() {
        use crate::tool::Tool;
        assert_eq!(Echo::DESCRIPTOR.name(), "echo-tool");
        assert!(
            crate::tool::registered_tools()
                .iter()
                .any(|r| r.descriptor().name() == "echo-tool")
        );
    }
}
