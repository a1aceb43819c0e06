//! One agent's loop, advanced one step at a time: call the model, run the calls it asked for,
//! feed the results back, until it answers.

use std::sync::Arc;

use agboss_rules::codes;
use tracing::Instrument;

use super::{LeaseKeeper, LimitExceededError, RunEnv, RunError, RunOptions, assign_call_ids};
use crate::agent::AppAgent;
use crate::context::{AbortReason, Execution};
use crate::journal::{Answer, LoopEvent, LoopState, Next};
use crate::model::{ChatModel, ChatRequest, Message, ModelError, ToolChoice};
use crate::spend::{BudgetExceededError, SpendEntry};
use crate::store::StoreErrorKind;
use crate::tool::{SchemaCheck, ToolDefinition};

/// The loop of one agent in one execution.
pub(crate) struct AgentLoop<'a> {
    pub(super) agent: &'a AppAgent,
    pub(super) execution: Execution,
    pub(super) env: RunEnv,
    pub(super) options: &'a RunOptions,
    /// The execution's lease: its fence goes with every append, and no call starts without it.
    pub(super) lease: &'a LeaseKeeper,
    /// The agent's model, resolved once; a model id without a route fails the first model call.
    model: Result<Arc<dyn ChatModel>, ModelError>,
    /// The request of every turn. Its model, system prompt, tools (the answer tool last) and
    /// thinking are set once; each turn sets the tool choice and moves the conversation in and
    /// back out, so nothing is copied.
    request: ChatRequest,
    pub(super) answer: Option<AnswerTool>,
    /// What the permission checker is told of the run so far.
    pub(super) seen: std::sync::Mutex<super::seen::Seen>,
    /// When this drive of the run began, which its time budget counts from.
    pub(super) started: crate::time::ClockTime,
}

/// The agent's answer tool `answer-<dto>` and the check of its arguments.
pub(super) struct AnswerTool {
    pub(super) name: &'static str,
    pub(super) check: SchemaCheck,
}

impl<'a> AgentLoop<'a> {
    pub(crate) fn new(
        env: &RunEnv,
        agent: &'a AppAgent,
        execution: Execution,
        options: &'a RunOptions,
        lease: &'a LeaseKeeper,
    ) -> AgentLoop<'a> {
        let router = &env.router;
        let mut tools: Vec<ToolDefinition> = agent
            .tools()
            .iter()
            .filter_map(|t| ToolDefinition::of(t.descriptor()).ok())
            .collect();
        let answer = agent.descriptor().answer().and_then(|spec| {
            // Assembly refused an answer schema that does not compile.
            let check = spec.compile().ok()?;
            let schema = spec.schema();
            tools.push(ToolDefinition {
                name: spec.tool_name().into(),
                description: format!(
                    "Give your final answer as {}.",
                    spec.tool_name().trim_start_matches("answer-")
                ),
                input_schema: schema,
            });
            Some(AnswerTool {
                name: spec.tool_name(),
                check,
            })
        });
        let (model, wire) = match router.resolve(agent.model()) {
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
        AgentLoop {
            agent,
            execution,
            env: env.clone(),
            options,
            lease,
            model,
            request,
            answer,
            seen: std::sync::Mutex::default(),
            started: env.clock.now(),
        }
    }

