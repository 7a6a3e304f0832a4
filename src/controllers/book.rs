//! What a control loop keeps about its own calls and timers: each call in flight under a tag, with what the
//! loop needs to handle its answer, and each requeue timer with the key of the object to sync when it fires
//! (the rate-limited requeue of a real controller's work queue).

use std::collections::BTreeMap;

use super::Cx;

#[derive(Debug)]
pub struct Book<Op> {
    pending: BTreeMap<u64, Op>,
    timers: BTreeMap<u64, String>,
    next: u64,
}

impl<Op> Default for Book<Op> {
    fn default() -> Book<Op> {
        Book { pending: BTreeMap::new(), timers: BTreeMap::new(), next: 0 }
    }
}

impl<Op> Book<Op> {
    /// A tag for a call whose answer `op` describes.
    pub fn tag(&mut self, op: Op) -> u64 {
        self.next += 1;
        self.pending.insert(self.next, op);
        self.next
    }

    /// What the call with `tag` was for (once).
    pub fn answered(&mut self, tag: u64) -> Option<Op> {
        self.pending.remove(&tag)
    }

    /// Syncs `key` again after `after_ms` (at least 1 ms).
    pub fn requeue(&mut self, key: &str, after_ms: u64, cx: &mut Cx) {
        self.next += 1;
        self.timers.insert(self.next, key.to_string());
        cx.timer(after_ms.max(1), self.next);
    }

    /// The key a requeue timer was set for (once).
    pub fn fired(&mut self, token: u64) -> Option<String> {
        self.timers.remove(&token)
    }

    /// Whether a requeue of `key` is waiting.
    pub fn queued(&self, key: &str) -> bool {
        self.timers.values().any(|k| k == key)
    }
}
