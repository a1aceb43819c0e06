//! What the desk shows while a run goes: the answer as the model writes it, and while tools
//! run a spinner naming them (with what they report) when standard error is a terminal, plain
//! lines when it is not. Each call's result is printed as it ends.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use agboss::run::RunEvent;
use indicatif::{ProgressBar, ProgressStyle};

/// The desk's view of one run.
pub struct Watch {
    agent: String,
    /// Whether the answer's first words are out (`agent -> ` printed).
    answering: bool,
    /// The calls running now: call id -> what to show.
    running: BTreeMap<String, String>,
    spinner: Option<ProgressBar>,
    terminal: bool,
}

impl Watch {
    /// A view of `agent`'s run.
    pub fn new(agent: &str) -> Watch {
        Watch {
            agent: agent.to_owned(),
            answering: false,
            running: BTreeMap::new(),
            spinner: None,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    /// Shows `event`.
    pub fn show(&mut self, event: RunEvent) {
        match event {
            RunEvent::Text { text, .. } => {
                if !self.answering {
                    self.answering = true;
                    print!("{} -> ", self.agent);
                }
                print!("{text}");
                let _ = std::io::stdout().flush();
            }
            RunEvent::TextRestarted { .. } if self.answering => {
                println!("\n  (the model's answer broke off; it is asked again)");
                self.answering = false;
            }
            RunEvent::ToolStarted { call_id, tool, .. } => {
                self.end_text();
                self.running.insert(call_id, tool.clone());
                match self.terminal {
                    true => self.spin(),
                    false => eprintln!("  · {tool} runs"),
                }
            }
            RunEvent::ToolProgress {
                call_id,
                tool,
                progress,
            } => {
                let line = format!("{tool} {progress}");
                match self.terminal {
                    true => {
                        self.running.insert(call_id, line);
                        self.spin();
                    }
                    false => eprintln!("  · {line}"),
                }
            }
            RunEvent::ToolEnded {
                call_id,
                tool,
                content,
                ..
            } => {
                self.end_text();
                self.running.remove(&call_id);
                let line = format!("  · {tool} -> {content}");
                match &self.spinner {
                    Some(spinner) => spinner.suspend(|| println!("{line}")),
                    None => println!("{line}"),
                }
                self.spin();
            }
            _ => {}
        }
    }

    /// Ends the view: the answer's line, the spinner gone. Whether the answer was shown
    /// already, as it came.
    pub fn finish(mut self) -> bool {
        if let Some(spinner) = self.spinner.take() {
            spinner.finish_and_clear();
        }
        if self.answering {
            println!();
        }
        self.answering
    }

    /// Text that came before a tool call (the model thinking aloud) ends its line.
    fn end_text(&mut self) {
        if self.answering {
            println!();
            self.answering = false;
        }
    }

    /// The spinner, naming what runs (gone when nothing does).
    fn spin(&mut self) {
        if !self.terminal {
            return;
        }
        if self.running.is_empty() {
            if let Some(spinner) = self.spinner.take() {
                spinner.finish_and_clear();
            }
            return;
        }
        let spinner = self.spinner.get_or_insert_with(|| {
            let spinner = ProgressBar::new_spinner();
            if let Ok(style) = ProgressStyle::with_template("  {spinner} {msg}") {
                spinner.set_style(style);
            }
            spinner.enable_steady_tick(Duration::from_millis(100));
            spinner
        });
        let names: Vec<&str> = self.running.values().map(String::as_str).collect();
        spinner.set_message(names.join(", "));
    }
}
