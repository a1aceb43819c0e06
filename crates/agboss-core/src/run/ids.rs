//! Call ids: unique within a run, stable across a replay.

use crate::journal::PendingCall;
use crate::model::ToolCall;

/// Gives each call of one model answer its id, in the model's order:
///
/// - the provider's id when it is unique in the run so far;
/// - `{id}:{position}` when the provider repeats an id within the answer (`call_0:0`,
///   `call_0:1`), or reuses one from an earlier turn (`call_0:t3:1`; some local servers number
///   calls from 0 on every turn);
/// - `gen-{visit}-{turn}-{position}` for a call the provider gave no id (Gemini).
///
/// The ids are journaled with the answer, so a replayed run uses the same ones.
pub fn assign_call_ids(
    calls: Vec<ToolCall>,
    visit: u32,
    turn: u32,
    earlier: &std::collections::HashSet<String>,
) -> Vec<PendingCall> {
    let repeated_here = |id: &str| {
        calls
            .iter()
            .filter(|c| c.provider_id.as_deref() == Some(id))
            .count()
            > 1
    };
    let assigned: Vec<String> = calls
        .iter()
        .enumerate()
        .map(|(position, call)| match call.provider_id.as_deref() {
            None | Some("") => format!("gen-{visit}-{turn}-{position}"),
            Some(id) if earlier.contains(id) => format!("{id}:t{turn}:{position}"),
            Some(id) if repeated_here(id) => format!("{id}:{position}"),
            Some(id) => id.to_owned(),
        })
        .collect();
    calls
        .into_iter()
        .zip(assigned)
        .enumerate()
        .map(|(position, (call, call_id))| PendingCall {
            call_id,
            call,
            position: position as u32,
            attempts: 0,
            result: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: Option<&str>) -> ToolCall {
        ToolCall {
            provider_id: id.map(Into::into),
            name: "t".into(),
            arguments: "{}".into(),
        }
    }

    fn ids(calls: Vec<ToolCall>, earlier: &[&str]) -> Vec<String> {
        let earlier = earlier.iter().map(|s| s.to_string()).collect();
        assign_call_ids(calls, 1, 2, &earlier)
            .into_iter()
            .map(|c| c.call_id)
            .collect()
    }

    #[test]
    fn unique_provider_ids_are_kept() {
        assert_eq!(ids(vec![call(Some("a")), call(Some("b"))], &[]), ["a", "b"]);
    }

    #[test]
    fn an_id_repeated_in_one_answer_gets_its_position() {
        assert_eq!(
            ids(
                vec![call(Some("call_0")), call(Some("call_0")), call(Some("x"))],
                &[]
            ),
            ["call_0:0", "call_0:1", "x"]
        );
    }

    #[test]
    fn calls_without_ids_get_one_from_visit_turn_and_position() {
        assert_eq!(
            ids(vec![call(None), call(None)], &[]),
            ["gen-1-2-0", "gen-1-2-1"]
        );
    }

    #[test]
    fn an_id_reused_from_an_earlier_turn_is_made_unique() {
        assert_eq!(
            ids(vec![call(Some("call_0"))], &["call_0"]),
            ["call_0:t2:0"]
        );
    }
}
