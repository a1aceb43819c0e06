//! What `approve`, `refuse`, `reply` and `answer` print: first that the answer was taken and
//! journaled (or why it was refused), then, each on its own line, the calls that finished after
//! it and how the run went on: completed, waiting again, or failed with its own code. While
//! the run goes on, its progress is on standard error as `worker` shows it: a spinner on a
//! terminal, plain lines elsewhere.
//!
//! ```text
//! pause 3f9c0a…: approved by alice; the answer is journaled in execution 0193…
//!   · note-save-tool -> {"saved":"The dentist is on Tuesday at 9"}
//! error: the run went on and failed: [answer.empty] agent `notes`: the model ...
//! ```

use std::collections::HashMap;

use agboss_core::app::{Application, Resume, ResumeError};
use agboss_core::journal::{Answer, LoopEvent, PauseQuery, PauseResolution};
use agboss_core::run::RunOutcome;
use serde_json::Value;

use super::{Printed, render, wall_ms};
use crate::progress::RunsView;

/// Answers `pause_id` with `resume` and says what came of it.
pub(super) async fn answer(app: &Application, pause_id: &str, resume: Resume) -> Printed {
    let result = watched(app, pause_id, resume, RunsView::on_stderr()).await;
    // An answer is taken once it is journaled; only a failure after it carries a run's error.
    let taken = match &result {
        Ok(_) => true,
        Err(error) => error.answer_was_taken(),
    };
    if !taken {
        let error = result.err().map(|e| e.to_string()).unwrap_or_default();
        return Printed::error(error);
    }
    let (mut text, execution_id) = taken_line(app, pause_id).await;
    if let Some(execution_id) = &execution_id {
        text.push_str(&calls_after(app, execution_id, pause_id).await);
    }
    match result {
        Ok(outcome) => {
            text.push_str(&outcome_text(app, &outcome).await);
            Printed::ok(text)
        }
        Err(error) => Printed {
            text,
            // `[code] message`, the code the run failed with (`answer.empty`, `budgets.usd`).
            error: format!("error: the run went on and failed: {error}\n"),
            failed: true,
        },
    }
}

/// Answers with `resume`, the run that goes on shown in `view` under its execution's id.
async fn watched(
    app: &Application,
    pause_id: &str,
    resume: Resume,
    mut view: RunsView,
) -> Result<RunOutcome, ResumeError> {
    let run = app.resume_stream(resume).await?;
    let execution_id = match app.store().pause(pause_id).await {
        Ok(Some(record)) => record.execution_id,
        Ok(None) | Err(_) => pause_id.to_owned(),
    };
    let outcome = run.watch(|event| view.show(&execution_id, &event)).await;
    view.ended(&execution_id);
    outcome.map_err(ResumeError::from)
}

/// The first line: the pause, how it was answered and by whom, as its journal keeps it; and
/// the execution it belongs to.
async fn taken_line(app: &Application, pause_id: &str) -> (String, Option<String>) {
    let record = match app.store().pause(pause_id).await {
        Ok(Some(record)) => record,
        Ok(None) | Err(_) => {
            return (
                format!("pause {pause_id}: the answer was taken and journaled\n"),
                None,
            );
        }
    };
    let what = match &record.resolution {
        Some(PauseResolution::Answered {
            answer, by, reply, ..
        }) => {
            let by = by.as_deref().map(|by| format!(" by {by}"));
            match reply {
                Some(reply) => format!(
                    "replied{} {reply:?}, read as {}",
                    by.unwrap_or_default(),
                    reading(answer)
                ),
                None => format!("{}{}", decision(answer), by.unwrap_or_default()),
            }
        }
        _ => "answered".to_owned(),
    };
    let text = format!(
        "pause {pause_id}: {what}; the answer is journaled in execution {}\n",
        record.execution_id
    );
    (text, Some(record.execution_id))
}

