//! Events the conformance cases append: small, valid, and covering every [`LoopEvent`] variant.

use std::sync::Arc;

use agboss_core::channel::{PauseAnswerer, ReplyReading};
use agboss_core::journal::{
    Answer, CallPermission, CallResult, LoopEvent, PauseOpened, PauseResolution, PendingCall,
    PermissionDecision, STATE_VERSION, Spent,
};
use agboss_core::model::{Message, ToolCall, Usage};
use agboss_core::policy::Permission;
use agboss_core::spend::Budgets;
use agboss_core::units::Usd;
use agboss_rules::codes;
use serde_json::json;

/// `Started` for execution `execution`, in `thread` (none: its own), owned by `owner`.
pub fn started(execution: &str, thread: Option<&str>, owner: Option<&str>) -> LoopEvent {
    LoopEvent::Started {
        version: STATE_VERSION,
        execution_id: execution.to_owned(),
        workflow: "desk".into(),
        agent: "notes".into(),
        visit: 1,
        input: format!("the input of {execution}"),
        thread: thread.map(str::to_owned),
        owner: owner.map(str::to_owned),
        tenant: Some("acme".into()),
        budgets: Budgets::none()
            .tokens(10_000)
            .usd(Usd::from_micros(250_000)),
        history: vec![
            Message::User {
                text: "summary of earlier turns: saved «a» and 'b'".into(),
            },
            Message::Assistant {
                text: Some("noted".into()),
                tool_calls: Vec::new(),
                reasoning: Vec::new(),
            },
        ],
        history_usage: Usage {
            input_tokens: 120,
            output_tokens: 30,
        },
        history_cost: Usd::from_micros(42),
        config_hash: Some(
            "sha256:5f1c2c55d1c8a3a1d5f1a0c3b9e4c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3".into(),
        ),
    }
}

