//! [`Resume`]: answering a pause, from this process or any other reading the same store, and
//! what is refused (each refusal audited, the pause left open).

use serde::Serialize;
use serde_json::Value;

use agboss_rules::codes::{self, Code};

use super::Application;
use crate::channel::{InterpretContext, PauseAnswerer};
use crate::context::Signal;
use crate::journal::{LoopEvent, PauseRecord, PauseResolution, StoreError};
use crate::run::{RunError, RunOptions, RunOutcome, millis_since_epoch};

/// An answer to a pause: a decision (the role's answer type), or free text its reply
/// interpreter reads.
///
/// ```
/// use agboss_core::app::Resume;
/// use agboss_core::channel::ToolCallApprovalDecision;
///
/// let approve = Resume::decision("5f0c…", ToolCallApprovalDecision::<()>::approve())
///     .answered_by("manager-17");
/// let reply = Resume::reply("5f0c…", "yes, go ahead").answered_by("u-1");
/// # let _ = (approve, reply);
/// ```
#[derive(Clone, Debug)]
#[must_use = "a resume does nothing until `Application::resume` takes it"]
pub struct Resume {
    pause_id: String,
    answer: Answer,
    by: Option<String>,
    execution: Option<String>,
    arguments_digest: Option<String>,
    signal: Option<Signal>,
}

#[derive(Clone, Debug)]
enum Answer {
    Decision(Result<Value, String>),
    Reply(String),
}

impl Resume {
    /// Answers pause `pause_id` with `decision`: the role's answer type
    /// (`ToolCallApprovalDecision<Dto>` for an approval role), checked against its schema.
    pub fn decision(pause_id: impl Into<String>, decision: impl Serialize) -> Resume {
        let decision = serde_json::to_value(decision).map_err(|e| e.to_string());
        Resume::new(pause_id.into(), Answer::Decision(decision))
    }

    /// Answers pause `pause_id` in free text, which the role's reply interpreter reads.
    pub fn reply(pause_id: impl Into<String>, text: impl Into<String>) -> Resume {
        Resume::new(pause_id.into(), Answer::Reply(text.into()))
    }

    fn new(pause_id: String, answer: Answer) -> Resume {
        Resume {
            pause_id,
            answer,
            by: None,
            execution: None,
            arguments_digest: None,
            signal: None,
        }
    }

    /// Who answers: a thread-owner pause takes answers from its thread's owner only.
    pub fn answered_by(mut self, who: impl Into<String>) -> Resume {
        self.by = Some(who.into());
        self
    }

    /// The execution the answer is meant for: refused if the pause belongs to another.
    pub fn for_execution(mut self, execution_id: impl Into<String>) -> Resume {
        self.execution = Some(execution_id.into());
        self
    }

    /// The digest of the arguments the answerer saw (`arguments_digest` of the question):
    /// refused if the call's arguments are not those.
    pub fn for_arguments(mut self, digest: impl Into<String>) -> Resume {
        self.arguments_digest = Some(digest.into());
        self
    }

    /// The signal of the run the answer lets go on: cancel it to stop that run.
    pub fn signal(mut self, signal: Signal) -> Resume {
        self.signal = Some(signal);
        self
    }
}

/// Why an answer was not taken. Every refusal but a store failure leaves the pause open and
/// is audited (a `pause_answer_rejected` event in the journal, and a warning in the traces).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("[{}] {message}", code.id())]
pub struct ResumeError {
    code: &'static Code,
    message: String,
    /// The run that went on after the answer failed (the answer itself was taken).
    run: Option<Box<RunError>>,
    /// The store failed.
    store: Option<StoreError>,
}

impl ResumeError {
    /// Its code: `pause.unknown`, `pause.wrong-answerer`, `pause.already-answered`, ...; `run`
    /// or `store` for a failure after the answer or of the store.
    pub fn code(&self) -> &'static str {
        self.code.id()
    }

    /// The error of the run that went on after the answer was taken, if that is what failed.
    pub fn run_error(&self) -> Option<&RunError> {
        self.run.as_deref()
    }

    fn of(code: &'static Code, values: &[(&str, &dyn std::fmt::Display)]) -> ResumeError {
        ResumeError {
            code,
            message: code.fill(values),
            run: None,
            store: None,
        }
    }

    fn store(error: StoreError) -> ResumeError {
        ResumeError {
            code: &codes::STORE,
            message: error.to_string(),
            run: None,
            store: Some(error),
        }
    }

    fn run(error: RunError) -> ResumeError {
        ResumeError {
            code: match &error {
                RunError::Store(_) => &codes::STORE,
                _ => &codes::MODEL,
            },
            message: error.to_string(),
            run: Some(Box::new(error)),
            store: None,
        }
    }
}