/// An answer as a verb: `approved`, `refused ("wrong day")`, or `answered {"date": ..}`.
fn decision(answer: &Value) -> String {
    match (
        answer.get("decision").and_then(Value::as_str),
        answer.get("reason"),
    ) {
        (Some("approve"), _) => "approved".to_owned(),
        (Some("refuse"), Some(Value::String(reason))) => format!("refused ({reason:?})"),
        _ => format!("answered {answer}"),
    }
}

/// What a reply was read as: `approval`, `a refusal ("wrong day")`, or the answer's JSON.
fn reading(answer: &Value) -> String {
    match (
        answer.get("decision").and_then(Value::as_str),
        answer.get("reason"),
    ) {
        (Some("approve"), _) => "approval".to_owned(),
        (Some("refuse"), Some(Value::String(reason))) => format!("a refusal ({reason:?})"),
        _ => answer.to_string(),
    }
}

/// The calls that finished after the answer was journaled, one line each, as the model reads
/// them: `  · note-save-tool -> {"saved": ..}`.
async fn calls_after(app: &Application, execution_id: &str, pause_id: &str) -> String {
    let Ok(events) = app.store().events(execution_id).await else {
        return String::new();
    };
    let mut names = HashMap::new();
    let mut answered = false;
    let mut text = String::new();
    for event in &events {
        match event {
            LoopEvent::ModelAnswered { calls, .. } => {
                for call in calls {
                    names.insert(call.call_id.as_str(), call.call.name.as_str());
                }
            }
            LoopEvent::PauseResolved { pause_id: id, .. } if id == pause_id => answered = true,
            LoopEvent::ToolFinished {
                call_id, content, ..
            } if answered => {
                let tool = names.get(call_id.as_str()).copied().unwrap_or(call_id);
                text.push_str(&format!("  · {tool} -> {content}\n"));
            }
            _ => {}
        }
    }
    text
}

/// How a resumed run stopped, in a few lines: its answer, or the pauses it waits on again.
pub(super) async fn outcome_text(app: &Application, outcome: &RunOutcome) -> String {
    match outcome {
        RunOutcome::Completed(done) => {
            let answer = match &done.answer {
                Answer::Text(text) => text.clone(),
                Answer::Structured(value) => value.to_string(),
            };
            format!(
                "execution {} completed ({} tool calls, {} tokens, {}):\n{answer}\n",
                done.execution_id,
                done.tool_calls,
                done.usage.total(),
                done.spend
            )
        }
        RunOutcome::Paused(paused) => {
            let mut text = format!("execution {} waits", paused.execution_id);
            let query = PauseQuery {
                execution: Some(paused.execution_id.clone()),
                ..PauseQuery::default()
            };
            match app.store().open_pauses(&query).await {
                Ok(pauses) => {
                    text.push_str(&format!(" for {} answers:\n", pauses.len()));
                    let now = wall_ms(app);
                    text.extend(pauses.iter().map(|pause| render(pause, now)));
                }
                Err(error) => text.push_str(&format!(" (its pauses cannot be listed: {error})\n")),
            }
            text
        }
        RunOutcome::Elsewhere(elsewhere) => format!(
            "execution {} goes on in instance {}, which holds it now\n",
            elsewhere.execution_id,
            elsewhere.holder.as_deref().unwrap_or("(another)")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_read_as_verbs() {
        assert_eq!(decision(&json!({"decision": "approve"})), "approved");
        assert_eq!(
            decision(&json!({"decision": "refuse", "reason": "wrong day"})),
            "refused (\"wrong day\")"
        );
        assert_eq!(
            decision(&json!({"date": "2026-12-01"})),
            "answered {\"date\":\"2026-12-01\"}"
        );
        assert_eq!(reading(&json!({"decision": "approve"})), "approval");
        assert_eq!(
            reading(&json!({"decision": "refuse", "reason": "no"})),
            "a refusal (\"no\")"
        );
    }
}
