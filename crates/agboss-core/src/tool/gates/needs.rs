//! Resolving the credentials a tool `needs` for one call, just before it runs: each through the
//! application's [`CredentialProvider`], a missing one a tool failure the model reads and a
//! `tracing` warning, both naming the credential and never holding a value.

use std::sync::Arc;

use crate::context::Execution;
use crate::time::Clock;
use crate::tool::pipeline::{Check, GateCall, Part, Place, Stage, Verdict};
use crate::tool::race::{Finish, Race};
use crate::tool::{
    CredentialProvider, CredentialRequest, CredentialUse, Credentials, ToolDescriptor, ToolFailure,
};
use crate::units::TimeSpan;

/// The credentials of one call of `tool` in `execution`, each asked of `provider` within
/// `timeout` (a provider that does not answer in time, or whose execution is cancelled, fails
/// the call as its run would).
pub(crate) async fn resolve_needs(
    provider: Option<&Arc<dyn CredentialProvider>>,
    tool: &'static ToolDescriptor,
    execution: &Execution,
    clock: &Clock,
    timeout: TimeSpan,
) -> Result<Credentials, ToolFailure> {
    let mut values = Vec::new();
    for &name in tool.needs() {
        let Some(provider) = provider else {
            return Err(missing(
                tool,
                name,
                "the application has no credential provider",
            ));
        };
        let request = CredentialRequest {
            name,
            used_by: CredentialUse::Call {
                tool: tool.name(),
                execution,
            },
        };
        let signal = execution.signal();
        let race = Race::new(
            provider.resolve(request),
            clock,
            timeout.as_duration(),
            signal,
        );
        match race.await {
            // The usual case, one credential, needs no list.
            Finish::Done(Ok(Ok(Some(secret)))) if tool.needs().len() == 1 => {
                return Ok(Credentials::one(name, secret));
            }
            Finish::Done(Ok(Ok(Some(secret)))) => values.push((name, secret)),
            Finish::Done(Ok(Ok(None))) => {
                return Err(missing(
                    tool,
                    name,
                    "the provider has none for this execution",
                ));
            }
            Finish::Done(Ok(Err(error))) => {
                return Err(missing(
                    tool,
                    name,
                    &format!("the provider failed: {error}"),
                ));
            }
            Finish::Done(Err(_)) => return Err(missing(tool, name, "the provider panicked")),
            Finish::TimedOut => return Err(ToolFailure::TimedOut(timeout)),
            Finish::Aborted => {
                return Err(ToolFailure::Aborted(signal.reason().unwrap_or_else(|| {
                    crate::context::AbortReason::cancelled("execution cancelled")
                })));
            }
        }
    }
    Ok(Credentials::new(values))
}

/// The failure of a call whose credential `name` is missing, and its warning (names only).
#[cold]
fn missing(tool: &'static ToolDescriptor, name: &'static str, why: &str) -> ToolFailure {
    tracing::warn!(
        tool = tool.name(),
        credential = name,
        why,
        "a credential the tool needs is missing; the call did not run"
    );
    ToolFailure::MissingCredential { name }
}

/// The `credentials` gate: the credentials the tool `needs`, resolved in the call's own task
/// just before `run`, after every other gate (a person approves a call before any credential
/// is fetched for it). One that is missing fails the call.
pub(crate) struct CredentialsGate {
    pub(crate) provider: Option<Arc<dyn CredentialProvider>>,
    pub(crate) clock: Clock,
    pub(crate) timeout: TimeSpan,
}

impl Stage for CredentialsGate {
    fn name(&self) -> &str {
        "credentials"
    }

    fn part(&self) -> Part {
        Part::Gate
    }

    fn place(&self) -> Place {
        Place::Call
    }

    fn before<'a>(&'a self, call: &'a mut GateCall<'_>) -> Check<'a> {
        Check::Later(Box::pin(async move {
            let resolved = resolve_needs(
                self.provider.as_ref(),
                call.tool(),
                call.execution(),
                &self.clock,
                self.timeout,
            )
            .await;
            match resolved {
                Ok(credentials) => {
                    call.credentials = Some(credentials);
                    Verdict::Pass
                }
                Err(failure) => Verdict::Refuse(failure),
            }
        }))
    }
}
