//! Attribute macros of [agboss](https://docs.rs/agboss). Depend on the `agboss` facade, which
//! re-exports them; generated code reaches the runtime only through `::agboss::__private`.
//!
//! `#[tool]`, `#[mcp_tool]`, `#[mcp_server]`, `#[dto]`, `#[agent]`, and for approvals
//! `#[channel_role]` and `#[channel]`, and `#[knowledge]`: each documents its keys in a table.

// How the macros are built: every macro declares a `pipeline::Attribute` (its name, keys and
// stages), which one pipeline runs: parse (the item with `syn`, the arguments with darling),
// check (every problem into one error sink, `ctxt::Ctxt`, each at its token), generate (from a
// resolved model). The parts components share are written once: the header (`header`: name,
// description, crate path; `doc`), the fields as dependencies (`fields`), the item's shape and
// list values (`shape`), and the shape of the generated code (`emit`).

mod agent;
mod channel;
mod channel_role;
mod conform;
mod ctxt;
mod doc;
mod dto;
mod emit;
#[cfg(test)]
mod expansions;
mod fields;
mod header;
#[cfg(test)]
mod key_tables;
mod knowledge;
mod mcp_server;
mod pipeline;
mod shape;
mod tool;
mod units;

use proc_macro::TokenStream;

/// Makes a struct an agboss tool: a function a model can call.
///
/// The struct's fields are the tool's dependencies, resolved for every call; its
/// `impl ToolHandler` is the code. The attribute registers a descriptor (name, description,
/// schemas, timeout, bound, fields, source location) so that assembly and `describe` know the
/// tool without running it.
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | kebab-case ending in `-tool`, `[a-zA-Z0-9_-]`, at most 64 characters | required |
/// | `description` | what the tool does and when to call it; the model reads it | the struct's doc comment (its `///` lines, trimmed); with neither, it does not compile |
/// | `timeout` | `millis(n)`, `seconds(n)`, `minutes(n)`, `hours(n)` or `days(n)`; a bare number does not compile | `seconds(30)` |
/// | `max_result_size` | `bytes(n)`, `kilobytes(n)` or `megabytes(n)`, at least 1 whole byte | the workflow's, else the application's, else 128 KB |
/// | `read_only` | `true` if the tool changes nothing (`describe` prints `read`) | `false`: it may write |
/// | `channel` | a `#[channel_role]` whose `approves` is the tool's input type, or a built-in channel (`AutoApproveChannel`, `AutoRejectChannel`, `TerminalUserChannel`): each call waits for its decision before it runs | none: calls run at once |
/// | `asks` | a list of question roles (`#[channel_role(ask = Q, answer = A)]`) its calls may ask while they run, through a `Questions` field: `asks = [ShippingAddressRole]` | none: `Questions::ask` fails |
/// | `capabilities` | what it touches, declared: `[ExternalNet, UserData, Money, Destructive, Custom("name")]`; the application's `PermissionChecker` is asked about each call for each one it governs | none: no checker asks |
/// | `untrusted_output` | its results carry content nobody vouches for (MCP tools' always do): `UntrustedContentPolicy` asks a person before high-impact calls after one | vouched for |
/// | `check_in` | `always`, or a predicate `fn(&Input, &ExecutionContext) -> bool`: a person approves the call first, through `channel`'s role or the application's check-in role | no check-in |
/// | `check_in_evidence` | `fn(&Input) -> String`: what the person reads beside the call | none |
/// | `retries` | how many times a call runs again after a transient error (`ToolError::transient`), with the same idempotency key, before the model reads it: a whole number from 1 to 10 | none: the model reads the error |
/// | `retry_backoff` | the wait before the first retry, on the application's clock, doubled before each next one (at most a minute); only beside `retries` | `seconds(1)` |
/// | `result_ceiling` | `kilobytes(n)` or the like: a rendered output over it is refused before bounding, and the model reads the refusal (never cut) instead | none |
/// | `ceiling_hint` | how to narrow the call, written as an instruction to the model: the end of the refusal | required with `result_ceiling`, refused without it |
/// | `repeated_when` | `arguments_and_result` or `arguments`: what makes a call a repeat of an earlier one, which gets a note | `arguments_and_result` |
/// | `on_crash` | `rerun`, `report` or `ask`: what recovery does with a call that may have run when its process died | `rerun` |
/// | `allow_paths(field = "..", within = [..])`, `allow_urls(..)` | holds a path or URL field of the input to the listed roots or prefixes; a call outside them is refused before it runs (repeatable) | none |
/// | `max_argument_size` | `kilobytes(n)` or the like: larger arguments are refused before they are parsed | 1 MB |
/// | `result_kind` | `"family/name"`: results of this kind over `artifact_above` are kept in the store as artifacts, and the model reads a reference | none |
/// | `artifact_above` | with `result_kind`: the size over which a result is kept aside | the tool's bound |
/// | `wants(field = "kind", ..)` | `Wanted<T>` fields that take references to artifacts of a kind, redeemed before `run` | none |
/// | `needs` | `["github", ..]`: credentials by name, resolved for each call from the execution's owner through the application's `CredentialProvider` | none |
/// | `crate` | the path of the `agboss` crate, if renamed | `::agboss` |
///
/// Field types: `ExecutionContext`, `SpendRecorder`, `Clock`, or `Arc<T>` / `Arc<dyn Trait>`
/// provided by the application.
///
/// A tool whose input is not what its `channel` approves, or that names a question role
/// (`ask`/`answer`), does not compile: the error carries `[channel.wrong-tool]` and points at
/// the `channel` value.
///
/// A struct without a doc comment is documented with its `description`.
///
/// Every problem of one attribute is reported at once, each at the offending token with its
/// code and the fix: `[name.kind-suffix]`, `[tool.name-invalid]`, `[tool.name-too-long]`,
/// `[tools.max-result-size-invalid]`, unknown keys (with the valid ones), a missing `name`, or
/// neither a doc comment nor `description`.
///
/// See the `agboss` crate for examples.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::TOOL.expand(args.into(), item.into()).into()
}

