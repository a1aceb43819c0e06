//! What a subcommand shows of the runs it drives (`worker`; `approve`, `refuse`, `reply` and
//! `answer`, whose run goes on after the answer): on a terminal, a spinner per execution naming
//! the tools running and what they report; elsewhere (a log, a pipe), one plain line per thing
//! that happened. Written to standard error, beside the
//! subcommand's own lines on standard output.

use std::collections::{BTreeMap, HashMap};
use std::io::{IsTerminal, Write};
use std::time::Duration;

use agboss_core::run::RunEvent;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// The view of the executions being driven.
pub struct RunsView {
    shown: Shown,
    /// Per execution: its calls running now (call id -> what to show).
    running: HashMap<String, BTreeMap<String, String>>,
}

enum Shown {
    /// A spinner per execution that has a call running.
    Terminal {
        bars: MultiProgress,
        spinners: HashMap<String, ProgressBar>,
    },
    /// Plain lines.
    Lines(Box<dyn Write + Send>),
}

impl RunsView {
    /// Spinners when standard error is a terminal, else plain lines to it.
    pub fn on_stderr() -> RunsView {
        match std::io::stderr().is_terminal() {
            true => RunsView::spinners(),
            false => RunsView::lines(Box::new(std::io::stderr())),
        }
    }

    /// Plain lines to `out`.
    pub fn lines(out: Box<dyn Write + Send>) -> RunsView {
        RunsView {
            shown: Shown::Lines(out),
            running: HashMap::new(),
        }
    }

    fn spinners() -> RunsView {
        RunsView {
            shown: Shown::Terminal {
                bars: MultiProgress::with_draw_target(ProgressDrawTarget::stderr()),
                spinners: HashMap::new(),
            },
            running: HashMap::new(),
        }
    }

    /// Shows `event` of execution `execution_id`.
    pub fn show(&mut self, execution_id: &str, event: &RunEvent) {
        let line = match event {
            RunEvent::ToolStarted { call_id, tool, .. } => {
                self.calls(execution_id)
                    .insert(call_id.clone(), tool.clone());
                format!("{tool} runs")
            }
            RunEvent::ToolProgress {
                call_id,
                tool,
                progress,
            } => {
                let shown = format!("{tool} {progress}");
                self.calls(execution_id)
                    .insert(call_id.clone(), shown.clone());
                shown
            }
            RunEvent::ToolEnded {
                call_id,
                tool,
                is_error,
                ..
            } => {
                self.calls(execution_id).remove(call_id);
                format!("{tool} {}", if *is_error { "failed" } else { "done" })
            }
            RunEvent::PauseWaiting {
                pause_id,
                call_id,
                tool,
                role,
                ..
            } => {
                self.calls(execution_id).remove(call_id);
                // A pause its channel answers has no id here: its id is the right to answer.
                let line = match pause_id {
                    Some(pause_id) => format!("{tool} waits for {role}: pause {pause_id}"),
                    None => format!("{tool} waits for {role}, which its channel answers"),
                };
                // Said on a terminal too: a spinner would lose it.
                if let Shown::Terminal { bars, .. } = &self.shown {
                    let _ = bars.println(format!("  {execution_id} · {line}"));
                }
                line
            }
            RunEvent::TextRestarted { turn } => format!("model call {turn} is tried again"),
            // Text is the conversation's, not the worker's to print.
            _ => return,
        };
        match &mut self.shown {
            Shown::Lines(out) => {
                let _ = writeln!(out, "  {execution_id} · {line}");
                let _ = out.flush();
            }
            Shown::Terminal { bars, spinners } => {
                let running = self.running.get(execution_id);
                let names: Vec<&str> = running
                    .map(|calls| calls.values().map(String::as_str).collect())
                    .unwrap_or_default();
                if names.is_empty() {
                    if let Some(spinner) = spinners.remove(execution_id) {
                        spinner.finish_and_clear();
                        bars.remove(&spinner);
                    }
                    return;
                }
                let spinner = spinners.entry(execution_id.to_owned()).or_insert_with(|| {
                    let spinner = bars.add(ProgressBar::new_spinner());
                    if let Ok(style) = ProgressStyle::with_template("  {spinner} {prefix}: {msg}") {
                        spinner.set_style(style);
                    }
                    spinner.set_prefix(execution_id.to_owned());
                    spinner.enable_steady_tick(Duration::from_millis(100));
                    spinner
                });
                spinner.set_message(names.join(", "));
            }
        }
    }

    /// Execution `execution_id`'s driver stopped: its spinner goes.
    pub fn ended(&mut self, execution_id: &str) {
        self.running.remove(execution_id);
        if let Shown::Terminal { bars, spinners } = &mut self.shown
            && let Some(spinner) = spinners.remove(execution_id)
        {
            spinner.finish_and_clear();
            bars.remove(&spinner);
        }
    }

    fn calls(&mut self, execution_id: &str) -> &mut BTreeMap<String, String> {
        self.running.entry(execution_id.to_owned()).or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// What the lines view wrote.
    #[derive(Clone, Default)]
    struct Written(Arc<Mutex<Vec<u8>>>);

    impl Write for Written {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn off_a_terminal_each_step_is_a_line() {
        let written = Written::default();
        let mut view = RunsView::lines(Box::new(written.clone()));
        view.show(
            "e-1",
            &RunEvent::ToolStarted {
                call_id: "call_0".into(),
                tool: "index-tool".into(),
                arguments: serde_json::json!({}),
            },
        );
        view.show(
            "e-1",
            &RunEvent::ToolProgress {
                call_id: "call_0".into(),
                tool: "index-tool".into(),
                progress: agboss_core::context::Progress::new(3, Some(10)).message("docs/"),
            },
        );
        view.show(
            "e-1",
            &RunEvent::Text {
                turn: 1,
                text: "not shown".into(),
            },
        );
        view.show(
            "e-1",
            &RunEvent::PauseWaiting {
                pause_id: Some("9f2c".into()),
                answered_by: agboss_core::channel::PauseAnswerer::ThreadOwner,
                call_id: "call_1".into(),
                tool: "send-mail-tool".into(),
                role: "mail-approval-channel".into(),
            },
        );
        view.ended("e-1");
        let text = String::from_utf8(written.0.lock().unwrap().clone()).unwrap();
        assert_eq!(
            text,
            "  e-1 · index-tool runs\n  e-1 · index-tool 3/10: docs/\n  e-1 · send-mail-tool waits for mail-approval-channel: pause 9f2c\n"
        );
    }
}
