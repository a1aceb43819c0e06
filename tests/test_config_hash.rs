//! A workflow's configuration hash, through the facade: the same declarations give the same
//! hash, what the model reads or what bounds the run changes it, what does neither leaves it;
//! `describe` prints it, the journal's `started` keeps it, and a resume under another hash warns
//! (and journals `config_changed`) or is refused (`[resume.config-changed]`), per the workflow's
//! `on_config_change`, on the memory, SQLite and PostgreSQL stores.

#[path = "config_hash/mod.rs"]
mod config_hash;

use std::sync::Arc;

use agboss::app::OnConfigChange;
use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::run::{RunError, RunOutcome};
use agboss::store::{MemoryStore, Store};
use agboss::units::{kilobytes, seconds};
use agboss::{Application, Config, ToolDefaults, Workflow};
use fixtures::stores::{postgres, sqlite};
use serde_json::{Value, json};

use config_hash::{
    Dictionary, Helper, HelperRedescribed, HelperRetold, HelperWithRedescribedTool, Spare, warnings,
};

fn desk() -> Workflow {
    Workflow::new("desk").agent::<Helper>()
}

fn builder(workflow: Workflow) -> agboss::app::ApplicationBuilder {
    Application::builder("words")
        .workflow(workflow)
        .provide(Arc::new(Dictionary("first edition")))
}

fn hash(builder: agboss::app::ApplicationBuilder) -> String {
    let app = builder.build().unwrap_or_else(|e| panic!("{e}"));
    app.workflow("desk").unwrap().config_hash().to_owned()
}

#[test]
fn two_assemblies_of_the_same_declarations_give_the_same_hash() {
    let first = builder(desk()).build().unwrap();
    let again = builder(desk()).build().unwrap();
    let (one, other) = (
        first.workflow("desk").unwrap(),
        again.workflow("desk").unwrap(),
    );
    assert_eq!(one.config_hash(), other.config_hash());
    assert_eq!(one.config_document(), other.config_document());
    let hash = one.config_hash();
    assert!(
        hash.starts_with("sha256:")
            && hash.len() == 71
            && hash[7..].bytes().all(|b| b.is_ascii_hexdigit()),
        "{hash}"
    );
    let document: Value = serde_json::from_str(one.config_document()).unwrap();
    assert_eq!(
        document["truncationMarker"],
        agboss::tool::truncation_marker().as_str()
    );
    assert_eq!(document["agents"][0]["prompt"], "You help.");
    assert_eq!(document["agents"][0]["tools"][0]["name"], "lookup-tool");
}

#[test]
fn a_prompt_a_tool_description_a_bound_or_a_model_changes_it() {
    let base = hash(builder(desk()));
    let prompt = hash(builder(Workflow::new("desk").agent::<HelperRetold>()));
    let described = hash(builder(
        Workflow::new("desk").agent::<HelperWithRedescribedTool>(),
    ));
    let bound = hash(builder(
        desk().defaults(ToolDefaults::new().max_result_size(kilobytes(64))),
    ));
    // The same bound, from the application rather than the workflow: its source changed.
    let bound_elsewhere =
        hash(builder(desk()).defaults(ToolDefaults::new().max_result_size(kilobytes(64))));
    let model = hash(builder(desk()).config(Config::from_toml(
        "words.toml",
        "[agents.helper]\nmodel = \"anthropic/claude-sonnet-4-5\"\n",
    )));
    let all = [&base, &prompt, &described, &bound, &bound_elsewhere, &model];
    for (i, one) in all.iter().enumerate() {
        for other in &all[i + 1..] {
            assert_ne!(one, other, "each change gives its own hash: {all:#?}");
        }
    }
}

