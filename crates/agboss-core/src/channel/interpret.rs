//! Reply interpreters: how a free-text reply (`Resume::reply(pause_id, "yes, go ahead")`)
//! becomes a role's answer. Either code ([`ReplyInterpreter`]) or a model that may only approve
//! or refuse ([`DecisionModel`]).

use std::future::Future;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    ChannelRole, InterpretContext, InterpretFuture, InterpreterSpec, ReplyReading,
    ToolCallApprovalDecision,
};
use crate::model::{ChatRequest, ChatResponse, Message, Thinking, ToolChoice, ToolDefinition};

/// What an interpreter made of a reply.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplyInterpretation<A> {
    /// The answer the reply gives.
    Answer(A),
    /// The reply does not say; the resume fails with this reason and the pause stays open.
    Unclear(String),
}

/// Reads a free-text reply to a pause of role `R` as `R`'s answer, by code. Give it to the
/// role with `#[channel_role(.., reply_interpreter = Type)]`; `Type` is made with `Default`.
pub trait ReplyInterpreter<R: ChannelRole>: Default + Send + Sync + 'static {
    /// The answer `reply` gives to `question`, or why it gives none.
    fn interpret(
        &self,
        question: &R::Question,
        reply: &str,
        context: &InterpretContext,
    ) -> impl Future<Output = ReplyInterpretation<R::Answer>> + Send;
}

/// A reply interpreter that asks a model, which may only approve or refuse: for approval
/// roles. Implement it on a unit struct and name that struct as the role's
/// `reply_interpreter`.
///
/// ```
/// use agboss_core::channel::DecisionModel;
///
/// #[derive(Default)]
/// struct FinanceDecider;
///
/// impl DecisionModel for FinanceDecider {
///     const MODEL: &'static str = "openai/gpt-5-mini";
/// }
/// ```
pub trait DecisionModel: Default + Send + Sync + 'static {
    /// The model, `vendor/model`.
    const MODEL: &'static str;
    /// What the model is told before the question and the reply.
    const INSTRUCTIONS: &'static str = "A person was asked to approve a tool call and replied in their own words. Decide whether the reply approves or refuses the call. Refuse when the reply is unclear. Answer only through the `decide` tool.";
}

/// What a decision model answers through its one tool.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Decide {
    /// `approve` or `refuse`.
    decision: Verdict,
    /// Why, in a sentence; what the model of the run reads when the call is refused.
    reason: String,
}

#[derive(Deserialize, Serialize, JsonSchema, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Approve,
    Refuse,
}

impl<R, A, D> ReplyInterpreter<R> for D
where
    D: DecisionModel,
    R: ChannelRole<Answer = ToolCallApprovalDecision<A>>,
    A: Send + Sync + 'static,
{
    async fn interpret(
        &self,
        question: &R::Question,
        reply: &str,
        context: &InterpretContext,
    ) -> ReplyInterpretation<R::Answer> {
        if let Some(why) = &context.no_model {
            return ReplyInterpretation::Unclear(why.clone());
        }
        let Some(router) = &context.router else {
            return ReplyInterpretation::Unclear(
                "the application has no model router to read the reply with".into(),
            );
        };
        let (model, wire) = match router.resolve(D::MODEL) {
            Ok(found) => found,
            Err(e) => return ReplyInterpretation::Unclear(e.to_string()),
        };
        let question = serde_json::to_string(question).unwrap_or_default();
        let request = ChatRequest {
            model: wire,
            system: D::INSTRUCTIONS.to_owned(),
            messages: vec![Message::user(format!(
                "The question:\n{question}\n\nThe reply:\n{reply}"
            ))],
            tools: vec![ToolDefinition {
                name: "decide".into(),
                description: "Approve or refuse the call, with a one-sentence reason.".into(),
                input_schema: crate::tool::input_schema_of::<Decide>(),
            }],
            tool_choice: ToolChoice::Tool("decide".into()),
            thinking: Thinking::Default,
            max_output_tokens: Some(400),
        };
        let response = match model.chat(&request, &context.signal).await {
            Ok(response) => response,
            Err(e) => {
                return ReplyInterpretation::Unclear(format!("the decision model failed: {e}"));
            }
        };
        context.record(ReplyReading {
            model: D::MODEL.to_owned(),
            usage: response.usage,
            cost: router.cost(D::MODEL, response.usage),
        });
        decision_of(D::MODEL, &response)
    }
}

/// The decision a decision model's `response` gives: only `approve` or `refuse` through
/// `decide`; anything else leaves the reply unread, saying what the model did instead.
fn decision_of<A>(
    model: &str,
    response: &ChatResponse,
) -> ReplyInterpretation<ToolCallApprovalDecision<A>> {
    let Some(call) = response.tool_calls.iter().find(|c| c.name == "decide") else {
        let said = response.text.as_deref().unwrap_or_default();
        return ReplyInterpretation::Unclear(format!(
            "the decision model `{model}` did not call `decide` (it answered {said:?}): answer with a decision instead"
        ));
    };
    match serde_json::from_str::<Decide>(&call.arguments) {
        Ok(Decide {
            decision: Verdict::Approve,
            ..
        }) => ReplyInterpretation::Answer(ToolCallApprovalDecision::approve()),
        Ok(Decide {
            decision: Verdict::Refuse,
            reason,
        }) => ReplyInterpretation::Answer(ToolCallApprovalDecision::refuse(reason)),
        Err(e) => ReplyInterpretation::Unclear(format!(
            "the decision model `{model}` called `decide` with {}, which is not `approve` or `refuse` with a reason ({e}): answer with a decision instead",
            call.arguments
        )),
    }
}

pub(crate) fn erased<'a, R: ChannelRole, T: ReplyInterpreter<R>>(
    question: &'a Value,
    reply: &'a str,
    context: &'a InterpretContext,
) -> InterpretFuture<'a> {
    Box::pin(async move {
        let question: R::Question = serde_json::from_value(question.clone())
            .map_err(|e| format!("the pause's question does not read as the role's: {e}"))?;
        match T::default().interpret(&question, reply, context).await {
            ReplyInterpretation::Answer(answer) => serde_json::to_value(&answer)
                .map_err(|e| format!("the answer has no JSON form: {e}")),
            ReplyInterpretation::Unclear(why) => Err(why),
        }
    })
}

impl InterpreterSpec {
    /// The interpreter `T` of role `R`.
    pub const fn of<R: ChannelRole, T: ReplyInterpreter<R>>() -> InterpreterSpec {
        InterpreterSpec {
            rust_type: std::any::type_name::<T>,
            type_id: std::any::TypeId::of::<T>,
            interpret: erased::<R, T>,
        }
    }
}
