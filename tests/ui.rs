//! Compile-time errors of the macros, each with its `.stderr` snapshot, and expansions that
//! must compile cleanly. Bless with `TRYBUILD=overwrite cargo test -p agboss-tests --test ui`
//! and review the diff; the snapshots belong to the pinned toolchain.

#[rustversion::attr(
    not(stable(1.95)),
    ignore = "the .stderr snapshots are blessed on 1.95"
)]
#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/**/*.rs");
    cases.pass("ui-pass/**/*.rs");
}