/// A tool bound to one tool of an MCP server: `#[tool]`'s keys, plus the server and its tool.
///
/// | key | value | default |
/// |---|---|---|
/// | `server` | the `#[mcp_server]` type | required |
/// | `calls` | the server's tool, by the server's name; one the server does not declare does not compile (`[mcp.undeclared-tool]`) | required |
/// | `input`, `output` | the DTOs of a tool that passes its input to the server's tool unchanged: the macro writes its handler | none: write `impl ToolHandler` |
/// | `name`, `description`, `timeout`, `max_result_size`, `read_only`, `channel`, `capabilities`, `check_in`, `check_in_evidence`, `on_crash`, `result_ceiling`, `ceiling_hint`, `repeated_when`, `allow_paths`, `allow_urls`, `max_argument_size`, `result_kind`, `artifact_above`, `needs`, `retries`, `retry_backoff`, `crate` | as for `#[tool]`; `description` defaults to the doc comment | |
/// | `asks` | refused: an `#[mcp_tool]` asks nothing itself; its server's requests for input go to the server's `elicitation` role | |
/// | `server_claims` | `["readOnlyHint=true", ..]`: what the server says of the tool, shown by `describe`; it decides nothing | none |
///
/// With `input` and `output` (give both or neither), the struct needs no handler and names its
/// server once: the macro adds a hidden `McpClient<Server>` field, a dependency like any other,
/// and writes `impl ToolHandler` whose `run` is `self.<client>.call(&input).await`. The struct
/// may be a unit struct, or have other dependency fields.
///
/// ```text
/// /// Reads one of the user's notes
/// #[mcp_tool(name = "read-note-tool", server = NotesServer, calls = "read_text_file", input = NotePath, output = PlainText)]
/// pub struct ReadNote;
/// ```
///
/// Without them, the struct declares the client and writes the handler, for a tool that shapes
/// its input or output:
///
/// ```text
/// #[mcp_tool(
///     name = "read-notes-tool",
///     description = "Reads one of the user's notes",
///     server = NotesServer,
///     calls = "read_text_file",
///     timeout = seconds(10),
/// )]
/// pub struct ReadNotes {
///     notes: McpClient<NotesServer>,   // `self.notes.call(&input).await` in `run`
/// }
/// ```
#[proc_macro_attribute]
pub fn mcp_tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::MCP_TOOL.expand(args.into(), item.into()).into()
}

