//! [`ToolDescriptor`]: everything known about a tool without running it.

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use super::Issues;
use super::schema::CompiledSchemas;
use super::{
    AllowList, Capability, CheckIn, EvidenceFn, OnCrash, RemoteTool, RepeatedWhen, ResultCeiling,
    RoleRef, SchemaError, ToolOrigin,
};
use super::{ResultKind, WantedArgument};
use crate::component::{
    Component, ComponentKind, DependencySpec, SourceLocation, derefs_to_component,
};
use crate::units::{ByteSize, TimeSpan, megabytes, seconds};

/// The static description of a tool, registered by `#[tool]`: name, description, timeout,
/// bound, fields and schemas. Assembly and `describe` read it; nothing runs.
///
/// It derefs to its [`Component`] header: `name()`, `description()`, `rust_type()`,
/// `location()`, `dependencies()`.
pub struct ToolDescriptor {
    component: Component,
    /// What the contract runs it with, and what recovery and `describe` read.
    contract: ContractPart,
    /// What its calls must pass before they run, in the order of the pipeline's gates.
    gates: GatesPart,
    /// What is made of its results, in the order of the pipeline's rules.
    rules: RulesPart,
}

/// The part of a [`ToolDescriptor`] the contract reads.
struct ContractPart {
    timeout: TimeSpan,
    input_schema: fn() -> Value,
    output_schema: fn() -> Value,
    compiled: OnceLock<Result<Arc<CompiledSchemas>, SchemaError>>,
    origin: ToolOrigin,
    read_only: bool,
    on_crash: OnCrash,
    server_claims: &'static [&'static str],
}

/// The part of a [`ToolDescriptor`] its gates read.
struct GatesPart {
    max_argument_size: ByteSize,
    allow: &'static [AllowList],
    wants: &'static [WantedArgument],
    capabilities: &'static [Capability],
    check_in: Option<CheckIn>,
    evidence: Option<EvidenceFn>,
    approval: Option<RoleRef>,
    asks: &'static [RoleRef],
    needs: &'static [&'static str],
}

/// The part of a [`ToolDescriptor`] its rules read.
struct RulesPart {
    result_ceiling: Option<ResultCeiling>,
    result_kind: Option<ResultKind>,
    max_result_size: Option<ByteSize>,
    untrusted_output: bool,
    retries: u32,
    retry_backoff: TimeSpan,
    repeated_when: RepeatedWhen,
}

impl ToolDescriptor {
    /// Keeps its results longer than `above` (else than its bound) as artifacts of `kind`
    /// (`#[tool(result_kind = .., artifact_above = ..)]`; see [`ResultKind`]).
    pub const fn with_result_kind(
        mut self,
        kind: &'static str,
        above: Option<ByteSize>,
    ) -> ToolDescriptor {
        self.rules.result_kind = Some(ResultKind { kind, above });
        self
    }

    /// Takes artifact references in the arguments `wants` names, redeemed before it runs
    /// (`#[tool(wants(..))]`; see [`WantedArgument`]).
    pub const fn with_wants(mut self, wants: &'static [WantedArgument]) -> ToolDescriptor {
        self.gates.wants = wants;
        self
    }

    /// The kind of artifact its results are kept as, and over which size.
    pub fn result_kind(&self) -> Option<&ResultKind> {
        self.rules.result_kind.as_ref()
    }