    /// Journals `event` and folds it into `state`, as the holder of the execution's lease.
    ///
    /// While a run is under way, others may append to its journal only the answers to its
    /// pauses (`Application::resume` records them at once). When such an event came first,
    /// it is folded in and the append retried after it; anything else means another writer
    /// runs this execution, and the run stops. A store out of reach is waited for (the append
    /// tried again) as long as the lease lasts; a refusal of the lease's fence, or the lease
    /// running out, stops the run without writing anything more.
    pub(super) async fn record(
        &self,
        state: &mut LoopState,
        event: LoopEvent,
    ) -> Result<(), RunError> {
        let id = self.execution.execution_id();
        let lease = self.lease.lease();
        // The run's last event releases the lease with it (one commit where the store can).
        let ends = event.ends_run();
        let mut backoff = std::time::Duration::from_millis(20);
        loop {
            if let Some(lost) = self.lease.lost() {
                return Err(RunError::LeaseLost(lost));
            }
            let store = &self.env.store;
            let appended = match ends {
                true => store.append_releasing(lease, state.events, &event).await,
                false => {
                    store
                        .append_as(id, state.events, &event, lease.fence())
                        .await
                }
            };
            let error = match appended {
                Ok(()) => {
                    if ends {
                        self.lease.released_with_last_append();
                    }
                    state.apply(event);
                    return Ok(());
                }
                Err(error) if error.is_fenced() => {
                    return Err(RunError::LeaseLost(self.lease.refused(&error)));
                }
                Err(error) if error.kind == StoreErrorKind::Unavailable => {
                    tracing::warn!(execution_id = %id, %error, "the store is out of reach; the append waits");
                    self.lease.wait_to_retry(backoff).await;
                    backoff = (backoff * 2).min(std::time::Duration::from_secs(1));
                    continue;
                }
                Err(error) if error.is_conflict() => error,
                Err(error) => return Err(RunError::from_store(error)),
            };
            let events = self.env.store.events(id).await.map_err(RunError::Store)?;
            let newer = events.get(state.events as usize..).unwrap_or_default();
            let foreign = |e: &LoopEvent| {
                !matches!(
                    e,
                    LoopEvent::PauseResolved { .. } | LoopEvent::PauseAnswerRejected { .. }
                )
            };
            if newer.is_empty() || newer.iter().any(foreign) {
                return Err(RunError::Store(error));
            }
            for event in newer {
                // An answer another process took: what its reading cost joins this run's
                // ledger, as the fold counts its tokens.
                if let Some(entry) = super::spent::reading_spend(event) {
                    self.execution.spend().push(entry);
                }
                state.apply(event.clone());
            }
        }
    }

    /// Waits until a call may start under the lease (see [`LeaseKeeper::may_start`]).
    pub(super) async fn may_start(&self) -> Result<(), RunError> {
        self.lease.may_start().await.map_err(RunError::LeaseLost)
    }