/// The model answered at `turn`, asking for one call per id in `calls`.
pub fn model_answered(turn: u32, calls: &[&str]) -> LoopEvent {
    let tool_calls: Vec<ToolCall> = calls
        .iter()
        .map(|id| ToolCall {
            provider_id: Some(format!("call_{id}")),
            name: "note-save-tool".into(),
            arguments: format!(r#"{{"title":"note {id}","body":"é ✓ \"quoted\""}}"#),
        })
        .collect();
    LoopEvent::ModelAnswered {
        turn,
        model: "openai/gpt-4o-mini".into(),
        message: Message::Assistant {
            text: Some("saving".into()),
            tool_calls: tool_calls.clone(),
            reasoning: Vec::new(),
        },
        calls: tool_calls
            .into_iter()
            .zip(calls)
            .enumerate()
            .map(|(position, (call, id))| PendingCall {
                call_id: (*id).to_owned(),
                call,
                position: position as u32,
                attempts: 0,
                result: (position == 1).then(|| CallResult {
                    content: "already done".into(),
                    is_error: false,
                    truncated: false,
                }),
            })
            .collect(),
        counted_calls: calls.len() as u32,
        sealed: Vec::new(),
        usage: Usage {
            input_tokens: 120,
            output_tokens: 30,
        },
        cost: Usd::from_nanos(1_234),
    }
}

/// Call `call` finished.
pub fn tool_finished(call: &str) -> LoopEvent {
    LoopEvent::ToolFinished {
        call_id: call.to_owned(),
        content: format!("saved {call}"),
        is_error: false,
        truncated: false,
        spend: vec![Spent {
            service: "search".into(),
            cost: Usd::from_micros(5),
        }],
        digest: None,
    }
}

/// Pause `pause` opened for call `call` at `at_ms`: answered by `owner` when given (a
/// thread-owner pause), else by its channel.
pub fn pause_opened(pause: &str, call: &str, owner: Option<&str>, at_ms: u64) -> LoopEvent {
    LoopEvent::PauseOpened(PauseOpened {
        pause_id: pause.to_owned(),
        call_id: call.to_owned(),
        role: "note-approval-channel".into(),
        channel: "terminal-user-channel".into(),
        answered_by: if owner.is_some() {
            PauseAnswerer::ThreadOwner
        } else {
            PauseAnswerer::Channel
        },
        owner: owner.map(str::to_owned),
        question: json!({"tool": "note-save-tool", "call_id": call, "arguments": {"title": "t"}}),
        arguments_digest: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        opened_at_ms: at_ms,
        expires_at_ms: Some(at_ms + 72 * 3_600_000),
        attempt: 0,
        asked: None,
    })
}

/// The intent of calls `calls`: about to start.
pub fn tools_started(calls: &[&str]) -> LoopEvent {
    LoopEvent::ToolsStarted {
        call_ids: calls.iter().map(|c| (*c).to_owned()).collect(),
        permissions: Vec::new(),
    }
}

/// The intent of calls `calls`, each let run by a permission checker that governs `money`
/// (the decisions name the calls by place, in the order given).
pub fn tools_started_allowed(calls: &[&str]) -> LoopEvent {
    let checker: Arc<str> = Arc::from("payments-desk");
    LoopEvent::ToolsStarted {
        call_ids: calls.iter().map(|c| (*c).to_owned()).collect(),
        permissions: (0..calls.len())
            .map(|call| CallPermission {
                call,
                capability: "money".into(),
                checker: checker.clone(),
                permission: Permission::allow("under-limit"),
            })
            .collect(),
    }
}

/// A permission checker asked a person about call `call` (`money`, rule `over-limit`).
pub fn permissions_decided(call: &str) -> LoopEvent {
    LoopEvent::PermissionsDecided {
        decisions: vec![PermissionDecision {
            call_id: call.to_owned(),
            capability: "money".into(),
            checker: Arc::from("payments-desk"),
            permission: Permission::ask("over-limit", "refunds over $1,000 need a manager: é ✓"),
        }],
    }
}

/// Call `call` recorded two costs while it ran.
pub fn tool_spent(call: &str) -> LoopEvent {
    LoopEvent::ToolSpent {
        call_id: call.to_owned(),
        spend: vec![
            Spent {
                service: "geocoding".into(),
                cost: Usd::from_micros(5),
            },
            Spent {
                service: "openai/gpt-4o-mini".into(),
                cost: Usd::from_nanos(70),
            },
        ],
    }
}

/// The channel of pause `pause` said the answer comes later.
pub fn pause_awaiting(pause: &str) -> LoopEvent {
    LoopEvent::PauseAwaiting {
        pause_id: pause.to_owned(),
    }
}

/// Pause `pause` closed as `resolution` says.
pub fn pause_resolved(pause: &str, resolution: PauseResolution) -> LoopEvent {
    LoopEvent::PauseResolved {
        pause_id: pause.to_owned(),
        resolution,
    }
}

/// Every way a pause closes.
pub fn resolutions() -> Vec<PauseResolution> {
    vec![
        PauseResolution::Decided {
            answer: json!({"approved": true}),
        },
        PauseResolution::Answered {
            answer: json!({"approved": false, "reason": "too much"}),
            by: Some("u-1".into()),
            reply: Some("no, too much".into()),
            reading: Some(ReplyReading {
                model: "openai/gpt-5-mini".into(),
                usage: Usage {
                    input_tokens: 120,
                    output_tokens: 18,
                },
                cost: Usd::from_micros(300),
            }),
        },
        PauseResolution::Failed {
            message: "the channel is down".into(),
        },
        PauseResolution::Cancelled {
            reason: "the user left".into(),
        },
    ]
}

/// An answer to pause `pause` refused with `code`.
pub fn answer_rejected(pause: &str, code: &str) -> LoopEvent {
    LoopEvent::PauseAnswerRejected {
        pause_id: pause.to_owned(),
        by: Some("u-2".into()),
        code: code.to_owned(),
        reading: None,
    }
}

/// The run answered `text`.
pub fn answered(text: &str) -> LoopEvent {
    LoopEvent::Answered {
        answer: Answer::Text(text.to_owned()),
    }
}

/// The run failed with `code`.
pub fn failed(code: &str) -> LoopEvent {
    LoopEvent::Failed {
        code: code.to_owned(),
        message: format!("failed: {code}"),
    }
}

/// Where [`every_variant`] opens its first pause: after `started`, the model's answer, a
/// checker's decisions, a call's intent, its spend and its result. Each pause then takes four
/// events: opened, awaiting, an answer refused, resolved.
pub const FIRST_PAUSE_AT: usize = 6;

/// One event of every variant (and every resolution and answer kind), in an order a journal
/// takes them after `started`.
pub fn every_variant(execution: &str) -> Vec<LoopEvent> {
    let mut events = vec![
        started(execution, Some("t-1"), Some("u-1")),
        model_answered(1, &["c-1", "c-2"]),
        permissions_decided("c-2"),
        tools_started_allowed(&["c-1"]),
        tool_spent("c-1"),
        tool_finished("c-1"),
    ];
    let resolutions = resolutions();
    let last = resolutions.len() - 1;
    for (i, resolution) in resolutions.into_iter().enumerate() {
        let pause = format!("{execution}-p{i}");
        let mut opened = pause_opened(&pause, "c-2", Some("u-1"), 1_000 + i as u64);
        // The last asks whether to run the call again after a crash interrupted it.
        if let (LoopEvent::PauseOpened(opened), true) = (&mut opened, i == last) {
            opened.attempt = 1;
        }
        events.push(opened);
        events.push(pause_awaiting(&pause));
        events.push(answer_rejected(&pause, codes::PAUSE_WRONG_ANSWERER.id()));
        events.push(pause_resolved(&pause, resolution));
    }
    events.push(LoopEvent::Answered {
        answer: Answer::Structured(json!({"saved": ["c-1", "c-2"], "n": 2.5, "none": null})),
    });
    // A later run of the thread summarized this one.
    events.push(LoopEvent::Summarized {
        summary: "saved two notes; the user wants them dated".into(),
    });
    events
}
