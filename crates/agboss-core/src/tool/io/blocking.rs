//! Blocking work from a tool: [`blocking`] runs a closure on a thread of a bounded pool and
//! gives it a [`StopFlag`] that is set when the call stops waiting for it.
//!
//! A call that times out or is cancelled stops waiting at once, but a thread cannot be stopped
//! from outside: the closure reads its flag and returns early. Until it returns, its thread
//! counts against the pool's bound, and a call that finds the pool full is refused with a tool
//! error (`tool.blocking-full`) instead of growing the number of stuck threads.

use std::sync::Arc;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use agboss_rules::codes;

use crate::tool::ToolError;
use crate::tool::race::panic_message;

/// Set when the call that started a piece of blocking work stops waiting for it (its timeout,
/// its execution's cancellation); the work reads it and returns early.
#[derive(Clone, Debug, Default)]
pub struct StopFlag(Arc<AtomicBool>);

impl StopFlag {
    /// Whether the work should stop.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A bound on the threads tools' blocking work holds at once (on tokio's blocking pool).
///
/// [`blocking`] uses [`BlockingPool::shared`], bounded to [`BlockingPool::DEFAULT_LIMIT`];
/// a tool that needs its own bound keeps a `BlockingPool` of its own (an `Arc<BlockingPool>`
/// the application provides).
#[derive(Debug)]
pub struct BlockingPool {
    limit: usize,
    in_use: Arc<AtomicUsize>,
}

impl BlockingPool {
    /// The bound of the shared pool: 16 threads.
    pub const DEFAULT_LIMIT: usize = 16;

    /// A pool of at most `limit` threads at once.
    pub fn new(limit: usize) -> BlockingPool {
        BlockingPool {
            limit,
            in_use: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// The process's shared pool, which [`blocking`] runs on.
    pub fn shared() -> &'static BlockingPool {
        static SHARED: OnceLock<BlockingPool> = OnceLock::new();
        SHARED.get_or_init(|| BlockingPool::new(BlockingPool::DEFAULT_LIMIT))
    }

    /// Its bound.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The threads its work holds now (work whose call stopped waiting included, until the
    /// closure returns).
    pub fn in_use(&self) -> usize {
        self.in_use.load(Ordering::Acquire)
    }

    /// Runs `work` on a thread of this pool and waits for what it returns. Refused when the
    /// pool is full; a panic in `work` is a tool error. When the returned future is dropped
    /// (the call timed out or was cancelled), `work`'s [`StopFlag`] is set.
    pub async fn run<R, W>(&self, work: W) -> Result<R, ToolError>
    where
        R: Send + 'static,
        W: FnOnce(&StopFlag) -> R + Send + 'static,
    {
        let slot = self.take()?;
        let stop = StopOnDrop(StopFlag::default());
        let flag = stop.0.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            work(&flag)
        })
        .await;
        drop(stop);
        joined.map_err(|e| match e.try_into_panic() {
            Ok(payload) => ToolError::new(format!(
                "the blocking work panicked: {}",
                panic_message(&*payload)
            )),
            Err(e) => ToolError::new(format!("the blocking work did not finish: {e}")),
        })
    }

    fn take(&self) -> Result<Slot, ToolError> {
        let taken = self
            .in_use
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                (n < self.limit).then_some(n + 1)
            });
        match taken {
            Ok(_) => Ok(Slot(self.in_use.clone())),
            Err(_) => Err(ToolError::new(format!(
                "[{}] {}",
                codes::TOOL_BLOCKING_FULL.id(),
                codes::TOOL_BLOCKING_FULL.fill(&[("limit", &self.limit)])
            ))),
        }
    }
}

/// Runs `work` on a thread of the shared [`BlockingPool`] (at most
/// [`BlockingPool::DEFAULT_LIMIT`] at once) with a [`StopFlag`] it should read.
///
/// ```no_run
/// # async fn run() -> Result<u64, agboss_core::tool::ToolError> {
/// let sum = agboss_core::tool::blocking(|stop| {
///     let mut sum = 0u64;
///     for n in 0..u64::MAX {
///         if stop.is_set() {
///             break;
///         }
///         sum = sum.wrapping_add(n);
///     }
///     sum
/// })
/// .await?;
/// # Ok(sum) }
/// ```
pub async fn blocking<R, W>(work: W) -> Result<R, ToolError>
where
    R: Send + 'static,
    W: FnOnce(&StopFlag) -> R + Send + 'static,
{
    BlockingPool::shared().run(work).await
}

/// One thread of a pool, given back when the work returns.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Sets the flag when the waiting future is dropped (or is done).
struct StopOnDrop(StopFlag);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.set();
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_pool_refuses_and_a_dropped_call_stops_its_work() {
        let pool = Arc::new(BlockingPool::new(1));
        let spinning = tokio::spawn({
            let pool = pool.clone();
            async move {
                pool.run(|stop| {
                    while !stop.is_set() {
                        std::hint::spin_loop();
                    }
                })
                .await
            }
        });
        while pool.in_use() == 0 {
            tokio::task::yield_now().await;
        }
        let refused = pool.run(|_| ()).await.unwrap_err();
        assert_eq!(
            refused.message(),
            "[tool.blocking-full] the blocking pool is full: 1 of 1 threads are held by work that has not returned (its calls may have stopped waiting); try again later, or give the pool a higher bound"
        );
        spinning.abort();
        let _ = spinning.await;
        for _ in 0..500 {
            if pool.in_use() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        assert_eq!(pool.in_use(), 0);
        assert_eq!(pool.run(|_| 7).await.unwrap(), 7);
    }

    #[tokio::test]
    async fn a_panic_is_a_tool_error() {
        let error = BlockingPool::new(1)
            .run(|_| -> () { panic!("out of paper") })
            .await
            .unwrap_err();
        assert_eq!(error.message(), "the blocking work panicked: out of paper");
    }
}
