//! An MCP server's requests for input during a call (elicitation), against real servers:
//! server-everything's `trigger-elicitation-request` (which it offers only to a client that
//! offers elicitation) and the scripted server's `elicit` (which asks whatever the client
//! offers). With an `elicitation` role on the server, the run pauses with the server's question;
//! an answer given later, by another `Application` on the same store, runs the call again from
//! its start and the server gets the answer. Without a role, every request is declined, as
//! before.

mod elicitation_common;
mod mcp_common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agboss::mcp::ElicitationAnswer;
use agboss::model::{ScriptedModel, Turn};
use agboss::run::RunOutcome;
use agboss::store::Store;
use agboss::testing::test_tool;
use agboss::tool::Tool;
use agboss::{Application, Resume};
use elicitation_common::*;
use mcp_common::{env, fake, log_with, temp_dir};
use serde_json::json;

/// The pause a run stopped at: the server's question to `tool`, asked of the thread's owner.
fn paused_on(outcome: &RunOutcome, tool: &str) -> (String, serde_json::Value) {
    let paused = outcome.paused().expect("the run waits for the owner");
    assert_eq!(paused.pending.len(), 1);
    let pause = &paused.pending[0];
    assert_eq!(pause.role, "server-input-channel");
    assert_eq!(pause.tool, tool);
    (pause.pause_id.clone(), pause.question.clone())
}

/// Runs the profiler until it pauses on the server's question, in a first application that is
/// then shut down; the pause's id.
async fn paused_run(store: &Arc<dyn Store>, model: &ScriptedModel, asked: &Arc<Asked>) -> String {
    let first = app(store.clone(), model, asked);
    let outcome = alices_run(&first, "desk", "fill in my profile").await;
    let (pause_id, question) = paused_on(&outcome, "profile-form-tool");
    assert_eq!(question["server"], "everything-asking");
    assert_eq!(
        question["message"],
        "Please provide inputs for the following fields:"
    );
    let schema = &question["requested_schema"];
    assert_eq!(schema["properties"]["name"]["type"], "string", "{schema}");
    assert_eq!(schema["required"], json!(["name"]), "{schema}");
    let sent = asked.0.lock().unwrap().clone();
    assert_eq!(sent.len(), 1, "the channel was asked once");
    assert_eq!(serde_json::to_value(&sent[0]).unwrap(), question);
    first.shutdown().await;
    pause_id
}

/// Alice's run of `input` in `workflow`, in thread `t-1`.
async fn alices_run(app: &Application, workflow: &str, input: &str) -> RunOutcome {
    app.run(workflow, input)
        .thread("t-1")
        .owner("alice")
        .await
        .unwrap()
}

/// Alice answers the pause `pause_id` with `answer`: how the run went on.
async fn alice_answers(app: &Application, pause_id: &str, answer: ElicitationAnswer) -> RunOutcome {
    let answered = Resume::decision(pause_id, answer).answered_by("alice");
    app.resume(answered).await.unwrap()
}

/// A model that calls `tool` without arguments, then answers `then`.
fn calling(tool: &str, then: &str) -> ScriptedModel {
    ScriptedModel::new([Turn::call(tool, json!({})), Turn::text(then)])
}

