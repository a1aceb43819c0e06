//! [`Step`]: which call of which node a tool runs in, and its idempotency key.

use std::fmt;
use std::sync::Arc;

/// The position of one tool call in its execution: the node (an agent's loop), the node's visit,
/// the item of a fan-out if any, and the call's id.
///
/// Its [`idempotency_key`](Self::idempotency_key) is the key a tool with side effects passes to
/// the service it changes:
///
/// ```text
/// {executionId}:{nodeId}:{visitNumber}[:{itemIndex}]:{callId}
/// ```
///
/// `%` and `:` inside the execution id, node id and call id are written `%25` and `%3A`, so the
/// colons of a key always separate its parts and two different calls never share a key.
///
/// ```
/// use agboss_core::context::Step;
/// let step = Step::new("scout", 1, "call_0").with_item_index(2);
/// assert_eq!(step.idempotency_key("exec-7"), "exec-7:scout:1:2:call_0");
/// let odd = Step::new("a:b", 1, "x%y");
/// assert_eq!(odd.idempotency_key("e"), "e:a%3Ab:1:x%25y");
/// ```
#[derive(Clone)]
pub struct Step {
    node_id: Arc<str>,
    visit: u32,
    item_index: Option<u32>,
    call_id: Arc<str>,
    attempt: u32,
}

impl Step {
    /// The call `call_id` in visit `visit` of node `node_id`.
    pub fn new(node_id: impl Into<Arc<str>>, visit: u32, call_id: impl Into<Arc<str>>) -> Step {
        Step {
            node_id: node_id.into(),
            visit,
            item_index: None,
            call_id: call_id.into(),
            attempt: 1,
        }
    }

    /// The same step on its `attempt`-th start (from 1): more than 1 when a crash interrupted
    /// the call and recovery runs it again, with the same id and key.
    pub fn with_attempt(mut self, attempt: u32) -> Step {
        self.attempt = attempt.max(1);
        self
    }

    /// Which start of the call this is, from 1. A call a crash interrupted runs again with the
    /// same call id and idempotency key, and a higher attempt.
    pub fn attempt(&self) -> u32 {
        self.attempt
    }

    /// The same step for item `index` of a fan-out.
    pub fn with_item_index(mut self, index: u32) -> Step {
        self.item_index = Some(index);
        self
    }

    /// The node (agent loop) the call belongs to.
    pub fn node_id(&self) -> &str {
        &self.node_id
    }

    /// The node's visit, from 1.
    pub fn visit(&self) -> u32 {
        self.visit
    }

    /// The fan-out item, if the node runs once per item.
    pub fn item_index(&self) -> Option<u32> {
        self.item_index
    }

    /// The call's id: the same when a call interrupted by a crash runs again.
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The call's idempotency key within execution `execution_id`.
    pub fn idempotency_key(&self, execution_id: &str) -> String {
        let mut key = String::with_capacity(
            execution_id.len() + self.node_id.len() + self.call_id.len() + 16,
        );
        push_encoded(&mut key, execution_id);
        key.push(':');
        push_encoded(&mut key, &self.node_id);
        key.push(':');
        key.push_str(&self.visit.to_string());
        if let Some(index) = self.item_index {
            key.push(':');
            key.push_str(&index.to_string());
        }
        key.push(':');
        push_encoded(&mut key, &self.call_id);
        key
    }
}

fn push_encoded(out: &mut String, part: &str) {
    for c in part.chars() {
        match c {
            '%' => out.push_str("%25"),
            ':' => out.push_str("%3A"),
            c => out.push(c),
        }
    }
}

impl fmt::Debug for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Step")
            .field("node_id", &self.node_id())
            .field("visit", &self.visit())
            .field("item_index", &self.item_index())
            .field("call_id", &self.call_id())
            .field("attempt", &self.attempt)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_follow_the_layout() {
        assert_eq!(
            Step::new("notes", 3, "c1").idempotency_key("x"),
            "x:notes:3:c1"
        );
        assert_eq!(
            Step::new("notes", 3, "c1")
                .with_item_index(0)
                .idempotency_key("x"),
            "x:notes:3:0:c1"
        );
    }

    #[test]
    fn colons_in_parts_cannot_forge_another_key() {
        // Without encoding both would read "e:n:1:2:c".
        let a = Step::new("n", 1, "2:c").idempotency_key("e");
        let b = Step::new("n", 1, "c")
            .with_item_index(2)
            .idempotency_key("e");
        assert_ne!(a, b);
        assert_eq!(a, "e:n:1:2%3Ac");
    }
}
