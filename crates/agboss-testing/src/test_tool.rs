//! [`test_tool`]: one tool, its own container, a real call frame, a manual clock.

use std::marker::PhantomData;
use std::sync::Arc;
#[cfg(feature = "mcp")]
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use agboss_core::base::Env;
use agboss_core::component::{DependencyError, MissingDependency};
use agboss_core::context::{Execution, Step};
use agboss_core::deps::Providers;
#[cfg(feature = "mcp")]
use agboss_core::mcp::{McpConnection, McpHub, McpServer};
use agboss_core::spend::SpendEntry;
use agboss_core::time::{Clock, ManualClock};
use agboss_core::tool::{
    CallFrame, CallOutcome, CredentialProvider, Invoker, Tool, ToolEnv, ToolFailure,
};
use agboss_core::units::{ByteSize, TimeSpan};

/// A runner for tool `T`; see the [crate docs](crate).
pub fn test_tool<T: Tool>() -> TestTool<T> {
    TestTool {
        providers: Providers::new(),
        clock: ManualClock::new(),
        timeout: None,
        bound: None,
        env: Env::process(),
        credentials: None,
        #[cfg(feature = "mcp")]
        mcp: OnceLock::new(),
        execution: Execution::builder("test-execution")
            .thread("test-thread")
            .owner("test-owner")
            .workflow("test")
            .build(),
        calls: AtomicU32::new(0),
        _tool: PhantomData,
    }
}

/// Runs calls of tool `T` the way the agent loop does, in a container of its own.
pub struct TestTool<T> {
    providers: Providers,
    clock: ManualClock,
    timeout: Option<TimeSpan>,
    bound: Option<ByteSize>,
    #[cfg_attr(not(feature = "mcp"), allow(dead_code))]
    env: Env,
    credentials: Option<Arc<dyn CredentialProvider>>,
    #[cfg(feature = "mcp")]
    mcp: OnceLock<Arc<McpHub>>,
    execution: Execution,
    calls: AtomicU32,
    _tool: PhantomData<fn() -> T>,
}

/// A call that succeeded.
#[derive(Debug)]
pub struct TestRun<O> {
    /// The tool's output, whole: the bound applies only to what a model reads.
    pub output: O,
    /// What the call recorded with its `SpendRecorder`.
    pub spend: Vec<SpendEntry>,
    /// The call's id (`call-1`, `call-2`, ...).
    pub call_id: String,
}

impl<T: Tool> TestTool<T> {
    /// Provides `value` for the tool's `Arc<D>` fields: `.with::<dyn IssuesApi>(Arc::new(Fake))`.
    pub fn with<D: ?Sized + Send + Sync + 'static>(mut self, value: Arc<D>) -> Self {
        self.providers.provide::<D>(value);
        self
    }

    /// Resolves the credentials the tool `needs` (and its MCP server's own) through
    /// `provider`: `.credentials(StaticCredentials::new().with("github", "t-1"))`. Calls run
    /// as owner `test-owner`.
    pub fn credentials(mut self, provider: impl CredentialProvider) -> Self {
        self.credentials = Some(Arc::new(provider));
        self
    }

    /// Runs calls under `timeout` instead of the tool's own.
    pub fn timeout(mut self, timeout: TimeSpan) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Bounds what [`invoke`](Self::invoke) renders to `bound` instead of the tool's own.
    pub fn bound(mut self, bound: ByteSize) -> Self {
        self.bound = Some(bound);
        self
    }

    /// Where MCP servers read their variables (`${VAR}` in their declaration) from; the
    /// process's environment unless set.
    pub fn env(mut self, env: Env) -> Self {
        self.env = env;
        self
    }

    /// The runner's connection to MCP server `S`: one per server for all its calls, started on
    /// the first call that needs it.
    #[cfg(feature = "mcp")]
    pub fn mcp_server<S: McpServer>(&self) -> Arc<McpConnection> {
        self.mcp().connection(S::DESCRIPTOR)
    }

    /// Stops the MCP servers the runner started (a stdio server's whole process group); they
    /// are stopped when the runner is dropped too.
    pub async fn shutdown(&self) {
        #[cfg(feature = "mcp")]
        if let Some(hub) = self.mcp.get() {
            hub.shutdown().await;
        }
    }

    #[cfg(feature = "mcp")]
    fn mcp(&self) -> &Arc<McpHub> {
        self.mcp.get_or_init(|| {
            let hub = McpHub::new(self.env.clone(), Clock::from(&self.clock));
            Arc::new(hub.with_credentials(self.credentials.clone()))
        })
    }

    /// The runner's clock: calls time out when a test [`advance`](ManualClock::advance)s it.
    pub fn clock(&self) -> &ManualClock {
        &self.clock
    }

    /// The execution calls run in: cancel it to abort them, read its spend.
    pub fn execution(&self) -> &Execution {
        &self.execution
    }

    /// The tool's fields that nothing provides.
    pub fn missing_dependencies(&self) -> Vec<MissingDependency> {
        T::DESCRIPTOR.missing(&self.providers)
    }

    /// Calls the tool with `input`, validated like a model's arguments; returns the whole
    /// output, or the failure as the tool raised it.
    pub async fn run(&self, input: T::Input) -> Result<TestRun<T::Output>, ToolFailure> {
        if let Some(missing) = self.missing_dependencies().into_iter().next() {
            return Err(ToolFailure::Dependency(DependencyError::Missing(missing)));
        }
        let frame = self.next_frame();
        let output = self.invoker().call(input, &frame).await?;
        let call_id = frame.step().call_id().to_owned();
        Ok(TestRun {
            output,
            spend: self.execution.spend().of_call(&call_id),
            call_id,
        })
    }

    /// Calls the tool with JSON `arguments` as a model sends them; returns what the model
    /// reads, bounded.
    pub async fn invoke(&self, arguments: &str) -> CallOutcome {
        let invoker = self.invoker();
        if let Some(missing) = self.missing_dependencies().into_iter().next() {
            return CallOutcome::failed(
                ToolFailure::Dependency(DependencyError::Missing(missing)),
                invoker.bound(),
            );
        }
        invoker.invoke(arguments, &self.next_frame()).await
    }

    fn invoker(&self) -> Invoker<T> {
        #[cfg_attr(not(feature = "mcp"), allow(unused_mut))]
        let mut providers = self.providers.clone();
        #[cfg(feature = "mcp")]
        providers.provide(self.mcp().clone());
        let env = ToolEnv::new(Arc::new(providers), Clock::from(&self.clock))
            .with_credentials(self.credentials.clone());
        let mut invoker = Invoker::<T>::new(env);
        if let Some(timeout) = self.timeout {
            invoker = invoker.with_timeout(timeout);
        }
        if let Some(bound) = self.bound {
            invoker = invoker.with_bound(bound);
        }
        invoker
    }

    fn next_frame(&self) -> CallFrame {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        CallFrame::new(
            self.execution.clone(),
            Step::new("test", 1, format!("call-{n}")),
        )
    }
}
