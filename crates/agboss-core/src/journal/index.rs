//! What a store indexes beside the journals: one record per execution (its thread, owner and
//! status) and one per pause. Both are derived from the events appended, here and only here,
//! so every store derives them alike; a store applies the changes in the same transaction as
//! the append.

use agboss_rules::codes;
use serde::{Deserialize, Serialize};

use super::{Answer, LoopEvent, PauseRecord, PauseResolution};

/// An execution as a store indexes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExecutionRecord {
    /// Its id.
    pub execution_id: String,
    /// Its workflow.
    pub workflow: String,
    /// The agent it runs.
    pub agent: String,
    /// Its thread (its own id when it was started without one).
    pub thread_id: String,
    /// The thread's owner.
    pub owner_id: Option<String>,
    /// Its tenant.
    pub tenant_id: Option<String>,
    /// What it was asked.
    pub input: String,
    /// Where it is.
    pub status: ExecutionStatus,
    /// Its pauses still open.
    pub open_pauses: u32,
    /// How many events its journal holds: the sequence number of the next one.
    pub events: u64,
    /// The summary of its turn, once a later run of its thread made one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The calls of the model's last answer that have no result yet.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unfinished_calls: u32,
    /// Its open pauses whose channel said the answer comes later.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub awaiting_pauses: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl ExecutionRecord {
    /// Whether it waits for an answer (it has open pauses and has not ended).
    pub fn is_paused(&self) -> bool {
        self.status == ExecutionStatus::Running && self.open_pauses > 0
    }

    /// Whether a driver can take it further now: it has not ended, and it does not only wait
    /// for answers (every call without a result waiting for one). What a worker claims.
    pub fn is_runnable(&self) -> bool {
        self.status == ExecutionStatus::Running
            && !(self.unfinished_calls > 0 && self.unfinished_calls <= self.awaiting_pauses)
    }
}

/// Where an execution is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum ExecutionStatus {
    /// Started and not ended (it may be paused: see [`ExecutionRecord::open_pauses`]).
    Running,
    /// Ended with an answer.
    Answered {
        /// The answer.
        answer: Answer,
    },
    /// Ended with an error, its code.
    Failed {
        /// The code (`budgets.usd`, `model`, ...).
        code: String,
    },
    /// Cancelled.
    Cancelled,
}

/// What appending one event changes in a store's pause index.
#[derive(Clone, Debug, PartialEq)]
pub enum PauseChange {
    /// A pause opened.
    Open(Box<PauseRecord>),
    /// Its channel said the answer comes later.
    Awaiting(String),
    /// A pause closed.
    Resolve {
        /// The pause.
        pause_id: String,
        /// How.
        resolution: PauseResolution,
    },
}

/// The execution's record after `event` is appended as event `seq`: `None` when the event
/// cannot be appended here (a journal must start with `Started`, and only it).
pub fn next_record(
    current: Option<&ExecutionRecord>,
    execution_id: &str,
    seq: u64,
    event: &LoopEvent,
) -> Option<ExecutionRecord> {
    let mut record = match (current, event) {
        (
            None,
            LoopEvent::Started {
                workflow,
                agent,
                input,
                thread,
                owner,
                tenant,
                ..
            },
        ) => ExecutionRecord {
            execution_id: execution_id.to_owned(),
            workflow: workflow.clone(),
            agent: agent.clone(),
            thread_id: thread.clone().unwrap_or_else(|| execution_id.to_owned()),
            owner_id: owner.clone(),
            tenant_id: tenant.clone(),
            input: input.clone(),
            status: ExecutionStatus::Running,
            open_pauses: 0,
            events: 0,
            summary: None,
            unfinished_calls: 0,
            awaiting_pauses: 0,
        },
        (None, _) | (Some(_), LoopEvent::Started { .. }) => return None,
        (Some(current), _) => current.clone(),
    };
    record.events = seq + 1;
    match event {
        LoopEvent::ModelAnswered { calls, .. } => {
            record.unfinished_calls = u32::try_from(calls.len()).unwrap_or(u32::MAX);
            record.awaiting_pauses = 0;
        }
        LoopEvent::ToolFinished { .. } => {
            record.unfinished_calls = record.unfinished_calls.saturating_sub(1);
        }
        LoopEvent::PauseOpened(_) => record.open_pauses += 1,
        LoopEvent::PauseResolved { .. } => {
            record.open_pauses = record.open_pauses.saturating_sub(1);
        }
        LoopEvent::Answered { answer } => {
            record.status = ExecutionStatus::Answered {
                answer: answer.clone(),
            }
        }
        LoopEvent::Summarized { summary } => record.summary = Some(summary.clone()),
        LoopEvent::Failed { code, .. } if code == codes::CANCELLED.id() => {
            record.status = ExecutionStatus::Cancelled;
        }
        LoopEvent::Failed { code, .. } => {
            record.status = ExecutionStatus::Failed { code: code.clone() }
        }
        _ => {}
    }
    Some(record)
}

