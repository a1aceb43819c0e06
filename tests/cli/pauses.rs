//! The pause subcommands on an application's store: what `pending` lists and for whom, and what
//! each answer does to the run, the refused ones included.

use std::sync::Arc;

use agboss::cli::{Command, command_from};
use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::prelude::*;
use agboss::run::RunOutcome;
use agboss::store::{MemoryStore, Store};
use agboss::{Application, Env, Workflow};
use serde_json::json;

/// A transfer between two accounts.
#[dto]
pub struct TransferInput {
    /// How much, in cents.
    pub cents: u64,
}

/// The account's owner approves each transfer.
#[channel_role(name = "transfer-approval-channel", approves = TransferInput, answered_by = ThreadOwner)]
pub struct TransferApproval;

fixtures::inbox! {
    /// Waits for the owner.
    #[channel(name = "owner-inbox-channel")]
    pub struct OwnerInbox for TransferApproval;
}

/// Moves money between the owner's accounts.
#[tool(name = "transfer-tool", channel = TransferApproval)]
pub struct Transfer;

impl ToolHandler for Transfer {
    type Input = TransferInput;
    type Output = PlainText;

    async fn run(&self, input: TransferInput) -> Result<PlainText, ToolError> {
        Ok(PlainText::new(format!("moved {} cents", input.cents)))
    }
}

/// Moves money for the account's owner.
#[agent(name = "teller", prompt = "../prompts/helper.prompt.md", model = "scripted/teller", tools = [Transfer])]
pub struct Teller;

fn app(store: Arc<dyn Store>, turns: Vec<Turn>) -> Application {
    Application::builder("bank")
        .workflow(Workflow::new("bank").agent::<Teller>())
        .channel::<OwnerInbox>()
        .store(store)
        .chat_model(Arc::new(ScriptedModel::new(turns)))
        .build()
        .unwrap()
}

/// Runs the teller for `owner` until it waits; the pause's id.
async fn paused(app: &Application, owner: &str) -> String {
    let outcome = app
        .run_agent::<Teller>("Move 500 to savings")
        .owner(owner)
        .await
        .unwrap();
    let RunOutcome::Paused(paused) = outcome else {
        panic!("the transfer waits: {outcome:?}");
    };
    paused.pending[0].pause_id.clone()
}

/// A transfer of `cents`, as the model asks for it.
fn transfer(cents: u64) -> Turn {
    Turn::call("transfer-tool", json!({ "cents": cents }))
}

/// The teller on `store`, waiting for alice to approve a transfer of 500 cents; the pause's id.
async fn alices_transfer(store: &Arc<dyn Store>) -> (Application, String) {
    let app = app(store.clone(), vec![transfer(500)]);
    let pause_id = paused(&app, "alice").await;
    (app, pause_id)
}

async fn cli(app: &Application, line: &str, env: &Env) -> String {
    let command: Command = command_from(line.split_whitespace())
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .expect("a subcommand");
    command.output(app, env).await
}

#[tokio::test]
async fn pending_lists_the_current_users_pauses_and_approve_goes_on_in_this_process() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let turns = vec![
        transfer(500),
        transfer(700),
        Turn::text("Moved.").expect_tool_result("moved 500 cents"),
    ];
    let first = app(store.clone(), turns);
    let alices = paused(&first, "alice").await;
    let bobs = paused(&first, "bob").await;
    // Another process: another application on the same store.
    let second = app(store, vec![Turn::text("Moved.")]);
    let alice = Env::from_pairs([("USER", "alice")]);

    let listed = cli(&second, "bank pending", &alice).await;
    assert!(listed.starts_with(&format!("{alices}  transfer-tool waits for transfer-approval-channel, answered by alice (its thread's owner)\n")), "{listed}");
    assert!(
        listed.contains("    arguments: {\"cents\":500}\n"),
        "{listed}"
    );
    assert!(!listed.contains(&bobs), "bob's pause is bob's: {listed}");
    let all = cli(&second, "bank pending --all --json", &alice).await;
    let all: serde_json::Value = serde_json::from_str(&all).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 2);
    let nobody = Env::from_pairs::<&str, &str>([]);
    let refused = cli(&second, "bank pending", &nobody).await;
    assert!(refused.starts_with("error: whose pauses?"), "{refused}");

    let approved = cli(&second, &format!("bank approve {alices}"), &alice).await;
    assert!(approved.contains("completed (1 tool calls"), "{approved}");
    assert!(approved.ends_with("Moved.\n"), "{approved}");
    let again = cli(
        &second,
        &format!("bank approve {alices} --as alice"),
        &nobody,
    )
    .await;
    assert!(
        again.starts_with("error: [pause.already-answered]"),
        "{again}"
    );
    let wrong = cli(&second, &format!("bank refuse {bobs} no"), &alice).await;
    assert!(
        wrong.starts_with("error: [pause.wrong-answerer]"),
        "{wrong}"
    );
    let not_json = cli(&second, &format!("bank answer {bobs} yes --as bob"), &alice).await;
    assert!(
        not_json.starts_with("error: the answer is not JSON"),
        "{not_json}"
    );
    let no_reader = cli(&second, &format!("bank reply {bobs} yes --as bob"), &alice).await;
    assert!(no_reader.starts_with("error: [pause."), "{no_reader}");
    assert!(
        cli(&second, "bank pending --owner bob", &alice)
            .await
            .contains(&bobs)
    );
    assert!(
        command_from(["bank", "cancel"]).is_err(),
        "cancel names the execution"
    );
}

