//! [`RunStream`]: a run watched as it goes (`app.run("desk", input).stream()`).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;

use super::runs::RunBuilder;
use crate::run::{EventSink, Events, RunError, RunEvent, RunOutcome};

pub(super) type Running<'a> =
    Pin<Box<dyn Future<Output = Result<RunOutcome, RunError>> + Send + 'a>>;

/// The events of a run as it goes ([`RunEvent`]), ending with
/// [`RunEvent::Finished`]: what awaiting the run would have returned.
///
/// Polling the stream drives the run: nothing is spawned, and dropping the stream drops the
/// run as dropping its future would (its execution stays journaled, to be resumed). Read it with
/// [`next`](Self::next), or as a `futures::Stream`.
///
/// ```no_run
/// # async fn demo(app: agboss_core::app::Application) {
/// use agboss_core::run::RunEvent;
///
/// let mut run = app.run("desk", "What changed in the last release?").stream();
/// while let Some(event) = run.next().await {
///     match event {
///         RunEvent::Text { text, .. } => print!("{text}"),
///         RunEvent::ToolStarted { tool, .. } => eprintln!("[{tool}...]"),
///         RunEvent::Finished(outcome) => println!("\n{:?}", outcome.map(|o| o.text().map(str::to_owned))),
///         _ => {}
///     }
/// }
/// # }
/// ```
#[must_use = "a run does nothing until its stream is polled"]
pub struct RunStream<'a> {
    running: Option<Running<'a>>,
    events: Events,
    finished: Option<Result<RunOutcome, RunError>>,
    /// `Finished` was handed out: nothing comes after it.
    ended: bool,
}

impl<'a> RunBuilder<'a> {
    /// Runs it, watched: its events as they happen, then how it ended.
    pub fn stream(self) -> RunStream<'a> {
        let (sink, events) = EventSink::new();
        RunStream::new(Box::pin(self.watched_by(sink).into_future_boxed()), events)
    }
}

impl<'a> RunStream<'a> {
    /// The stream of `running`, whose events come to `events`.
    pub(super) fn new(running: Running<'a>, events: Events) -> RunStream<'a> {
        RunStream {
            running: Some(running),
            events,
            finished: None,
            ended: false,
        }
    }
}

impl RunStream<'_> {
    /// The next event; `None` after [`RunEvent::Finished`].
    pub async fn next(&mut self) -> Option<RunEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// Runs to the end, handing `on_event` every event but the last, and returns how the run
    /// ended (what [`RunEvent::Finished`] carries).
    pub async fn watch(
        mut self,
        mut on_event: impl FnMut(RunEvent),
    ) -> Result<RunOutcome, RunError> {
        while let Some(event) = self.next().await {
            match event {
                RunEvent::Finished(outcome) => return outcome,
                event => on_event(event),
            }
        }
        // Only a stream whose end was already read gets here.
        Err(RunError::NotFound(
            "this run's stream already gave how the run ended".to_owned(),
        ))
    }
}

impl Stream for RunStream<'_> {
    type Item = RunEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        let this = &mut *self;
        if this.ended {
            return Poll::Ready(None);
        }
        loop {
            // What happened so far comes first, then the run goes on.
            if let Poll::Ready(Some((_, event))) = this.events.poll_recv(cx) {
                return Poll::Ready(Some(event));
            }
            match this.running.as_mut() {
                Some(running) => match running.as_mut().poll(cx) {
                    Poll::Ready(result) => {
                        // What the run sent before it ended is read before the end; a call
                        // it left behind (judged timed out, still running on its thread) can
                        // send nothing more.
                        this.running = None;
                        this.events.close();
                        this.finished = Some(result);
                    }
                    Poll::Pending => return Poll::Pending,
                },
                None => {
                    this.ended = true;
                    return Poll::Ready(this.finished.take().map(RunEvent::Finished));
                }
            }
        }
    }
}

impl std::fmt::Debug for RunStream<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStream")
            .field("running", &self.running.is_some())
            .finish_non_exhaustive()
    }
}
