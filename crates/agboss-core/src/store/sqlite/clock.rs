//! The clock SQLite leases run out by: the machine's boot clock (`CLOCK_BOOTTIME`), which every
//! process on the machine shares and which the wall clock's steps (NTP, a user setting the
//! date) do not move. The file's leases are judged by whoever opens it, on the same machine, so
//! the machine's clock is the store's clock.
//!
//! The boot clock starts again at each boot, so a lease also records the boot it was written in
//! (`/proc/sys/kernel/random/boot_id`): a lease of another boot has run out, as every process
//! that held it has.

use std::sync::OnceLock;

/// Now on the machine's clock: the boot's id and the milliseconds since it began.
pub(super) fn now() -> (&'static str, i64) {
    (boot_id(), millis())
}

fn boot_id() -> &'static str {
    static BOOT: OnceLock<String> = OnceLock::new();
    BOOT.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .map(|id| id.trim().to_owned())
            // Without a boot id (not Linux), the boot clock is the monotonic one and this
            // process's start stands in for the boot: leases of other boots are not told apart.
            .unwrap_or_else(|_| "unknown".to_owned())
    })
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn millis() -> i64 {
    clock_millis(nix::time::ClockId::CLOCK_BOOTTIME)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn millis() -> i64 {
    clock_millis(nix::time::ClockId::CLOCK_MONOTONIC)
}

fn clock_millis(clock: nix::time::ClockId) -> i64 {
    match nix::time::clock_gettime(clock) {
        Ok(time) => time.tv_sec() * 1_000 + time.tv_nsec() / 1_000_000,
        // The clock ids above exist on every system they are compiled for.
        Err(_) => 0,
    }
}
