//! The examples run as users run them: their own processes, their standard input piped.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The variables that would give the desk a real model: a test run clears them.
const PROVIDER_VARIABLES: &[&str] = &[
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "DESK_LOCAL_URL",
    "DESK_CONFIG",
    "DESK_MODEL",
];

/// The variables that say who is at the terminal.
const USER_VARIABLES: &[&str] = &["AGBOSS_USER", "USER"];

/// Runs `cargo run -q -p agboss --example <name> -- <args>` with `stdin` piped in; its
/// standard output, and whether it succeeded.
fn example(name: &str, args: &[&str], stdin: &str) -> (String, bool) {
    example_with(name, args, stdin, &[])
}

/// [`example`], with variables `env` set (and no provider's, nor who the user is unless `env`
/// says so).
fn example_with(name: &str, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> (String, bool) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut command = Command::new(cargo);
    for variable in PROVIDER_VARIABLES.iter().chain(USER_VARIABLES) {
        command.env_remove(variable);
    }
    let mut child = command
        .args(["run", "-q", "-p", "agboss", "--example", name, "--"])
        .args(args)
        .current_dir(workspace)
        .envs(env.iter().copied())
        .env("AGBOSS_FORBID_REAL_MODELS", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cargo runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let mut stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    // What a failing command says is part of what the user sees.
    stdout.push_str(&String::from_utf8_lossy(&output.stderr));
    assert!(
        output.status.success() || !stdout.is_empty(),
        "the example did not run: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (stdout, output.status.success())
}

#[test]
fn refunds_at_the_terminal_follow_the_answer_typed() {
    let (out, ok) = example("refunds", &["terminal"], "y\n");
    assert!(ok, "{out}");
    assert!(out.contains("Approve `refund-card-at-terminal-tool` with {\"order_id\":\"A-1001\",\"amount_cents\":4200}?"), "{out}");
    assert!(
        out.contains(
            "· refund-card-at-terminal-tool -> {\"status\":\"refunded 4200 cents for A-1001\"}"
        ),
        "{out}"
    );

    let (out, ok) = example("refunds", &["terminal"], "n not this month\n");
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "· refund-card-at-terminal-tool -> Tool error: the call was refused: not this month"
        ),
        "{out}"
    );
}

#[test]
fn refunds_through_the_inbox_complete_when_the_manager_approves() {
    let (out, ok) = example("refunds", &[], "");
    assert!(ok, "{out}");
    assert!(
        out.contains("pending for the thread's owner: 0"),
        "a channel's pause is not listed: {out}"
    );
    assert!(
        out.contains("finance inbox: Refund 4200 cents for order A-1001? (pause "),
        "{out}"
    );
    assert!(
        out.contains("cashier -> Done: the refund of 42.00 for order A-1001 went through."),
        "{out}"
    );
}

/// A desk of its own: its store and notes file in a fresh folder, asked for `alice` (or for
/// nobody: neither `AGBOSS_USER` nor `USER` set).
struct Desk {
    folder: tempfile::TempDir,
    user: Option<&'static str>,
}

impl Desk {
    fn new() -> Desk {
        Desk {
            folder: tempfile::tempdir().unwrap(),
            user: Some("alice"),
        }
    }

    /// A desk run with no user in the environment.
    fn for_nobody() -> Desk {
        Desk {
            user: None,
            ..Desk::new()
        }
    }

