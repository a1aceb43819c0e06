//! [`Calls`]: the calls one tool step runs, each as its own task: started with its frame (the
//! execution, its step and key, what it asks questions through, its artifacts, its watcher),
//! judged from outside past its timeout and the grace (`overdue.rs`), and started again after
//! a transient error when its tool has retries left.

use std::collections::HashSet;
use std::pin::Pin;

use tokio::sync::mpsc::UnboundedSender;
use tokio::task::{JoinError, JoinSet};
use tracing::{Instrument, Span};

use super::asks::{AskRequest, asker_for};
use super::cx::Cx;
use super::overdue::Deadlines;
use super::telemetry::{ContentMask, ToolCallSpan};
use crate::journal::LoopState;
use crate::time::{ClockTime, Sleep};
use crate::tool::{CallFrame, ToolOutput};
use crate::units::TimeSpan;

/// What a call's task gives back: its place and what it returned, before any rule.
pub(super) type Returned = (usize, ToolOutput);

/// The calls of one tool step. Its parts are waited for side by side, each borrowed alone.
pub(super) struct Calls {
    pub(super) tasks: Tasks,
    pub(super) deadlines: Deadlines,
    pub(super) retries: Retries,
    /// Each call's span, and whether its result is recorded on it.
    spans: Vec<Option<(Span, Option<ContentMask>)>>,
    /// Calls that stopped at a question: what they return is not their result.
    pub(super) stopped: HashSet<usize>,
    /// Where calls of tools that ask questions send them.
    requests: Option<UnboundedSender<AskRequest>>,
}

/// The calls' tasks.
pub(super) struct Tasks {
    set: JoinSet<Returned>,
    /// Each task's call, with the task's id (a step's calls are few: a list is cheaper to
    /// fill and search than a hashed map).
    running: Vec<(tokio::task::Id, usize)>,
}

/// The calls waiting to be tried again.
pub(super) struct Retries {
    clock: crate::time::Clock,
    /// Which, with when.
    due: Vec<(usize, ClockTime)>,
    /// The timer of the earliest, made when first needed.
    timer: Option<(usize, Pin<Box<Sleep>>)>,
    /// What each call runs with, by place: to start it again.
    arguments: Vec<Option<String>>,
}

impl Calls {
    /// No calls yet; those of tools that ask send their questions to `requests`.
    pub(super) fn new(cx: &Cx<'_>, requests: Option<UnboundedSender<AskRequest>>) -> Calls {
        Calls {
            tasks: Tasks {
                set: JoinSet::new(),
                running: Vec::new(),
            },
            deadlines: Deadlines::new(cx.env.clock.clone()),
            retries: Retries {
                clock: cx.env.clock.clone(),
                due: Vec::new(),
                timer: None,
                arguments: Vec::new(),
            },
            spans: Vec::new(),
            stopped: HashSet::new(),
            requests,
        }
    }

    /// Starts call `index` of `state` with `arguments`, as its own task, its deadline kept.
    pub(super) fn start(
        &mut self,
        cx: &Cx<'_>,
        state: &LoopState,
        index: usize,
        arguments: String,
    ) {
        let pending = &state.pending[index];
        let Some(tool) = cx.agent.tool(&pending.call.name) else {
            return;
        };
        let frame = frame_of(cx, state, index, &arguments, &self.requests);
        let (span, content) = cx.tool_call_span(ToolCallSpan {
            tool: &pending.call.name,
            call_id: &pending.call_id,
            source: tool.descriptor().source(),
            attempt: pending.attempts,
            arguments: &arguments,
            step: frame.step(),
            execution_id: cx.execution.execution_id(),
        });
        let (invoker, pipeline) = (tool.tool().clone(), tool.pipeline().clone());
        let timeout = invoker.timeout();
        // Only a call that may be tried again keeps its arguments here: the others' are moved
        // into their task.
        if tool.descriptor().retries() > 0 {
            put(&mut self.retries.arguments, index, arguments.clone());
        }
        let handle = self.tasks.set.spawn(
            async move {
                let output = invoker
                    .run_call(&arguments, &frame, pipeline.in_call())
                    .await;
                (index, output)
            }
            .instrument(span.clone()),
        );
        self.tasks.running.push((handle.id(), index));
        self.deadlines
            .start(index, cx.env.clock.now(), timeout, handle);
        put(&mut self.spans, index, (span, content));
    }

