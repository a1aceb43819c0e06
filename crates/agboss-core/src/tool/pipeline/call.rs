//! What the stages of a call's pipeline read: [`GateCall`] before it runs, [`CallEnd`] after,
//! and [`CallHistory`], what a run tells them of itself.

use std::borrow::Cow;

use crate::context::{Execution, ExecutionContext, Step};
use crate::tool::{
    CallDigest, CallSeen, Capability, Credentials, Permission, RepeatedWhen, ToolDescriptor,
};

/// What a run tells the stages of its calls about itself. A call made outside a run (a test's,
/// `app.tool::<T>()`) has none: its stages decide from the call alone.
pub trait CallHistory: Send + Sync {
    /// The decision journaled for this call about `capability`, if the checker was asked
    /// before (a resumed run asks nothing twice).
    fn permission(&self, capability: Capability) -> Option<Permission>;

    /// Hands `read` the calls the run made before this turn, oldest first, and whether
    /// content nobody vouches for entered the run since a person last wrote.
    fn seen(&self, read: &mut dyn FnMut(&[CallSeen], bool));

    /// Whether a call with `digest` repeats one the run made before, under `when`.
    fn repeats(&self, digest: &CallDigest, when: RepeatedWhen) -> bool;
}

/// One call as its gates see it, before it runs.
pub struct GateCall<'a> {
    tool: &'static ToolDescriptor,
    call_id: &'a str,
    arguments: Cow<'a, str>,
    accepted: bool,
    execution: &'a Execution,
    step: &'a Step,
    history: Option<&'a dyn CallHistory>,
    /// The permission checker's new decisions, for the gatekeeper to journal before it acts.
    pub(crate) decided: Vec<(Capability, Permission)>,
    /// The credentials the call runs with, once resolved.
    pub(crate) credentials: Option<Credentials>,
}

impl<'a> GateCall<'a> {
    /// Call `step` of `tool` in `execution`, with the argument text the model sent.
    pub(crate) fn new(
        tool: &'static ToolDescriptor,
        arguments: &'a str,
        execution: &'a Execution,
        step: &'a Step,
    ) -> GateCall<'a> {
        GateCall {
            tool,
            call_id: step.call_id(),
            arguments: Cow::Borrowed(arguments),
            accepted: false,
            execution,
            step,
            history: None,
            decided: Vec::new(),
            credentials: None,
        }
    }

    /// The same, in a run that tells its stages `history`.
    pub(crate) fn in_run(mut self, history: &'a dyn CallHistory) -> GateCall<'a> {
        self.history = Some(history);
        self
    }

    /// The same, with arguments its `arguments` gate (or a person's decision) accepted already.
    pub(crate) fn accepted(mut self) -> GateCall<'a> {
        self.accepted = true;
        self
    }

    /// The tool.
    pub fn tool(&self) -> &'static ToolDescriptor {
        self.tool
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        self.call_id
    }

    /// The arguments, as JSON text: as the call contract accepts them once the `arguments`
    /// gate passed (`{}` for empty arguments, without the `null`s of optional fields), which is
    /// how every later gate reads them and what the call runs with.
    pub fn arguments(&self) -> &str {
        &self.arguments
    }

    /// Whether the arguments were read as the contract accepts them.
    pub fn is_accepted(&self) -> bool {
        self.accepted
    }

    /// Replaces the arguments with the text the contract accepted.
    pub(crate) fn accept(&mut self, text: String) {
        self.arguments = Cow::Owned(text);
        self.accepted = true;
    }

    /// The arguments as the gate took them, owned.
    pub(crate) fn into_arguments(self) -> String {
        self.arguments.into_owned()
    }

    /// The execution the call belongs to (owner, tenant, thread).
    pub fn execution(&self) -> &Execution {
        self.execution
    }

    /// The call's step (its ids and idempotency key).
    pub fn step(&self) -> &Step {
        self.step
    }

    /// The call's context, as the tool would get it (its own signal, a child of the
    /// execution's).
    pub fn context(&self) -> ExecutionContext {
        let signal = self.execution.signal().child();
        ExecutionContext::new(self.execution.clone(), self.step.clone(), signal)
    }

    /// What the run tells of itself (`None` outside a run).
    pub fn history(&self) -> Option<&'a dyn CallHistory> {
        self.history
    }
}

/// One call as the rules see it, once it ran (or was refused).
pub struct CallEnd<'a> {
    pub(crate) tool: &'static ToolDescriptor,
    pub(crate) call_id: &'a str,
    pub(crate) arguments: &'a str,
    pub(crate) tries: u32,
    pub(crate) execution: &'a Execution,
    pub(crate) history: Option<&'a dyn CallHistory>,
}

impl<'a> CallEnd<'a> {
    /// Call `call_id` of `tool` in `execution`, which ran with `arguments`.
    #[inline]
    pub(crate) fn new(
        tool: &'static ToolDescriptor,
        call_id: &'a str,
        arguments: &'a str,
        execution: &'a Execution,
    ) -> CallEnd<'a> {
        CallEnd {
            tool,
            call_id,
            arguments,
            tries: 1,
            execution,
            history: None,
        }
    }

    /// The same, in a run that tells its stages `history`, on its `tries`-th try (from 1).
    pub(crate) fn in_run(mut self, history: &'a dyn CallHistory, tries: u32) -> CallEnd<'a> {
        self.history = Some(history);
        self.tries = tries;
        self
    }

    /// The tool.
    pub fn tool(&self) -> &'static ToolDescriptor {
        self.tool
    }

    /// The call's id.
    pub fn call_id(&self) -> &str {
        self.call_id
    }

    /// The arguments the call ran with (JSON text).
    pub fn arguments(&self) -> &str {
        self.arguments
    }

    /// Which try this was, from 1 (more after a transient error was tried again).
    pub fn tries(&self) -> u32 {
        self.tries
    }

    /// The execution the call belongs to.
    pub fn execution(&self) -> &Execution {
        self.execution
    }

    /// What the run tells of itself (`None` outside a run).
    pub fn history(&self) -> Option<&'a dyn CallHistory> {
        self.history
    }
}
