//! The gatekeeper: before the calls of a turn run, each call of a tool whose pipeline has a gate
//! that decides before the call's intent (a permission, a check-in, an approval, a question's
//! answerer, the application's middleware) passes those gates in their order. What comes out,
//! per call: run it (with the arguments the gates accepted), refuse it (the model reads why), or
//! wait for a person, every gate's ask in one question (see `approve.rs` for the pauses).
//!
//! The permission checker's decisions that let a call run go with the calls' intent (see
//! `tool_step.rs`); the others are journaled in one event before any pause opens or any call is
//! refused, so a resumed run asks nothing twice.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

use super::RunError;
use super::approve::{Asked, Gate};
use super::cx::Cx;
use super::history::RunHistory;
use crate::context::Step;
use crate::journal::{CallPause, CallPermission, LoopEvent, LoopState, PermissionDecision};
use crate::tool::{AskPerson, GateCall, OnCrash, Stage, ToolFailure, ToolOutput, Verdict};

/// The pending calls of a turn by where their pause stands: decided already (`gates`), with no
/// pause yet (`fresh`), interrupted and to be asked about again (`to_reconcile`), or asked
/// before and to be asked again with the same pause (`to_send`).
#[derive(Default)]
struct Sorted {
    gates: HashMap<usize, Gate>,
    fresh: Vec<usize>,
    to_reconcile: Vec<(usize, u32, Arc<super::approvals::ApprovalRole>)>,
    to_send: Vec<super::approve::Ask>,
}

/// What the gates before a person said of one call.
enum Decided {
    /// Every gate let it through, with these arguments.
    Pass(String),
    Refuse(ToolFailure),
    /// A person is asked, about these arguments (as the contract accepts them).
    Ask(Value, Vec<AskPerson>),
}

