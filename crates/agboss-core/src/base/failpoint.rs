//! Failpoints: the named places between the journal's steps where the fault tests stop a
//! process with `SIGKILL`, as a crash would (feature `failpoints`; without it, [`failpoint`] is
//! empty and free).
//!
//! A process arms them with `AGBOSS_FAILPOINTS`, a comma-separated list of `name` (the first
//! time the place is reached) or `name@n` (the n-th time): `AGBOSS_FAILPOINTS=tool-intent@3`
//! kills the process the third time a call's intent has been journaled. The places:
//!
//! | name | where |
//! |---|---|
//! | `model-answered` | the model's answer is journaled; no call has started |
//! | `tool-intent` | the calls' intent is journaled; none has started |
//! | `tool-returned` | a call returned; its result is not journaled |
//! | `result-committed` | a call's result is journaled; the next step has not begun |
//! | `store-commit` | a store's transaction of a journal append is written, not committed |
//!
//! Tools of the fault tests add their own (`tool-running`: the effect is applied, the call has
//! not returned) through [`failpoint`] too.

/// Kills this process with `SIGKILL` if failpoint `name` is armed and this is the hit it waits
/// for; does nothing otherwise.
#[inline]
pub fn failpoint(name: &'static str) {
    #[cfg(feature = "failpoints")]
    armed::hit(name);
    #[cfg(not(feature = "failpoints"))]
    let _ = name;
}

#[cfg(feature = "failpoints")]
mod armed {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// The armed failpoints: a name, the hit that kills, and the hits so far.
    fn armed() -> &'static [(String, u64, AtomicU64)] {
        static ARMED: OnceLock<Vec<(String, u64, AtomicU64)>> = OnceLock::new();
        ARMED.get_or_init(|| {
            let spec = std::env::var("AGBOSS_FAILPOINTS").unwrap_or_default();
            spec.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| match s.split_once('@') {
                    Some((name, n)) => (name.to_owned(), n.parse().unwrap_or(1), AtomicU64::new(0)),
                    None => (s.to_owned(), 1, AtomicU64::new(0)),
                })
                .collect()
        })
    }

    pub(super) fn hit(name: &str) {
        for (armed, at, hits) in armed() {
            if armed == name && hits.fetch_add(1, Ordering::SeqCst) + 1 == *at {
                eprintln!("agboss: failpoint `{name}` reached (hit {at}): SIGKILL");
                let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
            }
        }
    }
}
