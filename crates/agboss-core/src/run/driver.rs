//! Driving a run: from a state (new, or folded from a journal) to its end, one step at a time.

use tracing::Instrument;

use super::agent_loop::AgentLoop;
use super::{
    Completed, LeaseKeeper, Paused, PendingPause, RunEnv, RunError, RunOptions, RunOutcome,
};
use crate::agent::AppAgent;
use crate::base::telemetry::{field, operation, span};
use crate::channel::PauseAnswerer;
use crate::context::Execution;
use crate::journal::{LoopEvent, LoopState, Next};

/// Runs `agent` in `execution` from `state` until it answers, fails or waits for answers,
/// journaling `start` first (a new run's `started`, or a resumed one's `config_changed`), under
/// the lease `lease` keeps.
pub(crate) async fn drive(
    env: &RunEnv,
    agent: &AppAgent,
    execution: Execution,
    options: &RunOptions,
    lease: &LeaseKeeper,
    mut state: LoopState,
    start: Option<LoopEvent>,
) -> Result<RunOutcome, RunError> {
    let span = tracing::info_span!(
        span::EXECUTION,
        { field::OTEL_NAME } = %format_args!("{} {}", operation::INVOKE_AGENT, agent.name()),
        { field::OPERATION } = operation::INVOKE_AGENT,
        { field::AGENT_NAME } = agent.name(),
        { field::EXECUTION_ID } = %execution.execution_id(),
        { field::WORKFLOW } = %execution.workflow(),
    );
    let mut agent_loop = AgentLoop::new(env, agent, execution.clone(), options, lease);
    let execution_id = execution.execution_id().to_owned();
    let ran = async move {
        if let Some(start) = start {
            agent_loop.cx.record(&mut state, start).await?;
        }
        while !state.is_over() {
            if let Some(lost) = lease.lost() {
                return Err(RunError::LeaseLost(lost));
            }
            if let Some(reason) = agent_loop.cx.aborted() {
                return Err(agent_loop.cx.fail(&mut state, RunError::Aborted(reason)).await);
            }
            let ran_tools = state.next == Next::RunTools;
            let before = state.events;
            agent_loop.step(&mut state).await?;
            // After the tool step, a call without a result waits for a decision, or had its
            // decision arrive during the step (another process answered): the next step runs
            // it. The run stops when every call left waits, or when a step changed nothing.
            if ran_tools && state.next == Next::RunTools {
                let unfinished = state.pending.iter().filter(|c| c.result.is_none()).count();
                let waiting = state.awaiting().count();
                if unfinished > 0 && unfinished == waiting {
                    return Ok(RunOutcome::Paused(paused(&state)));
                }
                if state.events == before {
                    return Err(RunError::Contract(format!(
                        "{unfinished} calls are left without a result and only {waiting} wait for a decision"
                    )));
                }
            }
        }
        outcome(state, &execution)
    }
    .instrument(span)
    .await;
    // A run that ended (not one that paused, or whose lease another instance took).
    if !matches!(ran, Ok(RunOutcome::Paused(_)) | Err(RunError::LeaseLost(_))) {
        super::run_ended(
            &*env.store,
            Some(agent),
            &execution_id,
            env.artifact_retention,
        )
        .await;
    }
    ran
}

/// How a run whose state is `state` stopped: its answer, or its error.
pub(crate) fn outcome(state: LoopState, execution: &Execution) -> Result<RunOutcome, RunError> {
    match state.next {
        Next::Answered(answer) => Ok(RunOutcome::Completed(Completed {
            execution_id: state.execution_id,
            answer,
            usage: state.usage,
            spend: execution.spend().total(),
            spent: execution.spend().entries(),
            tool_calls: state.tool_calls,
            turns: state.turn,
        })),
        Next::Failed(code, message) => Err(RunError::Ended { code, message }),
        Next::RunTools if state.awaiting().next().is_some() => {
            Ok(RunOutcome::Paused(paused(&state)))
        }
        Next::Start | Next::CallModel | Next::RunTools => Err(RunError::Contract(
            "the run stopped without an answer or an error".into(),
        )),
    }
}

/// The pauses a thread's owner may answer, in the model's order of the calls.
pub(crate) fn paused(state: &LoopState) -> Paused {
    let pending = state
        .pending
        .iter()
        .filter_map(|call| {
            let approval = state.pauses.get(&call.call_id);
            let question = state.asks.get(&call.call_id).and_then(|asks| asks.last());
            let pause = approval
                .filter(|p| p.resolution.is_none())
                .or(question)
                .or(approval)?;
            let open = pause.resolution.is_none() && call.result.is_none();
            (open && pause.opened.answered_by == PauseAnswerer::ThreadOwner).then(|| PendingPause {
                pause_id: pause.opened.pause_id.clone(),
                call_id: call.call_id.clone(),
                tool: call.call.name.clone(),
                role: pause.opened.role.clone(),
                answered_by: pause.opened.answered_by,
                owner: pause.opened.owner.clone(),
                question: pause.opened.question.clone(),
            })
        })
        .collect();
    Paused {
        execution_id: state.execution_id.clone(),
        pending,
    }
}
