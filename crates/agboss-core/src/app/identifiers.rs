//! The ids an application makes: its instance's, and its executions'. Both are unique across
//! processes and machines (random bits from the operating system), so several instances
//! sharing one store never make the same one; when the system gives no random bits, making one
//! fails (`[random.unavailable]`) rather than falling back to something guessable.

use crate::base::Problem;
use crate::base::random::random_hex;

/// `<host>-<pid>-<8 hex>`: names this instance in leases (who holds an execution) and logs.
pub(crate) fn new_instance_id() -> Result<String, Problem> {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_owned());
    let random = random_hex(4, "the instance's id")?;
    Ok(format!("{host}-{}-{random}", std::process::id()))
}

/// `exec-<millis, hex>-<16 hex>`: sortable by start (the time from `clock`), and 64 random bits
/// so that instances starting executions in the same millisecond never collide.
pub(crate) fn new_execution_id(clock: &crate::time::Clock) -> Result<String, Problem> {
    let millis = clock
        .wall_time()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let random = random_hex(8, "an execution id")?;
    Ok(format!("exec-{millis:x}-{random}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::random::failing;

    #[test]
    fn execution_ids_do_not_repeat_and_sort_by_time() {
        let clock = crate::time::Clock::system();
        let ids: std::collections::HashSet<String> = (0..10_000)
            .map(|_| new_execution_id(&clock).unwrap())
            .collect();
        assert_eq!(ids.len(), 10_000);
        let id = new_execution_id(&clock).unwrap();
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(parts.len(), 3, "{id}");
        assert_eq!(parts[2].len(), 16);
    }

    #[test]
    fn instance_ids_name_the_process() {
        let id = new_instance_id().unwrap();
        assert!(id.contains(&format!("-{}-", std::process::id())), "{id}");
        assert_ne!(new_instance_id().unwrap(), id);
    }

    #[test]
    fn no_random_source_no_id() {
        failing::set(true);
        let execution = new_execution_id(&crate::time::Clock::system());
        let instance = new_instance_id();
        failing::set(false);
        assert_eq!(execution.unwrap_err().code(), "random.unavailable");
        assert_eq!(instance.unwrap_err().code(), "random.unavailable");
    }
}
