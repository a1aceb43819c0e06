//! How the fault tests report: each prints its figures and keeps them in
//! `target/faults/<test>.txt`, which docs/durability.md and docs/pauses.md quote.

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
