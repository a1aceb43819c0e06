//! Fault plan T24: journals written by an earlier build replay in this one.
//!
//! `tests/fixtures/journals/v<layout>/` holds journals recorded by the build whose event layout
//! (`STATE_VERSION`) was `<layout>`, committed as they were written and never edited: a
//! completed run, a run cut at each point a crash can cut it (before the tools, mid-tool, during
//! the first model call), a paused run, and one whose approval was answered before the call ran.
//! Each is replayed by this build; the replay must reach the same decision points with the same
//! call ids and idempotency keys, and never run again a call that has its result. A journal of a
//! layout newer than this build is refused with a version error.
//!
//! To record the fixtures of the current layout (once per layout, when it changes):
//! `AGBOSS_RECORD_JOURNALS=1 cargo test -p agboss-tests --test journal-replay -- --ignored`.

#[path = "journals/mod.rs"]
mod journals;

use std::path::PathBuf;

use agboss::journal::{INTENTS_SINCE, JournalError, LoopEvent, LoopState, STATE_VERSION};
use agboss::run::{RunError, RunOutcome};
use agboss::{Resume, prelude::ToolCallApprovalDecision};

use journals::{Fixture, PayInput, Recorded, Scenario, fixture_dir};

fn layouts() -> Vec<(u32, PathBuf)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/journals");
    let mut layouts: Vec<(u32, PathBuf)> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            Some((name.strip_prefix('v')?.parse().ok()?, path))
        })
        .collect();
    layouts.sort();
    layouts
}

/// What replaying one fixture did, for the report.
#[derive(Default)]
struct Tally {
    replayed: usize,
    diverged: Vec<String>,
    reexecuted: usize,
}

async fn replay(recorded: &Recorded, tally: &mut Tally) {
    let f = Fixture::new();
    for (seq, event) in recorded.events.iter().enumerate() {
        f.store
            .append(&recorded.execution_id, seq as u64, event)
            .await
            .unwrap();
    }
    let id = recorded.execution_id.as_str();
    let diverged = |what: String, tally: &mut Tally| {
        tally.diverged.push(format!(
            "{} ({}): {what}",
            recorded.scenario, recorded.layout
        ))
    };
    // Calls journaled with a result: none may run again.
    let finished: Vec<String> = recorded
        .events
        .iter()
        .filter_map(|e| match e {
            LoopEvent::ToolFinished { call_id, .. } => Some(call_id.clone()),
            _ => None,
        })
        .collect();
    let expected = recorded.scenario.expected();
    let outcome = f.app.resume_execution(id, None).await;
    let outcome = match (recorded.scenario, outcome) {
        (Scenario::Paused, Ok(RunOutcome::Paused(paused))) => {
            let pause_id = journals::pause_id_of(&recorded.events);
            if paused
                .pending
                .iter()
                .map(|p| &p.pause_id)
                .collect::<Vec<_>>()
                != [&pause_id]
            {
                diverged(format!("pending {:?}", paused.pending), tally);
            }
            let approve = ToolCallApprovalDecision::<PayInput>::approve();
            f.app
                .resume(Resume::decision(pause_id, approve).answered_by("u-1"))
                .await
                .map_err(|e| e.to_string())
        }
        (_, outcome) => outcome.map_err(|e: RunError| e.to_string()),
    };
    match outcome {
        Ok(RunOutcome::Completed(done)) if done.text() == Some(expected.answer) => {}
        other => diverged(format!("ended {other:?}"), tally),
    }
    let effects = f.effects.calls();
    let keys: Vec<&str> = effects.iter().map(|e| e.key.as_str()).collect();
    if keys != expected.keys(id) {
        diverged(
            format!("effects {keys:?}, expected {:?}", expected.keys(id)),
            tally,
        );
    }
    tally.reexecuted += effects
        .iter()
        .filter(|e| finished.contains(&e.call_id))
        .count();
    // Payments run with the argument bytes the model sent.
    for effect in effects.iter().filter(|e| e.tool == "pay-tool") {
        if effect.arguments != *journals::PAY_ARGUMENTS_VALUE {
            diverged(format!("paid with {}", effect.arguments), tally);
        }
    }
    let model_calls = f.model.calls();
    if model_calls != expected.model_calls {
        diverged(
            format!(
                "{model_calls} model calls, expected {}",
                expected.model_calls
            ),
            tally,
        );
    }
    tally.replayed += 1;
}

#[tokio::test]
async fn t24_journals_of_earlier_layouts_replay_to_the_same_decisions() {
    let mut tally = Tally::default();
    let mut per_layout = Vec::new();
    for (layout, dir) in layouts() {
        let fixtures = journals::read_all(&dir);
        // Layout 2 has no intents, so no `after-intent` journal.
        assert!(
            fixtures.len() >= Scenario::ALL.len() - usize::from(layout < INTENTS_SINCE),
            "{}: a fixture per scenario",
            dir.display()
        );
        for recorded in &fixtures {
            assert_eq!(recorded.layout, layout, "{}", recorded.scenario);
            assert!(layout <= STATE_VERSION);
            replay(recorded, &mut tally).await;
        }
        per_layout.push(format!("v{layout}: {}", fixtures.len()));
    }
    // A journal of a newer layout is refused, never misread.
    let mut newer = journals::read_all(&fixture_dir(layouts().last().unwrap().0))
        .remove(0)
        .events;
    if let LoopEvent::Started { version, .. } = &mut newer[0] {
        *version = STATE_VERSION + 1;
    }
    let refused = LoopState::from_events(&newer);
    let clean = matches!(refused, Err(JournalError::NewerLayout { found, .. }) if found == STATE_VERSION + 1);
    let f = Fixture::new();
    for (seq, event) in newer.iter().enumerate() {
        f.store.append("fx-newer", seq as u64, event).await.unwrap();
    }
    let error = f.app.resume_execution("fx-newer", None).await.unwrap_err();
    let said = error.to_string();
    println!(
        "T24: fixtures replayed without divergence {}/{} ({}); clean refusals {}/1; silent re-executions {}",
        tally.replayed - tally.diverged.len(),
        tally.replayed,
        per_layout.join(", "),
        u8::from(clean && said.contains("newer")),
        tally.reexecuted,
    );
    assert!(tally.diverged.is_empty(), "{:#?}", tally.diverged);
    assert_eq!(tally.reexecuted, 0);
    assert!(clean, "{refused:?}");
    assert!(said.contains("newer"), "{said}");
    assert_eq!(f.effects.calls().len() + f.model.calls(), 0);
}

/// Records the fixtures of this build's layout. Refuses to overwrite: a layout's fixtures are
/// recorded once.
#[tokio::test]
#[ignore = "records fixtures: run with AGBOSS_RECORD_JOURNALS=1 when the layout changes"]
async fn record_journal_fixtures() {
    if std::env::var_os("AGBOSS_RECORD_JOURNALS").is_none() {
        return;
    }
    let dir = fixture_dir(STATE_VERSION);
    assert!(
        !dir.exists(),
        "{} exists: fixtures of a layout are recorded once",
        dir.display()
    );
    std::fs::create_dir_all(&dir).unwrap();
    for scenario in Scenario::ALL {
        let recorded = journals::record(scenario).await;
        let path = dir.join(format!("{}.json", scenario.name()));
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&recorded.to_json()).unwrap() + "\n",
        )
        .unwrap();
        println!("wrote {}", path.display());
    }
}