impl Application {
    /// Answers a pause and lets its execution go on: when this answer closes its last open
    /// pause, the run continues (the approved call runs with its journaled arguments; the
    /// model is not asked again for what it already said) and this returns how it stopped:
    /// completed, or paused again. While other pauses of the execution stay open, it returns
    /// `RunOutcome::Paused`.
    ///
    /// Refused, with the pause left open: an unknown id, an answer from someone the role does
    /// not let answer, for another execution, for other arguments, after the role's time
    /// limit, or not of the role's answer type; `pause.already-answered` for a pause closed
    /// already (of two concurrent answers exactly one is taken), `pause.execution-cancelled`
    /// for an execution cancelled meanwhile.
    pub async fn resume(&self, resume: Resume) -> Result<RunOutcome, ResumeError> {
        let record = self.take_answer(&resume).await?;
        self.drive_journal(
            &record.execution_id,
            resume.signal.clone(),
            RunOptions::default(),
        )
        .await
        .map_err(ResumeError::run)
    }

    /// Takes an answer to a pause without driving its execution on: the answer is checked and
    /// journaled as [`resume`](Self::resume) does it (the same refusals), and the execution is
    /// left to whichever instance claims it next: a worker ([`Application::worker`]), or a
    /// [`recover`](Self::recover). For a process that receives answers (a webhook, a chat
    /// bot) while others run the agents. Returns the execution's id.
    pub async fn answer(&self, resume: Resume) -> Result<String, ResumeError> {
        Ok(self.take_answer(&resume).await?.execution_id)
    }

    /// Checks `resume` against its pause and journals it; the pause's record.
    async fn take_answer(&self, resume: &Resume) -> Result<PauseRecord, ResumeError> {
        let pause_id = resume.pause_id.clone();
        let Some(record) = self
            .store
            .pause(&pause_id)
            .await
            .map_err(ResumeError::store)?
        else {
            tracing::warn!(pause_id = %pause_id, code = "pause.unknown", "answer to an unknown pause refused");
            return Err(ResumeError::of(
                &codes::PAUSE_UNKNOWN,
                &[("pause_id", &pause_id)],
            ));
        };
        if let Err(refused) = self.check(resume, &record) {
            self.audit(&record, resume.by.as_deref(), refused.code)
                .await;
            return Err(refused);
        }
        let answer = match self.answer_of(resume, &record).await {
            Ok(answer) => answer,
            Err(refused) => {
                self.audit(&record, resume.by.as_deref(), refused.code)
                    .await;
                return Err(refused);
            }
        };
        let reply = match &resume.answer {
            Answer::Reply(text) => Some(text.clone()),
            Answer::Decision(_) => None,
        };
        let resolution = PauseResolution::Answered {
            answer,
            by: resume.by.clone(),
            reply,
        };
        self.record_answer(&record, resolution).await?;
        Ok(record)
    }

