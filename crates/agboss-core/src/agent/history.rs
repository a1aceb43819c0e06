//! What an agent reads of its thread, within its bound in bytes: its newest turns as they were,
//! then summaries of older ones, newest first until the bound is reached.
//!
//! The bound counts the text of every message of the history: each turn's input and answer, and
//! the block of summaries with its heading. The newest turn comes first; an older turn, and the
//! summaries before it, drop out once one does not fit whole. If even the newest turn does not
//! fit, it is cut with the results' own rule and marker ([`bound_text`]), its input to at most
//! half the bound unless its answer leaves more. A summary is made (one model call) only when
//! the room left can take one, and one longer than that room is cut the same way, so every
//! summary made is read.

use std::future::Future;

use super::History;
use crate::model::Message;
use crate::tool::bound_text;
use crate::units::{ByteSize, bytes};

/// The heading of the block of summaries, before one line per summary (`- ...`).
pub(crate) const SUMMARIES_HEADING: &str =
    "Earlier in this conversation (summarized, oldest first):\n";

/// The least room worth making a summary for, in bytes: a sentence or two.
const MIN_SUMMARY_ROOM: usize = 128;

/// One answered turn of the agent's thread.
#[derive(Clone, Debug)]
pub(crate) struct PastTurn<'a> {
    /// What the agent was asked.
    pub(crate) input: &'a str,
    /// What it answered, as the model reads it.
    pub(crate) answer: String,
    /// Its summary, if a run made one already.
    pub(crate) summary: Option<&'a str>,
}

