//! The scheduling queue: pods ready to try (active, highest priority first, then first in), pods that
//! failed and wait out a backoff (1 s doubling per attempt up to 10 s, counted from the failed attempt), and
//! pods no node fits (unschedulable) until a cluster event that could help one of the plugins that refused
//! them (queueing hints), or 5 minutes. Counterpart: `pkg/scheduler/backend/queue/scheduling_queue.go`,
//! `framework/plugins/queuesort` (PrioritySort).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BTreeSet};

use crate::sim::SimTime;

pub const INITIAL_BACKOFF_MS: u64 = 1_000;
pub const MAX_BACKOFF_MS: u64 = 10_000;
/// Unschedulable pods are retried at least this often (podMaxInUnschedulablePodsDuration).
pub const UNSCHEDULABLE_FLUSH_MS: u64 = 300_000;

/// The backoff after `attempts` scheduling attempts.
pub fn backoff_ms(attempts: u32) -> u64 {
    let mut d = INITIAL_BACKOFF_MS;
    for _ in 1..attempts {
        d *= 2;
        if d >= MAX_BACKOFF_MS {
            return MAX_BACKOFF_MS;
        }
    }
    d
}

#[derive(Debug, Clone)]
struct Entry {
    priority: i32,
    attempts: u32,
    /// When the last attempt failed.
    failed_at: SimTime,
    /// Sequence of entering the active queue (first in, first out among equal priorities).
    seq: u64,
}