    /// The checks that need no answer: who, which execution, which arguments, until when.
    fn check(&self, resume: &Resume, record: &PauseRecord) -> Result<(), ResumeError> {
        let pause_id = record.pause_id();
        match &record.resolution {
            Some(PauseResolution::Cancelled { .. }) => {
                return Err(ResumeError::of(
                    &codes::PAUSE_EXECUTION_CANCELLED,
                    &[("pause_id", &pause_id)],
                ));
            }
            Some(_) => {
                return Err(ResumeError::of(
                    &codes::PAUSE_ALREADY_ANSWERED,
                    &[("pause_id", &pause_id)],
                ));
            }
            None => {}
        }
        if let Some(asked) = &resume.execution
            && *asked != record.execution_id
        {
            return Err(ResumeError::of(
                &codes::PAUSE_OTHER_EXECUTION,
                &[
                    ("pause_id", &pause_id),
                    ("execution", &record.execution_id),
                    ("asked", asked),
                ],
            ));
        }
        if record.opened.answered_by == PauseAnswerer::ThreadOwner {
            let owner = record.opened.owner.as_deref();
            if owner.is_none() || resume.by.as_deref() != owner {
                let by = resume.by.as_deref().map_or_else(
                    || "an answer that says nobody".to_owned(),
                    |b| format!("`{b}`"),
                );
                return Err(ResumeError::of(
                    &codes::PAUSE_WRONG_ANSWERER,
                    &[
                        ("pause_id", &pause_id),
                        ("owner", &owner.unwrap_or("(no owner: the run had none)")),
                        ("by", &by),
                    ],
                ));
            }
        }
        if let Some(until) = record.opened.expires_at_ms {
            let now = millis_since_epoch(self.clock.wall_time());
            if now > until {
                return Err(ResumeError::of(
                    &codes::PAUSE_EXPIRED,
                    &[("pause_id", &pause_id), ("until", &format!("{until} ms"))],
                ));
            }
        }
        if let Some(given) = &resume.arguments_digest
            && *given != record.opened.arguments_digest
        {
            return Err(ResumeError::of(
                &codes::PAUSE_ARGUMENTS_CHANGED,
                &[
                    ("pause_id", &pause_id),
                    ("given", given),
                    ("actual", &record.opened.arguments_digest),
                ],
            ));
        }
        Ok(())
    }

    /// The answer, as the role's answer type checked: the decision given, or the reply read by
    /// the role's interpreter.
    async fn answer_of(&self, resume: &Resume, record: &PauseRecord) -> Result<Value, ResumeError> {
        let pause_id = record.pause_id();
        let role_name = record.opened.role.as_str();
        let invalid = |issues: &dyn std::fmt::Display| {
            ResumeError::of(
                &codes::PAUSE_INVALID_ANSWER,
                &[
                    ("pause_id", &pause_id),
                    ("role", &role_name),
                    ("issues", issues),
                ],
            )
        };
        let answer = match &resume.answer {
            Answer::Decision(Ok(value)) => value.clone(),
            Answer::Decision(Err(why)) => {
                return Err(invalid(&format!("it has no JSON form: {why}")));
            }
            Answer::Reply(text) => {
                let role = self.approvals.role(role_name);
                let Some(interpreter) = role.and_then(|r| r.interpreter()) else {
                    return Err(ResumeError::of(
                        &codes::PAUSE_NO_INTERPRETER,
                        &[("pause_id", &pause_id), ("role", &role_name)],
                    ));
                };
                let context = InterpretContext::new(
                    self.router().ok(),
                    resume.signal.clone().unwrap_or_default(),
                );
                (interpreter.interpret())(&record.opened.question, text, &context)
                    .await
                    .map_err(|why| {
                        ResumeError::of(
                            &codes::PAUSE_REPLY_UNCLEAR,
                            &[("pause_id", &pause_id), ("why", &why)],
                        )
                    })?
            }
        };
        self.approvals
            .check_answer(role_name, &answer)
            .map_err(|issues| invalid(&issues))?;
        Ok(answer)
    }

    /// Appends the answer to the pause's execution, after whatever came first; of two answers
    /// to one pause, the one appended first wins.
    async fn record_answer(
        &self,
        record: &PauseRecord,
        resolution: PauseResolution,
    ) -> Result<(), ResumeError> {
        let pause_id = record.pause_id().to_owned();
        let event = LoopEvent::PauseResolved {
            pause_id: pause_id.clone(),
            resolution,
        };
        loop {
            // The journal's length first, then the pause: an answer appended between the two
            // reads takes a place at or after that length, so this append then fails.
            let execution = self
                .store
                .execution(&record.execution_id)
                .await
                .map_err(ResumeError::store)?;
            let now = self
                .store
                .pause(&pause_id)
                .await
                .map_err(ResumeError::store)?;
            let (Some(now), Some(execution)) = (now, execution) else {
                return Err(ResumeError::of(
                    &codes::PAUSE_UNKNOWN,
                    &[("pause_id", &pause_id)],
                ));
            };
            if now.resolution.is_some() {
                let code = match now.resolution {
                    Some(PauseResolution::Cancelled { .. }) => &codes::PAUSE_EXECUTION_CANCELLED,
                    _ => &codes::PAUSE_ALREADY_ANSWERED,
                };
                return Err(ResumeError::of(code, &[("pause_id", &pause_id)]));
            }
            match self
                .store
                .append(&record.execution_id, execution.events, &event)
                .await
            {
                Ok(()) => return Ok(()),
                // Something came first: look again at the pause.
                Err(error) if error.is_conflict() => continue,
                Err(error) => return Err(ResumeError::store(error)),
            }
        }
    }