/// The history of `turns` (oldest first) that `setting` and `bound` keep, as messages.
/// `summarize(i)` makes the summary of `turns[i]` (a model call), for a turn without one whose
/// summary will be read (cut to the room left if it is longer).
pub(crate) async fn fit_history<E, F, Fut>(
    turns: &[PastTurn<'_>],
    setting: History,
    bound: ByteSize,
    mut summarize: F,
) -> Result<Vec<Message>, E>
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = Result<String, E>>,
{
    let verbatim_from = turns.len().saturating_sub(setting.turns() as usize);
    let summaries_from = verbatim_from.saturating_sub(setting.summaries() as usize);
    let mut left = bound.as_usize();
    // Newest first, as they are given room.
    let mut kept: Vec<(String, String)> = Vec::new();
    for turn in turns[verbatim_from..].iter().rev() {
        let whole = turn.input.len() + turn.answer.len();
        let pair = if whole <= left {
            (turn.input.to_owned(), turn.answer.clone())
        } else if kept.is_empty() {
            match fit_turn(turn.input, &turn.answer, bytes(left as u64)) {
                Some(pair) => pair,
                None => break,
            }
        } else {
            break;
        };
        left -= pair.0.len() + pair.1.len();
        kept.push(pair);
    }
    let mut summaries: Vec<String> = Vec::new();
    if kept.len() == turns.len() - verbatim_from {
        for i in (summaries_from..verbatim_from).rev() {
            let overhead = if summaries.is_empty() {
                SUMMARIES_HEADING.len() + "- ".len()
            } else {
                "\n- ".len()
            };
            let room = left.saturating_sub(overhead);
            if room < MIN_SUMMARY_ROOM {
                break;
            }
            let summary = match turns[i].summary {
                Some(summary) => summary.to_owned(),
                None => summarize(i).await?,
            };
            // At least MIN_SUMMARY_ROOM bytes leave room for the marker and some words.
            let Some(summary) = fit_text(summary, room) else {
                break;
            };
            left -= overhead + summary.len();
            summaries.push(summary);
        }
    }
    let mut messages = Vec::with_capacity(2 * kept.len() + 1);
    if !summaries.is_empty() {
        let lines: Vec<String> = summaries.iter().rev().map(|s| format!("- {s}")).collect();
        messages.push(Message::user(format!(
            "{SUMMARIES_HEADING}{}",
            lines.join("\n")
        )));
    }
    for (input, answer) in kept.into_iter().rev() {
        messages.push(Message::user(input));
        messages.push(Message::Assistant {
            text: Some(answer),
            tool_calls: Vec::new(),
            reasoning: Vec::new(),
        });
    }
    Ok(messages)
}

/// One turn's input and answer in at most `bound` bytes together: whole when they fit, else
/// each cut (the input to at most half the bound, or what the answer leaves if more); `None`
/// when the bound cannot take the markers.
pub(crate) fn fit_turn(input: &str, answer: &str, bound: ByteSize) -> Option<(String, String)> {
    let bound = bound.as_usize();
    if input.len() + answer.len() <= bound {
        return Some((input.to_owned(), answer.to_owned()));
    }
    let input_room = (bound / 2).max(bound.saturating_sub(answer.len()));
    let input = fit_text(input.to_owned(), input_room.min(input.len()))?;
    let answer = fit_text(answer.to_owned(), bound - input.len())?;
    Some((input, answer))
}

/// `text` in at most `room` bytes, the marker of a cut included: whole, or cut by
/// [`bound_text`]; `None` when `room` cannot take the marker.
fn fit_text(text: String, room: usize) -> Option<String> {
    if text.len() <= room {
        return Some(text);
    }
    let mut keep = room;
    while keep > 0 {
        let cut = bound_text(text.clone(), bytes(keep as u64)).text;
        if cut.len() <= room {
            return Some(cut);
        }
        keep = keep.saturating_sub(cut.len() - room);
    }
    None
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use proptest::prelude::*;

    use super::*;

    fn run<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }

    /// The history of `turns` (`(input, answer, summary)`), with the summaries made being
    /// `made`; the messages' texts, and the turns summarized.
    fn history(
        turns: &[(&str, &str, Option<&str>)],
        setting: History,
        bound: ByteSize,
        made: &str,
    ) -> (Vec<String>, Vec<usize>) {
        let turns: Vec<PastTurn<'_>> = turns
            .iter()
            .map(|(input, answer, summary)| PastTurn {
                input,
                answer: (*answer).to_owned(),
                summary: *summary,
            })
            .collect();
        let mut asked = Vec::new();
        let messages = run(fit_history(&turns, setting, bound, |i| {
            asked.push(i);
            std::future::ready(Ok::<_, Infallible>(made.to_owned()))
        }))
        .unwrap();
        (messages.iter().map(text).collect(), asked)
    }

    fn text(message: &Message) -> String {
        match message {
            Message::User { text } => text.clone(),
            Message::Assistant { text, .. } => text.clone().unwrap_or_default(),
            other => panic!("not in a history: {other:?}"),
        }
    }

    #[test]
    fn the_newest_turns_and_summaries_fit_whole_in_a_large_bound() {
        let turns = [
            ("one?", "One.", Some("Asked one.")),
            ("two?", "Two.", None),
            ("three?", "Three.", None),
        ];
        let (messages, asked) = history(&turns, History::new(1, 5), bytes(4096), "Asked two.");
        assert_eq!(
            messages,
            [
                format!("{SUMMARIES_HEADING}- Asked one.\n- Asked two."),
                "three?".to_owned(),
                "Three.".to_owned(),
            ]
        );
        assert_eq!(asked, [1]);
    }

    #[test]
    fn older_turns_and_the_summaries_drop_out_when_they_do_not_fit() {
        let turns = [
            ("first?", "x".repeat(200).leak() as &str, None),
            ("second?", "y".repeat(100).leak(), None),
            ("third?", "z".repeat(100).leak(), None),
        ];
        // Room for the last two turns (2 × 107 bytes), not for the first.
        let (messages, asked) = history(&turns, History::new(3, 5), bytes(300), "never");
        assert_eq!(messages.len(), 4);
        assert_eq!(messages[0], "second?");
        assert!(
            asked.is_empty(),
            "no summary made for a block that is not read"
        );
        // Summaries, newest first, while the room left can take one: 194 bytes after the last
        // turn take two; 144 bytes leave 85 after the heading, too little to make one.
        let (messages, asked) = history(&turns, History::new(1, 5), bytes(300), "S.");
        assert_eq!(messages[0], format!("{SUMMARIES_HEADING}- S.\n- S."));
        assert_eq!(asked, [1, 0]);
        let (messages, asked) = history(&turns, History::new(1, 5), bytes(250), "S.");
        assert_eq!(messages, ["third?".to_owned(), "z".repeat(100)]);
        assert!(asked.is_empty());
    }

    #[test]
    fn the_newest_turn_alone_too_long_is_cut_with_the_marker() {
        let answer = "word ".repeat(400);
        let turns = [("old?", "Old.", None), ("tell me", answer.as_str(), None)];
        let (messages, _) = history(&turns, History::new(5, 5), bytes(512), "never");
        assert_eq!(messages[0], "tell me");
        assert!(
            messages[1].ends_with("\n[result truncated: 2,000 bytes, the first 449 kept]"),
            "{}",
            messages[1]
        );
        assert_eq!(messages.len(), 2, "the older turn dropped out");
        assert!(messages.iter().map(String::len).sum::<usize>() <= 512);
        // A bound that cannot take even the marker sends nothing.
        let (messages, _) = history(&turns, History::new(5, 5), bytes(40), "never");
        assert!(messages.is_empty());
    }

    fn turn() -> impl Strategy<Value = (String, String, Option<String>)> {
        let text = || "[a-zé€ ]{0,300}";
        (text(), text(), proptest::option::of(text()))
    }

    proptest! {
        #[test]
        fn what_the_model_reads_never_exceeds_the_bound(
            turns in proptest::collection::vec(turn(), 0..12),
            verbatim in 0u32..6,
            summaries in 0u32..6,
            bound in 1u64..3000,
            made in "[a-z ]{0,600}",
        ) {
            let turns: Vec<(&str, &str, Option<&str>)> = turns
                .iter()
                .map(|(i, a, s)| (i.as_str(), a.as_str(), s.as_deref()))
                .collect();
            let setting = History::new(verbatim, summaries);
            let (messages, asked) = history(&turns, setting, bytes(bound), &made);
            let read: usize = messages.iter().map(String::len).sum();
            prop_assert!(read <= bound as usize, "{read} bytes read of a bound of {bound}");
            // Every summary made is read.
            let lines = messages
                .first()
                .filter(|m| m.starts_with(SUMMARIES_HEADING))
                .map_or(0, |m| m.lines().count() - 1);
            prop_assert!(asked.len() <= lines);
            // The turns read are the newest, as many as fit.
            let kept = messages.len() / 2;
            prop_assert!(kept <= verbatim as usize);
            for (n, pair) in messages[messages.len() - 2 * kept..].chunks(2).enumerate() {
                let (input, answer, _) = turns[turns.len() - kept + n];
                // Only the newest may be cut.
                let newest = n == kept - 1;
                prop_assert!(pair[0] == input || newest && pair[0].contains("[result truncated"));
                prop_assert!(pair[1] == answer || newest && pair[1].contains("[result truncated"));
            }
        }
    }
}