#[test]
fn what_neither_the_model_reads_nor_bounds_the_run_leaves_it() {
    let base = hash(builder(desk()));
    let unchanged = [
        (
            "the agent's description",
            hash(builder(Workflow::new("desk").agent::<HelperRedescribed>())),
        ),
        ("a tool no agent has", hash(builder(desk().tool::<Spare>()))),
        (
            "a provided value",
            hash(builder(
                desk().provide(Arc::new(Dictionary("another edition"))),
            )),
        ),
        ("the lease ttl", hash(builder(desk()).lease_ttl(seconds(5)))),
        (
            "what a resume under another hash does",
            hash(builder(desk().on_config_change(OnConfigChange::Refuse))),
        ),
        (
            "the store",
            hash(builder(desk()).store(Arc::new(MemoryStore::new()))),
        ),
    ];
    for (what, hash) in unchanged {
        assert_eq!(hash, base, "{what} changed the hash");
    }
}

#[test]
fn describe_prints_it_in_the_text_and_whole_in_the_json() {
    let app = builder(desk().on_config_change(OnConfigChange::Refuse))
        .build()
        .unwrap();
    let hash = app.workflow("desk").unwrap().config_hash().to_owned();
    let text = agboss::describe::text(&app);
    let line = format!("\n  config {} (on change: refuse)\n", &hash[..7 + 16]);
    assert!(text.contains(&line), "{line:?} in:\n{text}");
    let json = agboss::describe::json(&app);
    assert_eq!(json["workflows"][0]["configHash"], hash.as_str());
    assert_eq!(json["workflows"][0]["onConfigChange"], "refuse");
}

/// An application of `workflow` on `store`, whose model answers once.
fn app_on(store: Arc<dyn Store>, workflow: Workflow) -> Application {
    agboss::model::forbid_real_requests(true);
    let model = ScriptedModel::new([
        Turn::call("lookup-tool", json!({"word": "hash"})),
        Turn::text("done"),
    ]);
    Application::builder("words")
        .provide(Arc::new(Dictionary("first edition")))
        .store(store)
        .workflow(workflow)
        .chat_model(Arc::new(model))
        .build()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The same declarations, with a bound the model reads: another hash.
fn changed() -> Workflow {
    desk().defaults(ToolDefaults::new().max_result_size(kilobytes(64)))
}

/// Hands a run to the store under `desk`, then resumes it under `changed` (`on_change` set on
/// it), on `store`: the execution, the hash its `started` recorded, the hash now, and the
/// resume.
async fn resume_changed(
    store: Arc<dyn Store>,
    on_change: Option<OnConfigChange>,
) -> (String, String, String, Result<RunOutcome, RunError>) {
    let before = app_on(store.clone(), desk());
    let id = before
        .run("desk", "What is a hash?")
        .submit()
        .await
        .unwrap();
    let events = store.events(&id).await.unwrap();
    let LoopEvent::Started { config_hash, .. } = &events[0] else {
        panic!("{events:?}");
    };
    let recorded = before.workflow("desk").unwrap().config_hash().to_owned();
    assert_eq!(config_hash.as_deref(), Some(recorded.as_str()));
    let workflow = match on_change {
        Some(on_change) => changed().on_config_change(on_change),
        None => changed(),
    };
    let after = app_on(store.clone(), workflow);
    let current = after.workflow("desk").unwrap().config_hash().to_owned();
    assert_ne!(recorded, current);
    let outcome = after.resume_execution(&id, None).await;
    (id, recorded, current, outcome)
}

/// A resume under another hash goes on by default with a warning naming both hashes, and the
/// journal says it changed, once.
async fn warns_and_records(store: Arc<dyn Store>) {
    let warnings = warnings();
    let (id, recorded, current, outcome) = resume_changed(store.clone(), None).await;
    let warned = warnings
        .lock()
        .unwrap()
        .iter()
        .filter(|w| w.contains(&id) && w.contains(&recorded) && w.contains(&current))
        .count();
    assert_eq!(warned, 1, "{:#?}", warnings.lock().unwrap());
    assert!(
        matches!(outcome, Ok(RunOutcome::Completed(_))),
        "{outcome:?}"
    );
    let events = store.events(&id).await.unwrap();
    let changes: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ConfigChanged { from, to } => Some((from.clone(), to.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(changes, [(recorded, current)]);
    assert!(
        matches!(events[1], LoopEvent::ConfigChanged { .. }),
        "journaled before anything else ran: {events:#?}"
    );
}

/// A workflow that refuses: the resume fails naming both hashes, and nothing is journaled.
async fn refuses(store: Arc<dyn Store>) {
    let (id, recorded, current, outcome) =
        resume_changed(store.clone(), Some(OnConfigChange::Refuse)).await;
    let error = outcome.unwrap_err();
    assert_eq!(error.code(), "resume.config-changed", "{error}");
    let said = error.to_string();
    assert!(
        said.contains(&recorded) && said.contains(&current),
        "{said}"
    );
    assert!(said.contains(&format!("execution `{id}`")), "{said}");
    let events = store.events(&id).await.unwrap();
    assert_eq!(events.len(), 1, "only its start: {events:#?}");
}

#[tokio::test]
async fn memory_a_resume_under_another_hash_warns_and_is_journaled() {
    warns_and_records(Arc::new(MemoryStore::new())).await;
}

#[tokio::test]
async fn memory_a_resume_under_another_hash_is_refused_when_the_workflow_says_so() {
    refuses(Arc::new(MemoryStore::new())).await;
}

#[tokio::test]
async fn a_resume_under_the_same_hash_says_nothing() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let before = app_on(store.clone(), desk());
    let id = before
        .run("desk", "What is a hash?")
        .submit()
        .await
        .unwrap();
    let after = app_on(
        store.clone(),
        desk().on_config_change(OnConfigChange::Refuse),
    );
    let outcome = after.resume_execution(&id, None).await.unwrap();
    assert!(matches!(outcome, RunOutcome::Completed(_)), "{outcome:?}");
    let events = store.events(&id).await.unwrap();
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, LoopEvent::ConfigChanged { .. })),
        "{events:#?}"
    );
}