/// What the tool returned to the model, as the model's last request shows it.
fn tool_result(model: &ScriptedModel) -> String {
    let requests = model.requests();
    format!("{:?}", requests.last().unwrap().messages)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_question_pauses_the_run_and_the_answer_given_later_reaches_the_server() {
    agboss::model::forbid_real_requests(true);
    let (store, _folder) = sqlite().await;
    let asked = Arc::new(Asked::default());
    let model = calling("profile-form-tool", "Profile saved.");
    let pause_id = paused_run(&store, &model, &asked).await;

    // Another application on the same store answers; the call is made again, the server asks
    // again, and the journaled answer is given to it at once.
    let second = app(store.clone(), &model, &asked);
    let answer =
        ElicitationAnswer::accept([("name", json!("Ada Lovelace")), ("check", json!(true))]);
    let outcome = alice_answers(&second, &pause_id, answer).await;
    assert_eq!(outcome.text(), Some("Profile saved."));
    let result = tool_result(&model);
    assert!(
        result.contains("User provided the requested information!")
            && result.contains("- Name: Ada Lovelace")
            && result.contains("- Agreed to terms: true"),
        "{result}"
    );
    // Fields left out are sent with their defaults from the server's schema.
    assert!(result.contains("- Favorite Integer: 42"), "{result}");
    assert_eq!(
        asked.0.lock().unwrap().len(),
        1,
        "the answered question is not asked of the channel again"
    );
    assert_eq!(model.remaining(), 0);
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_declined_question_is_declined_to_the_server() {
    agboss::model::forbid_real_requests(true);
    let (store, _folder) = sqlite().await;
    let asked = Arc::new(Asked::default());
    let model = calling("profile-form-tool", "No profile, then.");
    let pause_id = paused_run(&store, &model, &asked).await;
    let second = app(store.clone(), &model, &asked);
    let outcome = alice_answers(&second, &pause_id, ElicitationAnswer::Decline).await;
    assert_eq!(outcome.text(), Some("No profile, then."));
    let result = tool_result(&model);
    assert!(
        result.contains("User declined to provide the requested information."),
        "{result}"
    );
    second.shutdown().await;
}

#[tokio::test]
async fn an_mcp_tool_declares_it_asks_its_servers_role() {
    let asks = <ProfileForm as Tool>::DESCRIPTOR.asks();
    assert_eq!(asks.len(), 1);
    assert_eq!(asks[0].role(), "server-input-channel");
    assert!(<Colour as Tool>::DESCRIPTOR.asks().is_empty());
}

#[tokio::test]
async fn without_a_role_the_client_offers_no_elicitation_and_declines() {
    let (env, log) = fake("elicit-no-role", "normal");
    let tool = test_tool::<Colour>().env(env);
    let outcome = tool.invoke("{}").await;
    assert!(outcome.is_ok(), "{}", outcome.content);
    assert!(
        outcome.content.contains("action=decline content=null"),
        "{}",
        outcome.content
    );
    let logged = log_with(&log, "capabilities").await;
    let offered = logged
        .lines()
        .find_map(|line| line.strip_prefix("capabilities "))
        .expect("the client initialized");
    assert!(!offered.contains("elicitation"), "{offered}");
    tool.shutdown().await;
}

#[tokio::test]
async fn a_call_outside_a_run_has_its_servers_questions_declined() {
    let tool = test_tool::<ProfileForm>().env(env(&temp_dir("elicit-no-run"), &[]));
    let outcome = tool.invoke("{}").await;
    assert!(outcome.is_ok(), "{}", outcome.content);
    assert!(
        outcome
            .content
            .contains("User declined to provide the requested information."),
        "{}",
        outcome.content
    );
    tool.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_each_of_two_parallel_calls_is_asked_its_own_question() {
    agboss::model::forbid_real_requests(true);
    let server = mcp_servers::HttpServer::start_everything().await;
    let (store, _folder) = sqlite().await;
    let asked = Arc::new(Asked::default());
    let form = ("profile-form-over-http-tool", json!({}));
    let model = ScriptedModel::new([Turn::calls([form.clone(), form]), Turn::text("Both saved.")]);
    let env = || servers(&[("EVERYTHING_URL", server.url())]);
    let first = app_with(store.clone(), &model, &asked, env());
    let outcome = alices_run(&first, "http-desk", "fill in both profiles").await;
    let paused = outcome.paused().expect("both calls wait for the owner");
    let pending = paused.pending.clone();
    assert_eq!(pending.len(), 2, "{pending:?}");
    assert_ne!(pending[0].call_id, pending[1].call_id);
    assert!(pending.iter().all(|p| p.role == "server-input-channel"));
    first.shutdown().await;

    let second = app_with(store.clone(), &model, &asked, env());
    let mut outcome = None;
    for (pause, name) in pending.iter().zip(["Ada Lovelace", "Grace Hopper"]) {
        let answer = ElicitationAnswer::accept([("name", json!(name))]);
        let resumed = alice_answers(&second, &pause.pause_id, answer).await;
        outcome = Some(resumed);
    }
    assert_eq!(outcome.unwrap().text(), Some("Both saved."));
    let result = tool_result(&model);
    assert!(
        result.contains("- Name: Ada Lovelace") && result.contains("- Name: Grace Hopper"),
        "{result}\n{}",
        server.output()
    );
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_journaled_after_the_calls_timeout_keeps_its_pause() {
    agboss::model::forbid_real_requests(true);
    let (store, _folder) = sqlite().await;
    // The channel takes longer to say the answer comes later than the call may run.
    let asked = Arc::new(Asked(Mutex::default(), Duration::from_secs(2)));
    let model = calling("quick-colour-tool", "Colour picked.");
    let (env, log) = fake("elicit-timeout", "normal");
    let first = colour_app(store.clone(), &model, &asked, env.clone());
    // Started first, so that the call's second goes to the question, not to starting python.
    first.start_mcp_servers().await.unwrap();
    let outcome = alices_run(&first, "colour-desk", "pick a colour").await;
    assert!(outcome.paused().is_some(), "{outcome:?}");
    let (pause_id, question) = paused_on(&outcome, "quick-colour-tool");
    assert_eq!(question["server"], "fake-asking");
    assert_eq!(question["message"], "Which colour?");
    first.shutdown().await;

    let second = colour_app(store.clone(), &model, &asked, env);
    let answer = ElicitationAnswer::accept(Vec::<(String, serde_json::Value)>::new());
    let outcome = alice_answers(&second, &pause_id, answer).await;
    assert_eq!(outcome.text(), Some("Colour picked."));
    // The answer left the colour out: the schema's default is sent.
    let result = tool_result(&model);
    assert!(
        result.contains("action=accept content=") && result.contains("green"),
        "{result}"
    );
    assert_eq!(asked.0.lock().unwrap().len(), 1);
    // The first call was cancelled on the server, once.
    let logged = log_with(&log, "cancelled").await;
    assert_eq!(logged.matches("cancelled ").count(), 1, "{logged}");
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_declares_the_servers_role_is_asked_through_its_own_client() {
    agboss::model::forbid_real_requests(true);
    let (store, _folder) = sqlite().await;
    let asked = Arc::new(Asked::default());
    let model = calling("profile-by-hand-tool", "Saved by hand.");
    let first = app(store.clone(), &model, &asked);
    let outcome = alices_run(&first, "hand-desk", "fill in my profile").await;
    let (pause_id, question) = paused_on(&outcome, "profile-by-hand-tool");
    assert_eq!(question["server"], "everything-asking");
    first.shutdown().await;
    let second = app(store.clone(), &model, &asked);
    let answer = ElicitationAnswer::accept([("name", json!("Ada Lovelace"))]);
    let outcome = alice_answers(&second, &pause_id, answer).await;
    assert_eq!(outcome.text(), Some("Saved by hand."));
    let result = tool_result(&model);
    assert!(
        result.contains("by hand: ") && result.contains("- Name: Ada Lovelace"),
        "{result}"
    );
    second.shutdown().await;
}
