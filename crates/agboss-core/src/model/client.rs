//! [`ModelClient`]: a tool's own access to the models, its spend recorded as the tool's.

use std::sync::Arc;

use tracing::Instrument;

use super::{ChatRequest, ChatResponse, ModelError, ModelRouter};
use crate::component::Requirement;
use crate::context::Signal;
use crate::deps::Unresolved;
use crate::spend::SpendRecorder;
use crate::tool::{Dependency, Scope};
use crate::units::Usd;

/// Calls models from inside a tool (declare it as a field): the call runs under the tool call's
/// signal, and what it costs is recorded as the tool's spend, counted in the execution's money
/// budget.
#[derive(Clone)]
pub struct ModelClient {
    router: Arc<ModelRouter>,
    spend: SpendRecorder,
    signal: Signal,
}

impl ModelClient {
    /// Asks model `model_id` (`vendor/model`); `request.model` is set from it.
    pub async fn chat(
        &self,
        model_id: &str,
        mut request: ChatRequest,
    ) -> Result<ChatResponse, ModelError> {
        let (model, wire) = self.router.resolve(model_id)?;
        request.model = wire;
        // A child of the tool call's span, which names the tool and the agent.
        let span = super::spans::chat_span(model_id, None, None);
        let answered = model
            .chat(&request, &self.signal)
            .instrument(span.clone())
            .await;
        let cost = answered.as_ref().map_or(Usd::ZERO, |response| {
            self.router.cost(model_id, response.usage)
        });
        super::spans::record_chat(&span, &answered, cost);
        let response = answered?;
        self.spend.record(model_id, cost);
        Ok(response)
    }
}

impl std::fmt::Debug for ModelClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelClient")
            .field("router", &self.router)
            .finish_non_exhaustive()
    }
}

impl Dependency for ModelClient {
    fn requirement() -> Requirement {
        Requirement::Builtin
    }

    fn resolve(scope: &Scope<'_>) -> Result<Self, Unresolved> {
        let router = scope.providers().get::<ModelRouter>()?;
        Ok(ModelClient {
            router,
            spend: SpendRecorder::resolve(scope)?,
            signal: scope.call_signal(),
        })
    }
}