    /// Keeps a refused answer in the pause's journal (best effort: a refusal is a refusal even
    /// when its audit record cannot be written) and in the traces.
    async fn audit(&self, record: &PauseRecord, by: Option<&str>, code: &'static Code) {
        tracing::warn!(
            pause_id = %record.pause_id(),
            execution_id = %record.execution_id,
            by = by.unwrap_or(""),
            code = code.id(),
            "an answer to a pause was refused"
        );
        let event = LoopEvent::PauseAnswerRejected {
            pause_id: record.pause_id().to_owned(),
            by: by.map(str::to_owned),
            code: code.id().to_owned(),
        };
        for _ in 0..8 {
            let Ok(Some(execution)) = self.store.execution(&record.execution_id).await else {
                return;
            };
            match self
                .store
                .append(&record.execution_id, execution.events, &event)
                .await
            {
                Err(error) if error.is_conflict() => continue,
                _ => return,
            }
        }
    }

    /// Cancels execution `execution_id`: a run of it under way in this process stops (its
    /// signal fires), and an execution that waits for answers has its pauses closed and ends
    /// `cancelled`; a late answer is told so (`pause.execution-cancelled`). An execution that
    /// ended stays as it ended. One that another instance drives is not cancelled from here
    /// (`lease.held`: cancel it in that instance).
    pub async fn cancel(&self, execution_id: &str, reason: &str) -> Result<(), RunError> {
        if let Some(signal) = self.running.signal(execution_id) {
            signal.cancel(crate::context::AbortReason::cancelled(reason));
        }
        let _driver = self.locks.lock(execution_id).await;
        let Some(lease) = self.claim(execution_id).await? else {
            let holder = match self.elsewhere(execution_id).await? {
                RunOutcome::Elsewhere(elsewhere) => elsewhere.holder,
                _ => None,
            };
            return Err(RunError::HeldElsewhere {
                execution_id: execution_id.to_owned(),
                holder: holder.unwrap_or_else(|| "another instance".to_owned()),
            });
        };
        let cancelled = self.cancel_claimed(execution_id, reason, &lease).await;
        if let Err(error) = self.store.release(&lease).await {
            tracing::warn!(execution_id, %error, "the lease could not be released");
        }
        cancelled
    }

    async fn cancel_claimed(
        &self,
        execution_id: &str,
        reason: &str,
        lease: &crate::journal::Lease,
    ) -> Result<(), RunError> {
        let events = self
            .store
            .events(execution_id)
            .await
            .map_err(RunError::Store)?;
        if events.is_empty() {
            return Err(RunError::NotFound(format!(
                "the store has no execution `{execution_id}`"
            )));
        }
        let mut state =
            crate::journal::LoopState::from_events(&events).map_err(RunError::Journal)?;
        // One event at a time, each decided from the journal as it is: an answer appended
        // meanwhile closes its pause itself.
        while !state.is_over() {
            let open = state
                .pauses
                .values()
                .find(|p| p.resolution.is_none())
                .map(|p| p.opened.pause_id.clone());
            let event = match open {
                Some(pause_id) => LoopEvent::PauseResolved {
                    pause_id,
                    resolution: PauseResolution::Cancelled {
                        reason: format!("cancelled: {reason}"),
                    },
                },
                None => LoopEvent::Failed {
                    code: "cancelled".into(),
                    message: format!("cancelled: {reason}"),
                },
            };
            let appended = self
                .store
                .append_as(execution_id, state.events, &event, lease.fence())
                .await;
            match appended {
                Ok(()) => state.apply(event),
                Err(error) if error.is_conflict() => {
                    let events = self
                        .store
                        .events(execution_id)
                        .await
                        .map_err(RunError::Store)?;
                    for newer in events.get(state.events as usize..).unwrap_or_default() {
                        state.apply(newer.clone());
                    }
                }
                Err(error) => return Err(RunError::Store(error)),
            }
        }
        Ok(())
    }
}
