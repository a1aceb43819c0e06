//! Which process holds a lease, and whether it still runs: the SQLite store's liveness
//! (docs/durability.md, "Liveness"). Every process that opens the file is on this machine, so
//! the machine says which of them are gone.
//!
//! A lease records the process that claimed or last renewed it: its pid, its start (field 22
//! of `/proc/<pid>/stat`: clock ticks from the boot to the process's start) and its pid
//! namespace, beside the boot the lease's clock counts from (`clock.rs`). A pid alone does not
//! name a process: once one exits the kernel may give its pid to another. The pid and the
//! start together do, within a boot: a process at that pid with another start is another
//! process, and the holder is gone. (Two processes would share both only if the kernel went
//! round every pid within one tick, 10 ms.)
//!
//! The holder is gone when its pid names no process, or a zombie (killed, not yet reaped by its
//! parent: it runs nothing more), or a process of another start. It may still run when it is
//! there, stopped or not (`SIGSTOP` stops a process without ending it: its lease lasts its
//! ttl), and whenever this process cannot tell: a holder in another pid namespace (a container
//! sharing the file), a `/proc` that hides other users' processes (`hidepid`), a system without
//! `/proc`. A wrong "gone" would only cost speed, never safety: the epoch fences every write.

use crate::journal::Holder;

/// A process, as a lease records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Process {
    /// Its id.
    pub(super) pid: i64,
    /// When it started, in clock ticks since the boot.
    pub(super) started: i64,
    /// Its pid namespace (the inode of `/proc/<pid>/ns/pid`), which its pid is a number in.
    pub(super) namespace: i64,
}

/// This process, or `None` where the system does not tell (no `/proc`).
pub(super) fn this() -> Option<Process> {
    static THIS: std::sync::OnceLock<Option<Process>> = std::sync::OnceLock::new();
    *THIS.get_or_init(|| {
        let pid = i64::from(std::process::id());
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        let (_, started) = state_and_start(&stat)?;
        Some(Process {
            pid,
            started,
            namespace: namespace()?,
        })
    })
}

/// Whether the holder `process` may still run, as this process sees the machine.
pub(super) fn holder(process: Process) -> Holder {
    let Some(me) = this() else {
        return Holder::MayRun;
    };
    if process.namespace != me.namespace || process.pid <= 0 {
        return Holder::MayRun;
    }
    match std::fs::read_to_string(format!("/proc/{}/stat", process.pid)) {
        Ok(stat) => match state_and_start(&stat) {
            // A zombie ('Z'; 'X' and 'x': dead) runs nothing more; another start is another
            // process at a pid the holder's was.
            Some((state, started))
                if started != process.started || matches!(state, 'Z' | 'X' | 'x') =>
            {
                Holder::Gone
            }
            _ => Holder::MayRun,
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => no_such_process(process.pid),
        Err(_) => Holder::MayRun,
    }
}

/// No `/proc/<pid>`: either no such process, or one `/proc` hides (`hidepid`). The kernel's
/// answer to a signal 0 tells them apart.
fn no_such_process(pid: i64) -> Holder {
    let Ok(pid) = i32::try_from(pid) else {
        return Holder::MayRun;
    };
    match nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None) {
        Err(nix::errno::Errno::ESRCH) => Holder::Gone,
        _ => Holder::MayRun,
    }
}

/// This process's pid namespace.
fn namespace() -> Option<i64> {
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata("/proc/self/ns/pid").ok()?.ino();
    i64::try_from(inode).ok()
}

/// The state (field 3) and the start (field 22) of a `/proc/<pid>/stat` line. The command's
/// name (field 2) is in parentheses and may hold anything, spaces and `)` too: the fields after
/// it begin after the line's last `)`.
fn state_and_start(stat: &str) -> Option<(char, i64)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?.chars().next()?;
    // Fields 4 to 21 lie between.
    let started = fields.nth(18)?.parse().ok()?;
    Some((state, started))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_past_a_name_with_spaces_and_parentheses() {
        let line = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 \
                    987654 1000 100 18446744073709551615";
        assert_eq!(state_and_start(line), Some(('S', 987_654)));
        assert_eq!(state_and_start("4242 (x"), None);
    }

    #[test]
    fn this_process_runs_and_a_process_of_another_start_is_gone() {
        let me = this().expect("/proc on Linux");
        assert_eq!(holder(me), Holder::MayRun);
        let reused = Process {
            started: me.started + 1,
            ..me
        };
        assert_eq!(holder(reused), Holder::Gone);
        let elsewhere = Process {
            namespace: me.namespace + 1,
            started: me.started + 1,
            ..me
        };
        assert_eq!(
            holder(elsewhere),
            Holder::MayRun,
            "another namespace: unknown"
        );
    }

    #[test]
    fn an_exited_process_is_gone_and_a_stopped_one_may_run() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = i64::from(child.id());
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let child_process = Process {
            pid,
            started: state_and_start(&stat).unwrap().1,
            namespace: this().unwrap().namespace,
        };
        let signal = |name: nix::sys::signal::Signal| {
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid as i32), name).unwrap();
        };
        signal(nix::sys::signal::Signal::SIGSTOP);
        assert_eq!(holder(child_process), Holder::MayRun, "stopped, not gone");
        signal(nix::sys::signal::Signal::SIGKILL);
        // Killed and not reaped yet (a zombie), then reaped: gone either way.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while holder(child_process) != Holder::Gone {
            assert!(std::time::Instant::now() < deadline, "never seen gone");
            std::thread::yield_now();
        }
        child.wait().unwrap();
        assert_eq!(holder(child_process), Holder::Gone);
    }
}
