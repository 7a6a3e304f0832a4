//! A ReplicaSet's running counts of the pods it controls, kept up to date from pod events so that a sync reads
//! numbers instead of walking every pod it owns. The real controller recounts on each sync (its
//! `calculateStatus` walks the filtered pods); at 150,000 replicas, with a sync for nearly every pod event,
//! that walk is what made one big Deployment take time growing with the square of its size.
//!
//! A pod's share of the counts depends only on the pod and on the ReplicaSet's [`Basis`] (its selector and its
//! template's labels), so removing the old version of a pod and adding the new one keeps the tally exact; when
//! the basis changes the owner builds a new tally from its pods.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;

use crate::api::selector::LabelSelector;
use crate::sim::SimTime;

use super::{is_active, pod_key, ready_since};

/// What a pod's share of the counts depends on besides the pod itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Basis {
    pub selector: LabelSelector,
    pub template_labels: BTreeMap<String, String>,
}

impl Basis {
    pub fn of(rs: &ReplicaSet, selector: LabelSelector) -> Basis {
        let template_labels = rs
            .spec
            .as_ref()
            .and_then(|s| s.template.as_ref())
            .and_then(|t| t.metadata.as_ref()?.labels.clone())
            .unwrap_or_default();
        Basis { selector, template_labels }
    }
}

/// The status counts at one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub replicas: usize,
    pub fully_labeled: usize,
    pub ready: usize,
    pub available: usize,
    /// When the next ready pod will have been ready for `minReadySeconds`, if one is still waiting.
    pub next_available: Option<SimTime>,
}

#[derive(Debug, Clone)]
pub struct Tally {
    pub basis: Basis,
    /// Matching pods that are neither terminating nor finished: what counts towards `spec.replicas`.
    active: usize,
    /// Of those, the ones carrying every label of the template.
    fully_labeled: usize,
    /// Of those, when each Ready one became Ready (a multiset: time → how many).
    ready_since: BTreeMap<SimTime, usize>,
    ready: usize,
    /// Pods it controls that stopped matching its selector and are not terminating, by key: to release.
    strays: BTreeSet<String>,
}

