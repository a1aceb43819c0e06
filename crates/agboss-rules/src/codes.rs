//! The catalogue of problem codes: every code agboss reports, each once, with what it means and
//! the template of its message.
//!
//! A message names what is wrong, where, and the fix. Templates hold `{placeholders}` that
//! [`Code::fill`] replaces; the same template serves the compiler's error (a macro) and the
//! assembly's problem (the runtime), so the two read alike.
//!
//! ```
//! use agboss_rules::codes;
//!
//! let text = codes::WORKFLOW_DUPLICATE_NAME.fill(&[("workflow", &"desk")]);
//! assert_eq!(text, "two workflows are named `desk`: give each its own name");
//! assert_eq!(codes::WORKFLOW_DUPLICATE_NAME.to_string(), "workflow.duplicate-name");
//! assert!(codes::find("tool.duplicate-name").is_some());
//! ```

use std::fmt;

/// One problem code: its id (`tool.duplicate-name`), what it means, and its message template.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Code {
    id: &'static str,
    meaning: &'static str,
    template: &'static str,
}

impl Code {
    const fn new(id: &'static str, meaning: &'static str, template: &'static str) -> Code {
        Code {
            id,
            meaning,
            template,
        }
    }

    /// The id, as written between brackets: `tool.duplicate-name`. The id of a code about one
    /// agent holds a `<name>` segment (`agents.<name>.limits.turns`): [`id_for`](Self::id_for)
    /// gives the id an error of one agent carries.
    pub const fn id(&self) -> &'static str {
        self.id
    }

    /// The id with each `<key>` segment replaced by its value in `values`:
    /// `agents.<name>.limits.turns` for agent `scout` is `agents.scout.limits.turns`. An id
    /// without such a segment comes back as it is.
    pub fn id_for(&self, values: &[(&str, &dyn fmt::Display)]) -> String {
        self.id
            .split('.')
            .map(|segment| {
                let key = segment.strip_prefix('<').and_then(|s| s.strip_suffix('>'));
                match key.and_then(|key| values.iter().find(|(k, _)| *k == key)) {
                    Some((_, value)) => value.to_string(),
                    None => segment.to_owned(),
                }
            })
            .collect::<Vec<_>>()
            .join(".")
    }

    /// Whether `id` is this code's id, a `<key>` segment standing for any one segment.
    pub fn matches(&self, id: &str) -> bool {
        let (mut pattern, mut given) = (self.id.split('.'), id.split('.'));
        loop {
            match (pattern.next(), given.next()) {
                (None, None) => return true,
                (Some(p), Some(g))
                    if p == g || (p.starts_with('<') && p.ends_with('>') && !g.is_empty()) => {}
                _ => return false,
            }
        }
    }

    /// What the code means, in one line (the table in the docs).
    pub const fn meaning(&self) -> &'static str {
        self.meaning
    }

    /// The message template, with `{placeholders}`.
    pub const fn template(&self) -> &'static str {
        self.template
    }

    /// The message: the template with each `{key}` replaced by its value in `values`. A key
    /// without a value stays as written, so a missing one shows in a test, never as a panic.
    pub fn fill(&self, values: &[(&str, &dyn fmt::Display)]) -> String {
        let mut out = String::with_capacity(self.template.len() + 32);
        let mut rest = self.template;
        while let Some(at) = rest.find(['{', '}']) {
            out.push_str(&rest[..at]);
            let brace = &rest[at..at + 1];
            let after = &rest[at + 1..];
            // `{{` and `}}` are a literal brace.
            if after.starts_with(brace) {
                out.push_str(brace);
                rest = &after[1..];
                continue;
            }
            let close = match (brace, after.find('}')) {
                ("{", Some(close)) => close,
                _ => {
                    out.push_str(brace);
                    rest = after;
                    continue;
                }
            };
            let key = &after[..close];
            match values.iter().find(|(k, _)| *k == key) {
                Some((_, value)) => out.push_str(&value.to_string()),
                None => out.push_str(&rest[at..at + close + 2]),
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
    }

    /// A [`Finding`] of this code with its template filled from `values`.
    pub fn finding(&'static self, values: &[(&str, &dyn fmt::Display)]) -> Finding {
        Finding {
            code: self,
            message: self.fill(values),
        }
    }
}

impl fmt::Display for Code {
    /// The id.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id)
    }
}

/// A rule broken: its code and the message, printed `[code] message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The code.
    pub code: &'static Code,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl Finding {
    /// The same finding, its message prefixed with what it is about: `tool `x`: ...`.
    pub fn about(mut self, what: &str) -> Finding {
        self.message = format!("{what}: {}", self.message);
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.code.id, self.message)
    }
}