impl Cx<'_> {
    /// Gates every pending call without a result whose pipeline has a gatekeeper's gate; calls
    /// that have none are not in the map (their arguments are read by the call itself).
    pub(super) async fn gate_calls(
        &self,
        state: &mut LoopState,
        allowed: &mut Vec<CallPermission>,
    ) -> Result<HashMap<usize, Gate>, RunError> {
        let Sorted {
            mut gates,
            fresh,
            to_reconcile,
            mut to_send,
        } = self.sort(state);
        let mut decided = Vec::new();
        let mut to_open = Vec::new();
        for index in fresh {
            let mark = allowed.len();
            match self.decide(state, index, allowed).await {
                Decided::Pass(arguments) => {
                    gates.insert(index, Gate::Run(arguments));
                    continue;
                }
                Decided::Refuse(failure) => {
                    gates.insert(index, Gate::Refused(self.refused(failure)));
                }
                Decided::Ask(arguments, asks) => to_open.push((index, arguments, asks)),
            }
            // The decisions of a call that does not run now are journaled now.
            decided.extend(allowed.drain(mark..).map(|d| PermissionDecision {
                call_id: state.pending[d.call].call_id.clone(),
                capability: d.capability,
                checker: d.checker,
                permission: d.permission,
            }));
        }
        if !decided.is_empty() {
            let event = LoopEvent::PermissionsDecided { decisions: decided };
            self.record(state, event).await?;
        }
        self.open_asks(state, to_open, &mut gates, &mut to_send)
            .await?;
        for (index, starts, role) in to_reconcile {
            to_send.push(self.reconcile(state, index, starts, role).await?);
        }
        self.send_all(state, to_send, &mut gates).await?;
        // A call a person approved meets the gates after the person before it runs.
        for (index, gate) in gates.iter_mut() {
            if let Gate::Run(arguments) = gate
                && self.asked_before(state, *index)
            {
                *gate = self
                    .after_person(state, *index, std::mem::take(arguments))
                    .await;
            }
        }
        Ok(gates)
    }

    /// Sorts the pending calls of `state` whose tool has a gatekeeper's gate by where their
    /// pause stands (see [`Sorted`]).
    fn sort(&self, state: &LoopState) -> Sorted {
        let mut sorted = Sorted::default();
        for (index, pending) in state.pending.iter().enumerate() {
            let tool = match self.agent.tool(&pending.call.name) {
                Some(tool) if pending.result.is_none() && tool.pipeline().is_gated() => tool,
                _ => continue,
            };
            // A call a crash interrupted, whose tool asks before it runs again: its role is
            // asked anew, unless it was asked since the call last started.
            let starts = state.starts(pending);
            let pause = state.pauses.get(&pending.call_id);
            let reconcile = tool.descriptor().on_crash() == OnCrash::Ask
                && starts > 0
                && pause.is_none_or(|p| p.opened.attempt < starts);
            let role_name = pause
                .map(|p| p.opened.role.as_str())
                .or(tool.descriptor().approval().map(|a| a.role()));
            let role = role_name.and_then(|name| self.env.approvals.get(name).cloned());
            let gate = match (reconcile, pause, role) {
                (true, _, Some(role)) => {
                    sorted.to_reconcile.push((index, starts, role));
                    continue;
                }
                (true, _, None) => self.no_channel(role_name),
                (false, None, _) => {
                    sorted.fresh.push(index);
                    continue;
                }
                (false, Some(pause), _) if pause.resolution.is_some() => {
                    self.resolved(pending, pause)
                }
                (false, Some(pause), _) if pause.awaiting => Gate::Wait,
                // Opened, but the run stopped before the channel's answer was journaled: ask
                // again, with the same pause id.
                (false, Some(pause), Some(role)) => {
                    sorted.to_send.push(self.ask_again(index, pause, role));
                    continue;
                }
                (false, Some(pause), None) => self.no_channel(Some(&pause.opened.role)),
            };
            sorted.gates.insert(index, gate);
        }
        sorted
    }

    /// Passes call `index` through its gatekeeper's gates, up to and with the approval; a call
    /// nobody is asked about goes on through the gates after it. New permission decisions go to
    /// `allowed`, by place.
    async fn decide(
        &self,
        state: &LoopState,
        index: usize,
        allowed: &mut Vec<CallPermission>,
    ) -> Decided {
        let pending = &state.pending[index];
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Decided::Pass(self.arguments_of(pending));
        };
        let (before, after) = split_at_person(tool.pipeline().gatekeeper());
        let step = self.step_of(state, index);
        let history = self.history(state, index);
        let arguments = self.arguments_of(pending);
        let mut call =
            GateCall::new(tool.descriptor(), &arguments, &self.execution, &step).in_run(&history);
        let mut asks = Vec::new();
        let mut verdict = Ok(());
        for gate in before {
            match gate.before(&mut call).verdict().await {
                Verdict::Pass => {}
                Verdict::Refuse(failure) => {
                    verdict = Err(failure);
                    break;
                }
                Verdict::Ask(ask) => asks.push(ask),
            }
        }
        self.keep_decisions(index, &mut call, allowed);
        if let Err(failure) = verdict {
            return Decided::Refuse(failure);
        }
        if !asks.is_empty() {
            let arguments = serde_json::from_str(call.arguments()).unwrap_or(Value::Null);
            return Decided::Ask(arguments, asks);
        }
        match pass(after, &mut call).await {
            Ok(()) => Decided::Pass(call.into_arguments()),
            Err(failure) => Decided::Refuse(failure),
        }
    }

    /// Call `index`, which a person approved to run with `arguments`, through the gates after
    /// the person.
    async fn after_person(&self, state: &LoopState, index: usize, arguments: String) -> Gate {
        let pending = &state.pending[index];
        let Some(tool) = self.agent.tool(&pending.call.name) else {
            return Gate::Run(arguments);
        };
        let (_, after) = split_at_person(tool.pipeline().gatekeeper());
        if after.is_empty() {
            return Gate::Run(arguments);
        }
        let step = self.step_of(state, index);
        let history = self.history(state, index);
        let mut call = GateCall::new(tool.descriptor(), &arguments, &self.execution, &step)
            .in_run(&history)
            .accepted();
        match pass(after, &mut call).await {
            Ok(()) => Gate::Run(arguments),
            Err(failure) => Gate::Refused(self.refused(failure)),
        }
    }

    /// Whether call `index` was held for a person (its gates after the person did not run yet).
    fn asked_before(&self, state: &LoopState, index: usize) -> bool {
        state.pauses.contains_key(&state.pending[index].call_id)
    }

    /// Opens one pause per call a gate asked a person about, through the tool's own role, else
    /// the application's check-in role.
    async fn open_asks(
        &self,
        state: &mut LoopState,
        to_open: Vec<(usize, Value, Vec<AskPerson>)>,
        gates: &mut HashMap<usize, Gate>,
        to_send: &mut Vec<super::approve::Ask>,
    ) -> Result<(), RunError> {
        for (index, arguments, asks) in to_open {
            let tool = self.agent.tool(&state.pending[index].call.name);
            let role_name = tool
                .and_then(|t| t.descriptor().approval().map(|r| r.role()))
                .or(self.env.approvals.check_in_role());
            let Some(role_name) = role_name else {
                let why = "this call needs a person's approval, and no role of this application can ask for it";
                gates.insert(
                    index,
                    Gate::Refused(self.refused(ToolFailure::Refused(why.into()))),
                );
                continue;
            };
            let Some(role) = self.env.approvals.get(role_name).cloned() else {
                gates.insert(index, self.no_channel(Some(role_name)));
                continue;
            };
            let whys: Vec<String> = asks.iter().filter_map(|a| a.why.clone()).collect();
            let asked = Asked {
                arguments,
                starts: 0,
                why: (!whys.is_empty()).then(|| whys.join("; ")),
                evidence: asks.into_iter().find_map(|a| a.evidence),
            };
            to_send.push(self.open_pause(state, index, asked, role).await?);
        }
        Ok(())
    }

    /// The question whether to run call `index` again, which started `starts` times and a
    /// crash interrupted, asked about the arguments it ran with.
    async fn reconcile(
        &self,
        state: &mut LoopState,
        index: usize,
        starts: u32,
        role: Arc<super::approvals::ApprovalRole>,
    ) -> Result<super::approve::Ask, RunError> {
        let pending = &state.pending[index];
        let ran_with = state
            .pauses
            .get(&pending.call_id)
            .and_then(CallPause::ran_with)
            .unwrap_or_else(|| self.arguments_of(pending));
        let asked = Asked {
            arguments: serde_json::from_str(&ran_with).unwrap_or(Value::Null),
            starts,
            why: None,
            evidence: None,
        };
        self.open_pause(state, index, asked, role).await
    }

    /// Keeps the checker's new decisions about call `index` in `allowed`, by place.
    fn keep_decisions(
        &self,
        index: usize,
        call: &mut GateCall<'_>,
        allowed: &mut Vec<CallPermission>,
    ) {
        for (capability, permission) in call.decided.drain(..) {
            allowed.push(CallPermission {
                call: index,
                capability: std::borrow::Cow::Borrowed(capability.as_str()),
                checker: Arc::clone(self.env.approvals.checker_name()),
                permission,
            });
        }
    }

    /// The step of call `index` (its ids, and the key a channel and the call share).
    pub(super) fn step_of(&self, state: &LoopState, index: usize) -> Step {
        let pending = &state.pending[index];
        Step::new(
            Arc::from(self.agent.name()),
            state.visit,
            pending.call_id.as_str(),
        )
        .with_attempt(pending.attempts)
    }

    /// The run as call `index`'s stages see it.
    pub(super) fn history<'s>(&'s self, state: &'s LoopState, index: usize) -> RunHistory<'s> {
        RunHistory {
            state,
            index,
            seen: &self.seen,
            agent: self.agent,
        }
    }

    /// What the model reads of a call a gate refused.
    pub(super) fn refused(&self, failure: ToolFailure) -> ToolOutput {
        self.framework_result(ToolOutput::failed(failure))
    }
}

/// A run of a call's gates, in their order.
type Stages = [Arc<dyn Stage>];

/// The gatekeeper's gates of a tool: those up to and with the approval (a person may be asked),
/// and those after.
fn split_at_person(gates: &[Arc<dyn Stage>]) -> (&Stages, &Stages) {
    match gates.iter().position(|g| g.name() == "approval") {
        Some(at) => gates.split_at(at + 1),
        None => (gates, &[]),
    }
}

/// `call` through `gates`, which come after any person: none of them may ask one, and one that
/// does fails closed.
async fn pass(gates: &[Arc<dyn Stage>], call: &mut GateCall<'_>) -> Result<(), ToolFailure> {
    for gate in gates {
        match gate.before(call).verdict().await {
            Verdict::Pass => {}
            Verdict::Refuse(failure) => return Err(failure),
            Verdict::Ask(_) => {
                return Err(ToolFailure::Refused(format!(
                    "the gate `{}` asked for a person after the approval, where nobody is asked: the call does not run",
                    gate.name()
                )));
            }
        }
    }
    Ok(())
}
