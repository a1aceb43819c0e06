//! Masking reaches what is stored: an agent that masks journals its model's call arguments
//! masked, the arguments as the model sent them sealed beside the journal only while the call
//! may still run (the tool still gets them, in another process too) and forgotten once its
//! result is journaled; a call whose sealed copy is gone does not run. Artifacts are kept masked.
//! On SQLite and PostgreSQL.

use std::sync::{Arc, Mutex};

use agboss::journal::LoopEvent;
use agboss::model::{ScriptedModel, Turn};
use agboss::policy::MaskingPolicy;
use agboss::prelude::*;
use agboss::run::{ArtifactRetention, Paused, RunOutcome};
use agboss::store::{MemoryStore, PostgresStore, SqliteStore, Store};
use agboss::units::bytes;
use agboss::{Application, Resume, Workflow};
use serde_json::json;

#[dto]
pub struct Mail {
    /// Who to write to.
    pub to: String,
    /// What to say.
    pub body: String,
}

/// Approves mails; the thread's owner answers.
#[channel_role(name = "mail-approval-channel", approves = Mail, answered_by = ThreadOwner)]
pub struct MailApproval;

fixtures::inbox! {
    /// Leaves the mail in the owner's inbox.
    #[channel(name = "mail-inbox-channel")]
    pub struct MailInbox for MailApproval;
}

/// What was sent, as the tool got it.
#[derive(Default)]
pub struct Outbox(Mutex<Vec<String>>);

/// Sends a mail, once a person approves it.
#[tool(name = "send-mail-tool", channel = MailApproval)]
pub struct SendMail {
    outbox: Arc<Outbox>,
}

impl ToolHandler for SendMail {
    type Input = Mail;
    type Output = PlainText;

    async fn run(&self, mail: Mail) -> Result<PlainText, ToolError> {
        self.outbox.0.lock().unwrap().push(mail.to.clone());
        Ok(PlainText::new("sent"))
    }
}

#[dto]
pub struct Lookup {
    /// Whose contacts.
    pub owner: String,
}

/// Lists contacts, kept aside as an artifact past 16 bytes.
#[tool(name = "contacts-tool", read_only, result_kind = "contacts/list", artifact_above = bytes(16))]
pub struct Contacts;

impl ToolHandler for Contacts {
    type Input = Lookup;
    type Output = PlainText;

    async fn run(&self, _lookup: Lookup) -> Result<PlainText, ToolError> {
        Ok(PlainText::new("ada@example.com, grace@example.org"))
    }
}

/// Writes mails for the user.
#[agent(name = "mailer", model = "test/model", prompt = "prompts/helper.prompt.md", tools = [SendMail, Contacts])]
pub struct Mailer;

const ADDRESS: &str = "ada@example.com";

fn app(store: Arc<dyn Store>, model: &ScriptedModel, outbox: Arc<Outbox>) -> Application {
    agboss::model::forbid_real_requests(true);
    Application::builder("mail")
        .workflow(Workflow::new("mail").agent::<Mailer>())
        .masking(MaskingPolicy::standard())
        .artifact_retention(ArtifactRetention::Kept)
        .channel::<MailInbox>()
        .provide(outbox)
        .store(store)
        .chat_model(Arc::new(model.clone()))
        .build()
        .unwrap()
}

fn write_to_ada() -> Turn {
    Turn::call(
        "send-mail-tool",
        json!({"to": ADDRESS, "body": format!("Dear {ADDRESS}, the parcel left today.")}),
    )
}

/// The journal of `execution_id` as text.
async fn journal(store: &dyn Store, execution_id: &str) -> String {
    let events: Vec<LoopEvent> = store.events(execution_id).await.unwrap();
    serde_json::to_string(&events).unwrap()
}

/// A run of the mailer for ann that pauses on the mail's approval.
async fn paused(store: &Arc<dyn Store>) -> Paused {
    let model = ScriptedModel::new([write_to_ada()]);
    let outcome = app(store.clone(), &model, Arc::default())
        .run("mail", "Tell Ada the parcel left.")
        .owner("ann")
        .await
        .unwrap();
    outcome.paused().expect("the mail waits for ann").clone()
}