macro_rules! catalogue {
    ($($(#[$doc:meta])* $name:ident = ($id:literal, $meaning:literal, $template:literal);)*) => {
        $(
            $(#[$doc])*
            pub static $name: Code = Code::new($id, $meaning, $template);
        )*

        /// Every code, in the order of this file.
        pub static ALL: &[&Code] = &[$(&$name),*];
    };
}

catalogue! {
    // Names.
    /// A component's name is not kebab-case with its kind's suffix.
    NAME_KIND_SUFFIX = ("name.kind-suffix", "a component's name is not kebab-case ending in its kind",
        "{what} name {name} must be kebab-case ending in `-{kind}`: name it {suggestion}");
    /// A name that must be kebab-case is not.
    NAME_KEBAB_CASE = ("name.kebab-case", "a name is not kebab-case",
        "{kind} name {name} must be kebab-case: name it {suggestion}");
    /// A name a model sees has characters the providers refuse.
    TOOL_NAME_INVALID = ("tool.name-invalid", "a name a model sees has characters model providers refuse",
        "name {name} has characters model providers refuse ({chars}): use only letters, digits, `_` and `-`");
    /// A name a model sees is longer than the providers accept.
    TOOL_NAME_TOO_LONG = ("tool.name-too-long", "a name a model sees is longer than model providers accept",
        "name {name} is {len} characters long: model providers accept at most {max}; shorten it by {over}");
    /// An agent's name is too long.
    AGENT_NAME_TOO_LONG = ("agent.name-too-long", "an agent's name is too long",
        "agent name {name} is {len} characters long: at most {max}; shorten it by {over}");
    /// Two tools of one agent share a name.
    TOOL_DUPLICATE_NAME = ("tool.duplicate-name", "two tools of one agent share a name (its answer tool `answer-<dto>` included)",
        "agent `{agent}` (workflow `{workflow}`) has two tools named `{name}`: {first} and {second}; rename one");
    /// A tool's JSON Schema does not compile.
    TOOL_SCHEMA_INVALID = ("tool.schema-invalid", "a tool's input or output schema does not compile",
        "tool `{tool}`: the {which} schema {reason}");
    /// A tool's `on_crash` is not a policy.
    TOOL_ON_CRASH_INVALID = ("tool.on-crash-invalid", "a tool's `on_crash` is not `rerun`, `report` or `ask`",
        "`on_crash = {value}` is not a policy: use `rerun` (run the call again with the same idempotency key; the default), `report` (the model reads that its outcome is unknown) or `ask` (the tool's approval role decides)");
    /// `on_crash = ask` on a tool that names no channel.
    TOOL_ON_CRASH_NEEDS_CHANNEL = ("tool.on-crash-needs-channel", "a tool says `on_crash = ask` but names no approval role to ask",
        "`on_crash = ask` asks the tool's approval role whether to run an interrupted call again, and this tool names none: add `channel = YourRole`, or use `on_crash = report`");
    /// `asks` is not a list of role types, or is given to a tool that cannot ask.
    TOOL_ASKS_INVALID = ("tool.asks-invalid", "a tool's `asks` is not a list of question role types, or the tool cannot ask",
        "{detail}");
    /// A tool may have to ask a person and there is no role to ask.
    TOOL_CHECK_IN_WITHOUT_ROLE = ("tool.check-in-without-role", "a tool may have to ask a person before a call and has no role to ask",
        "tool `{tool}` may have to ask a person before a call runs ({why}), and names no role to ask: add `channel = YourRole` to its #[tool], or give the application a check-in role (`ApplicationBuilder::check_in_role::<Role>()`)");
    /// `capabilities` names a capability that is not one.
    TOOL_CAPABILITY_UNKNOWN = ("tool.capability-unknown", "a tool declares a capability that is not one",
        "{detail}");
    /// `check_in` is not `always` or a predicate.
    TOOL_CHECK_IN_INVALID = ("tool.check-in-invalid", "a tool's `check_in` is not `always` or a predicate's path, or the predicate or evidence function has another shape than `fn(&Input, &ExecutionContext) -> bool` / `fn(&Input) -> String`",
        "{detail}");
    /// A call that may not run twice was interrupted.
    TOOL_OUTCOME_UNKNOWN = ("tool.outcome-unknown", "a call that may not run twice was interrupted after it started, before its result was journaled",
        "outcome unknown: call `{call_id}` of `{tool}` started, and the process running it stopped before its result was saved, so it may or may not have taken effect; it is not run again ({why})");
    /// A tool's `result_ceiling` is not a whole number of bytes from 1.
    TOOL_RESULT_CEILING_INVALID = ("tool.result-ceiling-invalid", "a tool's result ceiling is zero or not a whole number of bytes",
        "{owner}: {reason}");
    /// A tool sets `result_ceiling` without saying how a call is narrowed.
    TOOL_CEILING_HINT_MISSING = ("tool.ceiling-hint-missing", "a tool sets a result ceiling and no hint saying how to narrow a call",
        "a result over `result_ceiling` is refused, and the model reads `ceiling_hint` to know how to ask for less: add `ceiling_hint = \"{example}\"`{why}");
    /// `ceiling_hint` on a tool without `result_ceiling`.
    TOOL_CEILING_HINT_WITHOUT_CEILING = ("tool.ceiling-hint-without-ceiling", "a tool gives `ceiling_hint` and sets no `result_ceiling`",
        "`ceiling_hint` is what the model reads when a result is over `result_ceiling`, and this tool sets no ceiling: add `result_ceiling = kilobytes(64)`, or remove the hint");
    /// `retries` is not a small whole number, or `retry_backoff` comes without it.
    TOOL_RETRIES_INVALID = ("tool.retries-invalid", "a tool's `retries` is not a whole number from 1 to 10, or it gives `retry_backoff` without `retries`",
        "{detail}");
    /// `repeated_when` is not a rule.
    TOOL_REPEATED_WHEN_INVALID = ("tool.repeated-when-invalid", "a tool's `repeated_when` is not `arguments_and_result`, `arguments` or `never`",
        "`repeated_when = {value}` is not a rule: use `arguments_and_result` (a call with the same arguments and the same result as an earlier one gets a note; the default), `arguments` (the same arguments are enough, for a tool that stamps each answer) or `never` (no note)");
    /// A result over its tool's ceiling was refused: what the model reads after `Tool error: `.
    TOOL_RESULT_OVER_CEILING = ("tool.result-over-ceiling", "a tool's result was over its `result_ceiling` and was refused",
        "the result is {size} bytes, over this tool's ceiling of {ceiling} bytes, so none of it is shown; to narrow the call: {hint}");
    /// `allow_paths` or `allow_urls` is not a field and a list of roots or URL prefixes.
    TOOL_ALLOWLIST_INVALID = ("tool.allowlist-invalid", "a tool's `allow_paths` or `allow_urls` names no input field of text, or lists something that is not an absolute path or a URL prefix",
        "`{key}`: {reason}");
    /// An argument named a path or URL outside its tool's allowlist: what the model reads after
    /// the field's path.
    TOOL_OUTSIDE_ALLOWLIST = ("tool.outside-allowlist", "an argument named a path or URL outside its tool's allowlist, so the call was refused before it ran",
        "{value} {why}; this tool accepts only {what} under {within}");
    /// A tool's `max_argument_size` is not a whole number of bytes from 1.
    TOOL_MAX_ARGUMENT_SIZE_INVALID = ("tool.max-argument-size-invalid", "a tool's limit on the length of its arguments is zero or not a whole number of bytes",
        "{owner}: {reason}");
    /// The arguments are longer than the tool accepts: what the model reads after `invalid
    /// input: `.
    TOOL_ARGUMENTS_TOO_LARGE = ("tool.arguments-too-large", "a call's arguments were longer than its tool's `max_argument_size`, so they were not read",
        "the arguments are {size} bytes, over the {limit} bytes this tool accepts: send less, or raise the tool's `max_argument_size`");
    /// `needs` is not a list of credential names, or names one twice.
    TOOL_NEEDS_INVALID = ("tool.needs-invalid", "a tool's `needs` is not a list of kebab-case credential names, or names one twice",
        "{detail}");
    /// A call's tool needs a credential the provider has none of for this execution: what the
    /// model reads after `Tool error: `.
    TOOL_CREDENTIAL_MISSING = ("tool.credential-missing", "a call needed a credential and none was available for its execution, so the tool did not run",
        "this tool needs the credential `{name}`, and none is available for this execution, so it did not run");
    /// A bound on results is not a whole number of bytes from 1.
    TOOLS_MAX_RESULT_SIZE_INVALID = ("tools.max-result-size-invalid", "a bound on results is zero or not a whole number of bytes",
        "{owner}: {reason}");
    /// A tool's blocking work found its pool full.
    TOOL_BLOCKING_FULL = ("tool.blocking-full", "a tool's blocking work was refused: its pool's threads are all held by work that has not returned",
        "the blocking pool is full: {limit} of {limit} threads are held by work that has not returned (its calls may have stopped waiting); try again later, or give the pool a higher bound");
    // Artifacts (issue 17: `result_kind`, `artifact_above`, `wants`).
    /// A kind of artifact is not written as one.
    TOOL_RESULT_KIND_INVALID = ("tool.result-kind-invalid", "a kind of artifact (`result_kind`, or a kind `wants` names) is not lower-case words joined by `/`, `-`, `_` or `.`",
        "{subject} is `{kind}`, which is not a kind of artifact: {reason}; write lower-case words joined by `/`, `-`, `_` or `.`, such as `dataset/rows` (a kind is matched exactly, so it has no wildcards)");
    /// `artifact_above` is zero, not a size, or given without `result_kind`.
    TOOL_ARTIFACT_ABOVE_INVALID = ("tool.artifact-above-invalid", "a tool's `artifact_above` is zero, not a whole number of bytes, or set without `result_kind`",
        "{owner}: {reason}");
    /// `wants` is not a list of `argument = \"kind\"`, or names an argument twice.
    TOOL_WANTS_INVALID = ("tool.wants-invalid", "a tool's `wants` is not `wants(argument = \"kind\", ..)`, or names an argument twice",
        "{detail}");
    /// A reference the model passed to a `wants` argument was refused: what it reads after `Tool error: `.
    TOOL_ARTIFACT_REFUSED = ("tool.artifact-refused", "an artifact reference passed to a `wants` argument is unknown to the run, gone, another run's or of another kind, so the tool did not run",
        "argument `{argument}` wants an artifact of kind `{kind}`, and {why}, so the tool did not run; the live references of kind `{kind}` in this run: {live}");

    // Agents.
    /// Configuration lists a tool by a name no `#[tool]` has.
    AGENT_UNKNOWN_TOOL = ("agent.unknown-tool", "configuration lists a tool by a name no #[tool] has (UnknownAgentToolError)",
        "UnknownAgentToolError: agent `{agent}` (workflow `{workflow}`) lists the tool `{tool}`, but no #[tool] in this program is named so{hint}");
    /// Two agents of one workflow share a name.
    AGENT_DUPLICATE_NAME = ("agent.duplicate-name", "two agents of one workflow share a name",
        "workflow `{workflow}` has two agents named `{agent}`: give each its own name");
    /// An agent's tool-call limit is 0.
    AGENT_MAX_TOOL_CALLS_INVALID = ("agent.max-tool-calls-invalid", "an agent's limit of tool calls is 0",
        "{subject}: max tool calls of 0{from} would stop it before its first call: give at least 1");
    /// A model id is not `vendor/model`.
    AGENT_MODEL_INVALID = ("agent.model-invalid", "a model id is not `vendor/model`",
        "model {model} is not `vendor/model`: write it as the router knows it, such as \"openai/gpt-5-mini\" or \"moonshotai/kimi-k2.6\"");
    /// An agent's tool choice names a tool it does not have.
    AGENT_TOOL_CHOICE_UNKNOWN = ("agent.tool-choice-unknown", "an agent's tool choice (`tool_choice`, `first_turn_tool_choice`) names a tool it does not have",
        "agent `{agent}`: {key} names `{tool}`{from}, which is not one of its tools: use \"auto\", \"required\", \"none\" or one of {tools}");
    /// An agent's turn cap is 0.
    AGENT_MAX_TURNS_INVALID = ("agent.max-turns-invalid", "an agent's cap of model turns per run is 0",
        "{subject}: max turns of 0{from} would stop it before its first model call: give at least 1");
    /// An agent's time budget is zero.
    AGENT_MAX_DURATION_INVALID = ("agent.max-duration-invalid", "an agent's time budget per run is 0",
        "{subject}: a time budget of 0 s{from} would end every run before its first model call: give at least 1 second");
    /// An agent's bound on the history it reads is zero or not a whole number of bytes.
    AGENT_HISTORY_MAX_SIZE_INVALID = ("agent.history-max-size-invalid", "an agent's bound on the history of its thread it reads is zero or not a whole number of bytes",
        "{owner}: {reason}");
    /// An agent's answer DTO has a schema that does not compile.
    AGENT_ANSWER_SCHEMA_INVALID = ("agent.answer-schema-invalid", "the schema of an agent's answer DTO does not compile",
        "agent `{agent}`: the schema of its answer `{name}` does not compile: {why}");
    /// An agent's tool wants a kind of artifact that no tool of the application makes.
    AGENT_WANTS_UNPRODUCED = ("agent.wants-unproduced", "an agent's tool wants a kind of artifact that no tool of the application declares as its `result_kind`",
        "agent `{agent}` (workflow `{workflow}`) has tool `{tool}`, whose argument `{argument}` wants an artifact of kind `{kind}`, and no tool of this application makes one: give the tool that makes it `result_kind = \"{kind}\"` (kinds are matched exactly; the kinds its tools make: {made})");
    /// An application's lease ttl is too short to renew.
    APP_LEASE_TTL_INVALID = ("app.lease-ttl-invalid", "an application's lease ttl is too short to be renewed before it runs out",
        "lease_ttl of {ttl} would run out before its first renewal (they go every third of it): give at least millis(3), or keep the default seconds(30)");
    /// Two workflows share a name.
    WORKFLOW_DUPLICATE_NAME = ("workflow.duplicate-name", "two workflows share a name",
        "two workflows are named `{workflow}`: give each its own name");
    /// A workflow includes itself, directly or through the workflows it includes.
    WORKFLOW_INCLUDE_CYCLE = ("workflow.include-cycle", "a workflow includes itself, directly or through the workflows it includes",
        "workflow `{workflow}` includes itself ({path}): a workflow cannot contain itself; remove one of these includes");

    // Dependencies.
    /// Nothing provides what a field needs.
    DI_MISSING_IMPLEMENTATION = ("di.missing-implementation", "a field's type that neither its workflow nor the application provides",
        "{subject} needs {needed}, which {scope} provides ({fix})");
    /// One scope provides a type twice.
    DI_AMBIGUOUS_IMPLEMENTATION = ("di.ambiguous-implementation", "one scope provides a type twice",
        "{scope} provides {what} more than once: {fix}");
    /// A workflow provides what only the application may.
    DI_INFRASTRUCTURE_IN_WORKFLOW = ("di.infrastructure-in-workflow", "a workflow provides what only the application may",
        "workflow `{workflow}` provides `{type_name}`, {what}: infrastructure serves every workflow, so provide it on the application");

    // Channels and pauses.
    /// A role gives both forms, or neither.
    CHANNEL_ROLE_FORM = ("channel.role-form", "a channel role is given both `approves` and `ask`/`answer`, or neither",
        "{detail}");
    /// A tool names a role that does not approve its input.
    CHANNEL_WRONG_TOOL = ("channel.wrong-tool", "a tool names a role that does not approve its input, or a question role",
        "{detail}");
    /// A tool declares it asks a role that is not a question role.
    CHANNEL_NOT_A_QUESTION = ("channel.not-a-question", "a tool's `asks` names a role that approves calls instead of asking a question",
        "{detail}");
    /// One reply interpreter serves two roles.
    CHANNEL_SHARED_INTERPRETER = ("channel.shared-interpreter", "one reply interpreter is given to two roles",
        "reply interpreter `{interpreter}` reads the replies of roles `{first}` and `{second}`: give each role its own");
    /// No pause has this id.
    PAUSE_UNKNOWN = ("pause.unknown", "an answer names a pause nobody opened",
        "no pause has the id `{pause_id}`");
    /// The answer comes from someone who may not give it.
    PAUSE_WRONG_ANSWERER = ("pause.wrong-answerer", "an answer comes from someone the role does not let answer",
        "pause `{pause_id}` is answered by the thread's owner, `{owner}`, not by {by}");
    /// The answer is for another execution.
    PAUSE_OTHER_EXECUTION = ("pause.other-execution", "an answer names an execution the pause does not belong to",
        "pause `{pause_id}` belongs to execution `{execution}`, not `{asked}`");
    /// The answer is not one of the role's.
    PAUSE_INVALID_ANSWER = ("pause.invalid-answer", "an answer does not match its role's answer type",
        "the answer to pause `{pause_id}` is not one role `{role}` takes: {issues}");
    /// The pause was answered already.
    PAUSE_ALREADY_ANSWERED = ("pause.already-answered", "a pause is answered twice",
        "pause `{pause_id}` is already answered");
    /// The execution was cancelled.
    PAUSE_EXECUTION_CANCELLED = ("pause.execution-cancelled", "a pause's execution was cancelled",
        "pause `{pause_id}`: execution cancelled");
    /// The pause no longer takes answers.
    PAUSE_EXPIRED = ("pause.expired", "a pause's role limits how long it takes answers, and that time passed",
        "pause `{pause_id}` took answers until {until}: it is expired");
    /// The answer was given for other arguments.
    PAUSE_ARGUMENTS_CHANGED = ("pause.arguments-changed", "an answer carries the digest of arguments other than the call's",
        "the answer to pause `{pause_id}` was given for other arguments (digest {given}, the call's is {actual})");
    /// A free-text reply could not be read as an answer.
    PAUSE_REPLY_UNCLEAR = ("pause.reply-unclear", "a free-text reply could not be read as an answer",
        "the reply to pause `{pause_id}` could not be read as an answer: {why}");
    /// The role reads no free-text replies.
    PAUSE_NO_INTERPRETER = ("pause.no-interpreter", "a free-text reply is given to a role without a reply interpreter",
        "role `{role}` has no reply interpreter, so pause `{pause_id}` takes a decision, not free text: give the role `reply_interpreter = ..` or answer with a decision");

    // Threads.
    /// Someone other than a thread's owner runs in it, reads its history or answers its pauses.
    THREAD_OWNER_MISMATCH = ("thread.owner-mismatch", "a run, a history read or an answer names a thread that belongs to another owner (or to none, when it names one)",
        "thread `{thread}` belongs to {owner}, so {asked} may not run in it, read its history or answer its pauses: start a new thread");

    // Configuration.
    /// A configuration file cannot be read or parsed.
    CONFIG_INVALID = ("config.invalid", "a configuration file cannot be read or parsed",
        "{origin}: {detail}");
    /// A configuration value looks like a secret.
    CONFIG_SECRET_VALUE = ("config.secret-value", "a configuration value looks like a key or token",
        "{origin}: {path} holds what looks like a secret (\"{shown}…\"): configuration keeps the NAME of the environment variable that holds it, such as `api_key_env = \"OPENAI_API_KEY\"`; remove the value from the file and rotate it");
    /// What must be the name of an environment variable is not one.
    CONFIG_ENV_NAME_INVALID = ("config.env-name-invalid", "what must name an environment variable does not",
        "{value} is not the name of an environment variable: use letters, digits and `_`, not starting with a digit, such as \"NOTES_DIR\": give the variable's NAME, never its value");
    /// Configuration names a workflow the application does not have.
    CONFIG_UNKNOWN_WORKFLOW = ("config.unknown-workflow", "configuration names a workflow the application does not have",
        "{origin}: [workflows.{workflow}] names no workflow of the application");
    /// Configuration names an agent no workflow has.
    CONFIG_UNKNOWN_AGENT = ("config.unknown-agent", "configuration names an agent no workflow has",
        "the configuration sets agent `{agent}`, which no workflow has");
    /// A provider made from the environment cannot be made.
    CONFIG_ENV_MISSING = ("config.env-missing", "a provider made from environment variables cannot be made",
        "`{type_name}` (provided by {scope}) cannot be made: {reason}");

    // MCP.
    /// An `#[mcp_server]` has no transport, or two.
    MCP_TRANSPORT = ("mcp.transport", "an MCP server has no transport, or two",
        "{detail}");
    /// A `${VAR}` an `#[mcp_server]` uses is not in its `env`.
    MCP_ENV_UNDECLARED = ("mcp.env-undeclared", "a `${VAR}` of an MCP server is not in its `env`",
        "`${{{variable}}}` is not listed in `env`: add `env = [\"{variable}\"]` so the application checks it is set before starting the server");
    /// A tool calls a server tool the server's declaration does not name.
    MCP_UNDECLARED_TOOL = ("mcp.undeclared-tool", "a tool calls a server tool its #[mcp_server] does not declare",
        "{subject} calls `{tool}` of server `{server}`, which its #[mcp_server] does not declare: add it to `tools = [..]`");
    /// A variable an MCP server needs is not set.
    MCP_ENV_MISSING = ("mcp.env-missing", "an environment variable an MCP server needs is not set",
        "server `{server}` needs the environment variable {variable}, which is not set");
    /// An MCP server could not be started.
    MCP_START_FAILED = ("mcp.start-failed", "an MCP server could not be started",
        "server `{server}` could not be started ({command}): {reason}");
    /// An MCP server does not offer a tool its declaration names.
    MCP_TOOL_MISSING = ("mcp.tool-missing", "an MCP server does not offer a tool its declaration names",
        "server `{server}` does not offer the tool `{tool}` {named_by} (it offers: {offered})");
    /// An MCP server stopped during a call.
    MCP_SERVER_STOPPED = ("mcp.server-stopped", "an MCP server stopped during a call",
        "server `{server}` stopped during the call: {reason}");
    /// A server asked for input during a call (elicitation) and the answer is not known now
    /// (it waits for a person, or cannot be asked): the call stops there.
    MCP_ELICITATION = ("mcp.elicitation", "a server's request for input during a call is not answered now, so the call stops",
        "server `{server}` asked for input during the call, which stops here: {detail}");
    /// An `#[mcp_server]`'s `elicitation` names a role that is not asked MCP's elicitations.
    MCP_ELICITATION_ROLE = ("mcp.elicitation-role", "an MCP server's `elicitation` names a role that does not ask `ElicitationQuestion` and get `ElicitationAnswer`",
        "{detail}");
    /// `#[mcp_server]`'s OAuth keys do not go together.
    MCP_OAUTH_INVALID = ("mcp.oauth-invalid", "an MCP server's OAuth keys are incomplete, name a secret in the program rather than a variable, or are on a server that is not streamable HTTP",
        "{detail}");
    /// `#[knowledge]`'s keys do not go together or hold a value it cannot use.
    KNOWLEDGE_INVALID = ("knowledge.invalid", "a knowledge base's declaration has a key it cannot use or keys that do not go together",
        "{detail}");
    /// An MCP server failed otherwise: an error response, an answer its tool cannot read.
    MCP = ("mcp", "an MCP server answered with an error or something its tool cannot read",
        "server `{server}`: {detail}");
    /// `g mcp` was asked for something it cannot do.
    MCP_GENERATE_INVALID = ("mcp.generate-invalid", "`g mcp` was given options it cannot use",
        "{detail}");
    /// `g mcp` has no tool left to generate.
    MCP_GENERATE_NO_TOOLS = ("mcp.generate-no-tools", "`g mcp` has no tool left to generate",
        "no tool of server `{server}` is left to generate{detail}");
    /// A server changed a tool's definition after it was approved (fault plan T20).
    MCP_DEFINITION_CHANGED = ("mcp.definition-changed", "an MCP server changed a tool's definition (its description, schemas or annotations) since it was approved, so the tool is disabled until a person approves the new one",
        "server `{server}` changed the definition of its tool `{tool}` since it was approved, so the call was not sent: the tool is disabled until a person reviews and approves the new definition (`mcp approve {server} {tool}`)");
    /// A server that failed several times in a row is not started again until its backoff ends.
    MCP_RESTART_BACKOFF = ("mcp.restart-backoff", "an MCP server failed to start, or broke during calls, several times in a row, and is not started again until its backoff ends",
        "server `{server}` failed {failures} times in a row, so it is not started again for {wait}; the last failure: {last}");
    /// An approval names a server tool the application holds no pin of.
    MCP_PIN_UNKNOWN = ("mcp.pin-unknown", "an approval names an MCP server tool the application holds no pinned definition of",
        "application `{application}` holds no pinned definition of tool `{tool}` of server `{server}`: a tool is pinned when its server first lists it (`start_mcp_servers`, or its first call); `mcp pins` lists the pins");

    // The command line.
    /// `agboss new` was given a name that cannot name a crate.
    NEW_NAME_INVALID = ("new.name-invalid", "`agboss new` was given a name that cannot name a crate",
        "{name} cannot name a crate: {why}; use letters, digits, `-` and `_`, starting with a letter, such as \"my-agent\"");
    /// `agboss new` would write into a directory that holds files.
    NEW_EXISTS = ("new.exists", "`agboss new` would write into a directory that is not empty",
        "{path} already exists and is not empty: choose another name, or remove it");
    /// `agboss new` could not write a file.
    NEW_WRITE_FAILED = ("new.write-failed", "`agboss new` could not write a file of the project",
        "could not write {path}: {reason}");

    // Runs.
    /// An agent with an answer DTO answered otherwise.
    ANSWER_MISSING = ("answer.missing", "an agent with an answer DTO ended without a valid answer",
        "agent `{agent}` answers through `{tool}`, but {why}");
    /// An agent with an answer DTO kept giving answers its schema refuses.
    ANSWER_INVALID = ("answer.invalid", "an agent with an answer DTO gave more invalid answers than its answer retries allow",
        "agent `{agent}` gave {attempts} invalid answers through `{tool}`, and answer_retries = {retries} ({from}) allows no more; the last: {issues}");
    /// The model answered with neither text nor a tool call.
    ANSWER_EMPTY = ("answer.empty", "the model answered with neither text nor a tool call",
        "agent `{agent}`: the model `{model}` answered turn {turn} with neither text nor a tool call (finish reason: {finish}); nothing was answered, so the run stops here");
    /// An agent asked for more tool calls in one run than its limit allows.
    LIMITS_TOOL_CALLS = ("agents.<name>.limits.toolCalls", "the model asked for more tool calls in one run than its agent's limit allows",
        "LimitExceededError: agents.{agent}.limits.toolCalls: the model asked for tool call {requested} of a run limited to {limit} (raise max_tool_calls on the agent, or defaults.tools.max_tool_calls)");
    /// A run reached its agent's cap of model turns.
    LIMITS_TURNS = ("agents.<name>.limits.turns", "a run reached its agent's cap of model turns without an answer",
        "LimitExceededError: agents.{agent}.limits.turns: the run reached its cap of {limit} model turns ({from}) without an answer (raise max_turns on the agent, or defaults.agents.max_turns)");
    /// A run took longer than its agent's time budget.
    LIMITS_DURATION = ("agents.<name>.limits.duration", "a run took longer than its agent's time budget (counted from its start or resume) without an answer",
        "LimitExceededError: agents.{agent}.limits.duration: the run has taken {elapsed} of a time budget of {limit} ({from}) without an answer, {when} (raise max_duration on the agent, or max_duration_seconds in [agents.{agent}])");
    /// The token budget is spent.
    BUDGETS_TOKENS = ("budgets.tokens", "the token budget of an execution is spent",
        "BudgetExceededError: budget `tokens` is spent: {used} tokens used of {limit}");
    /// The money budget is spent.
    BUDGETS_USD = ("budgets.usd", "the money budget of an execution is spent",
        "BudgetExceededError: budget `usd` is spent: {spent} of {limit}");
    /// The model call failed.
    MODEL = ("model", "a model call failed",
        "model call failed: {detail}");
    /// A server failed a request that forced a tool choice, and failed it again.
    MODEL_TOOL_CHOICE = ("model.tool-choice", "a server failed (500) a request that forced a tool choice (`required` or a tool's name), twice: it may not take that form",
        "{provider} failed ({status}) after {attempts} on a request that forced the tool choice {choice}, {said}: this server may not take a forced choice in that form. Set the agent's first_turn_tool_choice (or tool_choice, whichever forced it) to {instead}");
    /// The execution was cancelled.
    CANCELLED = ("cancelled", "the execution was cancelled",
        "cancelled: {reason}");
    /// The instance lost the execution's lease.
    LEASE_LOST = ("lease.lost", "the instance lost the execution's lease: another instance took it over, or the store stayed silent past it",
        "ExecutionLeaseLostError: execution `{execution}`: {why}; this instance starts no further model or tool call for it");
    /// Another instance holds the execution's lease.
    LEASE_HELD = ("lease.held", "another instance holds the execution's lease, so this one cannot act on it now",
        "execution `{execution}` is driven by instance `{holder}` now: cancel it there, or once it stops");
    /// The store failed.
    STORE = ("store", "the store failed; the run stopped where its journal ends",
        "{detail}");
    /// A run that may pause for its thread's owner was started without one.
    RUN_OWNER_REQUIRED = ("run.owner-required", "a run whose agent has tools that wait for the thread's owner was started without an owner",
        "agent `{agent}` has tools that wait for the thread's owner ({roles}), and this run states no owner, so nobody could answer their pauses: start it with `.owner(..)` (the CLI's user), or answer those roles by a channel (`answered_by = Channel`)");
    /// An execution was resumed under another configuration of its workflow, which refuses that.
    RESUME_CONFIG_CHANGED = ("resume.config-changed", "an execution was resumed under a workflow whose configuration hash is not the one it last ran under, and the workflow's `on_config_change` is `refuse`",
        "execution `{execution}` of workflow `{workflow}` last ran under configuration {recorded}, and the workflow's configuration is now {current}: what its model reads or what bounds its run changed (prompts, tools, bounds, limits, models or policies), and its `on_config_change` is `refuse`, so it was not resumed; resume it with the configuration it ran under, or set `on_config_change` to `warn` to go on under the new one");
    /// The operating system gave no random bytes for an id.
    RANDOM_UNAVAILABLE = ("random.unavailable", "the operating system gave no random bytes for an id (an instance's, an execution's, a pause's); no guessable id is made instead",
        "the operating system gave no random bytes for {what} ({error}); agboss makes no id of the time or the process in their place: check the system's random source (getrandom)");
    /// No such workflow, agent or execution.
    NOT_FOUND = ("not-found", "no such workflow, agent or execution",
        "{detail}");
    // What `describe --check` warns about: an application that assembles and runs, with a
    // choice in it that is likely a mistake.
    /// A tool that moves money or destroys runs on the model's word alone.
    DESCRIBE_UNGUARDED = ("describe.unguarded", "a tool declares `Money` or `Destructive` and nothing stands between the model and its calls: no role, no check-in, no permission checker that governs it",
        "tool `{tool}` declares `{capability}`, and its calls run on the model's word alone: no role (`channel`), no `check_in`, and no permission checker governs `{capability}`; add one of them");
    /// A role with a channel that nothing asks.
    DESCRIBE_UNUSED_ROLE = ("describe.unused-role", "a role has a channel in the application, and no tool names it, asks it, or checks in through it",
        "role `{role}` is answered by a channel, but no tool names it (`channel`), asks it (`asks`, an MCP server's `elicitation`), and it is not the check-in role: remove its channel, or name it where a person should decide");
    /// A tool's result may fill its model's whole context window.
    DESCRIBE_BOUND_OVER_WINDOW = ("describe.bound-over-window", "a tool's result bound lets one result be larger than its agent's model reads in a request",
        "tool `{tool}` of agent `{agent}` may return {bound} (about {tokens} tokens), and `{model}` reads {window} tokens per request: lower the tool's `max_result_size`, or the agent's");
    /// A tool's timeout is longer than its agent's time budget.
    DESCRIBE_TIMEOUT_OVER_BUDGET = ("describe.timeout-over-budget", "a tool's timeout is longer than the time budget of an agent that has it, so one call may take the whole run",
        "tool `{tool}` of agent `{agent}` times out after {timeout}, longer than the agent's time budget of {budget}: one call of it may use the whole run; shorten the tool's `timeout`, or raise the agent's `max_duration`");
    /// An MCP tool whose definition the application has not pinned yet.
    DESCRIBE_MCP_UNPINNED = ("describe.mcp-unpinned", "an MCP tool's server tool has no pinned definition in the application's store yet, so its first definition will be trusted as the server gives it then",
        "tool `{tool}` calls `{server_tool}` of server `{server}`, whose definition the application has not pinned yet: whatever the server first lists is trusted then; start the server where its definition can be reviewed (`start_mcp_servers`, then `mcp pins`) before the application runs unattended");
    /// A journal this build cannot fold.
    JOURNAL = ("journal", "the execution's journal cannot be folded by this build (a newer layout, or events out of order); nothing was run",
        "{detail}");

    // Credentials.
    /// Tools (or MCP servers) need credentials and the application has no provider.
    CREDENTIALS_NO_PROVIDER = ("credentials.no-provider", "tools or MCP servers need credentials and the application has no credential provider",
        "{subject} needs the credential {names}, and the application has no credential provider: set one with `ApplicationBuilder::credentials(..)`");
    /// A credential name the provider does not know.
    CREDENTIALS_UNKNOWN = ("credentials.unknown", "a tool or an MCP server needs a credential the application's provider does not know",
        "{subject} needs the credential `{name}`, which the credential provider does not know (it knows: {known}){hint}");
    /// An `#[mcp_server]`'s credential keys are not a usable combination.
    MCP_CREDENTIAL_INVALID = ("mcp.credential-invalid", "an MCP server's `credential`, `credential_header` or `credential_env` is malformed or does not fit its transport",
        "{detail}");
}

/// The code with id `id`: `agents.scout.limits.turns` is [`LIMITS_TURNS`].
pub fn find(id: &str) -> Option<&'static Code> {
    ALL.iter().copied().find(|c| c.matches(id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_code_is_in_the_catalogue_once() {
        for (i, code) in ALL.iter().enumerate() {
            assert!(
                ALL[..i].iter().all(|c| c.id != code.id),
                "{} twice",
                code.id
            );
            assert!(!code.meaning.is_empty() && !code.template.is_empty());
            assert!(
                !code.template.ends_with('.'),
                "{}: messages end without a period",
                code.id
            );
        }
    }

    #[test]
    fn codes_about_one_agent_name_it_in_their_id() {
        assert_eq!(
            LIMITS_TURNS.id_for(&[("name", &"scout")]),
            "agents.scout.limits.turns"
        );
        assert_eq!(
            find("agents.scout.limits.toolCalls").map(Code::id),
            Some("agents.<name>.limits.toolCalls")
        );
        assert_eq!(find("agents..limits.turns"), None);
        assert_eq!(find("agents.scout.limits"), None);
        assert_eq!(MODEL.id_for(&[("name", &"scout")]), "model");
    }

    #[test]
    fn templates_fill_every_placeholder_given() {
        let text = TOOL_DUPLICATE_NAME.fill(&[
            ("agent", &"scout"),
            ("workflow", &"desk"),
            ("name", &"fetch-tool"),
            ("first", &"A (a.rs:1)"),
            ("second", &"B (b.rs:2)"),
        ]);
        assert_eq!(
            text,
            "agent `scout` (workflow `desk`) has two tools named `fetch-tool`: A (a.rs:1) and B (b.rs:2); rename one"
        );
        // A placeholder without a value stays visible.
        assert_eq!(
            WORKFLOW_DUPLICATE_NAME.fill(&[]),
            "two workflows are named `{workflow}`: give each its own name"
        );
        // `{{` and `}}` are literal braces.
        assert!(
            MCP_ENV_UNDECLARED
                .fill(&[("variable", &"ROOT")])
                .starts_with("`${ROOT}` is not listed in `env`: add `env = [\"ROOT\"]`")
        );
    }

    #[test]
    fn a_finding_prints_its_code_in_brackets() {
        let finding = CONFIG_UNKNOWN_AGENT
            .finding(&[("agent", &"scout")])
            .about("desk.toml");
        assert_eq!(
            finding.to_string(),
            "[config.unknown-agent] desk.toml: the configuration sets agent `scout`, which no workflow has"
        );
    }
}
