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
    timeout: TimeSpan,
    max_result_size: Option<ByteSize>,
    result_ceiling: Option<ResultCeiling>,
    repeated_when: RepeatedWhen,
    read_only: bool,
    origin: ToolOrigin,
    approval: Option<RoleRef>,
    asks: &'static [RoleRef],
    capabilities: &'static [Capability],
    untrusted_output: bool,
    check_in: Option<CheckIn>,
    evidence: Option<EvidenceFn>,
    server_claims: &'static [&'static str],
    on_crash: OnCrash,
    allow: &'static [AllowList],
    max_argument_size: ByteSize,
    needs: &'static [&'static str],
    input_schema: fn() -> Value,
    output_schema: fn() -> Value,
    compiled: OnceLock<Result<Arc<CompiledSchemas>, SchemaError>>,
    result_kind: Option<ResultKind>,
    wants: &'static [WantedArgument],
    retries: u32,
    retry_backoff: TimeSpan,
}

impl ToolDescriptor {
    /// Keeps its results longer than `above` (else than its bound) as artifacts of `kind`
    /// (`#[tool(result_kind = .., artifact_above = ..)]`; see [`ResultKind`]).
    pub const fn with_result_kind(
        mut self,
        kind: &'static str,
        above: Option<ByteSize>,
    ) -> ToolDescriptor {
        self.result_kind = Some(ResultKind { kind, above });
        self
    }

    /// Takes artifact references in the arguments `wants` names, redeemed before it runs
    /// (`#[tool(wants(..))]`; see [`WantedArgument`]).
    pub const fn with_wants(mut self, wants: &'static [WantedArgument]) -> ToolDescriptor {
        self.wants = wants;
        self
    }

    /// The kind of artifact its results are kept as, and over which size.
    pub fn result_kind(&self) -> Option<&ResultKind> {
        self.result_kind.as_ref()
    }