/// What appending `event` as event `seq` of the execution `record` describes (after
/// [`next_record`]) changes in the pause index.
pub fn pause_change(record: &ExecutionRecord, seq: u64, event: &LoopEvent) -> Option<PauseChange> {
    match event {
        LoopEvent::PauseOpened(opened) => Some(PauseChange::Open(Box::new(PauseRecord {
            opened: opened.clone(),
            execution_id: record.execution_id.clone(),
            thread_id: record.thread_id.clone(),
            opened_at_seq: seq,
            awaiting: false,
            resolution: None,
        }))),
        LoopEvent::PauseAwaiting { pause_id } => Some(PauseChange::Awaiting(pause_id.clone())),
        LoopEvent::PauseResolved {
            pause_id,
            resolution,
        } => Some(PauseChange::Resolve {
            pause_id: pause_id.clone(),
            resolution: resolution.clone(),
        }),
        _ => None,
    }
}

impl PauseChange {
    /// Applies the change to a record of the pause it names (for `Open`, the record is
    /// replaced).
    pub fn apply_to(&self, record: &mut PauseRecord) {
        match self {
            PauseChange::Open(opened) => *record = (**opened).clone(),
            PauseChange::Awaiting(_) => record.awaiting = true,
            PauseChange::Resolve { resolution, .. } => record.resolution = Some(resolution.clone()),
        }
    }

    /// The pause's record after the change, given the record the store holds (`None`: it
    /// holds none); the second field says whether the record is new. Every store refuses the
    /// same changes with this one rule: a pause is opened once, resolved once, and what was never
    /// opened takes no change. (A late `PauseAwaiting`, its channel's word after an answer came
    /// in, is kept: it changes nothing that matters.) The error is the refusal's text, for a
    /// [`StoreErrorKind::Invalid`](crate::store::StoreErrorKind::Invalid).
    ///
    /// `execution` is the record of the pause's execution after the event
    /// ([`next_record`]): its count of awaited pauses is brought up to date.
    pub fn checked(
        &self,
        held: Option<PauseRecord>,
        execution: &mut ExecutionRecord,
    ) -> Result<(PauseRecord, bool), String> {
        let awaited = |p: &PauseRecord| p.is_open() && p.awaiting;
        let before = held.as_ref().is_some_and(awaited);
        let (after, opens) = self.apply_checked(held)?;
        match (before, awaited(&after)) {
            (false, true) => execution.awaiting_pauses += 1,
            (true, false) => {
                execution.awaiting_pauses = execution.awaiting_pauses.saturating_sub(1);
            }
            _ => {}
        }
        Ok((after, opens))
    }

    fn apply_checked(&self, held: Option<PauseRecord>) -> Result<(PauseRecord, bool), String> {
        match (held, self) {
            (None, PauseChange::Open(opened)) => Ok(((**opened).clone(), true)),
            (None, _) => Err(format!("pause `{}` was never opened", self.pause_id())),
            (Some(_), PauseChange::Open(_)) => {
                Err(format!("pause `{}` is opened twice", self.pause_id()))
            }
            (Some(held), PauseChange::Resolve { .. }) if !held.is_open() => {
                Err(format!("pause `{}` is resolved already", self.pause_id()))
            }
            (Some(mut held), _) => {
                self.apply_to(&mut held);
                Ok((held, false))
            }
        }
    }

    /// The pause it changes.
    pub fn pause_id(&self) -> &str {
        match self {
            PauseChange::Open(record) => record.pause_id(),
            PauseChange::Awaiting(pause_id) | PauseChange::Resolve { pause_id, .. } => pause_id,
        }
    }
}

/// The records a journal's events make, as a store derives them one append at a time: the
/// execution's, and its pauses' (in the order they opened). For a store that rebuilds its
/// indexes (a migration); `Err` is the refusal of the first event that cannot follow.
pub fn derive_records(
    execution_id: &str,
    events: &[LoopEvent],
) -> Result<(ExecutionRecord, Vec<PauseRecord>), String> {
    let mut record: Option<ExecutionRecord> = None;
    let mut pauses: Vec<PauseRecord> = Vec::new();
    for (seq, event) in events.iter().enumerate() {
        let seq = seq as u64;
        let mut next = next_record(record.as_ref(), execution_id, seq, event).ok_or_else(|| {
            format!("execution `{execution_id}`: a journal starts with `started`, once")
        })?;
        if let Some(change) = pause_change(&next, seq, event) {
            let at = pauses
                .iter()
                .position(|p| p.pause_id() == change.pause_id());
            let held = at.map(|i| pauses[i].clone());
            let (pause, _) = change.checked(held, &mut next)?;
            match at {
                Some(i) => pauses[i] = pause,
                None => pauses.push(pause),
            }
        }
        record = Some(next);
    }
    let record = record.ok_or_else(|| format!("execution `{execution_id}` has no events"))?;
    Ok((record, pauses))
}
