//! [`Middleware`]: a stage of the call pipeline an application writes, and the stage that runs
//! it.

use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt;

use super::{CallEnd, Check, GateCall, Part, Stage, Then, ToolOutput, Verdict};
use crate::tool::ToolFailure;
use crate::tool::race::panic_message;

/// What a middleware's check before a call returns: `Ok(())` lets it go on, `Err(reason)`
/// refuses it, and the model reads `Tool error: <reason>`.
pub type MiddlewareFuture<'a> = Pin<Box<dyn Future<Output = Result<(), String>> + Send + 'a>>;

/// A stage of the call pipeline an application adds, for every call
/// (`ApplicationBuilder::middleware`) or for one tool's (`ApplicationBuilder::tool_middleware`):
/// it sees each call that every gate before it let through (its arguments as the contract
/// accepts them, a person's approval already given) and may refuse it, and then sees what the
/// call gave, bounded and masked, before the retries.
///
/// It runs inside the same rules as the built-in stages: its refusal is journaled as the call's
/// result, a call it let through is journaled before it starts, and a resumed run asks it again
/// only about calls that have no result yet. Keep it quick: the loop waits for it.
///
/// ```
/// use agboss_core::tool::{CallEnd, GateCall, Middleware, MiddlewareFuture, ToolOutput};
///
/// /// No deletes on Fridays, and every call counted.
/// struct Desk;
///
/// impl Middleware for Desk {
///     fn name(&self) -> &str {
///         "desk-rules"
///     }
///
///     fn before<'a>(&'a self, call: &'a GateCall<'_>) -> MiddlewareFuture<'a> {
///         let deletes = call.tool().name().starts_with("delete-");
///         Box::pin(async move {
///             match deletes {
///                 true => Err("deletes wait until Monday".to_owned()),
///                 false => Ok(()),
///             }
///         })
///     }
///
///     fn after(&self, call: &CallEnd<'_>, output: &ToolOutput) {
///         eprintln!("{} ended (error: {})", call.tool().name(), output.is_error());
///     }
/// }
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// Its name: what traces and `describe` call it. Not one of the built-in stages' names.
    fn name(&self) -> &str;

    /// Its check of `call` before it runs; by default every call goes on.
    fn before<'a>(&'a self, call: &'a GateCall<'_>) -> MiddlewareFuture<'a> {
        let _ = call;
        Box::pin(std::future::ready(Ok(())))
    }

    /// What it does with what the call gave; by default nothing.
    fn after(&self, call: &CallEnd<'_>, output: &ToolOutput) {
        let _ = (call, output);
    }
}

/// The stage that runs an application's [`Middleware`].
pub(crate) struct MiddlewareStage(pub(crate) Arc<dyn Middleware>);

impl MiddlewareStage {
    /// The refusal of a call whose middleware panicked before it decided.
    fn panicked(&self, payload: &(dyn std::any::Any + Send)) -> Verdict {
        Verdict::Refuse(ToolFailure::Refused(format!(
            "the middleware `{}` failed before it decided ({}): the call does not run",
            self.0.name(),
            panic_message(payload)
        )))
    }
}

impl Stage for MiddlewareStage {
    fn name(&self) -> &str {
        self.0.name()
    }

    fn part(&self) -> Part {
        Part::Both
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        // A middleware that panics has not decided: the call does not run.
        let checked = match catch_unwind(AssertUnwindSafe(|| self.0.before(call))) {
            Ok(checked) => checked,
            Err(payload) => return Check::Now(self.panicked(&*payload)),
        };
        Check::Later(Box::pin(async move {
            match AssertUnwindSafe(checked).catch_unwind().await {
                Ok(Ok(())) => Verdict::Pass,
                Ok(Err(reason)) => Verdict::Refuse(ToolFailure::Refused(reason)),
                Err(payload) => self.panicked(&*payload),
            }
        }))
    }

    fn after(&self, call: &CallEnd<'_>, output: &mut ToolOutput) -> Then {
        // What it sees after is for it alone: a panic there changes nothing of the result.
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| self.0.after(call, output))) {
            tracing::error!(
                middleware = self.0.name(),
                panic = %panic_message(&*payload),
                "a middleware panicked while it read a call's result"
            );
        }
        Then::Keep
    }
}
