//! What a run ends with after an answer, and runs refused before they start: each failure keeps
//! its own code.

use std::sync::atomic::Ordering;

use super::Resume;
use super::pause_tests::{Fixture, fixture, save};
use crate::channel::ToolCallApprovalDecision;
use crate::dto::PlainText;
use crate::journal::LoopEvent;
use crate::model::Turn;
use crate::run::RunOutcome;
use crate::store::Journal;

/// The pause of a run started with `budgets`, answered: what the run that goes on ends with.
async fn resumed_error(f: &Fixture, budgets: crate::spend::Budgets) -> crate::app::ResumeError {
    let outcome = f
        .app
        .run("desk", "save it")
        .execution_id("e-1")
        .thread("t-1")
        .owner("u-1")
        .budgets(budgets)
        .await
        .unwrap();
    let RunOutcome::Paused(paused) = outcome else {
        panic!("the run did not pause: {outcome:?}");
    };
    let approve = ToolCallApprovalDecision::<PlainText>::approve();
    f.app
        .resume(Resume::decision(&paused.pending[0].pause_id, approve).answered_by("u-1"))
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_failure_after_an_answer_keeps_its_own_code() {
    let none = crate::spend::Budgets::none();
    let empty = fixture([save("x"), Turn::text("")]);
    let error = resumed_error(&empty, none).await;
    assert_eq!(error.code(), "answer.empty", "{error}");
    assert!(error.answer_was_taken());
    assert_eq!(
        empty.seen.runs.load(Ordering::SeqCst),
        1,
        "the approved call ran"
    );

    let spent = fixture([save("x").usage(600, 0), Turn::text("never asked")]);
    let error = resumed_error(&spent, none.tokens(500)).await;
    assert_eq!(error.code(), "budgets.tokens", "{error}");
    assert!(
        error
            .to_string()
            .starts_with("[budgets.tokens] BudgetExceededError: "),
        "{error}"
    );

    let silent = fixture([save("x")]);
    let error = resumed_error(&silent, none).await;
    assert_eq!(error.code(), "model", "{error}");

    let journaled = |f: &Fixture| {
        let store = f.store.clone();
        async move {
            match store.events("e-1").await.unwrap().last() {
                Some(LoopEvent::Failed { code, .. }) => code.clone(),
                other => panic!("the run did not fail: {other:?}"),
            }
        }
    };
    assert_eq!(journaled(&spent).await, "budgets.tokens");
    assert_eq!(journaled(&empty).await, "answer.empty");
}

#[tokio::test]
async fn a_run_that_may_pause_for_its_owner_needs_one() {
    let f = fixture([save("x")]);
    let agent = f.app.workflow("desk").unwrap().agent("notes").unwrap();
    assert_eq!(agent.owner_roles(), ["note-approval-channel"]);
    let error = f
        .app
        .run("desk", "save it")
        .execution_id("e-1")
        .thread("t-1")
        .await
        .unwrap_err();
    assert_eq!(error.code(), "run.owner-required");
    assert_eq!(
        error.to_string(),
        "agent `notes` has tools that wait for the thread's owner (`note-approval-channel`), and this run states no owner, so nobody could answer their pauses: start it with `.owner(..)` (the CLI's user), or answer those roles by a channel (`answered_by = Channel`)"
    );
    assert!(f.model.requests().is_empty(), "refused before the model");
    assert!(f.store.events("e-1").await.unwrap().is_empty());
    let submitted = f.app.run("desk", "save it").submit().await.unwrap_err();
    assert_eq!(submitted.code(), "run.owner-required");
}