#[derive(Debug, Default)]
pub struct SchedulingQueue {
    entries: BTreeMap<String, Entry>,
    active: BTreeSet<(Reverse<i32>, u64, String)>,
    backoff: BTreeSet<(SimTime, String)>,
    /// Unschedulable pods: since when, and the plugins that refused them.
    unschedulable: BTreeMap<String, (SimTime, BTreeSet<&'static str>)>,
    /// Unschedulable pods by refusing plugin; pods no plugin refused are under "".
    by_plugin: BTreeMap<&'static str, BTreeSet<String>>,
    next_seq: u64,
}

impl SchedulingQueue {
    /// Pods waiting anywhere in the queue.
    pub fn len(&self) -> usize {
        self.active.len() + self.backoff.len() + self.unschedulable.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn contains(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    pub fn is_unschedulable(&self, key: &str) -> bool {
        self.unschedulable.contains_key(key)
    }

    pub fn clear(&mut self) {
        *self = SchedulingQueue::default();
    }

    fn activate(&mut self, key: String) {
        let Some(e) = self.entries.get_mut(&key) else { return };
        self.next_seq += 1;
        e.seq = self.next_seq;
        self.active.insert((Reverse(e.priority), e.seq, key));
    }

    /// Active now, or backing off if its backoff has not ended.
    fn activate_or_back_off(&mut self, key: String, now: SimTime) {
        let Some(e) = self.entries.get(&key) else { return };
        let ready = e.failed_at.plus_ms(backoff_ms(e.attempts));
        if e.attempts > 0 && ready > now {
            self.backoff.insert((ready, key));
        } else {
            self.activate(key);
        }
    }

    fn detach(&mut self, key: &str) {
        if let Some(e) = self.entries.get(key) {
            self.active.remove(&(Reverse(e.priority), e.seq, key.to_string()));
            let ready = e.failed_at.plus_ms(backoff_ms(e.attempts));
            self.backoff.remove(&(ready, key.to_string()));
        }
        if let Some((_, plugins)) = self.unschedulable.remove(key) {
            for p in plugins.iter().copied().chain(plugins.is_empty().then_some("")) {
                if let Some(set) = self.by_plugin.get_mut(p) {
                    set.remove(key);
                }
            }
        }
    }

    /// A new or changed pod that needs a node: try it (after its backoff, if it failed before). A pod
    /// already active or backing off keeps its place; its priority is updated.
    pub fn add(&mut self, key: String, priority: i32, now: SimTime) {
        let waiting = self.entries.contains_key(&key) && !self.unschedulable.contains_key(&key);
        if waiting {
            if self.entries.get(&key).is_some_and(|e| e.priority != priority) {
                let in_active = self
                    .entries
                    .get(&key)
                    .is_some_and(|e| self.active.contains(&(Reverse(e.priority), e.seq, key.clone())));
                self.detach(&key);
                if let Some(e) = self.entries.get_mut(&key) {
                    e.priority = priority;
                }
                if in_active {
                    self.activate(key);
                } else {
                    self.activate_or_back_off(key, now);
                }
            }
            return;
        }
        self.detach(&key);
        let e = self.entries.entry(key.clone()).or_insert(Entry { priority, attempts: 0, failed_at: now, seq: 0 });
        e.priority = priority;
        self.activate_or_back_off(key, now);
    }

    pub fn remove(&mut self, key: &str) {
        self.detach(key);
        self.entries.remove(key);
    }

    /// The next pod to try (counting the attempt), after moving pods whose backoff ended and unschedulable
    /// pods parked for 5 minutes.
    pub fn pop(&mut self, now: SimTime) -> Option<String> {
        self.flush(now);
        let first = self.active.iter().next().cloned()?;
        self.active.remove(&first);
        let key = first.2;
        if let Some(e) = self.entries.get_mut(&key) {
            e.attempts += 1;
        }
        Some(key)
    }

    fn flush(&mut self, now: SimTime) {
        while let Some((at, _)) = self.backoff.iter().next() {
            if *at > now {
                break;
            }
            let Some((_, key)) = self.backoff.pop_first() else { break };
            self.activate(key);
        }
        let stale: Vec<String> = self
            .unschedulable
            .iter()
            .filter(|(_, (since, _))| since.plus_ms(UNSCHEDULABLE_FLUSH_MS) <= now)
            .map(|(k, _)| k.clone())
            .collect();
        for key in stale {
            self.detach(&key);
            self.activate_or_back_off(key, now);
        }
    }

    /// No node fits: park the pod until an event that may help one of `plugins` (any event if empty).
    pub fn unschedulable(&mut self, key: String, now: SimTime, plugins: BTreeSet<&'static str>) {
        self.detach(&key);
        let Some(e) = self.entries.get_mut(&key) else { return };
        e.failed_at = now;
        for p in plugins.iter().copied().chain(plugins.is_empty().then_some("")) {
            self.by_plugin.entry(p).or_default().insert(key.clone());
        }
        self.unschedulable.insert(key, (now, plugins));
    }

    /// The attempt failed for another reason (an error, a failed binding): retry after the backoff. A pod
    /// the queue lost track of meanwhile (a relist) comes back as after one attempt.
    pub fn backoff(&mut self, key: String, priority: i32, now: SimTime) {
        self.detach(&key);
        let e = self.entries.entry(key.clone()).or_insert(Entry { priority, attempts: 1, failed_at: now, seq: 0 });
        e.failed_at = now;
        self.activate_or_back_off(key, now);
    }

    /// A cluster event that may help pods refused by any of `plugins`: move those to active or backoff.
    pub fn on_event(&mut self, plugins: &[&'static str], now: SimTime) {
        let mut keys: BTreeSet<String> = BTreeSet::new();
        for p in plugins.iter().copied().chain(std::iter::once("")) {
            if let Some(set) = self.by_plugin.get(p) {
                keys.extend(set.iter().cloned());
            }
        }
        for key in keys {
            self.detach(&key);
            self.activate_or_back_off(key, now);
        }
    }

    /// Moves every unschedulable pod (after a resync).
    pub fn move_all(&mut self, now: SimTime) {
        let keys: Vec<String> = self.unschedulable.keys().cloned().collect();
        for key in keys {
            self.detach(&key);
            self.activate_or_back_off(key, now);
        }
    }

    /// In how many ms the next pod is ready (0 = now), if any pod waits.
    pub fn next_ready_in(&self, now: SimTime) -> Option<u64> {
        if !self.active.is_empty() {
            return Some(0);
        }
        let backoff = self.backoff.iter().next().map(|(at, _)| at.since(now));
        let parked =
            self.unschedulable.values().map(|(since, _)| since.plus_ms(UNSCHEDULABLE_FLUSH_MS).since(now)).min();
        match (backoff, parked) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn higher_priority_comes_out_first_then_arrival_order() {
        let mut q = SchedulingQueue::default();
        q.add("a".into(), 0, SimTime(0));
        q.add("b".into(), 10, SimTime(0));
        q.add("c".into(), 0, SimTime(0));
        q.add("a".into(), 0, SimTime(0));
        let order: Vec<String> = std::iter::from_fn(|| q.pop(SimTime(0))).collect();
        assert_eq!(order, ["b", "a", "c"]);
    }

    #[test]
    fn the_backoff_doubles_per_attempt_up_to_ten_seconds() {
        assert_eq!([1, 2, 3, 4, 5, 9].map(backoff_ms), [1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
    }

    #[test]
    fn an_unschedulable_pod_waits_for_an_event_that_could_help() {
        let mut q = SchedulingQueue::default();
        q.add("p".into(), 0, SimTime(0));
        assert_eq!(q.pop(SimTime(0)).as_deref(), Some("p"));
        q.unschedulable("p".into(), SimTime(0), BTreeSet::from(["NodeResourcesFit"]));
        q.on_event(&["InterPodAffinity"], SimTime(0));
        assert!(q.is_unschedulable("p"));
        q.on_event(&["NodeResourcesFit"], SimTime(500));
        // Backoff counted from the failed attempt: ready at 1 s.
        assert_eq!(q.next_ready_in(SimTime(500)), Some(500));
        assert_eq!(q.pop(SimTime(999)), None);
        assert_eq!(q.pop(SimTime(1_000)).as_deref(), Some("p"));
        q.unschedulable("p".into(), SimTime(1_000), BTreeSet::new());
        q.on_event(&[], SimTime(5_000));
        assert_eq!(q.pop(SimTime(5_000)).as_deref(), Some("p"));
    }

    #[test]
    fn parked_pods_are_retried_after_five_minutes() {
        let mut q = SchedulingQueue::default();
        q.add("p".into(), 0, SimTime(0));
        q.pop(SimTime(0));
        q.unschedulable("p".into(), SimTime(0), BTreeSet::from(["NodeAffinity"]));
        assert_eq!(q.next_ready_in(SimTime(0)), Some(UNSCHEDULABLE_FLUSH_MS));
        assert_eq!(q.pop(SimTime(UNSCHEDULABLE_FLUSH_MS)).as_deref(), Some("p"));
        q.remove("p");
        assert!(q.is_empty());
    }

    #[test]
    fn a_failed_binding_backs_off_even_for_a_pod_the_queue_forgot() {
        let mut q = SchedulingQueue::default();
        q.backoff("p".into(), 0, SimTime(0));
        assert_eq!(q.next_ready_in(SimTime(0)), Some(1_000));
        assert_eq!(q.pop(SimTime(1_000)).as_deref(), Some("p"));
    }
}