impl Tally {
    pub fn new<'a>(basis: Basis, pods: impl IntoIterator<Item = &'a Pod>) -> Tally {
        let mut tally = Tally {
            basis,
            active: 0,
            fully_labeled: 0,
            ready_since: BTreeMap::new(),
            ready: 0,
            strays: BTreeSet::new(),
        };
        for pod in pods {
            tally.apply(pod, true);
        }
        tally
    }

    /// Adds the pod's share (`present`) or takes it away.
    pub fn apply(&mut self, pod: &Pod, present: bool) {
        let step = |n: &mut usize| {
            *n = if present { *n + 1 } else { n.saturating_sub(1) };
        };
        if !self.basis.selector.matches(pod.metadata.labels.as_ref()) {
            if pod.metadata.deletion_timestamp.is_none() {
                if present {
                    self.strays.insert(pod_key(pod));
                } else {
                    self.strays.remove(&pod_key(pod));
                }
            }
            return;
        }
        if !is_active(pod) {
            return;
        }
        step(&mut self.active);
        let labels = pod.metadata.labels.as_ref();
        if self.basis.template_labels.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v)) {
            step(&mut self.fully_labeled);
        }
        if let Some(t) = ready_since(pod) {
            step(&mut self.ready);
            let n = self.ready_since.entry(t).or_insert(0);
            step(n);
            if *n == 0 {
                self.ready_since.remove(&t);
            }
        }
    }

    /// The pods to release, by key.
    pub fn strays(&self) -> &BTreeSet<String> {
        &self.strays
    }

    /// The counts at `now`: a pod is available once it has been Ready for `min_ready_seconds`.
    pub fn counts(&self, min_ready_seconds: i32, now: SimTime) -> Counts {
        let (available, next_available) = if min_ready_seconds <= 0 {
            (self.ready, None)
        } else {
            let wait = min_ready_seconds as u64 * 1000;
            // Ready at or before `now - wait` means available now.
            let cutoff = now.ms().checked_sub(wait).map(SimTime);
            let available = cutoff.map_or(0, |c| self.ready_since.range(..=c).map(|(_, n)| n).sum());
            let later = match cutoff {
                Some(c) => self.ready_since.range(c.plus_ms(1)..).next(),
                None => self.ready_since.iter().next(),
            };
            (available, later.map(|(t, _)| t.plus_ms(wait)))
        };
        Counts {
            replicas: self.active,
            fully_labeled: self.fully_labeled,
            ready: self.ready,
            available,
            next_available,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Object;

    fn basis() -> Basis {
        Basis {
            selector: LabelSelector::parse("app=web").unwrap(),
            template_labels: [("app".to_string(), "web".to_string()), ("tier".to_string(), "front".to_string())].into(),
        }
    }

    fn pod(name: &str, labels: &[(&str, &str)], ready_at_s: Option<u64>) -> Pod {
        let mut yaml = format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n");
        if !labels.is_empty() {
            yaml.push_str("  labels:\n");
            for (k, v) in labels {
                yaml.push_str(&format!("    {k}: {v}\n"));
            }
        }
        yaml.push_str("status:\n  phase: Running\n");
        if let Some(s) = ready_at_s {
            let t = SimTime(s * 1000).rfc3339();
            yaml.push_str(&format!(
                "  conditions:\n  - type: Ready\n    status: \"True\"\n    lastTransitionTime: {t}\n"
            ));
        }
        let value: serde_json::Value = serde_yaml::from_str(&yaml).unwrap();
        match Object::from_json_as(crate::api::Kind::Pod, value).unwrap() {
            Object::Pod(p) => *p,
            other => panic!("not a pod: {other:?}"),
        }
    }

    #[test]
    fn counts_follow_adds_and_removes_and_minready() {
        let web = [("app", "web"), ("tier", "front")];
        let a = pod("a", &web, Some(10));
        let b = pod("b", &[("app", "web")], Some(20));
        let c = pod("c", &web, None);
        let mut t = Tally::new(basis(), [&a, &b, &c]);
        let n = t.counts(0, SimTime(25_000));
        assert_eq!((n.replicas, n.fully_labeled, n.ready, n.available, n.next_available), (3, 2, 2, 2, None));
        // minReadySeconds 10 at t=25 s: a (ready at 10 s) is available, b (ready at 20 s) from 30 s.
        let n = t.counts(10, SimTime(25_000));
        assert_eq!((n.available, n.next_available), (1, Some(SimTime(30_000))));
        assert_eq!(t.counts(10, SimTime(30_000)).available, 2);
        assert_eq!(t.counts(10, SimTime(5_000)).next_available, Some(SimTime(20_000)));
        // b loses its labels: it leaves the counts and becomes a stray to release.
        let b2 = pod("b", &[("app", "other")], Some(20));
        t.apply(&b, false);
        t.apply(&b2, true);
        let n = t.counts(0, SimTime(25_000));
        assert_eq!((n.replicas, n.ready), (2, 1));
        assert_eq!(t.strays().iter().cloned().collect::<Vec<_>>(), vec!["default/b".to_string()]);
        t.apply(&b2, false);
        assert!(t.strays().is_empty());
        // Removing everything brings every count back to zero.
        t.apply(&a, false);
        t.apply(&c, false);
        assert_eq!(
            t.counts(10, SimTime(99_000)),
            Counts { replicas: 0, fully_labeled: 0, ready: 0, available: 0, next_available: None }
        );
    }

    #[test]
    fn a_rebuilt_tally_equals_the_incremental_one() {
        let pods: Vec<Pod> = (0..20)
            .map(|i| {
                let labels: &[(&str, &str)] =
                    if i % 3 == 0 { &[("app", "web")] } else { &[("app", "web"), ("tier", "front")] };
                pod(&format!("p{i}"), labels, (i % 2 == 0).then_some(i))
            })
            .collect();
        let mut incremental = Tally::new(basis(), []);
        for p in &pods {
            incremental.apply(p, true);
        }
        for p in pods.iter().step_by(4) {
            incremental.apply(p, false);
        }
        let kept: Vec<&Pod> = pods.iter().enumerate().filter(|(i, _)| i % 4 != 0).map(|(_, p)| p).collect();
        let rebuilt = Tally::new(basis(), kept);
        for now in [0, 5_000, 12_000, 40_000] {
            for min_ready in [0, 3, 10] {
                let now = SimTime(now);
                assert_eq!(incremental.counts(min_ready, now), rebuilt.counts(min_ready, now));
            }
        }
    }
}
