//! The ids an application makes: its instance's, and its executions'. Both are unique across
//! processes and machines (random bits from the operating system), so several instances
//! sharing one store never make the same one.

/// `n` random bytes from the operating system, hex. When the OS gives none (it does not on
/// any system this builds for), the process id and the time stand in.
fn random_hex(n: usize) -> String {
    let mut bytes = vec![0u8; n];
    if getrandom::fill(&mut bytes).is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let seed = nanos ^ (u128::from(std::process::id()) << 64);
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = (seed >> ((i % 16) * 8)) as u8;
        }
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `<host>-<pid>-<8 hex>`: names this instance in leases (who holds an execution) and logs.
pub(crate) fn new_instance_id() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_owned());
    format!("{host}-{}-{}", std::process::id(), random_hex(4))
}

/// `exec-<millis, hex>-<16 hex>`: sortable by start (the time from `clock`), and 64 random bits
/// so that instances starting executions in the same millisecond never collide.
pub(crate) fn new_execution_id(clock: &crate::time::Clock) -> String {
    let millis = clock
        .wall_time()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    format!("exec-{millis:x}-{}", random_hex(8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn execution_ids_do_not_repeat_and_sort_by_time() {
        let clock = crate::time::Clock::system();
        let ids: std::collections::HashSet<String> =
            (0..10_000).map(|_| new_execution_id(&clock)).collect();
        assert_eq!(ids.len(), 10_000);
        let id = new_execution_id(&clock);
        let parts: Vec<&str> = id.split('-').collect();
        assert_eq!(parts.len(), 3, "{id}");
        assert_eq!(parts[2].len(), 16);
    }

    #[test]
    fn instance_ids_name_the_process() {
        let id = new_instance_id();
        assert!(id.contains(&format!("-{}-", std::process::id())), "{id}");
        assert_ne!(new_instance_id(), id);
    }
}
