//! What an execution's journal says it spent, put back in its ledger: the loop's model calls,
//! its tools' costs, and the models that read replies to its pauses.

use crate::agent::AppAgent;
use crate::context::Execution;
use crate::journal::{LoopEvent, PauseResolution};

/// Puts what the journal says was spent back in the ledger, so budgets count it after a resume.
pub(crate) fn restore_spend(execution: &Execution, events: &[LoopEvent], agent: &AppAgent) {
    let mut tools_of_calls = std::collections::HashMap::new();
    for event in events {
        match event {
            LoopEvent::Started { history_cost, .. } if !history_cost.is_zero() => {
                execution.spend().push(crate::spend::SpendEntry {
                    service: agent.model().to_owned(),
                    cost: *history_cost,
                    tool: None,
                    call_id: None,
                });
            }
            LoopEvent::ModelAnswered {
                model, cost, calls, ..
            } => {
                execution.spend().push(crate::spend::SpendEntry {
                    service: model.clone(),
                    cost: *cost,
                    tool: None,
                    call_id: None,
                });
                for call in calls {
                    let tool = agent.tool(&call.call.name).map(|t| t.descriptor().name());
                    tools_of_calls.insert(call.call_id.clone(), tool);
                }
            }
            LoopEvent::PauseResolved { .. } | LoopEvent::PauseAnswerRejected { .. } => {
                if let Some(entry) = reading_spend(event) {
                    execution.spend().push(entry);
                }
            }
            LoopEvent::ToolSpent { call_id, spend }
            | LoopEvent::ToolFinished { call_id, spend, .. } => {
                for spent in spend {
                    execution.spend().push(crate::spend::SpendEntry {
                        service: spent.service.clone(),
                        cost: spent.cost,
                        tool: tools_of_calls.get(call_id).copied().flatten(),
                        call_id: Some(call_id.clone()),
                    });
                }
            }
            _ => {}
        }
    }
}

/// What a model spent reading a reply to a pause, as `event` (an answer, or its refusal)
/// journals it: a cost of the execution, paid by no tool.
pub(crate) fn reading_spend(event: &LoopEvent) -> Option<crate::spend::SpendEntry> {
    let reading = match event {
        LoopEvent::PauseResolved {
            resolution: PauseResolution::Answered { reading, .. },
            ..
        }
        | LoopEvent::PauseAnswerRejected { reading, .. } => reading.as_ref()?,
        _ => return None,
    };
    Some(crate::spend::SpendEntry {
        service: reading.model.clone(),
        cost: reading.cost,
        tool: None,
        call_id: None,
    })
}