    /// Who the desk's runs are for: the user, else the desk's own `desk-user`.
    fn owner(&self) -> &'static str {
        self.user.unwrap_or("desk-user")
    }

    fn path(&self, name: &str) -> String {
        self.folder.path().join(name).to_str().unwrap().to_owned()
    }

    /// `cargo run --example desk -- <args>`, as the desk's user: what it printed, and whether
    /// it succeeded.
    fn run(&self, args: &[&str]) -> (String, bool) {
        let (db, notes) = (self.path("desk.db"), self.path("notes.jsonl"));
        let mut env = vec![("DESK_DB", db.as_str()), ("NOTES_FILE", notes.as_str())];
        if let Some(user) = self.user {
            env.push(("AGBOSS_USER", user));
        }
        example_with("desk", args, "", &env)
    }

    /// The executions of thread `thread`, read from the desk's SQLite file: (agent, input).
    fn thread(&self, thread: &str) -> Vec<(String, String)> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let store = agboss::store::SqliteStore::open(self.path("desk.db"))
                .await
                .unwrap();
            let records = agboss::store::Journal::thread(&store, thread)
                .await
                .unwrap();
            records.into_iter().map(|r| (r.agent, r.input)).collect()
        })
    }

    fn notes(&self) -> String {
        std::fs::read_to_string(self.path("notes.jsonl")).unwrap_or_default()
    }

    /// Runs the desk's questions: the save waits; returns its pause id, as the desk printed it.
    fn ask(&self) -> String {
        let (out, ok) = self.run(&[]);
        assert!(ok, "{out}");
        assert!(
            out.contains("notes -> You have no note about that."),
            "{out}"
        );
        assert!(
            out.contains("scout -> One opening matches: Rust Compiler Engineer"),
            "{out}"
        );
        // The notes agent searches agboss's guides (docs-rag, tool mode) and cites a file.
        assert!(
            out.contains("  · search-docs-rag-tool -> {\"passages\":[{\"source\":\""),
            "{out}"
        );
        assert!(out.contains("notes -> The guides say ("), "{out}");
        let line = out
            .lines()
            .find(|line| line.contains("note-save-tool waits for note-approval-channel"))
            .unwrap_or_else(|| panic!("no pause printed: {out}"));
        assert!(
            line.ends_with(&format!(
                "answered by {} (its thread's owner)",
                self.owner()
            )),
            "{line}"
        );
        assert!(
            out.contains(r#"arguments: {"text":"The dentist is on Tuesday at 9"}"#),
            "{out}"
        );
        assert!(out.contains("expires in 7 d"), "{out}");
        let pause_id = line.split_whitespace().next().unwrap().to_owned();
        assert_eq!(pause_id.len(), 32, "128 bits, hex: {pause_id}");
        assert!(
            out.contains(&format!("cargo run --example desk -- approve {pause_id}")),
            "{out}"
        );
        assert_eq!(self.notes(), "", "nothing is saved before the approval");
        pause_id
    }
}