/// Declares an MCP server: how to reach it, the tools of it the application uses, and the
/// environment variables (names) it needs.
///
/// | key | value |
/// |---|---|
/// | `name` | kebab-case: the `source` of its tools (`notes-fs`) |
/// | `command`, `args = [..]` | a program speaking MCP on stdio; `${VAR}` is replaced by the variable's value |
/// | `url` | or a streamable-HTTP endpoint (`${VAR}` replaced likewise) |
/// | `tools = [..]` | the server's tools the application calls, by the server's names |
/// | `env = [..]` | names of environment variables the server needs, passed to its process |
/// | `elicitation` | the question role its requests for input during a call (MCP's elicitation) are asked through: `#[channel_role(.., ask = ElicitationQuestion, answer = ElicitationAnswer)]`, else `[mcp.elicitation-role]`; its `#[mcp_tool]`s declare they ask it. Without it the client offers no elicitation and declines every request |
/// | `oauth_client_id`, `oauth_client_secret`, `oauth_private_key`, `oauth_scopes` | with `url` and feature `mcp-oauth`: OAuth's client-credentials grant (the secret, or a private key for a signed assertion, a `${VAR}` alone) |
/// | `oauth_redirect`, `oauth_client_metadata_url` | or OAuth's authorization-code grant: where the person's browser comes back, and the client's metadata document |
/// | `credential`, `credential_header`, `credential_env` | the server's own credential by name, resolved through the application's credential provider as it starts, and the header (HTTP) or variable (stdio) that carries it |
/// | `crate` | the path of the `agboss` crate, if renamed |
#[proc_macro_attribute]
pub fn mcp_server(args: TokenStream, item: TokenStream) -> TokenStream {
    mcp_server::MCP_SERVER
        .expand(args.into(), item.into())
        .into()
}

/// Derives `Serialize`, `Deserialize` and `JsonSchema` through agboss's re-exports, so a DTO
/// needs no serde or schemars line in `Cargo.toml`. Doc comments become the field descriptions
/// the model reads.
///
/// A struct refuses fields it does not declare (`#[serde(deny_unknown_fields)]`, which the
/// schema states as `additionalProperties: false`); `#[dto(open)]` accepts them.
/// `#[dto(crate = path)]` names a renamed `agboss`.
#[proc_macro_attribute]
pub fn dto(args: TokenStream, item: TokenStream) -> TokenStream {
    dto::DTO.expand(args.into(), item.into()).into()
}

/// Makes a unit struct an agent: a model with a prompt and the tools it may call.
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | kebab-case, at most 64 characters (`scout`) | required |
/// | `description` | what the agent does | the struct's doc comment (its `///` lines, trimmed); with neither, it does not compile |
/// | `prompt` / `prompts` | a file, or files, next to this source file, read like `include_str!`: a missing file does not compile | required |
/// | `model` | `vendor/model`, such as `"moonshotai/kimi-k2.6"` | required |
/// | `tools` | a list of `#[tool]` types; a type that is not a tool does not compile | none |
/// | `knowledge` | a list of `#[knowledge]` types: in tool mode each gives the agent its `search-<name>-tool`, in context mode each adds what it finds for the run's input to the input message | none |
/// | `max_tool_calls` | calls per run, at least 1 | the workflow's, else the application's, else 20 |
/// | `thinking` | `"default"`, `"off"`, `"low"`, `"medium"`, `"high"` | `"default"` |
/// | `history_turns`, `history_summaries` | what the agent remembers of its thread | 5 and 10 |
/// | `history_max_size` | `bytes(n)`, `kilobytes(n)` or `megabytes(n)`, at least 1 byte: the most it reads of its thread's history | configuration's, else a quarter of its model's context window when known, else 32 KB |
/// | `output` | a DTO the agent answers with, through the tool `answer-<dto>` | plain text |
/// | `tool_choice` | `"auto"`, `"required"`, `"none"`, or the name of one of its tools | `"required"` with `output`, else `"auto"` |
/// | `first_turn_tool_choice` | the same, for the first turn only (`"required"`: small local models often call a tool only when forced) | `tool_choice` |
/// | `max_turns` | model turns per run, at least 1; past it the run fails (`agents.<name>.limits.turns`) | the workflow's, else the application's, else 30 |
/// | `max_duration` | `seconds(n)`, `minutes(n)` or the like: the run's time budget on the application's clock; past it the run fails (`agents.<name>.limits.duration`) | none |
/// | `answer_retries` | with `output`: invalid answers sent back to the model before the run fails (`answer.invalid`) | the workflow's, else the application's, else 2 |
/// | `crate` | the path of the `agboss` crate, if renamed | `::agboss` |
#[proc_macro_attribute]
pub fn agent(args: TokenStream, item: TokenStream) -> TokenStream {
    agent::AGENT.expand(args.into(), item.into()).into()
}

