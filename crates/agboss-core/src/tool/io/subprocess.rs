//! A tool's child process in its own process group, stopped whole when the call stops.
//!
//! [`Subprocess::spawn`] starts a `tokio::process::Command` as the leader of a new process
//! group, so whatever it starts in turn (a shell's commands, a grandchild) is in that group
//! too. When the call stops waiting for it (its timeout, its execution's cancellation: the
//! `Subprocess` is dropped unfinished) or it is [`stop`](Subprocess::stop)ped, the group gets
//! SIGTERM, then SIGKILL once [`Subprocess::GRACE`] (on the application's clock) has passed with
//! any of it alive, and the child is reaped. A child that ends on its own leaves its group
//! behind it stopped the same way (a grandchild it left running is not kept).

use std::io;
use std::process::{ExitStatus, Output};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStdout, Command};

use super::lossy::{TextOutput, text_from_bytes};
use crate::time::Clock;
use crate::tool::TextStream;

/// A child process of a tool call, the leader of its own process group (Unix).
///
/// ```no_run
/// # use agboss_core::time::Clock;
/// # async fn run(clock: &Clock) -> std::io::Result<()> {
/// use agboss_core::tool::Subprocess;
/// let mut command = tokio::process::Command::new("sh");
/// command.args(["-c", "sleep 1; echo done"]);
/// let output = Subprocess::spawn(command, clock)?.output().await?;
/// assert_eq!(output.stdout, b"done\n");
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Subprocess {
    child: Option<Child>,
    group: Pid,
    clock: Clock,
    grace: Duration,
}

impl Subprocess {
    /// How long the group has between SIGTERM and SIGKILL: 2 s.
    pub const GRACE: Duration = Duration::from_secs(2);

    /// Starts `command` as the leader of a new process group; the clock times the grace.
    pub fn spawn(mut command: Command, clock: &Clock) -> io::Result<Subprocess> {
        command.process_group(0).kill_on_drop(false);
        let child = command.spawn()?;
        let id = child
            .id()
            .ok_or_else(|| io::Error::other("the child process ended before it was seen"))?;
        Ok(Subprocess {
            child: Some(child),
            group: Pid::from_raw(id as i32),
            clock: clock.clone(),
            grace: Subprocess::GRACE,
        })
    }

    /// Uses `grace` between SIGTERM and SIGKILL instead of [`Subprocess::GRACE`].
    pub fn with_grace(mut self, grace: Duration) -> Subprocess {
        self.grace = grace;
        self
    }

    /// The process group's id (the child's process id).
    pub fn group(&self) -> i32 {
        self.group.as_raw()
    }

    /// Whether any process of group `group` is alive (zombies not counted): what a test checks
    /// for orphans after a call stopped.
    pub fn is_group_alive(group: i32) -> bool {
        group_alive(Pid::from_raw(group))
    }

    /// The child, for its standard streams.
    pub fn child_mut(&mut self) -> &mut Child {
        self.child
            .as_mut()
            .expect("a subprocess holds its child until it is reaped")
    }

    /// Waits for the child to exit; what it left of its group is then stopped.
    pub async fn wait(mut self) -> io::Result<ExitStatus> {
        let status = self.child_mut().wait().await;
        self.end_group().await;
        status
    }

    /// Like [`output`](Self::output), with stdout and stderr as text a model may read
    /// ([`text_from_bytes`](super::text_from_bytes)): invalid UTF-8 replaced, escape
    /// sequences, control characters and bidirectional overrides taken out, each counted in
    /// the result, and traced (`agboss.subprocess_text`, at debug level) when any was.
    pub async fn output_text(self) -> io::Result<TextOutput> {
        let output = self.output().await?;
        let stdout = text_from_bytes(&output.stdout);
        let stderr = text_from_bytes(&output.stderr);
        let (replaced, neutralized) = (
            stdout.replaced + stderr.replaced,
            stdout.neutralized + stderr.neutralized,
        );
        if replaced + neutralized > 0 {
            tracing::debug!(replaced, neutralized, "agboss.subprocess_text");
        }
        Ok(TextOutput {
            status: output.status,
            stdout,
            stderr,
        })
    }

    /// The child's standard output (it must be piped) as a [`TextStream`], the result of a
    /// tool whose output may be huge: the contract reads it up to the bound, and dropping the
    /// stream stops the group as dropping the `Subprocess` does. The child's stderr is not
    /// read: pipe it only if something reads it, or a chatty child blocks on a full pipe.
    ///
    /// # Errors
    ///
    /// When stdout is not piped.
    pub fn stdout_stream(mut self) -> io::Result<TextStream> {
        let stdout = self.child_mut().stdout.take().ok_or_else(|| {
            io::Error::other("the child's stdout is not piped: set `Stdio::piped()` on its command")
        })?;
        Ok(TextStream::from_reader(StdoutOf {
            stdout,
            _process: self,
        }))
    }

