//! One call's run raced against its timeout and its execution's signal, with panics caught.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio_util::sync::WaitForCancellationFuture;

use crate::context::Signal;
use crate::time::{Clock, Sleep};
use crate::tool::ToolError;

/// How long after its timeout a call whose `run` has not returned is judged timed out from
/// outside, by the agent loop's tool step: 100 ms, on the application's clock.
///
/// A `run` that waits is timed out by its own call at its timeout; one that never waits (a
/// busy loop, a blocking call on the runtime's thread) holds the thread its call is raced on,
/// so the step, which runs each call as its own task, records `timed out after <timeout>` for
/// it at timeout + grace and drops whatever it returns later. The model reads the same text
/// either way.
pub const TIMEOUT_GRACE: Duration = Duration::from_millis(100);

/// How a raced run ended.
pub(crate) enum Finish<T> {
    /// The run finished (or panicked, with the payload).
    Done(Result<T, Box<dyn Any + Send>>),
    /// The timeout passed first.
    TimedOut,
    /// The signal fired first.
    Aborted,
}

impl<O> Finish<Result<O, ToolError>> {
    /// The output of a run that returned one, else how it ended (its error among them).
    pub(crate) fn into_output(self) -> Result<O, Finish<ToolError>> {
        match self {
            Finish::Done(Ok(Ok(output))) => Ok(output),
            Finish::Done(Ok(Err(error))) => Err(Finish::Done(Ok(error))),
            Finish::Done(Err(payload)) => Err(Finish::Done(Err(payload))),
            Finish::TimedOut => Err(Finish::TimedOut),
            Finish::Aborted => Err(Finish::Aborted),
        }
    }
}

pin_project_lite::pin_project! {
    /// Polls the run first, so a run that is ready at once never creates a timer; the timer and
    /// the signal's waiter are made the first time the run waits.
    pub(crate) struct Race<'a, F> {
        #[pin]
        run: F,
        #[pin]
        timer: Option<Sleep>,
        #[pin]
        abort: Option<WaitForCancellationFuture<'a>>,
        clock: &'a Clock,
        timeout: Duration,
        signal: &'a Signal,
    }
}

impl<'a, F: Future> Race<'a, F> {
    pub(crate) fn new(run: F, clock: &'a Clock, timeout: Duration, signal: &'a Signal) -> Self {
        Race {
            run,
            timer: None,
            abort: None,
            clock,
            timeout,
            signal,
        }
    }
}

impl<F: Future> Future for Race<'_, F> {
    type Output = Finish<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let run = this.run;
        match catch_unwind(AssertUnwindSafe(|| run.poll(cx))) {
            Ok(Poll::Ready(output)) => return Poll::Ready(Finish::Done(Ok(output))),
            Err(payload) => return Poll::Ready(Finish::Done(Err(payload))),
            Ok(Poll::Pending) => {}
        }
        if this.timer.is_none() {
            this.timer.set(Some(this.clock.sleep(*this.timeout)));
        }
        if let Some(timer) = this.timer.as_mut().as_pin_mut()
            && timer.poll(cx).is_ready()
        {
            return Poll::Ready(Finish::TimedOut);
        }
        if this.abort.is_none() {
            this.abort.set(Some(this.signal.cancelled()));
        }
        if let Some(abort) = this.abort.as_mut().as_pin_mut()
            && abort.poll(cx).is_ready()
        {
            return Poll::Ready(Finish::Aborted);
        }
        Poll::Pending
    }
}

/// The text of a panic's payload.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