/// Makes a unit struct a channel role: what a channel is asked (the approval of a tool's call,
/// or a question of its own) and who may answer.
///
/// A tool names the role (`#[tool(.., channel = RefundApproval)]`); a `#[channel]` implements
/// it, and the application lists that channel (`ApplicationBuilder::channel::<C>()`). The
/// attribute implements `ChannelRole` (and, for an approval role, `Approves<Dto>`) with a
/// static `RoleDescriptor`.
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | kebab-case ending in `-channel` (`refund-approval-channel`) | required |
/// | `description` | what the role approves or asks; whoever answers reads it | the struct's doc comment; with neither, it does not compile |
/// | `answered_by` | `ThreadOwner` (the owner of the execution's thread answers; its pauses are listed in `RunOutcome::Paused`) or `Channel` (whoever holds the pause id answers, through the channel's own system); `PauseAnswerer::ThreadOwner` and `PauseAnswerer::Channel` are read the same | required: no default |
/// | `approves` | the input DTO of the tools whose calls it approves: its question is a `ToolCallApprovalAsk<Dto>`, its answer a `ToolCallApprovalDecision<Dto>` | one form is required |
/// | `ask`, `answer` | or, for a question of its own, the DTOs of the question and of its answer, both given | |
/// | `reply_interpreter` | a type that reads free-text replies (`Resume::reply`) as the role's answer: a `ReplyInterpreter<Role>` (code), or for an approval role a `DecisionModel` (a model that may only approve or refuse); one interpreter serves one role (`[channel.shared-interpreter]` at assembly) | none: answers are decisions |
/// | `expires_after` | `minutes(n)`, `hours(n)`, `days(n)` (any unit of time): how long its pauses take answers (`[pause.expired]` after) | no limit |
/// | `crate` | the path of the `agboss` crate, if renamed | `::agboss` |
///
/// ```text
/// use agboss::prelude::*;
///
/// /// Approves card refunds.
/// #[channel_role(
///     name = "refund-approval-channel",
///     approves = RefundCardInput,          // the tools' input DTO
///     answered_by = PauseAnswerer::Channel,
/// )]
/// pub struct RefundApproval;
///
/// /// Asks the owner for a project's budget.
/// #[channel_role(
///     name = "budget-question-channel",
///     ask = BudgetAsk,
///     answer = BudgetAnswer,
///     answered_by = ThreadOwner,
///     reply_interpreter = BudgetReader,    // impl ReplyInterpreter<BudgetQuestion>
///     expires_after = hours(24),
/// )]
/// pub struct BudgetQuestion;
/// ```
///
/// Every problem is reported at once, each at its token: both forms or neither
/// (`[channel.role-form]`), `ask` without `answer` (or the reverse), a missing `answered_by` or
/// a value that is not one of the two, a name that is not kebab-case ending in `-channel`
/// (`[name.kind-suffix]`, with the name to use), a struct with fields or generics, unknown keys
/// (with the key meant).
#[proc_macro_attribute]
pub fn channel_role(args: TokenStream, item: TokenStream) -> TokenStream {
    channel_role::CHANNEL_ROLE
        .expand(args.into(), item.into())
        .into()
}

/// Makes a struct a channel: the code that asks a role's question somewhere (Slack, a ticket,
/// an inbox) and says whether the answer is known now or comes later.
///
/// The struct's fields are its dependencies, as a tool's are (`ExecutionContext` of the call
/// held back, `Clock`, `Arc<T>` / `Arc<dyn Trait>` the application provides), resolved for each
/// ask; its `impl ChannelHandler` is the code, and its `type Role` the role it answers. The
/// attribute implements `Channel` with a static `ChannelDescriptor`, and marks the struct's type
/// as infrastructure: the application lists the channel (`.channel::<SlackRefundApproval>()`),
/// and a workflow that provides one is reported `[di.infrastructure-in-workflow]`.
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | kebab-case ending in `-channel` (`slack-refund-approval-channel`) | required |
/// | `description` | where it asks, and whom | the struct's doc comment; with neither, it does not compile |
/// | `crate` | the path of the `agboss` crate, if renamed | `::agboss` |
///
/// ```text
/// use agboss::prelude::*;
///
/// /// Asks a finance manager in Slack.
/// #[channel(name = "slack-refund-approval-channel")]
/// pub struct SlackRefundApproval {
///     execution: ExecutionContext,
///     slack: Arc<dyn Slack>,
/// }
///
/// impl ChannelHandler for SlackRefundApproval {
///     type Role = RefundApproval;
///
///     async fn send(&self, ask: ChannelAsk<RefundApproval>)
///         -> Result<ChannelOutcome<RefundApproval>, ToolError> {
///         let cents = ask.value.arguments.amount_cents;   // typed by the role's `approves`
///         if cents <= 5_000 {
///             return Ok(ChannelOutcome::decided(ToolCallApprovalDecision::approve()));
///         }
///         // The pause id is made once, before the first send: the idempotency key of the post.
///         self.slack.post("#finance", &format!("Refund {cents}c?"), &ask.pause_id).await?;
///         Ok(ChannelOutcome::await_reply())
///     }
/// }
/// ```
///
/// At assembly, each role the tools name needs exactly one listed channel:
/// `[di.missing-implementation]` for none, `[di.ambiguous-implementation]` for two. A struct
/// without `impl ChannelHandler` does not compile, reported once on its name; a field type that
/// is no dependency is reported on the type; every problem of the attribute (the name's
/// `[name.kind-suffix]`, unknown keys, a missing description, generics) at once.
#[proc_macro_attribute]
pub fn channel(args: TokenStream, item: TokenStream) -> TokenStream {
    channel::CHANNEL.expand(args.into(), item.into()).into()
}