    /// Waits for the child to exit with all its output (stdout and stderr should be piped);
    /// what it left of its group is then stopped.
    pub async fn output(mut self) -> io::Result<Output> {
        let child = self.child.take().expect("a subprocess holds its child");
        let output = child.wait_with_output().await;
        self.end_group().await;
        output
    }

    /// Stops the group now (SIGTERM, then SIGKILL after the grace) and reaps the child.
    pub async fn stop(mut self) {
        self.end_group().await;
    }

    /// SIGTERM to the group; SIGKILL after the grace if any of it is alive; the child reaped.
    async fn end_group(&mut self) {
        let child = self.child.take();
        stop_group(self.group, child, &self.clock, self.grace).await;
    }
}

impl Drop for Subprocess {
    fn drop(&mut self) {
        if self.child.is_none() && !group_answers(self.group) {
            return;
        }
        let (group, child) = (self.group, self.child.take());
        let (clock, grace) = (self.clock.clone(), self.grace);
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(stop_group(group, child, &clock, grace));
            }
            // Outside a runtime nothing can wait out the grace: the group is killed at once.
            Err(_) => {
                let _ = killpg(group, Signal::SIGKILL);
                if let Some(mut child) = child {
                    let _ = child.try_wait();
                }
            }
        }
    }
}

/// A child's stdout that holds its [`Subprocess`]: the group is stopped when it is dropped.
struct StdoutOf {
    stdout: ChildStdout,
    _process: Subprocess,
}

impl AsyncRead for StdoutOf {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        std::pin::Pin::new(&mut self.stdout).poll_read(cx, buf)
    }
}

/// Stops process group `group` (led by `child`, if not reaped yet).
fn stop_group(
    group: Pid,
    child: Option<Child>,
    clock: &Clock,
    grace: Duration,
) -> impl std::future::Future<Output = ()> + Send + 'static {
    let clock = clock.clone();
    async move {
        let mut child = child;
        if group_answers(group) {
            let _ = killpg(group, Signal::SIGTERM);
            let ended = async {
                loop {
                    // The group is polled: nothing tells a parent of its grandchildren. The
                    // child is reaped as soon as it ends, so that its zombie does not count.
                    if let Some(child) = child.as_mut() {
                        let _ = child.try_wait();
                    }
                    if !group_answers(group) {
                        break;
                    }
                    clock.sleep(POLL).await;
                }
            };
            tokio::select! {
                () = ended => {}
                () = clock.sleep(grace) => {
                    let _ = killpg(group, Signal::SIGKILL);
                    // A killed process dies a moment later; its zombie does not count.
                    for _ in 0..40 {
                        if !group_alive(group) {
                            break;
                        }
                        clock.sleep(POLL).await;
                    }
                }
            }
        }
        if let Some(mut child) = child {
            let _ = child.wait().await;
        }
    }
}

/// How often a stopping group is polled.
const POLL: Duration = Duration::from_millis(25);

/// Whether any process of `group` takes signals (`kill(-group, 0)`): one system call, which
/// also answers for a zombie in the group, so a grandchild whose new parent does not reap it
/// keeps the group answering until the grace has passed (its SIGKILL is then a no-op).
fn group_answers(group: Pid) -> bool {
    killpg(group, None).is_ok()
}

/// Whether any process of `group` is alive and not a zombie.
///
/// `kill(-group, 0)` also answers for zombies (a grandchild whose new parent has not reaped
/// it yet), so the group's members are read from `/proc` where there is one.
fn group_alive(group: Pid) -> bool {
    if killpg(group, None).is_err() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // `pid (comm) state ppid pgrp ...`: the command may hold spaces and parentheses.
        let Some(rest) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
            return false;
        };
        let mut fields = rest.split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1);
        state != Some("Z") && pgrp == Some(group.as_raw().to_string().as_str())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell(script: &str) -> Command {
        let mut command = Command::new("sh");
        command.args(["-c", script]);
        command
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_group_that_ignores_sigterm_is_killed_after_the_grace() {
        let clock = Clock::system();
        // The shell ignores SIGTERM, and so does the grandchild it leaves running.
        let child = Subprocess::spawn(shell("trap '' TERM; sleep 30 & wait"), &clock)
            .unwrap()
            .with_grace(Duration::from_millis(100));
        let group = Pid::from_raw(child.group());
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(group_alive(group));
        child.stop().await;
        assert!(!group_alive(group));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dropped_subprocess_stops_its_group() {
        let clock = Clock::system();
        let child = Subprocess::spawn(shell("sleep 30 & sleep 30"), &clock).unwrap();
        let group = Pid::from_raw(child.group());
        drop(child);
        for _ in 0..200 {
            if !group_alive(group) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(!group_alive(group));
    }

    #[tokio::test]
    async fn output_is_read_whole() {
        let mut command = shell("echo done");
        command.stdout(std::process::Stdio::piped());
        let output = Subprocess::spawn(command, &Clock::system())
            .unwrap()
            .output()
            .await
            .unwrap();
        assert_eq!(output.stdout, b"done\n");
    }
}
