//! The fault plan's tests that run in the README's test command (the short lane): each checks
//! what must hold and reports its figures, printed and kept in `target/faults/<T>.txt` (the
//! docs quote them).

#[path = "faults/clock_jumps.rs"]
mod clock_jumps;
#[path = "faults/paused_restart.rs"]
mod paused_restart;
#[path = "faults/pauses.rs"]
mod pauses;

/// Reports fault test `test`'s figures: printed, and written to `target/faults/<test>.txt`.
pub fn report(test: &str, figures: &str) {
    println!("{test}: {figures}");
    let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("target/faults");
    if std::fs::create_dir_all(&folder).is_ok() {
        let _ = std::fs::write(folder.join(format!("{test}.txt")), format!("{figures}\n"));
    }
}
