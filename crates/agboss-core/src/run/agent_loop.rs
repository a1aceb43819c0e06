//! One agent's loop, advanced one step at a time: call the model, run the calls it asked for,
//! feed the results back, until it answers.

use std::sync::Arc;

use jsonschema::Validator;
use serde_json::Value;
use tracing::Instrument;

use super::state::{Answer, LoopEvent, LoopState, Next};
use super::{
    BudgetExceededError, Budgets, LimitExceededError, RunError, RunOptions, assign_call_ids,
};
use crate::app::{AppAgent, Application};
use crate::context::{AbortReason, Execution};
use crate::model::{ChatRequest, Message, ModelRouter, ToolChoice};
use crate::spend::SpendEntry;
use crate::store::Store;
use crate::tool::ToolDefinition;

/// The loop of one agent in one execution.
pub(crate) struct AgentLoop<'a> {
    pub(super) agent: &'a AppAgent,
    pub(super) execution: Execution,
    pub(super) router: Arc<ModelRouter>,
    pub(super) store: Arc<dyn Store>,
    pub(super) options: &'a RunOptions,
    pub(super) budgets: Budgets,
    /// What the model is told about the tools, the answer tool last. Moved into each request
    /// and back, never copied.
    pub(super) definitions: Vec<ToolDefinition>,
    pub(super) answer: Option<(&'static str, Validator, Value)>,
}