/// An answer that is taken says so first, on its own line, with the calls it let run; a run
/// that then fails says so last, with the run's own code (here `answer.empty`, not `model`).
#[tokio::test]
async fn an_answer_says_it_was_taken_before_the_run_fails_with_its_own_code() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (first, pause_id) = alices_transfer(&store).await;
    let execution_id = first
        .store()
        .pause(&pause_id)
        .await
        .unwrap()
        .unwrap()
        .execution_id;
    // Another process, whose model answers the next turn with nothing.
    let second = app(store, vec![Turn::text("")]);
    let alice = Env::from_pairs([("USER", "alice")]);

    let out = cli(&second, &format!("bank approve {pause_id}"), &alice).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        format!(
            "pause {pause_id}: approved by alice; the answer is journaled in execution {execution_id}"
        ),
        "{out}"
    );
    assert_eq!(
        lines[1], r#"  · transfer-tool -> {"text":"moved 500 cents"}"#,
        "{out}"
    );
    assert!(
        lines[2].starts_with(
            "error: the run went on and failed: [answer.empty] agent `teller`: the model `scripted/teller` answered turn 2 with neither text nor a tool call"
        ),
        "{out}"
    );
    assert_eq!(lines.len(), 3, "{out}");
    let events = second.store().events(&execution_id).await.unwrap();
    assert!(
        matches!(events.last(), Some(LoopEvent::Failed { code, .. }) if code == "answer.empty"),
        "{events:?}"
    );
    // The answer stays taken: a second one is refused, and says nothing was taken.
    let again = cli(&second, &format!("bank approve {pause_id}"), &alice).await;
    assert_eq!(
        again,
        format!("error: [pause.already-answered] pause `{pause_id}` is already answered\n")
    );
}

/// A refusal and a reply in words say what was journaled, then how the run went on.
#[tokio::test]
async fn a_refusal_says_it_was_taken_and_the_run_goes_on() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (_first, pause_id) = alices_transfer(&store).await;
    let second = app(store, vec![Turn::text("Not moved.")]);
    let out = cli(
        &second,
        &format!("bank refuse {pause_id} not-today --as alice"),
        &Env::from_pairs::<&str, &str>([]),
    )
    .await;
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "pause {pause_id}: refused (\"not-today\") by alice; the answer is journaled in execution "
        )),
        "{out}"
    );
    assert_eq!(
        lines[1], "  · transfer-tool -> Tool error: the call was refused: not-today",
        "{out}"
    );
    assert!(lines[2].contains(" completed (1 tool calls, "), "{out}");
    assert_eq!(lines[3], "Not moved.", "{out}");
}

#[tokio::test]
async fn cancel_closes_the_pauses_and_a_late_answer_is_refused() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let (app, pause_id) = alices_transfer(&store).await;
    let alice = Env::from_pairs([("AGBOSS_USER", "alice")]);
    let record = app.store().pause(&pause_id).await.unwrap().unwrap();
    let cancelled = cli(
        &app,
        &format!("bank cancel {}", record.execution_id),
        &alice,
    )
    .await;
    assert_eq!(
        cancelled,
        format!("execution {} cancelled\n", record.execution_id)
    );
    assert_eq!(
        cli(&app, "bank pending", &alice).await,
        "no pause waits for an answer\n"
    );
    let late = cli(&app, &format!("bank approve {pause_id}"), &alice).await;
    assert!(
        late.starts_with("error: [pause.execution-cancelled]"),
        "{late}"
    );
}

/// `worker --until-idle` drives the runs handed to the store with `submit` until each waits,
/// a line per execution, and then stops with its summary.
#[tokio::test]
async fn worker_drives_submitted_runs_until_none_can_go_on() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let turns = vec![transfer(500), transfer(700)];
    let app = app(store.clone(), turns);
    let mut ids = Vec::new();
    for _ in 0..2 {
        ids.push(
            app.run_agent::<Teller>("Move money")
                .owner("alice")
                .submit()
                .await
                .unwrap(),
        );
    }
    let env = Env::from_pairs([("USER", "alice")]);
    let out = cli(&app, "bank worker --until-idle --concurrency 1", &env).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    assert!(lines[0].starts_with("worker "), "{out}");
    assert!(
        lines[0].ends_with("drives the executions of bank (1 at a time) until none is left"),
        "{out}"
    );
    for (line, id) in lines[1..3].iter().zip(&ids) {
        assert_eq!(
            *line,
            format!("execution {id} waits for answers (1 for its thread's owner)")
        );
    }
    assert_eq!(
        lines[3],
        "worker stopped: 2 claimed, 0 completed, 2 waiting, 0 failed, 0 lost to another instance"
    );
    let pending = cli(&app, "bank pending", &env).await;
    assert_eq!(
        pending.matches("transfer-tool waits for").count(),
        2,
        "{pending}"
    );
}