    /// Journals the run's end with `error`, and returns it. A cancelled run closes its open
    /// pauses first, so a late answer is told the execution was cancelled.
    pub(super) async fn fail(&self, state: &mut LoopState, error: RunError) -> RunError {
        // A lost lease is not this instance's to journal: the new holder goes on.
        if let Some(lost) = self.lease.lost() {
            return RunError::LeaseLost(lost);
        }
        if let RunError::Aborted(reason) = &error {
            let open: Vec<String> = state
                .all_pauses()
                .filter(|p| p.resolution.is_none())
                .map(|p| p.opened.pause_id.clone())
                .collect();
            for pause_id in open {
                let resolution = crate::journal::PauseResolution::Cancelled {
                    reason: format!("cancelled: {reason}"),
                };
                let closed = LoopEvent::PauseResolved {
                    pause_id,
                    resolution,
                };
                if let Err(store) = self.record(state, closed).await {
                    return store;
                }
            }
        }
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
        if let Some(reason) = self.aborted() {
            return Err(self.fail(state, RunError::Aborted(reason)).await);
        }
        if let Some(value) = self.journaled_answer(state) {
            let answer = Answer::Structured(value);
            return self.record(state, LoopEvent::Answered { answer }).await;
        }
        if let Some(exceeded) = self.budget_exceeded(state) {
            return Err(self.fail(state, RunError::BudgetExceeded(exceeded)).await);
        }
        if let Some(capped) = self.turn_cap_reached(state) {
            return Err(self.fail(state, capped).await);
        }
        if let Some(late) = self.out_of_time(format!("before model call {}", state.turn + 1)) {
            return Err(self.fail(state, late).await);
        }
        self.may_start().await?;
        // Context-mode knowledge goes into this call's input message only: the journal keeps
        // the input as the user gave it, and it is put back after the call.
        let input = self
            .add_knowledge(
                &mut state.messages,
                state.input_at,
                state.visit,
                state.turn + 1,
            )
            .await;
        let model = match &self.model {
            Ok(model) => model,
            Err(e) => {
                Self::restore_input(&mut state.messages, input);
                return Err(self.fail(state, RunError::Model(e.clone())).await);
            }
        };
        let model_id = self.agent.model();
        let turn = state.turn + 1;
        self.request.tool_choice = self.tool_choice(turn);
        self.request.messages = std::mem::take(&mut state.messages);
        let span = self.model_call_span(model_id, turn, &self.request.messages);
        let answered = match &self.options.events {
            Some(events) => {
                let deltas = |delta: crate::model::ChatDelta<'_>| events.delta(turn, delta);
                model
                    .chat_streaming(&self.request, self.execution.signal(), &deltas)
                    .instrument(span.clone())
                    .await
            }
            None => {
                model
                    .chat(&self.request, self.execution.signal())
                    .instrument(span.clone())
                    .await
            }
        };
        self.record_answer(&span, model_id, &answered);
        drop(span);
        state.messages = std::mem::take(&mut self.request.messages);
        Self::restore_input(&mut state.messages, input);
        let mut response = match answered {
            Ok(response) => response,
            Err(ModelError::Aborted(reason)) => {
                return Err(self.fail(state, RunError::Aborted(reason)).await);
            }
            Err(e) => return Err(self.fail(state, RunError::Model(e)).await),
        };
        let cost = self.env.router.cost(model_id, response.usage);
        self.execution.spend().push(SpendEntry {
            service: model_id.to_owned(),
            cost,
            tool: None,
            call_id: None,
        });

        let message = Message::Assistant {
            text: response.text.clone(),
            tool_calls: response.tool_calls.clone(),
            reasoning: std::mem::take(&mut response.reasoning),
        };
        // Each answer is checked once, by the contract's input check (run/answers.rs): a valid
        // one alone ends the run; beside other calls, it ends the run once they have their
        // results; invalid ones go back to the model as tool errors, journaled with the turn.
        let answers = self.check_answers(&response.tool_calls);
        if let Some((_, value)) = answers.valid.as_ref()
            && response.tool_calls.len() == 1
        {
            let answered = LoopEvent::ModelAnswered {
                turn,
                model: model_id.to_owned(),
                message,
                calls: Vec::new(),
                counted_calls: 0,
                usage: response.usage,
                cost,
            };
            self.record(state, answered).await?;
            let answer = Answer::Structured(value.clone());
            return self.record(state, LoopEvent::Answered { answer }).await;
        }
        let empty = self.empty_answer(turn, &response);
        let calls = assign_call_ids(response.tool_calls, state.visit, turn, &state.provider_ids);
        let counted = calls
            .iter()
            .filter(|c| !self.is_answer(&c.call.name))
            .count() as u32;
        let limit = self.agent.max_tool_calls().value;
        let no_calls = calls.is_empty();
        let answered = LoopEvent::ModelAnswered {
            turn,
            model: model_id.to_owned(),
            message,
            calls,
            counted_calls: counted,
            usage: response.usage,
            cost,
        };
        // Recorded before the limit is checked: the answer's usage and cost reach the counters
        // even when the run stops here.
        self.record(state, answered).await?;
        crate::base::failpoint("model-answered");
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
            if let Some(error) = empty {
                return Err(self.fail(state, error).await);
            }
            if let Some(answer) = &self.answer {
                let error = RunError::Contract(codes::ANSWER_MISSING.fill(&[
                    ("agent", &self.agent.name()),
                    ("tool", &answer.name),
                    ("why", &"the model answered in text"),
                ]));
                return Err(self.fail(state, error).await);
            }
            let answer = Answer::Text(response.text.unwrap_or_default());
            return self.record(state, LoopEvent::Answered { answer }).await;
        }
        if let Some(error) = self.answers_exhausted(state, &answers) {
            return Err(self.fail(state, error).await);
        }
        for result in self.answer_results(answers) {
            self.finish(state, result).await?;
        }
        Ok(())
    }

    pub(super) fn is_answer(&self, name: &str) -> bool {
        self.answer
            .as_ref()
            .is_some_and(|answer| answer.name == name)
    }

    fn tool_choice(&self, turn: u32) -> ToolChoice {
        if let Some(choose) = &self.options.tool_choice
            && let Some(choice) = choose(turn)
        {
            return choice;
        }
        match (
            turn,
            self.agent.first_turn_tool_choice(),
            self.agent.tool_choice(),
        ) {
            (1, Some(first), _) => first.clone(),
            (_, _, Some(choice)) => choice.clone(),
            _ if self.answer.is_some() => ToolChoice::Required,
            _ => ToolChoice::Auto,
        }
    }

    fn budget_exceeded(&self, state: &LoopState) -> Option<BudgetExceededError> {
        state
            .budgets
            .exceeded(state.usage.total(), self.execution.spend().total())
    }

    /// Why the execution was cancelled, if it was.
    pub(super) fn aborted(&self) -> Option<AbortReason> {
        self.execution.signal().reason()
    }
}
