//! One agent's loop, advanced one step at a time: the model turn, then the tool step (its
//! gatekeeper first), over the context they share, until the model answers.

use super::cx::Cx;
use super::model_turn::ModelTurn;
use super::{LeaseKeeper, RunEnv, RunError, RunOptions};
use crate::agent::AppAgent;
use crate::context::Execution;
use crate::journal::{LoopState, Next};

/// The loop of one agent in one execution.
pub(crate) struct AgentLoop<'a> {
    pub(super) cx: Cx<'a>,
    turn: ModelTurn,
}

impl<'a> AgentLoop<'a> {
    pub(crate) fn new(
        env: &RunEnv,
        agent: &'a AppAgent,
        execution: Execution,
        options: &'a RunOptions,
        lease: &'a LeaseKeeper,
    ) -> AgentLoop<'a> {
        let mut cx = Cx::new(env, agent, execution, options, lease);
        let (turn, answer) = ModelTurn::new(&cx);
        cx.answer = answer;
        AgentLoop { cx, turn }
    }

    /// Performs what `state.next` says.
    pub(crate) async fn step(&mut self, state: &mut LoopState) -> Result<(), RunError> {
        match state.next {
            Next::CallModel => self.turn.call(&self.cx, state).await,
            Next::RunTools => self.cx.run_tools(state).await,
            Next::Start | Next::Answered(_) | Next::Failed(..) => Ok(()),
        }
    }
}
