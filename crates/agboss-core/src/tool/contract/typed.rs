//! One call of a typed tool as the contract's untyped steps drive it: its input, read, until
//! every gate has passed; then its `run`; then its output rendered as the model reads it. The
//! input and the run's future share one allocation ([`TypedCall`]), which is all a call costs
//! for keeping the contract's steps out of every tool's generic code.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::schemas_of;
use super::shared::{self, Call, Done, Pending};
use crate::tool::conform::Checks;
use crate::tool::schema::{SchemaCheck, unwritable};
use crate::tool::{Scope, TextStream, Tool, ToolDescriptor, ToolError, ToolFailure};

/// `tool` run on `input`, owning both: the future a [`TypedCall`] holds once started.
pub(super) async fn run_owned<T: Tool>(tool: T, input: T::Input) -> Result<T::Output, ToolError> {
    tool.run(input).await
}

/// A [`TypedCall`] of `run` (which names the type of `run_owned::<T>`'s future, which has no
/// name of its own), boxed: the one allocation of a call beyond its values.
pub(super) fn typed_call<T: Tool, F>(
    input: T::Input,
    run: fn(T, T::Input) -> F,
    checks: Checks<T::Input, T::Output>,
    descriptor: &'static ToolDescriptor,
    keep: bool,
) -> Call
where
    F: Future<Output = Result<T::Output, ToolError>> + Send + 'static,
{
    Box::pin(TypedCall {
        input: Some(input),
        make: run,
        running: None,
        checks,
        descriptor,
        keep,
    })
}

pin_project_lite::pin_project! {
    /// One call of tool `T`: its input until it starts, then its run; when the run returns,
    /// its output rendered (step 4), or kept as a value.
    struct TypedCall<T: Tool, F> {
        input: Option<T::Input>,
        make: fn(T, T::Input) -> F,
        #[pin]
        running: Option<F>,
        checks: Checks<T::Input, T::Output>,
        descriptor: &'static ToolDescriptor,
        keep: bool,
    }
}

impl<T: Tool, F> Future for TypedCall<T, F>
where
    F: Future<Output = Result<T::Output, ToolError>> + Send,
{
    type Output = Result<Done, ToolError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let Some(running) = this.running.as_pin_mut() else {
            return Poll::Ready(Err(shared::out_of_order()));
        };
        let output = match running.poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(output)) => output,
            Poll::Ready(Err(error)) => return Poll::Ready(Err(error)),
        };
        if *this.keep {
            return Poll::Ready(Ok(Done::Value(Box::new(output))));
        }
        Poll::Ready(Ok(rendered::<T>(output, this.checks, this.descriptor)))
    }
}

impl<T: Tool, F> Pending for TypedCall<T, F>
where
    F: Future<Output = Result<T::Output, ToolError>> + Send,
{
    fn start(self: Pin<&mut Self>, scope: &Scope<'_>) -> Result<(), ToolFailure> {
        let mut this = self.project();
        let Some(input) = this.input.take() else {
            return Err(shared::not_started());
        };
        let tool = match T::build(scope) {
            Ok(tool) => tool,
            Err(error) => return Err(ToolFailure::Dependency(error)),
        };
        this.running.set(Some((this.make)(tool, input)));
        Ok(())
    }
}

/// Step 4: what the model reads of `output`: its JSON text, checked against the output schema
/// (by the generated validator on the value where it covers the type, else on the text just
/// written, so the output is serialized once, by one serializer per tool); a [`TextStream`]
/// as it is, for the contract to read.
fn rendered<T: Tool>(
    output: T::Output,
    checks: &Checks<T::Input, T::Output>,
    descriptor: &'static ToolDescriptor,
) -> Done {
    // Decided at compile time for every type but a stream, which is taken out of its slot.
    if crate::tool::io::text_stream::is_text_stream::<T::Output>() {
        let mut slot = Some(output);
        return match (&mut slot as &mut dyn Any).downcast_mut::<Option<TextStream>>() {
            Some(stream) => match stream.take() {
                Some(stream) => Done::Stream(stream),
                None => Done::Text(Err(shared::not_started())),
            },
            None => Done::Text(Err(shared::not_started())),
        };
    }
    let text = match serde_json::to_string(&output) {
        Ok(text) => text,
        Err(e) => return Done::Text(Err(ToolFailure::InvalidOutput(unwritable(&output, &e)))),
    };
    Done::Text(match unless_covered(checks.output, descriptor, &output) {
        Ok(None) => Ok(text),
        Ok(Some(schema)) => match schema.check_text(&text) {
            Ok(()) => Ok(text),
            Err(issues) => Err(ToolFailure::InvalidOutput(issues)),
        },
        Err(failure) => Err(failure),
    })
}

/// The output schema's checker, unless the generated validator (`check`) covers the output's
/// type and `output` conforms: then there is nothing left to check.
pub(super) fn unless_covered<O>(
    check: Option<fn(&O) -> bool>,
    descriptor: &'static ToolDescriptor,
    output: &O,
) -> Result<Option<&'static SchemaCheck>, ToolFailure> {
    if let Some(check) = check
        && check(output)
    {
        return Ok(None);
    }
    Ok(Some(&schemas_of(descriptor)?.output))
}
