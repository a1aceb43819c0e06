//! What this process drives now: one lock per execution being driven (so two drivers of one
//! execution never run side by side here), and the signals of the runs under way (so a cancel
//! can stop one).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::context::Signal;

/// One lock per execution being driven in this process.
#[derive(Default)]
pub(crate) struct ExecutionLocks {
    map: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

/// The right to drive one execution, until dropped.
pub(crate) struct DriverGuard {
    locks: Arc<ExecutionLocks>,
    execution_id: String,
    guard: Option<tokio::sync::OwnedMutexGuard<()>>,
}

impl ExecutionLocks {
    /// Waits for the right to drive `execution_id`.
    pub(crate) async fn lock(self: &Arc<Self>, execution_id: &str) -> DriverGuard {
        let mutex = self
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(execution_id.to_owned())
            .or_default()
            .clone();
        DriverGuard {
            locks: self.clone(),
            execution_id: execution_id.to_owned(),
            guard: Some(mutex.lock_owned().await),
        }
    }
}

impl Drop for DriverGuard {
    fn drop(&mut self) {
        drop(self.guard.take());
        let mut map = self.locks.map.lock().unwrap_or_else(|p| p.into_inner());
        // Nobody waits when the map holds the only handle: forget the lock.
        if map
            .get(&self.execution_id)
            .is_some_and(|m| Arc::strong_count(m) == 1)
        {
            map.remove(&self.execution_id);
        }
    }
}

/// The signals of the executions being driven in this process, so `Application::cancel` can
/// stop one under way.
#[derive(Default)]
pub(crate) struct RunningExecutions {
    map: Mutex<HashMap<String, Signal>>,
}

/// An execution's registration as running, until dropped.
pub(crate) struct Running {
    executions: Arc<RunningExecutions>,
    execution_id: String,
}

impl RunningExecutions {
    /// Registers `signal` as that of running execution `execution_id`.
    pub(crate) fn enter(self: &Arc<Self>, execution_id: &str, signal: &Signal) -> Running {
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(execution_id.to_owned(), signal.clone());
        Running {
            executions: self.clone(),
            execution_id: execution_id.to_owned(),
        }
    }

    /// The signal of execution `execution_id`, if it runs in this process.
    pub(crate) fn signal(&self, execution_id: &str) -> Option<Signal> {
        self.map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(execution_id)
            .cloned()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.executions
            .map
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.execution_id);
    }
}
