//! [`SealStore`]: a call's arguments as the model sent them, kept beside the journal while the
//! call may still run, when the journal keeps them masked.

use super::StoreFuture;

/// The arguments of one call, unmasked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedArguments {
    /// The execution.
    pub execution_id: String,
    /// The call.
    pub call_id: String,
    /// The arguments as the model sent them (JSON text).
    pub arguments: String,
}

/// Sealed arguments: where an agent masks personal data, the journal keeps each call's
/// arguments masked (the journal is kept for good, and the model's arguments can hold what the
/// user wrote), and the arguments as the model sent them are kept here, beside it, only as long
/// as the call may still run: a call that waits for a person, or that a crash may interrupt,
/// runs with them. The loop seals them before it journals the model's answer, and forgets them
/// once the call's result is journaled or its run ends. A store hands them out with
/// [`Store::sealed`](super::Store::sealed).
pub trait SealStore: Send + Sync {
    /// Keeps `sealed`; a call's arguments sealed already are left as they are (a retry of the
    /// same seal: a call's arguments never change).
    fn seal<'a>(&'a self, sealed: &'a SealedArguments) -> StoreFuture<'a, ()>;

    /// The arguments of call `call_id` of execution `execution_id`, if they are kept.
    fn unseal<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: &'a str,
    ) -> StoreFuture<'a, Option<String>>;

    /// Forgets the arguments of call `call_id` of execution `execution_id` (`None`: of every
    /// call of it); how many were forgotten.
    fn forget<'a>(
        &'a self,
        execution_id: &'a str,
        call_id: Option<&'a str>,
    ) -> StoreFuture<'a, u64>;
}
