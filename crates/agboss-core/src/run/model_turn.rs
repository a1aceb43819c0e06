//! The model turn: before each model call the run's checks (cancellation, an answer already
//! given, budgets, the turn cap, the time budget, the lease), then the call with what the
//! agent's knowledge bases in context mode found added to its input, then its answer journaled
//! and read: a structured answer, text, or tool calls for the tool step.

use std::sync::Arc;

use agboss_rules::codes;
use tracing::Instrument;

use super::cx::{AnswerTool, Cx};
use super::{LimitExceededError, RunError, assign_call_ids};
use crate::journal::{Answer, LoopEvent, LoopState};
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, Message, ModelError, ToolChoice, ToolDefinition,
};
use crate::spend::{BudgetExceededError, SpendEntry};

/// The model side of one run: its model and the request every turn sends.
pub(super) struct ModelTurn {
    /// The agent's model, resolved once; a model id without a route fails the first model call.
    model: Result<Arc<dyn ChatModel>, ModelError>,
    /// The request of every turn. Its model, system prompt, tools (the answer tool last) and
    /// thinking are set once; each turn sets the tool choice and moves the conversation in and
    /// back out, so nothing is copied.
    request: ChatRequest,
}

impl ModelTurn {
    /// The turn of `cx`'s agent, and its answer tool if it gives a structured answer.
    pub(super) fn new(cx: &Cx<'_>) -> (ModelTurn, Option<AnswerTool>) {
        let agent = cx.agent;
        let mut tools: Vec<ToolDefinition> = agent
            .tools()
            .iter()
            .filter_map(|t| ToolDefinition::of(t.descriptor()).ok())
            .collect();
        let answer = agent.descriptor().answer().and_then(|spec| {
            // Assembly refused an answer schema that does not compile.
            let check = spec.compile().ok()?;
            tools.push(ToolDefinition {
                name: spec.tool_name().into(),
                description: format!(
                    "Give your final answer as {}.",
                    spec.tool_name().trim_start_matches("answer-")
                ),
                input_schema: spec.schema(),
            });
            Some(AnswerTool {
                name: spec.tool_name(),
                check,
            })
        });
        let (model, wire) = match cx.env.router.resolve(agent.model()) {
            Ok((model, wire)) => (Ok(model.clone()), wire),
            Err(e) => (Err(e), String::new()),
        };
        let request = ChatRequest {
            model: wire,
            system: agent.descriptor().prompt().to_owned(),
            messages: Vec::new(),
            tools,
            tool_choice: ToolChoice::Auto,
            thinking: agent.descriptor().thinking(),
            max_output_tokens: None,
        };
        (ModelTurn { model, request }, answer)
    }

    /// One model call and what comes of its answer.
    pub(super) async fn call(
        &mut self,
        cx: &Cx<'_>,
        state: &mut LoopState,
    ) -> Result<(), RunError> {
        if let Some(ended) = self.before_call(cx, state).await {
            return ended;
        }
        cx.ensure_context(state).await?;
        let model = match &self.model {
            Ok(model) => model.clone(),
            Err(e) => return Err(cx.fail(state, RunError::Model(e.clone())).await),
        };
        let turn = state.turn + 1;
        let answered = self.ask(cx, state, &*model, turn).await;
        let response = match answered {
            Ok(response) => response,
            Err(ModelError::Aborted(reason)) => {
                return Err(cx.fail(state, RunError::Aborted(reason)).await);
            }
            Err(e) => return Err(cx.fail(state, RunError::Model(e)).await),
        };
        self.take(cx, state, turn, response).await
    }

    /// The run's checks before a model call: `Some` when the run ends (or has ended) instead.
    async fn before_call(
        &self,
        cx: &Cx<'_>,
        state: &mut LoopState,
    ) -> Option<Result<(), RunError>> {
        if let Some(reason) = cx.aborted() {
            return Some(Err(cx.fail(state, RunError::Aborted(reason)).await));
        }
        if let Some(value) = cx.journaled_answer(state) {
            let answer = Answer::Structured(value);
            return Some(cx.record(state, LoopEvent::Answered { answer }).await);
        }
        if let Some(exceeded) = budget_exceeded(cx, state) {
            return Some(Err(cx
                .fail(state, RunError::BudgetExceeded(exceeded))
                .await));
        }
        if let Some(capped) = cx.turn_cap_reached(state) {
            return Some(Err(cx.fail(state, capped).await));
        }
        if let Some(late) = cx.out_of_time(format!("before model call {}", state.turn + 1)) {
            return Some(Err(cx.fail(state, late).await));
        }
        cx.may_start().await.err().map(Err)
    }

    /// Asks `model` for turn `turn`, the conversation of `state` with its context blocks added
    /// to its input message for this call only (the journal keeps the input as the user gave
    /// it); its
    /// text streamed to the watcher, if the run is watched. The conversation is moved into the
    /// request and back.
    async fn ask(
        &mut self,
        cx: &Cx<'_>,
        state: &mut LoopState,
        model: &dyn ChatModel,
        turn: u32,
    ) -> Result<ChatResponse, ModelError> {
        let context = state.context.as_deref().unwrap_or_default();
        let input = super::knowledge::add_context(&mut state.messages, state.input_at, context);
        let model_id = cx.agent.model();
        self.request.tool_choice = tool_choice(cx, turn);
        self.request.messages = std::mem::take(&mut state.messages);
        let span = cx.model_call_span(model_id, turn, &self.request.messages);
        let answered = match &cx.options.events {
            Some(events) => {
                let deltas = |delta: crate::model::ChatDelta<'_>| events.delta(turn, delta);
                let streamed = model.chat_streaming(&self.request, cx.execution.signal(), &deltas);
                streamed.instrument(span.clone()).await
            }
            None => {
                let whole = model.chat(&self.request, cx.execution.signal());
                whole.instrument(span.clone()).await
            }
        };
        cx.record_answer(&span, model_id, &answered);
        state.messages = std::mem::take(&mut self.request.messages);
        super::knowledge::restore_input(&mut state.messages, input);
        answered
    }