impl<'a> AgentLoop<'a> {
    pub(crate) fn new(
        app: &'a Application,
        agent: &'a AppAgent,
        execution: Execution,
        router: Arc<ModelRouter>,
        store: Arc<dyn Store>,
        options: &'a RunOptions,
    ) -> AgentLoop<'a> {
        let mut definitions: Vec<ToolDefinition> = agent
            .tools()
            .iter()
            .filter_map(|t| ToolDefinition::of(t.descriptor()).ok())
            .collect();
        let answer = agent.descriptor().answer().and_then(|spec| {
            let schema = spec.schema();
            definitions.push(ToolDefinition {
                name: spec.tool_name().into(),
                description: format!(
                    "Give your final answer as {}.",
                    spec.tool_name().trim_start_matches("answer-")
                ),
                input_schema: schema.clone(),
            });
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
                .ok()?;
            Some((spec.tool_name(), validator, schema))
        });
        AgentLoop {
            agent,
            execution,
            router,
            store,
            options,
            budgets: options.budgets.unwrap_or(app.budgets),
            definitions,
            answer,
        }
    }

    /// Journals `event` and folds it into `state`.
    pub(super) async fn record(
        &self,
        state: &mut LoopState,
        event: LoopEvent,
    ) -> Result<(), RunError> {
        self.store
            .append(self.execution.execution_id(), state.events, &event)
            .await
            .map_err(RunError::Store)?;
        state.apply(event);
        Ok(())
    }

    /// Journals the run's end with `error`, and returns it.
    pub(super) async fn fail(&self, state: &mut LoopState, error: RunError) -> RunError {
        let event = LoopEvent::Failed {
            code: error.code(),
            message: error.to_string(),
        };
        match self.record(state, event).await {
            Ok(()) => error,
            Err(store) => store,
        }
    }

    /// Performs what `state.next` says.
    pub(crate) async fn step(&mut self, state: &mut LoopState) -> Result<(), RunError> {
        match state.next {
            Next::CallModel => self.call_model(state).await,
            Next::RunTools => self.run_tools(state).await,
            Next::Start | Next::Answered(_) | Next::Failed(..) => Ok(()),
        }
    }

    async fn call_model(&mut self, state: &mut LoopState) -> Result<(), RunError> {
        if let Some(reason) = self.execution.signal().reason() {
            return Err(self.fail(state, RunError::Aborted(reason)).await);
        }
        if let Some(exceeded) = self.budget_exceeded(state) {
            return Err(self.fail(state, RunError::BudgetExceeded(exceeded)).await);
        }
        let model_id = self.agent.model().to_owned();
        let turn = state.turn + 1;
        let (model, wire) = match self.router.resolve(&model_id) {
            Ok(found) => found,
            Err(e) => return Err(self.fail(state, RunError::Model(e)).await),
        };
        let request = ChatRequest {
            model: wire,
            system: self.agent.descriptor().prompt().to_owned(),
            messages: std::mem::take(&mut state.messages),
            tools: std::mem::take(&mut self.definitions),
            tool_choice: self.tool_choice(turn),
            thinking: self.agent.descriptor().thinking(),
            max_output_tokens: None,
        };
        let span = tracing::info_span!("agboss.model_call", model = %model_id, turn, agent = self.agent.name());
        let answered = model
            .chat(&request, self.execution.signal())
            .instrument(span)
            .await;
        state.messages = request.messages;
        self.definitions = request.tools;
        let response = match answered {
            Ok(response) => response,
            Err(crate::model::ModelError::Aborted(reason)) => {
                return Err(self.fail(state, RunError::Aborted(reason)).await);
            }
            Err(e) => return Err(self.fail(state, RunError::Model(e)).await),
        };
        let cost = self.router.cost(&model_id, response.usage);
        self.execution.spend().push(SpendEntry {
            service: model_id.clone(),
            cost,
            tool: None,
            call_id: None,
        });

        let message = Message::Assistant {
            text: response.text.clone(),
            tool_calls: response.tool_calls.clone(),
        };
        // A valid structured answer ends the run; an invalid one goes back as a tool error.
        if let Some((name, validator, _)) = &self.answer
            && let Some(call) = response.tool_calls.iter().find(|c| c.name == *name)
            && let Ok(value) = serde_json::from_str::<Value>(&call.arguments)
            && validator.is_valid(&value)
        {
            let answered = LoopEvent::ModelAnswered {
                turn,
                model: model_id,
                message,
                calls: Vec::new(),
                counted_calls: 0,
                usage: response.usage,
                cost,
            };
            self.record(state, answered).await?;
            return self
                .record(
                    state,
                    LoopEvent::Answered {
                        answer: Answer::Structured(value),
                    },
                )
                .await;
        }
        let calls = assign_call_ids(response.tool_calls, state.visit, turn, &state.provider_ids);
        let counted = calls
            .iter()
            .filter(|c| !self.is_answer(&c.call.name))
            .count() as u32;
        let limit = self.agent.max_tool_calls().value;
        let no_calls = calls.is_empty();
        let answered = LoopEvent::ModelAnswered {
            turn,
            model: model_id,
            message,
            calls,
            counted_calls: counted,
            usage: response.usage,
            cost,
        };
        // Recorded before the limit is checked: the answer's usage and cost reach the counters
        // even when the run stops here.
        self.record(state, answered).await?;
        let made = state.tool_calls;
        if made > limit {
            let error = LimitExceededError {
                agent: self.agent.name().into(),
                limit,
                requested: made,
            };
            return Err(self.fail(state, RunError::LimitExceeded(error)).await);
        }
        if no_calls {
            if let Some((name, _, _)) = &self.answer {
                let error = RunError::Contract(format!(
                    "agent `{}` answers through `{name}`, but the model answered in text",
                    self.agent.name()
                ));
                return Err(self.fail(state, error).await);
            }
            let answer = Answer::Text(response.text.unwrap_or_default());
            return self.record(state, LoopEvent::Answered { answer }).await;
        }
        Ok(())
    }

    pub(super) fn is_answer(&self, name: &str) -> bool {
        self.answer
            .as_ref()
            .is_some_and(|(answer, _, _)| *answer == name)
    }

    fn tool_choice(&self, turn: u32) -> ToolChoice {
        if let Some(choose) = &self.options.tool_choice
            && let Some(choice) = choose(turn)
        {
            return choice;
        }
        match self.agent.descriptor().tool_choice() {
            Some(choice) => choice,
            None if self.answer.is_some() => ToolChoice::Required,
            None => ToolChoice::Auto,
        }
    }

    fn budget_exceeded(&self, state: &LoopState) -> Option<BudgetExceededError> {
        if let Some(limit) = self.budgets.max_tokens
            && state.usage.total() >= limit
        {
            return Some(BudgetExceededError::Tokens {
                limit,
                used: state.usage.total(),
            });
        }
        if let Some(limit) = self.budgets.max_usd {
            let spent = self.execution.spend().total();
            if spent >= limit {
                return Some(BudgetExceededError::Usd { limit, spent });
            }
        }
        None
    }

    /// Fails the run if its signal fired, with the signal's reason.
    pub(super) fn aborted(&self) -> Option<AbortReason> {
        self.execution.signal().reason()
    }
}
