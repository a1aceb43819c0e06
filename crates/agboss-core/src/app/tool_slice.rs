//! [`ToolSlice`]: one tool of an application called on its own, with the application's
//! dependencies, in an execution of its own: `app.tool::<SearchIssues>().invoke(json)`.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::Application;
use crate::assembly::AppWorkflow;
use crate::base::Setting;
use crate::context::{Execution, Step};
use crate::tool::bound::effective_bound;
use crate::tool::{CallFrame, CallOutcome, Invoker, Tool, ToolEnv, ToolFailure};

/// Tool `T` of an application, called without an agent: in the workflow that uses it (or
/// [`in_workflow`](Self::in_workflow)), with that workflow's providers over the application's,
/// the application's clock and the bound in effect there. Each call runs in an execution of its
/// own, whose step's call id is `tool-slice`.
pub struct ToolSlice<'a, T> {
    app: &'a Application,
    workflow: Option<String>,
    owner: Option<String>,
    _tool: PhantomData<fn() -> T>,
}

impl Application {
    /// Tool `T`, to call on its own with the application's dependencies.
    pub fn tool<T: Tool>(&self) -> ToolSlice<'_, T> {
        ToolSlice {
            app: self,
            workflow: None,
            owner: None,
            _tool: PhantomData,
        }
    }
}

impl<T: Tool> ToolSlice<'_, T> {
    /// Calls it in workflow `name` (its providers, its bound) instead of the first workflow
    /// that uses it.
    pub fn in_workflow(mut self, name: &str) -> Self {
        self.workflow = Some(name.to_owned());
        self
    }

    /// Calls it in an execution of `owner` (its credentials are that owner's).
    pub fn owner(mut self, owner: &str) -> Self {
        self.owner = Some(owner.to_owned());
        self
    }

    /// Calls it with JSON `arguments` as a model sends them; returns what a model would read.
    pub async fn invoke(&self, arguments: &str) -> CallOutcome {
        let (invoker, frame) = self.prepare();
        invoker.invoke(arguments, &frame).await
    }

    /// Calls it with a typed `input`, validated like a model's arguments; returns the whole
    /// output, or the failure as the tool raised it.
    pub async fn call(&self, input: T::Input) -> Result<T::Output, ToolFailure> {
        let (invoker, frame) = self.prepare();
        invoker.call(input, &frame).await
    }

    fn prepare(&self) -> (Invoker<T>, CallFrame) {
        static SLICES: AtomicU64 = AtomicU64::new(0);
        let workflow = self.workflow();
        let (env, inherited) = match workflow {
            Some(workflow) => (
                workflow.tool_env().clone(),
                workflow.max_result_size().clone(),
            ),
            None => (
                ToolEnv::new(
                    Arc::new(self.app.assembly().providers().clone()),
                    self.app.clock().clone(),
                )
                .with_credentials(self.app.assembly().credentials().cloned()),
                self.app.max_result_size().clone(),
            ),
        };
        let bound: Setting<_> = effective_bound(T::DESCRIPTOR.max_result_size(), inherited);
        let n = SLICES.fetch_add(1, Ordering::Relaxed) + 1;
        let mut execution = Execution::builder(format!("tool-slice-{n}"));
        if let Some(workflow) = workflow {
            execution = execution.workflow(workflow.name());
        }
        if let Some(owner) = &self.owner {
            execution = execution.owner(owner.as_str());
        }
        let frame = CallFrame::new(
            execution.build(),
            Step::new(T::DESCRIPTOR.name(), 1, "tool-slice"),
        );
        (Invoker::<T>::new(env).with_bound(bound.value), frame)
    }

    /// The workflow named, or the first whose agents or own tools include the tool.
    fn workflow(&self) -> Option<&AppWorkflow> {
        if let Some(name) = &self.workflow {
            return self.app.workflow(name);
        }
        let uses = |workflow: &AppWorkflow| {
            workflow.agents().iter().any(|agent| {
                agent
                    .tools()
                    .iter()
                    .any(|t| std::ptr::eq(t.descriptor(), T::DESCRIPTOR))
            }) || workflow
                .unassigned_tools()
                .iter()
                .any(|d| std::ptr::eq(*d, T::DESCRIPTOR))
        };
        self.app.workflows().iter().find(|w| uses(w))
    }
}
