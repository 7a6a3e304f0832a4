//! The scheduling queue: pods ready to try (active), pods that failed and wait out a backoff, and pods no
//! node fits (unschedulable) until a cluster event may change that. Counterpart:
//! `pkg/scheduler/backend/queue/scheduling_queue.go` (podInitialBackoffSeconds 1, podMaxBackoffSeconds 10).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::sim::SimTime;

pub const INITIAL_BACKOFF_MS: u64 = 1_000;
pub const MAX_BACKOFF_MS: u64 = 10_000;
/// Unschedulable pods are retried at least this often (podMaxInUnschedulablePodsDuration).
pub const UNSCHEDULABLE_FLUSH_MS: u64 = 300_000;

#[derive(Debug, Default)]
pub struct SchedulingQueue {
    active: VecDeque<String>,
    in_active: BTreeSet<String>,
    /// Pod → (ready at, attempts so far).
    backoff: BTreeMap<String, (SimTime, u32)>,
    unschedulable: BTreeMap<String, (SimTime, u32)>,
    /// Failed attempts per pod since it entered the queue (the backoff doubles with each).
    attempts: BTreeMap<String, u32>,
}

impl SchedulingQueue {
    pub fn len(&self) -> usize {
        self.in_active.len() + self.backoff.len() + self.unschedulable.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the pod is anywhere in the queue (active, backing off or unschedulable).
    pub fn contains(&self, key: &str) -> bool {
        self.in_active.contains(key) || self.backoff.contains_key(key) || self.unschedulable.contains_key(key)
    }

    pub fn clear(&mut self) {
        *self = SchedulingQueue::default();
    }

    /// A new or changed pod: try it now unless it is already waiting.
    pub fn add(&mut self, key: String) {
        if self.in_active.contains(&key) || self.backoff.contains_key(&key) {
            return;
        }
        self.unschedulable.remove(&key);
        self.in_active.insert(key.clone());
        self.active.push_back(key);
    }

    pub fn remove(&mut self, key: &str) {
        if self.in_active.remove(key) {
            self.active.retain(|k| k != key);
        }
        self.backoff.remove(key);
        self.unschedulable.remove(key);
        self.attempts.remove(key);
    }

    /// The next pod to try, moving pods whose backoff ended to the active queue first.
    pub fn pop(&mut self, now: SimTime) -> Option<String> {
        self.flush(now);
        let key = self.active.pop_front()?;
        self.in_active.remove(&key);
        Some(key)
    }

    fn flush(&mut self, now: SimTime) {
        let ready: Vec<String> =
            self.backoff.iter().filter(|(_, (at, _))| *at <= now).map(|(k, _)| k.clone()).collect();
        for k in ready {
            self.backoff.remove(&k);
            self.in_active.insert(k.clone());
            self.active.push_back(k);
        }
    }

    /// No node fits: park the pod until a cluster event, with its attempt count for the backoff.
    pub fn unschedulable(&mut self, key: String, now: SimTime) {
        let attempts = self.attempts.entry(key.clone()).or_insert(0);
        *attempts += 1;
        self.unschedulable.insert(key, (now, *attempts));
    }

    /// A cluster event (node added or changed, pod deleted) may make parked pods fit: move them to backoff.
    pub fn move_all_to_active(&mut self, now: SimTime) {
        for (key, (_, attempts)) in std::mem::take(&mut self.unschedulable) {
            let backoff = (INITIAL_BACKOFF_MS << attempts.saturating_sub(1).min(4)).min(MAX_BACKOFF_MS);
            self.backoff.insert(key, (now.plus_ms(backoff), attempts));
        }
    }

    /// In how many ms the next pod is ready (0 = now), if any pod waits.
    pub fn next_ready_in(&self, now: SimTime) -> Option<u64> {
        if !self.active.is_empty() {
            return Some(0);
        }
        self.backoff.values().map(|(at, _)| at.since(now)).min()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pods_come_out_in_arrival_order_once() {
        let mut q = SchedulingQueue::default();
        q.add("a".into());
        q.add("b".into());
        q.add("a".into());
        assert_eq!(q.pop(SimTime(0)).as_deref(), Some("a"));
        assert_eq!(q.pop(SimTime(0)).as_deref(), Some("b"));
        assert_eq!(q.pop(SimTime(0)), None);
    }

    #[test]
    fn an_unschedulable_pod_waits_for_an_event_then_a_growing_backoff() {
        let mut q = SchedulingQueue::default();
        q.unschedulable("p".into(), SimTime(0));
        assert_eq!(q.next_ready_in(SimTime(0)), None);
        q.move_all_to_active(SimTime(0));
        assert_eq!(q.next_ready_in(SimTime(0)), Some(1_000));
        assert_eq!(q.pop(SimTime(999)), None);
        assert_eq!(q.pop(SimTime(1_000)).as_deref(), Some("p"));
        q.unschedulable("p".into(), SimTime(1_000));
        q.unschedulable("p".into(), SimTime(1_000));
        q.move_all_to_active(SimTime(1_000));
        assert_eq!(q.next_ready_in(SimTime(1_000)), Some(4_000));
        for _ in 0..10 {
            q.unschedulable("p".into(), SimTime(0));
        }
        q.move_all_to_active(SimTime(0));
        assert_eq!(q.next_ready_in(SimTime(0)), Some(MAX_BACKOFF_MS));
    }
}