    /// The span of call `index`, and whether its result is recorded on it.
    pub(super) fn span(&self, index: usize) -> Option<&(Span, Option<ContentMask>)> {
        self.spans.get(index)?.as_ref()
    }

    /// Whether every call is settled and none waits to be tried again.
    pub(super) fn all_done(&self) -> bool {
        self.deadlines.all_settled() && self.retries.due.is_empty()
    }
}

impl Tasks {
    /// Whether a call's task has not been joined yet.
    pub(super) fn running(&self) -> bool {
        !self.set.is_empty()
    }

    /// The next call to end: its place and what it returned; a task that died is a failure of
    /// its call. `None` when no task is left.
    pub(super) async fn joined(&mut self) -> Option<Result<Returned, (usize, JoinError)>> {
        let joined = self.set.join_next_with_id().await?;
        Some(match joined {
            Ok((_, returned)) => Ok(returned),
            Err(error) => {
                let id = error.id();
                // Every task is listed as it starts; a place no call has settles nothing.
                let index = self.running.iter().find(|(task, _)| *task == id);
                Err((index.map_or(usize::MAX, |(_, index)| *index), error))
            }
        })
    }
}

impl Retries {
    /// Whether a call waits to be tried again.
    pub(super) fn waiting(&self) -> bool {
        !self.due.is_empty()
    }

    /// Call `index` runs again once `after` has passed on the clock.
    pub(super) fn after(&mut self, index: usize, after: TimeSpan) {
        let at = self.clock.now().saturating_add(after.as_duration());
        self.due.push((index, at));
    }

    /// Waits for the earliest retry to be due; its call's place and arguments.
    pub(super) async fn next(&mut self) -> (usize, String) {
        let Some(&(index, at)) = self.due.iter().min_by_key(|(_, at)| *at) else {
            return std::future::pending().await;
        };
        if !matches!(&self.timer, Some((timing, _)) if *timing == index) {
            let left = at.saturating_since(self.clock.now());
            self.timer = Some((index, Box::pin(self.clock.sleep(left))));
        }
        if let Some((_, timer)) = self.timer.as_mut() {
            timer.as_mut().await;
        }
        self.timer = None;
        self.due.retain(|(i, _)| *i != index);
        let arguments = self
            .arguments
            .get(index)
            .cloned()
            .flatten()
            .unwrap_or_default();
        (index, arguments)
    }
}

/// The frame of call `index`: its execution and step (the same key on every try), what it asks
/// questions through, its execution's artifacts, and its watcher.
fn frame_of(
    cx: &Cx<'_>,
    state: &LoopState,
    index: usize,
    arguments: &str,
    requests: &Option<UnboundedSender<AskRequest>>,
) -> CallFrame {
    let pending = &state.pending[index];
    let step = cx.step_of(state, index);
    let mut frame = CallFrame::new(cx.execution.clone(), step);
    let asks = cx
        .agent
        .tool(&pending.call.name)
        .is_some_and(|t| !t.descriptor().asks().is_empty());
    if let Some(asker) = asker_for(state, index, asks, requests) {
        frame = frame.with_asker(asker);
    }
    if let Some(tool) = cx.agent.tool(&pending.call.name)
        && let Some(shelf) = cx.shelf_for(tool.descriptor())
    {
        frame = frame.with_artifacts(shelf);
    }
    if let Some(watch) = cx.watch_of(pending, arguments) {
        frame = frame.with_watch(watch);
    }
    frame
}

/// Whether a step of `state`'s calls `to_run` needs a channel for questions: one of their tools
/// asks.
pub(super) fn asks_questions(cx: &Cx<'_>, state: &LoopState, to_run: &[(usize, String)]) -> bool {
    to_run.iter().any(|(index, _)| {
        cx.agent
            .tool(&state.pending[*index].call.name)
            .is_some_and(|t| !t.descriptor().asks().is_empty())
    })
}

/// `value` at `index` of `slots`, which grows to hold it.
fn put<T>(slots: &mut Vec<Option<T>>, index: usize, value: T) {
    if slots.len() <= index {
        slots.resize_with(index + 1, || None);
    }
    slots[index] = Some(value);
}