    /// Journals the model's answer of turn `turn` and reads it: a valid structured answer alone
    /// ends the run; tool calls go to the tool step (the limit checked once the answer's usage
    /// is journaled); text ends it, unless a structured answer is due.
    async fn take(
        &self,
        cx: &Cx<'_>,
        state: &mut LoopState,
        turn: u32,
        mut response: ChatResponse,
    ) -> Result<(), RunError> {
        let model_id = cx.agent.model();
        let cost = cx.env.router.cost(model_id, response.usage);
        cx.execution.spend().push(SpendEntry {
            service: model_id.to_owned(),
            cost,
            tool: None,
            call_id: None,
        });
        let mut message = Message::Assistant {
            text: response.text.clone(),
            tool_calls: response.tool_calls.clone(),
            reasoning: std::mem::take(&mut response.reasoning),
        };
        // Each answer is checked once, by the contract's input check (`answers.rs`): a valid
        // one alone ends the run; beside other calls, it ends the run once they have their
        // results; invalid ones go back to the model as tool errors, journaled with the turn.
        let answers = cx.check_answers(&response.tool_calls);
        let empty = cx.empty_answer(turn, &response);
        let alone = answers.valid.is_some() && response.tool_calls.len() == 1;
        let mut calls = match alone {
            true => Vec::new(),
            false => assign_call_ids(response.tool_calls, state.visit, turn, &state.provider_ids),
        };
        let sealed = cx.seal_arguments(&mut calls, &mut message).await?;
        let counted = calls.iter().filter(|c| !cx.is_answer(&c.call.name)).count() as u32;
        let no_calls = calls.is_empty();
        let answered = LoopEvent::ModelAnswered {
            turn,
            model: model_id.to_owned(),
            message,
            calls,
            counted_calls: counted,
            sealed,
            usage: response.usage,
            cost,
        };
        // Recorded before the limit is checked: the answer's usage and cost reach the counters
        // even when the run stops here.
        cx.record(state, answered).await?;
        if let (true, Some((_, value))) = (alone, answers.valid.as_ref()) {
            let answer = Answer::Structured(value.clone());
            return cx.record(state, LoopEvent::Answered { answer }).await;
        }
        crate::base::failpoint("model-answered");
        if let Some(exceeded) = limit_exceeded(cx, state) {
            return Err(cx.fail(state, RunError::LimitExceeded(exceeded)).await);
        }
        if no_calls {
            return self.text_answer(cx, state, empty, response.text).await;
        }
        if let Some(error) = cx.answers_exhausted(state, &answers) {
            return Err(cx.fail(state, error).await);
        }
        for (index, output) in cx.answer_results(answers) {
            cx.finish(state, index, output, None).await?;
        }
        Ok(())
    }

    /// The end of a run whose model answered without calls: `empty` when it said nothing, a
    /// missing structured answer, or its `text`.
    async fn text_answer(
        &self,
        cx: &Cx<'_>,
        state: &mut LoopState,
        empty: Option<RunError>,
        text: Option<String>,
    ) -> Result<(), RunError> {
        if let Some(error) = empty {
            return Err(cx.fail(state, error).await);
        }
        if let Some(answer) = &cx.answer {
            let error = RunError::Contract(codes::ANSWER_MISSING.fill(&[
                ("agent", &cx.agent.name()),
                ("tool", &answer.name),
                ("why", &"the model answered in text"),
            ]));
            return Err(cx.fail(state, error).await);
        }
        let answer = Answer::Text(text.unwrap_or_default());
        cx.record(state, LoopEvent::Answered { answer }).await
    }
}

/// The tool choice of turn `turn` (from 1): the run's own, else the agent's first turn's, else
/// the agent's, else `required` for an agent with an answer DTO and `auto` otherwise.
fn tool_choice(cx: &Cx<'_>, turn: u32) -> ToolChoice {
    if let Some(choose) = &cx.options.tool_choice
        && let Some(choice) = choose(turn)
    {
        return choice;
    }
    match (
        turn,
        cx.agent.first_turn_tool_choice(),
        cx.agent.tool_choice(),
    ) {
        (1, Some(first), _) => first.clone(),
        (_, _, Some(choice)) => choice.clone(),
        _ if cx.answer.is_some() => ToolChoice::Required,
        _ => ToolChoice::Auto,
    }
}

/// Which budget of the run is spent, if one is.
fn budget_exceeded(cx: &Cx<'_>, state: &LoopState) -> Option<BudgetExceededError> {
    state
        .budgets
        .exceeded(state.usage.total(), cx.execution.spend().total())
}

/// The limit of tool calls the model's answers went past, if they did.
fn limit_exceeded(cx: &Cx<'_>, state: &LoopState) -> Option<LimitExceededError> {
    let limit = cx.agent.max_tool_calls().value;
    (state.tool_calls > limit).then(|| LimitExceededError {
        agent: cx.agent.name().into(),
        limit,
        requested: state.tool_calls,
    })
}