/// Ann approves `paused` in another process (a new application on the same store).
async fn approved(store: &Arc<dyn Store>, paused: &Paused, outbox: Arc<Outbox>) -> RunOutcome {
    let model = ScriptedModel::new([Turn::text("Sent.")]);
    let approve = ToolCallApprovalDecision::<Mail>::approve();
    app(store.clone(), &model, outbox)
        .resume(Resume::decision(&paused.pending[0].pause_id, approve).answered_by("ann"))
        .await
        .unwrap()
}

async fn arguments_are_sealed_while_the_call_may_run(store: Arc<dyn Store>) {
    let paused = paused(&store).await;
    let id = &paused.execution_id;
    let call_id = &paused.pending[0].call_id;
    let written = journal(&*store, id).await;
    assert!(
        !written.contains(ADDRESS),
        "the journal holds the address: {written}"
    );
    assert!(written.contains("[email]"), "{written}");
    let question = paused.pending[0].question.to_string();
    assert!(!question.contains(ADDRESS), "{question}");
    let sealed = store.sealed().unseal(id, call_id).await.unwrap();
    assert!(
        sealed.is_some_and(|s| s.contains(ADDRESS)),
        "sealed while it waits"
    );

    let outbox = Arc::new(Outbox::default());
    let done = approved(&store, &paused, outbox.clone()).await;
    assert_eq!(done.text(), Some("Sent."), "{done:?}");
    assert_eq!(
        *outbox.0.lock().unwrap(),
        [ADDRESS],
        "the tool got what the model sent"
    );
    assert_eq!(
        store.sealed().unseal(id, call_id).await.unwrap(),
        None,
        "forgotten"
    );
    assert!(!journal(&*store, id).await.contains(ADDRESS));
}

async fn a_call_whose_sealed_copy_is_gone_does_not_run(store: Arc<dyn Store>) {
    let paused = paused(&store).await;
    let id = &paused.execution_id;
    assert_eq!(store.sealed().forget(id, None).await.unwrap(), 1);
    let outbox = Arc::new(Outbox::default());
    let done = approved(&store, &paused, outbox.clone()).await;
    assert_eq!(done.text(), Some("Sent."));
    assert!(
        outbox.0.lock().unwrap().is_empty(),
        "it ran with what it was never given"
    );
    let written = journal(&*store, id).await;
    assert!(
        written.contains("their sealed copy is gone, so it does not run"),
        "{written}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_are_sealed_while_the_call_may_run_on_sqlite() {
    let folder = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(folder.path().join("mail.db"))
        .await
        .unwrap();
    arguments_are_sealed_while_the_call_may_run(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_are_sealed_while_the_call_may_run_on_postgres() {
    let database = pg_server::fresh_database();
    let store = PostgresStore::connect(database.url()).await.unwrap();
    arguments_are_sealed_while_the_call_may_run(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_sealed_copy_is_gone_does_not_run_on_sqlite() {
    let folder = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(folder.path().join("mail.db"))
        .await
        .unwrap();
    a_call_whose_sealed_copy_is_gone_does_not_run(Arc::new(store)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_whose_sealed_copy_is_gone_does_not_run_on_postgres() {
    let database = pg_server::fresh_database();
    let store = PostgresStore::connect(database.url()).await.unwrap();
    a_call_whose_sealed_copy_is_gone_does_not_run(Arc::new(store)).await;
}

#[tokio::test]
async fn an_artifact_is_kept_masked() {
    let store = Arc::new(MemoryStore::new());
    let model = ScriptedModel::new([
        Turn::call("contacts-tool", json!({"owner": "ann"})),
        Turn::text("Two contacts."),
    ]);
    let done = app(store.clone(), &model, Arc::default())
        .run("mail", "Who are my contacts?")
        .owner("ann")
        .await
        .unwrap();
    let id = done.execution_id().to_owned();
    let listed = store.artifacts().list(&id, "contacts/list").await.unwrap();
    assert_eq!(listed.len(), 1, "{listed:?}");
    let kept = store
        .artifacts()
        .get(&id, &listed[0].reference)
        .await
        .unwrap();
    let data = kept.expect("kept").data;
    assert!(
        data.contains("[email]") && !data.contains(ADDRESS),
        "{data}"
    );
    assert!(!journal(&*store, &id).await.contains(ADDRESS));
}
