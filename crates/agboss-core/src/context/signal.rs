//! [`Signal`]: a cancellation token that says why it fired.

use std::fmt;
use std::sync::{Arc, OnceLock};

use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

use crate::units::TimeSpan;

/// What kind of event aborted a signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AbortKind {
    /// Somebody cancelled the execution.
    Cancelled,
    /// The call's own timeout passed.
    TimedOut,
    /// The instance lost the execution's lease to another one.
    LeaseLost,
}

/// Why a [`Signal`] fired; its text is what a call that could not run reports.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AbortReason {
    kind: AbortKind,
    message: Arc<str>,
}

impl AbortReason {
    /// A cancellation, with the reason to report (`"execution cancelled"`, `"the user left"`).
    pub fn cancelled(message: impl Into<Arc<str>>) -> AbortReason {
        AbortReason {
            kind: AbortKind::Cancelled,
            message: message.into(),
        }
    }

    /// A timeout: `timed out after 10 s`.
    pub fn timed_out(after: TimeSpan) -> AbortReason {
        AbortReason {
            kind: AbortKind::TimedOut,
            message: format!("timed out after {after}").into(),
        }
    }

    /// An abort of some `kind` with its message.
    pub fn new(kind: AbortKind, message: impl Into<Arc<str>>) -> AbortReason {
        AbortReason {
            kind,
            message: message.into(),
        }
    }

    /// What kind of event it was.
    pub fn kind(&self) -> AbortKind {
        self.kind
    }

    /// The text calls report.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for AbortReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<&str> for AbortReason {
    fn from(message: &str) -> AbortReason {
        AbortReason::cancelled(message)
    }
}

impl From<String> for AbortReason {
    fn from(message: String) -> AbortReason {
        AbortReason::cancelled(message)
    }
}

/// A cancellation signal carrying its reason. Cloning shares it.
///
/// A [`child`](Self::child) fires when its parent does (with the parent's reason) or on its own
/// (with its own reason) without firing the parent: a call's signal is a child of its
/// execution's.
///
/// ```
/// use agboss_core::context::Signal;
///
/// let execution = Signal::new();
/// let call = execution.child();
/// execution.cancel("the user left");
/// assert!(call.is_cancelled());
/// assert_eq!(call.reason().unwrap().message(), "the user left");
/// ```
#[derive(Clone, Default)]
pub struct Signal {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    token: CancellationToken,
    reason: OnceLock<AbortReason>,
    parent: Option<Signal>,
}

impl Signal {
    /// A signal that has not fired.
    pub fn new() -> Signal {
        Signal::default()
    }

    /// A signal that fires with this one, or on its own.
    pub fn child(&self) -> Signal {
        Signal {
            inner: Arc::new(Inner {
                token: self.inner.token.child_token(),
                reason: OnceLock::new(),
                parent: Some(self.clone()),
            }),
        }
    }

    /// Fires the signal (and its children) with `reason`. The first reason stays.
    pub fn cancel(&self, reason: impl Into<AbortReason>) {
        if self.inner.token.is_cancelled() {
            return;
        }
        let _ = self.inner.reason.set(reason.into());
        self.inner.token.cancel();
    }

    /// Whether the signal has fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.token.is_cancelled()
    }

    /// Why the signal fired, or `None` while it has not.
    pub fn reason(&self) -> Option<AbortReason> {
        if !self.is_cancelled() {
            return None;
        }
        let mut signal = self;
        loop {
            if let Some(reason) = signal.inner.reason.get() {
                return Some(reason.clone());
            }
            match &signal.inner.parent {
                Some(parent) if parent.is_cancelled() => signal = parent,
                // Fired through the token without a reason (a token handed out and cancelled
                // directly).
                _ => return Some(AbortReason::cancelled("execution cancelled")),
            }
        }
    }

    /// Completes when the signal fires.
    pub fn cancelled(&self) -> WaitForCancellationFuture<'_> {
        self.inner.token.cancelled()
    }

    /// The underlying token, for libraries that take a tokio-util [`CancellationToken`].
    /// Cancelling it directly fires the signal with the reason `execution cancelled`.
    pub fn token(&self) -> &CancellationToken {
        &self.inner.token
    }
}

impl fmt::Debug for Signal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signal")
            .field("reason", &self.reason())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::seconds;

    #[test]
    fn a_child_firing_leaves_its_parent() {
        let parent = Signal::new();
        let child = parent.child();
        child.cancel(AbortReason::timed_out(seconds(10)));
        assert!(!parent.is_cancelled());
        assert_eq!(child.reason().unwrap().to_string(), "timed out after 10 s");
        assert_eq!(child.reason().unwrap().kind(), AbortKind::TimedOut);
    }

    #[test]
    fn the_first_reason_stays() {
        let signal = Signal::new();
        signal.cancel("first");
        signal.cancel("second");
        assert_eq!(signal.reason().unwrap().message(), "first");
    }

    #[test]
    fn a_token_cancelled_directly_still_has_a_reason() {
        let signal = Signal::new();
        signal.token().cancel();
        assert_eq!(signal.reason().unwrap().message(), "execution cancelled");
        assert_eq!(Signal::new().reason(), None);
    }

    #[tokio::test]
    async fn waiting_completes_on_cancel() {
        let signal = Signal::new();
        let waiter = {
            let signal = signal.clone();
            tokio::spawn(async move { signal.cancelled().await })
        };
        signal.cancel("stop");
        waiter.await.unwrap();
    }
}