/// The issue's two processes: the desk pauses and exits; another process lists the pause,
/// refuses a wrong answerer and an unclear reply (the pause stays open), approves it from the
/// SQLite file, and the run completes there; a second approval is refused.
#[test]
fn the_desk_pauses_and_another_process_approves_from_the_store() {
    let desk = Desk::new();
    let pause_id = desk.ask();

    let (out, ok) = desk.run(&["pending"]);
    assert!(ok, "{out}");
    assert!(
        out.starts_with(&format!("{pause_id}  note-save-tool waits")),
        "{out}"
    );
    let (out, ok) = desk.run(&["pending", "--owner", "bob"]);
    assert!(ok && out.contains("no pause waits for an answer"), "{out}");

    let (out, ok) = desk.run(&["approve", &pause_id, "--as", "bob"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("[pause.wrong-answerer]") && out.contains("not by `bob`"),
        "{out}"
    );
    let (out, ok) = desk.run(&["reply", &pause_id, "perhaps tomorrow"]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("[pause.reply-unclear]") && out.contains("say yes or no"),
        "{out}"
    );
    let (out, _) = desk.run(&["pending"]);
    assert!(
        out.contains(&pause_id),
        "still open after refused answers: {out}"
    );
    assert_eq!(desk.notes(), "");

    let (out, ok) = desk.run(&["approve", &pause_id]);
    assert!(ok, "{out}");
    assert!(out.contains("completed (1 tool calls"), "{out}");
    assert!(
        out.contains("Saved: The dentist is on Tuesday at 9."),
        "{out}"
    );
    assert_eq!(
        desk.notes(),
        "{\"text\":\"The dentist is on Tuesday at 9\"}\n"
    );

    let (out, ok) = desk.run(&["approve", &pause_id]);
    assert!(!ok && out.contains("[pause.already-answered]"), "{out}");
    let (out, _) = desk.run(&["pending"]);
    assert!(out.contains("no pause waits for an answer"), "{out}");
    assert_eq!(desk.notes().lines().count(), 1, "saved once");

    // The next run of the thread finds the note.
    let (out, ok) = desk.run(&[]);
    assert!(ok, "{out}");
    assert!(
        out.contains("notes -> From your notes: The dentist is on Tuesday at 9."),
        "{out}"
    );
}

/// Refused from another process, with a reason the model reads; and answered in words, read
/// by the role's yes-or-no interpreter.
#[test]
fn the_desk_takes_a_refusal_and_a_reply_in_words_from_another_process() {
    let desk = Desk::new();
    let pause_id = desk.ask();
    let (out, ok) = desk.run(&["refuse", &pause_id, "wrong day"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("I did not save the note.") && out.contains("wrong day"),
        "{out}"
    );
    assert_eq!(desk.notes(), "");

    let desk = Desk::new();
    let pause_id = desk.ask();
    let (out, ok) = desk.run(&["reply", &pause_id, "yes, save it"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("Saved: The dentist is on Tuesday at 9."),
        "{out}"
    );
    assert_eq!(desk.notes().lines().count(), 1);
}

/// With neither `AGBOSS_USER` nor `USER` set, the desk asks as `desk-user`, and its subcommands
/// act for the same user: `pending` lists the save, and `approve` answers it without `--as`,
/// saying first that the answer was taken, then what ran, then how the run ended; what ran
/// also as it ran, on standard error.
#[test]
fn without_a_user_the_desk_and_its_subcommands_agree_on_who_asks() {
    let desk = Desk::for_nobody();
    let pause_id = desk.ask();
    let (out, ok) = desk.run(&["pending"]);
    assert!(ok, "{out}");
    assert!(
        out.starts_with(&format!("{pause_id}  note-save-tool waits")),
        "{out}"
    );
    assert!(out.contains(", thread desk/desk-user/notes\n"), "{out}");

    let (out, ok) = desk.run(&["approve", &pause_id]);
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with(&format!(
            "pause {pause_id}: approved by desk-user; the answer is journaled in execution "
        )),
        "{out}"
    );
    assert_eq!(lines[1], "  · note-save-tool -> {\"total\":1}", "{out}");
    assert!(lines[2].contains(" completed (1 tool calls, "), "{out}");
    assert_eq!(lines[3], "Saved: The dentist is on Tuesday at 9.", "{out}");
    assert_eq!(desk.notes().lines().count(), 1);
    // While the run went on, its progress on standard error, as `worker` shows it: plain lines,
    // standard error being no terminal here.
    let execution = lines[0].rsplit(' ').next().unwrap();
    for shown in ["note-save-tool runs", "note-save-tool done"] {
        assert!(
            out.contains(&format!("\n  {execution} · {shown}\n")),
            "{shown}: {out}"
        );
    }
}

/// Each agent of the desk keeps a thread of its own for each user: the notes agent's runs in
/// one, the scout's in another, so neither reads the other's turns as its history.
#[test]
fn each_agent_of_the_desk_has_its_own_thread() {
    let desk = Desk::new();
    desk.ask();
    let (out, ok) = desk.run(&[]);
    assert!(ok, "{out}");
    let notes = desk.thread("desk/alice/notes");
    let scout = desk.thread("desk/alice/scout");
    assert_eq!(notes.len(), 6, "two runs of three questions: {notes:?}");
    assert!(notes.iter().all(|(agent, _)| agent == "notes"), "{notes:?}");
    assert_eq!(
        scout,
        vec![("scout".to_owned(), "Find me remote Rust jobs.".to_owned()); 2]
    );
    assert_eq!(
        desk.thread("desk-thread"),
        Vec::new(),
        "the old shared thread"
    );
}
