//! A decision model (`DecisionModel`) reads free-text replies to pauses over real HTTP: the
//! local wire server plays an OpenAI-compatible API for both the agent's model and the decision
//! model. It may only approve or refuse; what it spends is journaled with the answer (or with
//! its refusal) and counted in the execution's usage, spend and budgets, also when another
//! application over the same store drives the execution on.

#[path = "decisions/desk.rs"]
mod desk;

use agboss::app::Resume;
use agboss::model::Usage;
use agboss::prelude::*;
use agboss::spend::Budgets;
use agboss::units::usd;
use desk::{Desk, Mail, completed, decide, mail_ada, reading, readings, text};

/// A reply the model reads as an approval lets the call run once; the model was asked with the
/// question and the reply, forced to `decide`; its tokens and cost are in the execution's usage
/// and spend, journaled with the answer.
#[tokio::test]
async fn a_reply_read_as_approval_runs_the_call_and_counts_the_reading() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"approve","reason":"they said to send it"}"#),
        text("Sent.", 130, 5),
    ])
    .await;
    let app = desk.app();
    let pause = desk.paused(&app, Budgets::none()).await;
    let done = completed(
        app.resume(Resume::reply(&pause, "yes, send it"))
            .await
            .unwrap(),
    );
    assert_eq!(desk.sent(), 1);
    assert_eq!(done.text(), Some("Sent."));
    let requests = desk.server.requests();
    assert_eq!(requests.len(), 3);
    let asked = &requests[1].body;
    assert_eq!(asked["model"], "decider-model");
    assert_eq!(asked["tool_choice"]["function"]["name"], "decide");
    let question = asked["messages"].to_string();
    assert!(question.contains("yes, send it"), "{question}");
    assert!(question.contains("ada@example.com"), "{question}");
    assert_eq!(
        done.usage,
        Usage {
            input_tokens: 100 + 50 + 130,
            output_tokens: 20 + 10 + 5,
        }
    );
    assert_eq!(done.spend, usd("0.0003") + usd("0.0003") + usd("0.00018"));
    let decider: Vec<_> = done
        .spent
        .iter()
        .filter(|e| e.service == "wire/decider-model")
        .map(|e| (e.cost, e.tool, e.call_id.clone()))
        .collect();
    assert_eq!(decider, [(usd("0.0003"), None, None)]);
    assert_eq!(
        readings(&desk.journal().await),
        [("answered".to_owned(), Some(reading()))]
    );
}

/// A reply read as a refusal: the tool never runs and the model reads the decision model's
/// reason.
#[tokio::test]
async fn a_reply_read_as_refusal_keeps_the_call_from_running() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"refuse","reason":"the person wants to wait until Monday"}"#),
        text("Not sent.", 130, 5),
    ])
    .await;
    let app = desk.app();
    let pause = desk.paused(&app, Budgets::none()).await;
    let done = completed(
        app.resume(Resume::reply(&pause, "hold it until Monday"))
            .await
            .unwrap(),
    );
    assert_eq!(desk.sent(), 0);
    let read = &desk.server.requests()[2].body["messages"];
    let result = read.as_array().unwrap().last().unwrap();
    assert_eq!(result["role"], "tool");
    assert_eq!(
        result["content"],
        "Tool error: the call was refused: the person wants to wait until Monday"
    );
    assert_eq!(done.usage.total(), 120 + 60 + 135);
}

/// The model may only approve or refuse: anything else (a verdict outside the two, or no
/// `decide` call at all) refuses the reply with `pause.reply-unclear`, the pause stays open,
/// and what each reading cost is still counted (journaled with the refusal).
#[tokio::test]
async fn a_decision_model_may_only_approve_or_refuse() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"escalate","reason":"unsure"}"#),
        text("I am not sure.", 50, 10),
        text("Sent.", 130, 5),
    ])
    .await;
    let app = desk.app();
    let pause = desk.paused(&app, Budgets::none()).await;

    let refused = app
        .resume(Resume::reply(&pause, "ask my manager"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "pause.reply-unclear");
    assert!(!refused.answer_was_taken());
    let message = refused.to_string();
    assert!(
        message.starts_with(&format!(
            "[pause.reply-unclear] the reply to pause `{pause}` could not be read as an answer: the decision model `wire/decider-model` called `decide` with {{\"decision\":\"escalate\",\"reason\":\"unsure\"}}, which is not `approve` or `refuse` with a reason ("
        )),
        "{message}"
    );
    assert!(
        message.ends_with("): answer with a decision instead"),
        "{message}"
    );

    let refused = app.resume(Resume::reply(&pause, "hmm")).await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        format!(
            "[pause.reply-unclear] the reply to pause `{pause}` could not be read as an answer: the decision model `wire/decider-model` did not call `decide` (it answered \"I am not sure.\"): answer with a decision instead"
        )
    );
    assert_eq!(desk.sent(), 0);

    // The pause is still open: a decision answers it, and the two readings count.
    let done = completed(
        app.resume(Resume::decision(
            &pause,
            ToolCallApprovalDecision::<Mail>::approve(),
        ))
        .await
        .unwrap(),
    );
    assert_eq!(desk.sent(), 1);
    assert_eq!(done.usage.total(), 120 + 60 + 60 + 135);
    assert_eq!(
        done.spend,
        usd("0.0003") + usd("0.0003") + usd("0.0003") + usd("0.00018")
    );
    let unclear = Some(reading());
    assert_eq!(
        readings(&desk.journal().await),
        [
            ("rejected pause.reply-unclear".to_owned(), unclear.clone()),
            ("rejected pause.reply-unclear".to_owned(), unclear),
            ("answered".to_owned(), None),
        ]
    );
}

