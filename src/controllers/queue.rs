//! What the Job and CronJob loops share with client-go's controller plumbing: a work queue whose
//! `add_after` keeps the earliest due time per key (the delaying queue) with per-key exponential retry
//! (the rate limiter), a count of writes in flight per key, and the newest copy of an object the loop
//! wrote itself until its informer shows it (so a sync right after a write does not act on a stale cache).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{Kind, Object};
use crate::sim::SimTime;

use super::Cx;

/// Keys waiting to be synced, each at the earliest time asked for.
#[derive(Debug, Default)]
pub struct Queue {
    due: BTreeMap<String, SimTime>,
    timers: BTreeMap<u64, (String, SimTime)>,
    retries: BTreeMap<String, u64>,
    next: u64,
}

impl Queue {
    /// Syncs `key` after `delay_ms` unless it is already due sooner.
    pub fn add_after(&mut self, key: &str, delay_ms: u64, cx: &mut Cx) {
        let at = cx.now.plus_ms(delay_ms);
        if self.due.get(key).is_some_and(|t| *t <= at) {
            return;
        }
        self.due.insert(key.to_string(), at);
        self.next += 1;
        self.timers.insert(self.next, (key.to_string(), at));
        cx.timer(delay_ms, self.next);
    }

    /// After a failure: again after `base_ms`, doubling with each failure in a row up to `max_ms`.
    pub fn add_rate_limited(&mut self, key: &str, base_ms: u64, max_ms: u64, cx: &mut Cx) {
        let delay = self.retries.get(key).map_or(base_ms, |d| d.saturating_mul(2).min(max_ms));
        self.retries.insert(key.to_string(), delay);
        self.add_after(key, delay, cx);
    }

    /// A success: the next failure starts the retries over.
    pub fn forget(&mut self, key: &str) {
        self.retries.remove(key);
    }

    /// The key whose time came with this timer, if it is still the one due.
    pub fn fire(&mut self, token: u64) -> Option<String> {
        let (key, at) = self.timers.remove(&token)?;
        if self.due.get(&key) != Some(&at) {
            return None;
        }
        self.due.remove(&key);
        Some(key)
    }
}

/// Writes in flight per key; a sync asked for meanwhile waits for them.
#[derive(Debug, Default)]
pub struct InFlight {
    busy: BTreeMap<String, u32>,
    deferred: BTreeSet<String>,
}

impl InFlight {
    pub fn hold(&mut self, key: &str) {
        *self.busy.entry(key.to_string()).or_default() += 1;
    }

    /// Whether `key` has writes in flight; if so the sync is remembered for later.
    pub fn defer(&mut self, key: &str) -> bool {
        let busy = self.busy.contains_key(key);
        if busy {
            self.deferred.insert(key.to_string());
        }
        busy
    }

    /// One write answered. `Some(deferred)` once none is left: whether a sync waited meanwhile.
    pub fn release(&mut self, key: &str) -> Option<bool> {
        let n = self.busy.get_mut(key)?;
        *n = n.saturating_sub(1);
        if *n > 0 {
            return None;
        }
        self.busy.remove(key);
        Some(self.deferred.remove(key))
    }
}

/// The last object this loop wrote per key.
#[derive(Debug, Default)]
pub struct Written(BTreeMap<String, Arc<Object>>);

impl Written {
    pub fn insert(&mut self, key: &str, obj: Arc<Object>) {
        self.0.insert(key.to_string(), obj);
    }

    pub fn remove(&mut self, key: &str) {
        self.0.remove(key);
    }

    /// The object as this loop last knew it: the cache, or its own newer write of the same object.
    pub fn newest(&mut self, kind: Kind, key: &str, cx: &Cx) -> Option<Arc<Object>> {
        let cached = cx.get(kind, key);
        match (cached, self.0.get(key)) {
            (Some(c), Some(w)) if w.meta().uid == c.meta().uid && w.resource_version() > c.resource_version() => {
                Some(w.clone())
            }
            (cached, _) => {
                self.0.remove(key);
                cached
            }
        }
    }
}