    /// The arguments that take artifact references, with the kind each takes.
    pub fn wants(&self) -> &'static [WantedArgument] {
        self.gates.wants
    }

    /// The timeout of a tool that declares none.
    pub const DEFAULT_TIMEOUT: TimeSpan = seconds(30);

    /// The wait before the first retry of a tool that declares `retries` and no
    /// `retry_backoff`.
    pub const DEFAULT_RETRY_BACKOFF: TimeSpan = seconds(1);

    /// Runs a call again after a transient error (`ToolError::transient`), `retries` times at
    /// most, waiting `backoff` before the first retry and twice as long before each next one
    /// (`#[tool(retries = 2, retry_backoff = millis(500))]`).
    pub const fn with_retries(mut self, retries: u32, backoff: Option<TimeSpan>) -> ToolDescriptor {
        self.rules.retries = retries;
        if let Some(backoff) = backoff {
            self.rules.retry_backoff = backoff;
        }
        self
    }

    /// How many times a call runs again after a transient error (0: never).
    pub fn retries(&self) -> u32 {
        self.rules.retries
    }

    /// The wait before the first retry.
    pub fn retry_backoff(&self) -> TimeSpan {
        self.rules.retry_backoff
    }

    /// The longest arguments a call of a tool that declares no `max_argument_size` may send:
    /// 1 MB, far above what a model writes for a call and far below what would strain memory.
    pub const DEFAULT_MAX_ARGUMENT_SIZE: ByteSize = megabytes(1);

    /// A tool named `name` with the default timeout, no own bound and no fields.
    pub const fn new(
        name: &'static str,
        description: &'static str,
        rust_type: &'static str,
        location: SourceLocation,
        input_schema: fn() -> Value,
        output_schema: fn() -> Value,
    ) -> ToolDescriptor {
        ToolDescriptor {
            component: Component::new(ComponentKind::Tool, name, description, rust_type, location),
            contract: ContractPart {
                timeout: Self::DEFAULT_TIMEOUT,
                input_schema,
                output_schema,
                compiled: OnceLock::new(),
                origin: ToolOrigin::Local,
                read_only: false,
                on_crash: OnCrash::Rerun,
                server_claims: &[],
            },
            gates: GatesPart {
                max_argument_size: Self::DEFAULT_MAX_ARGUMENT_SIZE,
                allow: &[],
                wants: &[],
                capabilities: &[],
                check_in: None,
                evidence: None,
                approval: None,
                asks: &[],
                needs: &[],
            },
            rules: RulesPart {
                result_ceiling: None,
                result_kind: None,
                max_result_size: None,
                untrusted_output: false,
                retries: 0,
                retry_backoff: Self::DEFAULT_RETRY_BACKOFF,
                repeated_when: RepeatedWhen::ArgumentsAndResult,
            },
        }
    }

    /// With `timeout` instead of the default 30 s.
    pub const fn with_timeout(mut self, timeout: TimeSpan) -> ToolDescriptor {
        self.contract.timeout = timeout;
        self
    }

    /// With its own bound on what the model reads of a result.
    pub const fn with_max_result_size(mut self, bound: ByteSize) -> ToolDescriptor {
        self.rules.max_result_size = Some(bound);
        self
    }

    /// Refuses results longer than `size` (rendered): the model reads the true size, the
    /// ceiling and `hint`, how to ask for less, instead.
    pub const fn with_result_ceiling(
        mut self,
        size: ByteSize,
        hint: &'static str,
    ) -> ToolDescriptor {
        self.rules.result_ceiling = Some(ResultCeiling { size, hint });
        self
    }

    /// When a call counts as repeating an earlier one of the run (the default: the same
    /// arguments and the same result).
    pub const fn with_repeated_when(mut self, when: RepeatedWhen) -> ToolDescriptor {
        self.rules.repeated_when = when;
        self
    }

    /// Declares that the tool changes nothing.
    pub const fn read_only(mut self) -> ToolDescriptor {
        self.contract.read_only = true;
        self
    }

    /// Makes the tool forward to `remote` (what `#[mcp_tool]` declares).
    pub const fn with_remote(mut self, remote: RemoteTool) -> ToolDescriptor {
        self.contract.origin = ToolOrigin::Remote(remote);
        self
    }

    /// Makes its calls wait for a decision of `approval`'s role before they run.
    pub const fn with_approval(mut self, approval: RoleRef) -> ToolDescriptor {
        self.gates.approval = Some(approval);
        self
    }

    /// Declares the question roles its calls may ask while they run (`Questions::ask`).
    pub const fn with_asks(mut self, asks: &'static [RoleRef]) -> ToolDescriptor {
        self.gates.asks = asks;
        self
    }

    /// Declares what it touches: a permission checker that governs one of them is asked about
    /// each call.
    pub const fn with_capabilities(
        mut self,
        capabilities: &'static [Capability],
    ) -> ToolDescriptor {
        self.gates.capabilities = capabilities;
        self
    }

    /// Declares that its results carry content nobody vouches for (a web page, a mail, another
    /// program's output), as every MCP tool's do.
    pub const fn untrusted_output(mut self) -> ToolDescriptor {
        self.rules.untrusted_output = true;
        self
    }

    /// Asks a person before a call runs: always, or when the predicate says so.
    pub const fn with_check_in(mut self, check_in: CheckIn) -> ToolDescriptor {
        self.gates.check_in = Some(check_in);
        self
    }

    /// With the evidence text a person reads beside a call it asks about.
    pub const fn with_evidence(mut self, evidence: EvidenceFn) -> ToolDescriptor {
        self.gates.evidence = Some(evidence);
        self
    }

    /// With what its MCP server says of it (`readOnlyHint=true`, ...): shown, never decided by.
    pub const fn with_server_claims(mut self, claims: &'static [&'static str]) -> ToolDescriptor {
        self.contract.server_claims = claims;
        self
    }

    /// What recovery does with a call a crash interrupted (`rerun` unless set).
    pub const fn with_on_crash(mut self, on_crash: OnCrash) -> ToolDescriptor {
        self.contract.on_crash = on_crash;
        self
    }

    /// Limits where its path and URL arguments may point (`allow_paths`, `allow_urls`).
    pub const fn with_allowlists(mut self, lists: &'static [AllowList]) -> ToolDescriptor {
        self.gates.allow = lists;
        self
    }

    /// Accepts arguments up to `size` long instead of the default 1 MB.
    pub const fn with_max_argument_size(mut self, size: ByteSize) -> ToolDescriptor {
        self.gates.max_argument_size = size;
        self
    }

    /// With the names of the credentials its calls need (`needs = ["github"]`), resolved for
    /// each call just before it runs (see [`CredentialProvider`](super::CredentialProvider)).
    pub const fn with_needs(mut self, needs: &'static [&'static str]) -> ToolDescriptor {
        self.gates.needs = needs;
        self
    }

    /// The names of the credentials its calls need, in declaration order.
    pub fn needs(&self) -> &'static [&'static str] {
        self.gates.needs
    }

    /// With the fields `dependencies`.
    pub const fn with_dependencies(
        mut self,
        dependencies: &'static [DependencySpec],
    ) -> ToolDescriptor {
        self.component = self.component.with_fields(dependencies);
        self
    }

    /// How long a call may run.
    pub fn timeout(&self) -> TimeSpan {
        self.contract.timeout
    }

    /// Its own bound on what the model reads of a result, if it sets one.
    pub fn max_result_size(&self) -> Option<ByteSize> {
        self.rules.max_result_size
    }

    /// Its ceiling on results, if it sets one.
    pub fn result_ceiling(&self) -> Option<&ResultCeiling> {
        self.rules.result_ceiling.as_ref()
    }

    /// When a call of it counts as repeating an earlier one.
    pub fn repeated_when(&self) -> RepeatedWhen {
        self.rules.repeated_when
    }

    /// Whether it declared that it changes nothing. Undeclared tools are taken to write.
    pub fn is_read_only(&self) -> bool {
        self.contract.read_only
    }

    /// Where its work is done: here, or by a server's tool.
    pub fn origin(&self) -> &ToolOrigin {
        &self.contract.origin
    }

    /// The role its calls wait for, if they wait for one.
    pub fn approval(&self) -> Option<&RoleRef> {
        self.gates.approval.as_ref()
    }

    /// The question roles its calls may ask while they run, as declared.
    pub fn asks(&self) -> &'static [RoleRef] {
        self.gates.asks
    }

    /// What it declared it touches.
    pub fn capabilities(&self) -> &'static [Capability] {
        self.gates.capabilities
    }

    /// Whether its results carry content nobody vouches for: declared, or an MCP server's.
    pub fn has_untrusted_output(&self) -> bool {
        self.rules.untrusted_output || self.contract.origin.remote().is_some()
    }

    /// When a person is asked before a call runs, if ever.
    pub fn check_in(&self) -> Option<CheckIn> {
        self.gates.check_in
    }

    /// The function that builds the evidence text, if the tool has one.
    pub(crate) fn evidence_fn(&self) -> Option<EvidenceFn> {
        self.gates.evidence
    }

    /// The evidence text of a call with `arguments`, if the tool builds one.
    pub fn evidence(&self, arguments: &str) -> Option<Result<String, String>> {
        self.gates.evidence.map(|evidence| evidence(arguments))
    }

    /// What its MCP server says of it, as `g mcp` copied it: claims, which decide nothing.
    pub fn server_claims(&self) -> &'static [&'static str] {
        self.contract.server_claims
    }

    /// What recovery does with a call of it that a crash interrupted.
    pub fn on_crash(&self) -> OnCrash {
        self.contract.on_crash
    }

    /// The longest arguments a call may send.
    pub fn max_argument_size(&self) -> ByteSize {
        self.gates.max_argument_size
    }

    /// Refuses arguments longer than [`max_argument_size`](Self::max_argument_size) before
    /// anything reads them.
    pub(crate) fn check_argument_size(&self, arguments: &str) -> Result<(), Issues> {
        let limit = self.gates.max_argument_size.get();
        if arguments.len() as u64 <= limit {
            return Ok(());
        }
        let (mut size, mut most) = (String::new(), String::new());
        crate::units::group_thousands(arguments.len() as u64, &mut size);
        crate::units::group_thousands(limit, &mut most);
        let text = agboss_rules::codes::TOOL_ARGUMENTS_TOO_LARGE
            .fill(&[("size", &size), ("limit", &most)]);
        Err(Issues::one(None, text))
    }

    /// Where its path and URL arguments may point, as declared.
    pub fn allowlists(&self) -> &'static [AllowList] {
        self.gates.allow
    }

    /// Where it comes from: `local`, or the server's name.
    pub fn source(&self) -> &'static str {
        self.contract.origin.source()
    }

    /// The JSON Schema of its input, as the model reads it (generated on each call of this
    /// method; [`schemas`](Self::schemas) caches).
    pub fn input_schema(&self) -> Value {
        (self.contract.input_schema)()
    }

    /// The JSON Schema of its output.
    pub fn output_schema(&self) -> Value {
        (self.contract.output_schema)()
    }

    /// Its schemas and their validators, generated and compiled once per process.
    pub fn schemas(&self) -> Result<&Arc<CompiledSchemas>, &SchemaError> {
        self.contract
            .compiled
            .get_or_init(|| {
                CompiledSchemas::compile(
                    self.name(),
                    self.input_schema(),
                    self.output_schema(),
                    self.gates.allow,
                )
                .map(Arc::new)
            })
            .as_ref()
    }
}

derefs_to_component!(ToolDescriptor);

impl fmt::Debug for ToolDescriptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDescriptor")
            .field("name", &self.name())
            .field("rust_type", &self.rust_type())
            .field("timeout", &self.contract.timeout)
            .field("max_result_size", &self.rules.max_result_size)
            .field("result_ceiling", &self.rules.result_ceiling)
            .field("repeated_when", &self.rules.repeated_when)
            .field("needs", &self.gates.needs)
            .field("dependencies", &self.dependencies())
            .field("location", &self.location())
            .finish_non_exhaustive()
    }
}