/// The reading is journaled, so another application over the same store (another process)
/// that drives the execution on counts it: one takes the reply without driving the run
/// (`Application::answer`), the other resumes the execution from its journal.
#[tokio::test]
async fn a_reading_counts_in_the_application_that_drives_the_run_on() {
    let desk = Desk::new([
        mail_ada(),
        decide(r#"{"decision":"approve","reason":"yes"}"#),
        text("Sent.", 130, 5),
    ])
    .await;
    let first = desk.app();
    let pause = desk.paused(&first, Budgets::none()).await;
    let execution = first
        .answer(Resume::reply(&pause, "go ahead"))
        .await
        .unwrap();
    drop(first);
    let second = desk.app();
    let done = completed(second.resume_execution(&execution, None).await.unwrap());
    assert_eq!(desk.sent(), 1);
    assert_eq!(done.usage.total(), 120 + 60 + 135);
    assert_eq!(done.spend, usd("0.0003") + usd("0.0003") + usd("0.00018"));
    assert!(done.spent.iter().any(|e| e.service == "wire/decider-model"));
}

/// A budget counts the reading: the answer is taken, the approved call runs, and the run stops
/// before its next model call, because the reading spent what was left.
#[tokio::test]
async fn a_budget_stops_the_run_a_reading_spent() {
    for (budgets, code) in [
        // $0.0003 by the agent, then $0.0003 by the reading: over $0.0005.
        (Budgets::none().usd(usd("0.0005")), "budgets.usd"),
        // 120 tokens by the agent, then 60 by the reading: over 150.
        (Budgets::none().tokens(150), "budgets.tokens"),
    ] {
        let desk = Desk::new([
            mail_ada(),
            decide(r#"{"decision":"approve","reason":"yes"}"#),
            text("never asked for", 1, 1),
        ])
        .await;
        let app = desk.app();
        let pause = desk.paused(&app, budgets).await;
        let stopped = app.resume(Resume::reply(&pause, "yes")).await.unwrap_err();
        assert_eq!(stopped.code(), code);
        assert!(stopped.answer_was_taken());
        assert_eq!(desk.sent(), 1);
        assert_eq!(desk.server.requests().len(), 2, "{code}");
    }
}

/// Once the execution's budget is spent, no model reads a reply (it would spend more): the
/// reply is refused, saying so, and a decision still answers the pause.
#[tokio::test]
async fn no_model_reads_a_reply_once_the_budget_is_spent() {
    let desk = Desk::new([mail_ada()]).await;
    let app = desk.app();
    // The agent's first call costs $0.0003: over the budget once it answered.
    let pause = desk.paused(&app, Budgets::none().usd(usd("0.0002"))).await;
    let refused = app.resume(Resume::reply(&pause, "yes")).await.unwrap_err();
    assert_eq!(refused.code(), "pause.reply-unclear");
    assert_eq!(
        refused.to_string(),
        format!(
            "[pause.reply-unclear] the reply to pause `{pause}` could not be read as an answer: no model reads it, as the execution's budget is spent ([budgets.usd] BudgetExceededError: budget `usd` is spent: $0.0003 of $0.0002): answer with a decision instead"
        )
    );
    assert_eq!(
        desk.server.requests().len(),
        1,
        "the decision model was not asked"
    );
    let stopped = app
        .resume(Resume::decision(
            &pause,
            ToolCallApprovalDecision::<Mail>::approve(),
        ))
        .await
        .unwrap_err();
    assert!(stopped.answer_was_taken());
    assert_eq!(stopped.code(), "budgets.usd");
    assert_eq!(desk.sent(), 1);
}