    /// The arguments that take artifact references, with the kind each takes.
    pub fn wants(&self) -> &'static [WantedArgument] {
        self.wants
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
        self.retries = retries;
        if let Some(backoff) = backoff {
            self.retry_backoff = backoff;
        }
        self
    }

    /// How many times a call runs again after a transient error (0: never).
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The wait before the first retry.
    pub fn retry_backoff(&self) -> TimeSpan {
        self.retry_backoff
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
            timeout: Self::DEFAULT_TIMEOUT,
            max_result_size: None,
            result_ceiling: None,
            repeated_when: RepeatedWhen::ArgumentsAndResult,
            read_only: false,
            origin: ToolOrigin::Local,
            approval: None,
            asks: &[],
            capabilities: &[],
            untrusted_output: false,
            check_in: None,
            evidence: None,
            server_claims: &[],
            on_crash: OnCrash::Rerun,
            allow: &[],
            max_argument_size: Self::DEFAULT_MAX_ARGUMENT_SIZE,
            needs: &[],
            input_schema,
            output_schema,
            compiled: OnceLock::new(),
            result_kind: None,
            wants: &[],
            retries: 0,
            retry_backoff: Self::DEFAULT_RETRY_BACKOFF,
        }
    }

    /// With `timeout` instead of the default 30 s.
    pub const fn with_timeout(mut self, timeout: TimeSpan) -> ToolDescriptor {
        self.timeout = timeout;
        self
    }

    /// With its own bound on what the model reads of a result.
    pub const fn with_max_result_size(mut self, bound: ByteSize) -> ToolDescriptor {
        self.max_result_size = Some(bound);
        self
    }

    /// Refuses results longer than `size` (rendered): the model reads the true size, the
    /// ceiling and `hint`, how to ask for less, instead.
    pub const fn with_result_ceiling(
        mut self,
        size: ByteSize,
        hint: &'static str,
    ) -> ToolDescriptor {
        self.result_ceiling = Some(ResultCeiling { size, hint });
        self
    }

    /// When a call counts as repeating an earlier one of the run (the default: the same
    /// arguments and the same result).
    pub const fn with_repeated_when(mut self, when: RepeatedWhen) -> ToolDescriptor {
        self.repeated_when = when;
        self
    }

    /// Declares that the tool changes nothing.
    pub const fn read_only(mut self) -> ToolDescriptor {
        self.read_only = true;
        self
    }

    /// Makes the tool forward to `remote` (what `#[mcp_tool]` declares).
    pub const fn with_remote(mut self, remote: RemoteTool) -> ToolDescriptor {
        self.origin = ToolOrigin::Remote(remote);
        self
    }

    /// Makes its calls wait for a decision of `approval`'s role before they run.
    pub const fn with_approval(mut self, approval: RoleRef) -> ToolDescriptor {
        self.approval = Some(approval);
        self
    }

    /// Declares the question roles its calls may ask while they run (`Questions::ask`).
    pub const fn with_asks(mut self, asks: &'static [RoleRef]) -> ToolDescriptor {
        self.asks = asks;
        self
    }

    /// Declares what it touches: a permission checker that governs one of them is asked about
    /// each call.
    pub const fn with_capabilities(
        mut self,
        capabilities: &'static [Capability],
    ) -> ToolDescriptor {
        self.capabilities = capabilities;
        self
    }

    /// Declares that its results carry content nobody vouches for (a web page, a mail, another
    /// program's output), as every MCP tool's do.
    pub const fn untrusted_output(mut self) -> ToolDescriptor {
        self.untrusted_output = true;
        self
    }

    /// Asks a person before a call runs: always, or when the predicate says so.
    pub const fn with_check_in(mut self, check_in: CheckIn) -> ToolDescriptor {
        self.check_in = Some(check_in);
        self
    }

    /// With the evidence text a person reads beside a call it asks about.
    pub const fn with_evidence(mut self, evidence: EvidenceFn) -> ToolDescriptor {
        self.evidence = Some(evidence);
        self
    }

    /// With what its MCP server says of it (`readOnlyHint=true`, ...): shown, never decided by.
    pub const fn with_server_claims(mut self, claims: &'static [&'static str]) -> ToolDescriptor {
        self.server_claims = claims;
        self
    }

    /// What recovery does with a call a crash interrupted (`rerun` unless set).
    pub const fn with_on_crash(mut self, on_crash: OnCrash) -> ToolDescriptor {
        self.on_crash = on_crash;
        self
    }

    /// Limits where its path and URL arguments may point (`allow_paths`, `allow_urls`).
    pub const fn with_allowlists(mut self, lists: &'static [AllowList]) -> ToolDescriptor {
        self.allow = lists;
        self
    }

    /// Accepts arguments up to `size` long instead of the default 1 MB.
    pub const fn with_max_argument_size(mut self, size: ByteSize) -> ToolDescriptor {
        self.max_argument_size = size;
        self
    }

    /// With the names of the credentials its calls need (`needs = ["github"]`), resolved for
    /// each call just before it runs (see [`CredentialProvider`](super::CredentialProvider)).
    pub const fn with_needs(mut self, needs: &'static [&'static str]) -> ToolDescriptor {
        self.needs = needs;
        self
    }

    /// The names of the credentials its calls need, in declaration order.
    pub fn needs(&self) -> &'static [&'static str] {
        self.needs
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
        self.timeout
    }

    /// Its own bound on what the model reads of a result, if it sets one.
    pub fn max_result_size(&self) -> Option<ByteSize> {
        self.max_result_size
    }

    /// Its ceiling on results, if it sets one.
    pub fn result_ceiling(&self) -> Option<&ResultCeiling> {
        self.result_ceiling.as_ref()
    }

    /// When a call of it counts as repeating an earlier one.
    pub fn repeated_when(&self) -> RepeatedWhen {
        self.repeated_when
    }

    /// Whether it declared that it changes nothing. Undeclared tools are taken to write.
    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// Where its work is done: here, or by a server's tool.
    pub fn origin(&self) -> &ToolOrigin {
        &self.origin
    }

    /// The role its calls wait for, if they wait for one.
    pub fn approval(&self) -> Option<&RoleRef> {
        self.approval.as_ref()
    }

    /// The question roles its calls may ask while they run, as declared.
    pub fn asks(&self) -> &'static [RoleRef] {
        self.asks
    }

    /// What it declared it touches.
    pub fn capabilities(&self) -> &'static [Capability] {
        self.capabilities
    }

    /// Whether its results carry content nobody vouches for: declared, or an MCP server's.
    pub fn has_untrusted_output(&self) -> bool {
        self.untrusted_output || self.origin.remote().is_some()
    }

    /// When a person is asked before a call runs, if ever.
    pub fn check_in(&self) -> Option<CheckIn> {
        self.check_in
    }

    /// The function that builds the evidence text, if the tool has one.
    pub(crate) fn evidence_fn(&self) -> Option<EvidenceFn> {
        self.evidence
    }

    /// The evidence text of a call with `arguments`, if the tool builds one.
    pub fn evidence(&self, arguments: &str) -> Option<Result<String, String>> {
        self.evidence.map(|evidence| evidence(arguments))
    }

    /// What its MCP server says of it, as `g mcp` copied it: claims, which decide nothing.
    pub fn server_claims(&self) -> &'static [&'static str] {
        self.server_claims
    }

    /// What recovery does with a call of it that a crash interrupted.
    pub fn on_crash(&self) -> OnCrash {
        self.on_crash
    }

    /// The longest arguments a call may send.
    pub fn max_argument_size(&self) -> ByteSize {
        self.max_argument_size
    }

    /// Refuses arguments longer than [`max_argument_size`](Self::max_argument_size) before
    /// anything reads them.
    pub(crate) fn check_argument_size(&self, arguments: &str) -> Result<(), Issues> {
        let limit = self.max_argument_size.get();
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
        self.allow
    }

    /// Where it comes from: `local`, or the server's name.
    pub fn source(&self) -> &'static str {
        self.origin.source()
    }

    /// The JSON Schema of its input, as the model reads it (generated on each call of this
    /// method; [`schemas`](Self::schemas) caches).
    pub fn input_schema(&self) -> Value {
        (self.input_schema)()
    }

    /// The JSON Schema of its output.
    pub fn output_schema(&self) -> Value {
        (self.output_schema)()
    }

    /// Its schemas and their validators, generated and compiled once per process.
    pub fn schemas(&self) -> Result<&Arc<CompiledSchemas>, &SchemaError> {
        self.compiled
            .get_or_init(|| {
                CompiledSchemas::compile(
                    self.name(),
                    self.input_schema(),
                    self.output_schema(),
                    self.allow,
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
            .field("timeout", &self.timeout)
            .field("max_result_size", &self.max_result_size)
            .field("result_ceiling", &self.result_ceiling)
            .field("repeated_when", &self.repeated_when)
            .field("needs", &self.needs)
            .field("dependencies", &self.dependencies())
            .field("location", &self.location())
            .finish_non_exhaustive()
    }
}