/// A knowledge base: documents an agent searches. Its name is kebab-case ending in `-rag`
/// (`docs-rag`); an agent lists it (`#[agent(.., knowledge = [DocsRag])]`) and, in tool mode,
/// gets the tool `search-docs-rag-tool`.
///
/// | key | value | default |
/// |---|---|---|
/// | `name` | kebab-case ending in `-rag`, at most 52 characters (its search tool's name, `search-<name>-tool`, is a name models see) | required |
/// | `description` | what its documents hold: the model reads it in the search tool's description | the struct's doc comment |
/// | `mode` | `"tool"`: the agent searches through `search-<name>-tool` when it decides to; `"context"`: before its first model call the run's input is searched, what is found is journaled and added to the input message of every model call of the run, bounded like a tool result | `"tool"` |
/// | `trusted` | its documents are vouched for (written by the team, not by customers or crawled from the web): what it finds does not count as content nobody vouches for, so `UntrustedContentPolicy` does not ask a person after a search | not vouched for |
/// | `top_k` | passages a search returns unless the query says, 1 to 50 | 5 |
/// | `folder` | the folder the built-in index reads (feature `knowledge`), relative to the working directory; without it the struct implements `KnowledgeBase` and its fields are its dependencies | none |
/// | `documents` | with `folder`: `"text"` (Markdown and text files, cut at headings) or `"code"` (source files) | `"text"` |
/// | `search` | with `folder`: `"full-text"` (BM25), `"semantic"` (embeddings, cosine) or `"hybrid"` (both, fused by rank) | `"full-text"` |
/// | `embeddings` | with `semantic` or `hybrid`: the embeddings model, `vendor/model`, reached like chat models | none |
/// | `crate` | the path of the `agboss` crate, if renamed | `::agboss` |
///
/// ```ignore
/// /// The team's guides: how tools, agents and workflows are written.
/// #[knowledge(name = "docs-rag", folder = "docs")]
/// pub struct DocsRag;
///
/// #[agent(name = "notes", model = "openai/gpt-5-mini", prompt = "notes.md", knowledge = [DocsRag])]
/// pub struct Notes;
/// ```
///
/// A base of your own:
///
/// ```ignore
/// /// Answers to customers' frequent questions.
/// #[knowledge(name = "faq-rag", mode = "context", top_k = 3)]
/// pub struct FaqRag {
///     db: Arc<dyn FaqDatabase>,
/// }
///
/// impl KnowledgeBase for FaqRag {
///     async fn search(&self, query: &KnowledgeQuery) -> Result<Vec<Passage>, KnowledgeError> {
///         self.db.search(&query.query, query.top_k.unwrap_or(3)).await
///     }
/// }
/// ```
///
/// Every problem of the attribute is reported at once, at its token: the name's rules
/// (`[name.kind-suffix]`, `[tool.name-too-long]` for a search tool's name over 64 characters),
/// unknown keys, and keys that do not go together (`[knowledge.invalid]`).
#[proc_macro_attribute]
pub fn knowledge(args: TokenStream, item: TokenStream) -> TokenStream {
    knowledge::KNOWLEDGE.expand(args.into(), item.into()).into()
}
