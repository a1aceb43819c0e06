//! [`Resume`]: answering a pause, from this process or any other reading the same store, and
//! what is refused (each refusal audited, the pause left open).

mod checks;
mod error;

use serde::Serialize;
use serde_json::Value;

use agboss_rules::codes;

pub use error::ResumeError;

use super::Application;
use super::stream::RunStream;
use crate::channel::ReplyReading;
use crate::context::Signal;
use crate::journal::{LoopEvent, PauseRecord, PauseResolution};
use crate::run::{EventSink, RunOptions, RunOutcome};

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

    /// [`resume`](Self::resume), watched: the answer is checked and journaled first (a refusal
    /// comes back as `resume` gives it, before any event), then the execution goes on as the
    /// returned [`RunStream`] is polled, with the events of a watched run. What `agboss
    /// approve` and the other answering subcommands show their progress from.
    ///
    /// ```no_run
    /// # async fn demo(app: agboss_core::app::Application, pause_id: String) {
    /// use agboss_core::app::Resume;
    /// use agboss_core::run::RunEvent;
    ///
    /// let resume = Resume::reply(pause_id, "yes, go ahead");
    /// let outcome = match app.resume_stream(resume).await {
    ///     Ok(run) => run.watch(|event| {
    ///         if let RunEvent::ToolStarted { tool, .. } = event {
    ///             eprintln!("[{tool}...]");
    ///         }
    ///     })
    ///     .await,
    ///     Err(refused) => return eprintln!("{refused}"),
    /// };
    /// # let _ = outcome;
    /// # }
    /// ```
    pub async fn resume_stream(&self, resume: Resume) -> Result<RunStream<'_>, ResumeError> {
        let record = self.take_answer(&resume).await?;
        let (sink, events) = EventSink::new();
        let options = RunOptions {
            events: Some(sink),
            ..RunOptions::default()
        };
        let running = Box::pin(async move {
            self.drive_journal(&record.execution_id, resume.signal.clone(), options)
                .await
        });
        Ok(RunStream::new(running, events))
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
            tracing::warn!(pause_id = %pause_id, code = codes::PAUSE_UNKNOWN.id(), "answer to an unknown pause refused");
            return Err(ResumeError::of(
                &codes::PAUSE_UNKNOWN,
                &[("pause_id", &pause_id)],
            ));
        };
        if let Err(refused) = self.check(resume, &record) {
            // An answer to a closed pause (answered, or its execution cancelled) is told so and
            // not audited: the pause has its one answer, and nothing more belongs in its
            // journal (an append there would race the instance that drives the run on).
            if record.resolution.is_none() {
                self.audit(&record, resume.by.as_deref(), refused.code(), None)
                    .await;
            }
            return Err(refused);
        }
        // What a model that reads a reply spends is journaled either way: with the answer, or
        // with its refusal.
        let mut reading = None;
        let answer = match self.answer_of(resume, &record, &mut reading).await {
            Ok(answer) => answer,
            Err(refused) => {
                self.audit(&record, resume.by.as_deref(), refused.code(), reading)
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
            reading,
        };
        self.record_answer(&record, resolution).await?;
        Ok(record)
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
    /// when its audit record cannot be written) and in the traces, with what a model that read
    /// the reply spent.
    async fn audit(
        &self,
        record: &PauseRecord,
        by: Option<&str>,
        code: &str,
        reading: Option<ReplyReading>,
    ) {
        tracing::warn!(
            pause_id = %record.pause_id(),
            execution_id = %record.execution_id,
            by = by.unwrap_or(""),
            code,
            "an answer to a pause was refused"
        );
        let event = LoopEvent::PauseAnswerRejected {
            pause_id: record.pause_id().to_owned(),
            by: by.map(str::to_owned),
            code: code.to_owned(),
            reading,
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
                // Something came first; once it closed the pause, nothing more is audited.
                Err(error) if error.is_conflict() => {
                    let closed = self.store.pause(record.pause_id()).await;
                    if !matches!(closed, Ok(Some(pause)) if pause.resolution.is_none()) {
                        return;
                    }
                }
                _ => return,
            }
        }
    }
}
