//! `worker`: this process works on the executions of the application's store: it claims what
//! can go on (runs handed over with `submit`, answered pauses, executions whose instance
//! stopped) and drives it, a few at a time, until Ctrl-C or, with `--until-idle`, until there is
//! nothing left. Start one per machine, or several: they share the store's executions.

use std::io::Write;

use agboss_core::app::{Application, WorkReport};
use agboss_core::context::{AbortReason, Signal};
use agboss_core::run::{RunError, RunOutcome};
use agboss_core::units::millis;
use clap::Args;

use crate::progress::RunsView;

fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// How the worker works.
#[derive(Clone, Debug, PartialEq, Eq, Args)]
pub struct WorkerArgs {
    /// How many executions it drives at once.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub concurrency: usize,
    /// How often it asks the store for work while it has room, in milliseconds.
    #[arg(long, default_value_t = 1_000, value_name = "MS")]
    pub poll_ms: u64,
    /// Stop once there is no work left, instead of waiting for more.
    #[arg(long)]
    pub until_idle: bool,
}

/// One line about an execution whose driver stopped.
pub fn ended(execution_id: &str, outcome: &Result<RunOutcome, RunError>) -> String {
    match outcome {
        Ok(RunOutcome::Completed(done)) => format!(
            "execution {execution_id} completed ({} tool calls, {} turns)",
            done.tool_calls, done.turns
        ),
        Ok(RunOutcome::Paused(paused)) => format!(
            "execution {execution_id} waits for answers ({} for its thread's owner)",
            paused.pending.len()
        ),
        Ok(RunOutcome::Elsewhere(elsewhere)) => format!(
            "execution {execution_id} is driven by {}",
            elsewhere.holder.as_deref().unwrap_or("another instance")
        ),
        Err(error) => format!(
            "execution {execution_id} failed: [{}] {error}",
            error.code()
        ),
    }
}

/// The report's last line.
pub fn summary(report: &WorkReport) -> String {
    format!(
        "worker stopped: {} claimed, {} completed, {} waiting, {} failed, {} lost to another instance",
        report.claimed,
        report.completed,
        report.paused,
        report.failed.len(),
        report.lost
    )
}

impl WorkerArgs {
    /// Works on `app`'s store, writing a line to `out` as each execution's driver stops,
    /// until `stop` fires (or there is no work, with `--until-idle`).
    pub async fn work(
        &self,
        app: &Application,
        stop: Signal,
        out: &mut (dyn Write + Send),
    ) -> WorkReport {
        let _ = writeln!(
            out,
            "worker {} drives the executions of {} ({} at a time){}",
            app.instance(),
            app.name(),
            self.concurrency.max(1),
            if self.until_idle {
                " until none is left"
            } else {
                "; Ctrl-C stops it"
            }
        );
        // The runs' progress on standard error; what ended, on `out`.
        let view = std::sync::Mutex::new(RunsView::on_stderr());
        let mut worker = app
            .worker()
            .concurrency(self.concurrency)
            .poll(millis(self.poll_ms))
            .on_event(|id, event| lock(&view).show(id, &event))
            .on_end(|(id, outcome)| {
                lock(&view).ended(id);
                let _ = writeln!(out, "{}", ended(id, outcome));
                let _ = out.flush();
            });
        if self.until_idle {
            worker = worker.until_idle();
        }
        worker.run(stop).await
    }

    /// Works until Ctrl-C (or no work, with `--until-idle`), printing as it goes.
    pub async fn run(&self, app: &Application) -> WorkReport {
        let stop = Signal::new();
        let on_interrupt = {
            let stop = stop.clone();
            async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    stop.cancel(AbortReason::cancelled("interrupted"));
                }
                std::future::pending::<()>().await;
            }
        };
        let mut stdout = std::io::stdout();
        let report = tokio::select! {
            report = self.work(app, stop.clone(), &mut stdout) => report,
            () = on_interrupt => unreachable!("it never ends"),
        };
        println!("{}", summary(&report));
        report
    }
}
