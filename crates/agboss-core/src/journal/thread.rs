//! Threads' owners: a thread belongs to the owner its first run named, for good. A store records
//! it when it appends the first event of the thread's first execution, and refuses, in the same
//! transaction, the first event of any later execution that names another owner
//! ([`thread_owner_change`](crate::store::thread_owner_change)), so two first runs racing in a
//! new thread leave exactly one owner. An application reads it
//! ([`Journal::thread_owner`](crate::store::Journal::thread_owner)) before it lets
//! someone read the thread's history or answer its pauses, and words a refusal with
//! [`owner_mismatch`].
//!
//! Owners are compared as they are: a thread whose first run named no owner belongs to nobody,
//! and a run naming an owner may not join it (its history was written by runs nobody owns); a
//! thread with an owner takes no run that names none.

use agboss_rules::codes;

/// Who owns a thread, as a store recorded it when the thread's first execution started.
///
/// ```
/// use agboss_core::journal::ThreadOwner;
///
/// let owned = ThreadOwner::of(Some("alice"));
/// assert!(owned.admits(Some("alice")));
/// assert!(!owned.admits(Some("bob")));
/// assert!(!owned.admits(None));
/// assert!(ThreadOwner::Unowned.admits(None));
/// assert!(!ThreadOwner::Unowned.admits(Some("alice")));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ThreadOwner {
    /// Its first run named no owner: nobody owns it, and only runs that name none may join it.
    Unowned,
    /// Its first run named this owner: only runs that name this owner may join it.
    Owned(String),
}

impl ThreadOwner {
    /// The owner a run naming `owner` gives a new thread.
    pub fn of(owner: Option<&str>) -> ThreadOwner {
        match owner {
            Some(owner) => ThreadOwner::Owned(owner.to_owned()),
            None => ThreadOwner::Unowned,
        }
    }

    /// The owner's id (`None`: nobody owns the thread).
    pub fn owner(&self) -> Option<&str> {
        match self {
            ThreadOwner::Unowned => None,
            ThreadOwner::Owned(owner) => Some(owner),
        }
    }

    /// Whether whoever names `owner` (`None`: no owner) may act in the thread: start a run in
    /// it, read its history, answer its pauses. Only the same owner, or no owner in a thread
    /// that has none.
    pub fn admits(&self, owner: Option<&str>) -> bool {
        self.owner() == owner
    }
}

/// Why `asked` (the owner a caller names; `None`: none) may not act in thread `thread_id`, whose
/// owner is `held` (`None`: no run has started in it yet, and anyone may), as the message of
/// [`codes::THREAD_OWNER_MISMATCH`]; `None` when it may. The message never names the thread's
/// owner: it goes to whoever was refused.
///
/// ```
/// use agboss_core::journal::{ThreadOwner, owner_mismatch};
///
/// let owned = ThreadOwner::of(Some("alice"));
/// assert_eq!(owner_mismatch("t-1", Some(&owned), Some("alice")), None);
/// assert_eq!(owner_mismatch("t-new", None, Some("bob")), None);
/// assert_eq!(
///     owner_mismatch("t-1", Some(&owned), Some("bob")).unwrap(),
///     "thread `t-1` belongs to another owner, so `bob` may not run in it, read its history \
///      or answer its pauses: start a new thread"
/// );
/// ```
pub fn owner_mismatch(
    thread_id: &str,
    held: Option<&ThreadOwner>,
    asked: Option<&str>,
) -> Option<String> {
    let held = held?;
    if held.admits(asked) {
        return None;
    }
    let belongs = match (held, asked) {
        (ThreadOwner::Unowned, _) => "no owner",
        (ThreadOwner::Owned(_), Some(_)) => "another owner",
        (ThreadOwner::Owned(_), None) => "an owner",
    };
    let who = match asked {
        Some(owner) => format!("`{owner}`"),
        None => "a caller who names no owner".to_owned(),
    };
    Some(codes::THREAD_OWNER_MISMATCH.fill(&[
        ("thread", &thread_id),
        ("owner", &belongs),
        ("asked", &who),
    ]))
}
