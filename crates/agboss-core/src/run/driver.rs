//! Driving a run: from a state (new, or folded from a journal) to its end, one step at a time.

use std::sync::Arc;

use tracing::Instrument;

use super::agent_loop::AgentLoop;
use super::{RunError, RunOptions};
use crate::agent::AppAgent;
use crate::context::Execution;
use crate::journal::{Answer, LoopEvent, LoopState, Next, Store};
use crate::model::{ModelRouter, Usage};
use crate::spend::Budgets;
use crate::units::Usd;

/// How a run ended well.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOutcome {
    /// The execution.
    pub execution_id: String,
    /// The answer.
    pub answer: Answer,
    /// Tokens the loop's model calls used.
    pub usage: Usage,
    /// Everything the execution spent: model calls and what tools recorded.
    pub spend: Usd,
    /// Each cost, in the order it was recorded: model calls (`tool: None`) and tools' costs.
    pub spent: Vec<crate::spend::SpendEntry>,
    /// Tool calls made.
    pub tool_calls: u32,
    /// Model answers.
    pub turns: u32,
}

impl RunOutcome {
    /// The answer's text, if it is text.
    pub fn text(&self) -> Option<&str> {
        match &self.answer {
            Answer::Text(text) => Some(text),
            Answer::Structured(_) => None,
        }
    }
}

/// What a run needs of the application it runs in: where it journals, how it reaches models and
/// the budgets it starts with. The loop sees nothing else of the application.
#[derive(Clone)]
pub struct RunEnv {
    /// Where each step is journaled before the next begins.
    pub store: Arc<dyn Store>,
    /// Which provider answers each model id, and at what price.
    pub router: Arc<ModelRouter>,
    /// The budgets of a run that sets none of its own.
    pub budgets: Budgets,
}

/// Runs `agent` in `execution` from `state` until it answers or fails, journaling `start`
/// first when the run is new.
pub(crate) async fn drive(
    env: &RunEnv,
    agent: &AppAgent,
    execution: Execution,
    options: &RunOptions,
    mut state: LoopState,
    start: Option<LoopEvent>,
) -> Result<RunOutcome, RunError> {
    let span = tracing::info_span!(
        "agboss.execution",
        execution_id = %execution.execution_id(),
        workflow = %execution.workflow(),
        agent = agent.name(),
    );
    let mut agent_loop = AgentLoop::new(env, agent, execution.clone(), options);
    async move {
        if let Some(start) = start {
            agent_loop.record(&mut state, start).await?;
        }
        while !state.is_over() {
            agent_loop.step(&mut state).await?;
            if let Some(reason) = agent_loop.aborted()
                && !state.is_over()
            {
                return Err(agent_loop.fail(&mut state, RunError::Aborted(reason)).await);
            }
        }
        match state.next {
            Next::Answered(answer) => Ok(RunOutcome {
                execution_id: state.execution_id,
                answer,
                usage: state.usage,
                spend: execution.spend().total(),
                spent: execution.spend().entries(),
                tool_calls: state.tool_calls,
                turns: state.turn,
            }),
            Next::Failed(code, message) => Err(RunError::Ended { code, message }),
            Next::Start | Next::CallModel | Next::RunTools => Err(RunError::Contract(
                "the run stopped without an answer or an error".into(),
            )),
        }
    }
    .instrument(span)
    .await
}

/// Puts what the journal says was spent back in the ledger, so budgets count it after a resume.
pub(crate) fn restore_spend(execution: &Execution, events: &[LoopEvent], agent: &AppAgent) {
    let mut tools_of_calls = std::collections::HashMap::new();
    for event in events {
        match event {
            LoopEvent::ModelAnswered {
                model, cost, calls, ..
            } => {
                execution.spend().push(crate::spend::SpendEntry {
                    service: model.clone(),
                    cost: *cost,
                    tool: None,
                    call_id: None,
                });
                for call in calls {
                    let tool = agent.tool(&call.call.name).map(|t| t.descriptor().name());
                    tools_of_calls.insert(call.call_id.clone(), tool);
                }
            }
            LoopEvent::ToolFinished { call_id, spend, .. } => {
                for spent in spend {
                    execution.spend().push(crate::spend::SpendEntry {
                        service: spent.service.clone(),
                        cost: spent.cost,
                        tool: tools_of_calls.get(call_id).copied().flatten(),
                        call_id: Some(call_id.clone()),
                    });
                }
            }
            _ => {}
        }
    }
}