#[tokio::test]
async fn a_journal_without_a_hash_resumes_without_a_word() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let mut started: LoopEvent = serde_json::from_value(json!({
        "event": "started", "version": 5, "execution_id": "e-old", "workflow": "desk",
        "agent": "helper", "visit": 1, "input": "What is a hash?",
    }))
    .unwrap();
    let LoopEvent::Started { config_hash, .. } = &mut started else {
        unreachable!()
    };
    assert_eq!(*config_hash, None, "an older layout has no hash");
    store.append("e-old", 0, &started).await.unwrap();
    let app = app_on(
        store.clone(),
        desk().on_config_change(OnConfigChange::Refuse),
    );
    let outcome = app.resume_execution("e-old", None).await.unwrap();
    assert!(matches!(outcome, RunOutcome::Completed(_)), "{outcome:?}");
}

#[tokio::test]
async fn a_worker_leaves_what_its_workflow_refuses_and_goes_idle() {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let before = app_on(store.clone(), desk());
    let id = before
        .run("desk", "What is a hash?")
        .submit()
        .await
        .unwrap();
    let after = app_on(
        store.clone(),
        changed().on_config_change(OnConfigChange::Refuse),
    );
    let report = tokio::time::timeout(std::time::Duration::from_secs(10), after.recover())
        .await
        .expect("recover returns rather than claiming the refused execution again and again");
    assert_eq!(
        report.failed,
        [(id.clone(), "resume.config-changed".to_owned())],
        "{report:?}"
    );
    assert_eq!(store.events(&id).await.unwrap().len(), 1);
}

#[tokio::test]
async fn sqlite_a_resume_under_another_hash_warns_and_is_journaled() {
    let (_, store, _folder) = sqlite().await;
    warns_and_records(store).await;
}

#[tokio::test]
async fn sqlite_a_resume_under_another_hash_is_refused_when_the_workflow_says_so() {
    let (_, store, _folder) = sqlite().await;
    refuses(store).await;
}

#[tokio::test]
async fn postgres_a_resume_under_another_hash_warns_and_is_journaled() {
    let (_, store, _database) = postgres().await;
    warns_and_records(store).await;
}

#[tokio::test]
async fn postgres_a_resume_under_another_hash_is_refused_when_the_workflow_says_so() {
    let (_, store, _database) = postgres().await;
    refuses(store).await;
}
