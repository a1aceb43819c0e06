//! Random ids: hex of bytes from the operating system's random source, or an error with its
//! code. An id is never made of the time or the process id in their place: pause ids are the
//! right to answer, execution ids must not collide across instances.

use agboss_rules::codes;

use super::Problem;

/// `n` random bytes from the operating system, hex; `[random.unavailable]` naming `what` the
/// bytes were for when the system gives none.
pub(crate) fn random_hex(n: usize, what: &str) -> Result<String, Problem> {
    let mut bytes = vec![0u8; n];
    fill(&mut bytes).map_err(|error| {
        Problem::from(codes::RANDOM_UNAVAILABLE.finding(&[("what", &what), ("error", &error)]))
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn fill(bytes: &mut [u8]) -> Result<(), String> {
    #[cfg(test)]
    if failing::FAILING.with(std::cell::Cell::get) {
        return Err("the test turned the random source off".into());
    }
    getrandom::fill(bytes).map_err(|e| e.to_string())
}

/// Unit tests turn the random source off in their thread.
#[cfg(test)]
pub(crate) mod failing {
    thread_local! {
        pub(super) static FAILING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }

    /// Makes every random id of this thread fail (until `false`).
    pub(crate) fn set(failing: bool) {
        FAILING.with(|f| f.set(failing));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_hex_of_the_bytes_asked_for_or_an_error() {
        let id = random_hex(8, "an execution id").unwrap();
        assert_eq!(id.len(), 16);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        failing::set(true);
        let error = random_hex(8, "an execution id").unwrap_err();
        failing::set(false);
        assert_eq!(error.code(), "random.unavailable");
        assert!(
            error.message().starts_with(
                "the operating system gave no random bytes for an execution id (the test turned the random source off)"
            ),
            "{error}"
        );
    }
}
