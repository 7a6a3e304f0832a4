//! The safety invariants ("always"), each named, each a small state machine fed plain facts (numbers and
//! names, never engine internals) so that a test can feed it a history that breaks it. [`super::observer`]
//! extracts the facts from the running cluster after every delivery and hands them here; each check touches
//! only what the delivery changed (an index keyed by object, watch or lease), never the whole cluster.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::Object;
use crate::apiserver::cache::Watcher;

/// No node's admitted pods request more than its allocatable.
pub const NODE_ALLOCATABLE: &str = "node-allocatable";
/// A pod is bound at most once and never changes node.
pub const BIND_ONCE: &str = "bind-once";
/// A write acknowledged with 2xx is never lost (until compaction removes its revision).
pub const ACKED_WRITES_DURABLE: &str = "acked-writes-durable";
/// etcd revisions never go back, one leader per term, and every running member's committed log is a prefix
/// of the leader's.
pub const ETCD_REVISIONS: &str = "etcd-revisions";
/// Every watch delivers its events in revision order, nothing after an ERROR, and a watcher that got 410
/// lists before it watches from a revision again.
pub const WATCH_ORDER: &str = "watch-order";
/// An object's resourceVersion never goes back in what the apiserver acknowledges.
pub const RESOURCE_VERSION_MONOTONIC: &str = "resource-version-monotonic";
/// A stopped component sends nothing.
pub const STOPPED_SILENT: &str = "stopped-silent";
/// At most one holder acts as leader per Lease in kube-system at a time: a new holder takes a Lease only once
/// the previous holder's lease expired or was released.
pub const SINGLE_LEADER: &str = "single-leader";
/// A mirror pod and the static pod manifest of the same name on its node agree (the same config hash), and
/// a mirror pod sits on the node its name says.
pub const STATIC_POD_MIRROR: &str = "static-pod-mirror";

/// Every safety invariant, in the order the README lists them.
pub const ALL: [&str; 9] = [
    NODE_ALLOCATABLE,
    BIND_ONCE,
    ACKED_WRITES_DURABLE,
    ETCD_REVISIONS,
    WATCH_ORDER,
    RESOURCE_VERSION_MONOTONIC,
    STOPPED_SILENT,
    SINGLE_LEADER,
    STATIC_POD_MIRROR,
];

/// A broken invariant: its name and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub invariant: &'static str,
    pub detail: String,
}

fn broken(invariant: &'static str, detail: String) -> Option<Violation> {
    Some(Violation { invariant, detail })
}

// ---------------------------------------------------------------------------------------------------------
// node-allocatable

/// One node's admitted pods' summed requests next to its allocatable (cpu in millicores, memory in bytes).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeLoad {
    pub node: String,
    pub cpu_m: i64,
    pub memory: i64,
    pub pods: i64,
    pub allocatable_cpu_m: i64,
    pub allocatable_memory: i64,
    pub allocatable_pods: i64,
}

pub fn node_allocatable(load: &NodeLoad) -> Option<Violation> {
    let over = [
        ("cpu", load.cpu_m, load.allocatable_cpu_m, "m"),
        ("memory", load.memory, load.allocatable_memory, ""),
        ("pods", load.pods, load.allocatable_pods, ""),
    ]
    .into_iter()
    .find(|(_, used, alloc, _)| used > alloc)?;
    let (what, used, alloc, unit) = over;
    broken(
        NODE_ALLOCATABLE,
        format!("node {}: admitted pods request {what} {used}{unit}, allocatable is {alloc}{unit}", load.node),
    )
}

// ---------------------------------------------------------------------------------------------------------
// bind-once

/// Which node each pod (by uid) was seen bound to, and how many bindings of it were acknowledged.
#[derive(Debug, Default)]
pub struct BindOnce {
    nodes: BTreeMap<String, String>,
    binds: BTreeMap<String, u32>,
}

impl BindOnce {
    /// A version of pod `key` (uid `uid`) was acknowledged or delivered, bound to `node` (or not yet bound).
    pub fn pod_seen(&mut self, uid: &str, key: &str, node: Option<&str>) -> Option<Violation> {
        let node = node.filter(|n| !n.is_empty())?;
        match self.nodes.get(uid) {
            Some(before) if before != node => {
                broken(BIND_ONCE, format!("pod {key} (uid {uid}) was bound to {before} and is now on {node}"))
            }
            Some(_) => None,
            None => {
                self.nodes.insert(uid.to_string(), node.to_string());
                None
            }
        }
    }

    /// A `pods/binding` create for pod `key` (uid `uid`) was answered 2xx.
    pub fn bind_acked(&mut self, uid: &str, key: &str) -> Option<Violation> {
        let n = self.binds.entry(uid.to_string()).or_insert(0);
        *n += 1;
        (*n > 1).then(|| Violation {
            invariant: BIND_ONCE,
            detail: format!("pod {key} (uid {uid}) was bound {n} times (each binding answered 201)"),
        })
    }

    /// The pod is gone for good: its uid is never reused.
    pub fn forget(&mut self, uid: &str) {
        self.nodes.remove(uid);
    }
}

// ---------------------------------------------------------------------------------------------------------
// acked-writes-durable

/// What a member's store can say about its history.
pub trait History {
    fn revision(&self) -> u64;
    fn compact_revision(&self) -> u64;
    /// The keys changed at `revision`.
    fn keys_at(&self, revision: u64) -> Vec<String>;
}

impl History for crate::etcd::store::Store {
    fn revision(&self) -> u64 {
        crate::etcd::store::Store::revision(self)
    }
    fn compact_revision(&self) -> u64 {
        crate::etcd::store::Store::compact_revision(self)
    }
    fn keys_at(&self, revision: u64) -> Vec<String> {
        self.events_at(revision).into_iter().map(|e| e.kv.key).collect()
    }
}

/// Every write the apiserver acknowledged with 2xx: (revision → keys).
#[derive(Debug, Default)]
pub struct AckedWrites {
    acked: BTreeMap<u64, BTreeSet<String>>,
    /// Since when (simulated ms) the leader has not applied an acknowledged revision yet.
    unapplied_since: Option<u64>,
    /// The first acknowledged revision the leader has not applied yet, to check again.
    retry_from: Option<u64>,
}

/// How long a new etcd leader may take to apply its predecessor's committed entries (Raft: it learns they are
/// committed only once it commits an entry of its own term) before an acknowledged write counts as lost.
pub const UNAPPLIED_GRACE_MS: u64 = 5_000;

impl AckedWrites {
    pub fn ack(&mut self, key: &str, revision: u64) {
        self.acked.entry(revision).or_default().insert(key.to_string());
    }

    pub fn len(&self) -> usize {
        self.acked.values().map(BTreeSet::len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.acked.is_empty()
    }

    /// The revision to check again from at a later step, while the leader has not applied them all yet.
    pub fn retry_from(&self) -> Option<u64> {
        self.retry_from
    }

    /// Checks the acknowledged writes at or after `from` against the leader's history at `now_ms`; those
    /// compacted away are forgotten. A revision beyond the leader's is given [`UNAPPLIED_GRACE_MS`] to appear
    /// (see [`AckedWrites::retry_from`]).
    pub fn check(&mut self, leader: &dyn History, from: u64, now_ms: u64) -> Option<Violation> {
        let compact = leader.compact_revision();
        self.acked = self.acked.split_off(&(compact + 1));
        self.retry_from = None;
        for (&rev, keys) in self.acked.range(from.max(compact + 1)..) {
            if rev > leader.revision() {
                let since = *self.unapplied_since.get_or_insert(now_ms);
                if now_ms.saturating_sub(since) < UNAPPLIED_GRACE_MS {
                    self.retry_from = Some(rev);
                    return None;
                }
                let key = keys.iter().next().cloned().unwrap_or_default();
                return broken(
                    ACKED_WRITES_DURABLE,
                    format!(
                        "{key} was acknowledged at revision {rev}; the etcd leader is at revision {}",
                        leader.revision()
                    ),
                );
            }
            let present = leader.keys_at(rev);
            if let Some(lost) = keys.iter().find(|k| !present.contains(k)) {
                return broken(
                    ACKED_WRITES_DURABLE,
                    format!("{lost} was acknowledged at revision {rev}; the etcd leader's revision {rev} changed {present:?}"),
                );
            }
        }
        self.unapplied_since = None;
        None
    }
}

// ---------------------------------------------------------------------------------------------------------
// etcd-revisions

/// One member as the check sees it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberView {
    pub index: usize,
    pub running: bool,
    pub leader: bool,
    pub term: u64,
    pub applied_revision: u64,
    pub commit: u64,
    /// The term of this member's own entry at `commit`, if its log holds it.
    pub commit_term: Option<u64>,
}

#[derive(Debug, Default)]
pub struct EtcdRevisions {
    applied: BTreeMap<usize, u64>,
    leaders: BTreeMap<u64, usize>,
}

impl EtcdRevisions {
    /// Checks the members; `leader_term_at` answers the leader's log term at an index (None when its log no
    /// longer holds it).
    pub fn observe(
        &mut self,
        members: &[MemberView],
        leader_term_at: &dyn Fn(u64) -> Option<u64>,
    ) -> Option<Violation> {
        for m in members {
            let before = self.applied.insert(m.index, m.applied_revision).unwrap_or(0);
            if m.applied_revision < before {
                return broken(
                    ETCD_REVISIONS,
                    format!("etcd-{}'s revision went back from {before} to {}", m.index, m.applied_revision),
                );
            }
            if m.leader && m.running {
                if let Some(&other) = self.leaders.get(&m.term).filter(|&&o| o != m.index) {
                    return broken(
                        ETCD_REVISIONS,
                        format!("etcd-{other} and etcd-{} both led term {}", m.index, m.term),
                    );
                }
                self.leaders.insert(m.term, m.index);
            }
        }
        let leader = members.iter().find(|m| m.leader && m.running)?;
        for m in members.iter().filter(|m| m.running && !m.leader && m.term == leader.term) {
            if let (Some(mine), Some(theirs)) = (m.commit_term, leader_term_at(m.commit)) {
                if mine != theirs {
                    return broken(
                        ETCD_REVISIONS,
                        format!(
                            "etcd-{}'s committed entry {} has term {mine}; the leader etcd-{}'s has term {theirs}",
                            m.index, m.commit, leader.index
                        ),
                    );
                }
            }
        }
        None
    }
}

// ---------------------------------------------------------------------------------------------------------
// watch-order

/// What a watch covers: the etcd key prefix of its resource (and namespace), and for a watch with a label or
/// field selector the apiserver's record of the watch, whose selectors say which changes it owes (one whose
/// old or new object it selects: an object leaving the selection is a DELETED event to it).
#[derive(Debug, Clone)]
pub struct Scope {
    pub prefix: String,
    pub selector: Option<Watcher>,
}

/// A change etcd committed: the key, and the object before and after (or the deleted one, as before).
#[derive(Debug)]
struct Change {
    key: String,
    objects: [Option<Arc<Object>>; 2],
}

/// How many commits between prunings of the changes no watch can still owe.
const PRUNE_EVERY: u64 = 1_024;

#[derive(Debug, Default)]
pub struct WatchOrder {
    /// (watcher, watch id) → the resource watched, the last revision delivered, and what it covers (when
    /// known: the apiserver's record of the watch).
    watches: BTreeMap<(String, u64), (String, u64, Option<Scope>)>,
    /// The changes etcd committed at each revision, as the apiserver's etcd watch received them.
    committed: BTreeMap<u64, Vec<Change>>,
    commits: u64,
    ended: BTreeSet<(String, u64)>,
    /// (watcher, resource) that got 410 Gone and has not listed since.
    must_relist: BTreeSet<(String, String)>,
}

impl WatchOrder {
    /// Watcher `who` asked to list `resource`.
    pub fn listed(&mut self, who: &str, resource: &str) {
        self.must_relist.remove(&(who.to_string(), resource.to_string()));
    }

    /// Watcher `who` asked to watch `resource` from `from` (None: from now, no revision given).
    pub fn watch_requested(&mut self, who: &str, resource: &str, from: Option<u64>) -> Option<Violation> {
        let from = from.filter(|r| *r != 0)?;
        self.must_relist.contains(&(who.to_string(), resource.to_string())).then(|| Violation {
            invariant: WATCH_ORDER,
            detail: format!("{who} got 410 Gone watching {resource} and watched again from {from} without listing"),
        })
    }

    /// A watch on `resource` started for `who` with id `id`, covering `scope` (it must deliver every change
    /// there, without gaps).
    pub fn started(&mut self, who: &str, id: u64, resource: &str, scope: Option<Scope>) {
        self.watches.insert((who.to_string(), id), (resource.to_string(), 0, scope));
    }

    /// Whether watch `id` of `who` is known (started, or seen delivering).
    pub fn knows(&self, who: &str, id: u64) -> bool {
        self.watches.contains_key(&(who.to_string(), id)) || self.ended.contains(&(who.to_string(), id))
    }

    /// etcd committed a change of `key` at `revision` from `old` to `new` (for a delete: the deleted object
    /// as `old`), as the apiserver's etcd watch delivered it.
    pub fn committed(&mut self, revision: u64, key: &str, old: Option<Arc<Object>>, new: Option<Arc<Object>>) {
        let changes = self.committed.entry(revision).or_default();
        if !changes.iter().any(|c| c.key == key) {
            changes.push(Change { key: key.to_string(), objects: [old, new] });
        }
        self.commits += 1;
        if self.commits.is_multiple_of(PRUNE_EVERY) {
            // A watch owes only changes after the last revision it delivered.
            if let Some(oldest) = self.watches.values().map(|(_, rev, _)| *rev).filter(|r| *r > 0).min() {
                self.committed = self.committed.split_off(&oldest);
            }
        }
    }

    /// Watch `id` of `who` delivered an event (`kind` ADDED, MODIFIED, DELETED, BOOKMARK or ERROR) at
    /// `revision`; `gone` for an ERROR with code 410.
    pub fn event(&mut self, who: &str, id: u64, kind: &str, revision: u64, gone: bool) -> Option<Violation> {
        let key = (who.to_string(), id);
        if self.ended.contains(&key) {
            return broken(WATCH_ORDER, format!("watch {id} of {who} delivered {kind} after its ERROR"));
        }
        let entry = self.watches.entry(key.clone()).or_insert_with(|| (String::new(), 0, None));
        let gap = match kind {
            "ERROR" => None,
            "BOOKMARK" => skipped(&self.committed, entry, std::ops::Bound::Included(revision)),
            _ => skipped(&self.committed, entry, std::ops::Bound::Excluded(revision)),
        };
        if let Some((skipped, object)) = gap.filter(|_| revision > entry.1) {
            return broken(
                WATCH_ORDER,
                format!(
                    "watch {id} of {who} on {} delivered {kind} at revision {revision} after revision {} but not \
                     the change of {object} at revision {skipped}",
                    entry.0, entry.1
                ),
            );
        }
        match kind {
            "ERROR" => {
                let resource = entry.0.clone();
                self.watches.remove(&key);
                self.ended.insert(key);
                if gone {
                    self.must_relist.insert((who.to_string(), resource));
                }
                None
            }
            "BOOKMARK" if revision < entry.1 => broken(
                WATCH_ORDER,
                format!("watch {id} of {who} sent a BOOKMARK at {revision} after revision {}", entry.1),
            ),
            "BOOKMARK" => {
                entry.1 = revision;
                None
            }
            _ if revision <= entry.1 => broken(
                WATCH_ORDER,
                format!(
                    "watch {id} of {who} on {} delivered {kind} at revision {revision} after revision {}",
                    entry.0, entry.1
                ),
            ),
            _ => {
                entry.1 = revision;
                None
            }
        }
    }
}

/// A change that watch `entry` (resource, last revision, scope) should have delivered after its last
/// revision and up to `upto`, if any: every change under its prefix that its selectors select.
fn skipped(
    committed: &BTreeMap<u64, Vec<Change>>,
    entry: &(String, u64, Option<Scope>),
    upto: std::ops::Bound<u64>,
) -> Option<(u64, String)> {
    let scope = entry.2.as_ref()?;
    if entry.1 == 0 {
        return None;
    }
    let owed = |c: &Change| {
        c.key.starts_with(&scope.prefix)
            && scope.selector.as_ref().is_none_or(|w| c.objects.iter().flatten().any(|o| w.matches(o)))
    };
    committed
        .range((std::ops::Bound::Excluded(entry.1), upto))
        .find_map(|(rev, changes)| changes.iter().find(|c| owed(c)).map(|c| (*rev, c.key.clone())))
}

// ---------------------------------------------------------------------------------------------------------
// resource-version-monotonic

#[derive(Debug, Default)]
pub struct RvMonotonic {
    last: BTreeMap<String, u64>,
}

impl RvMonotonic {
    /// The apiserver acknowledged a write of object `key` (uid `uid`) with this resourceVersion.
    pub fn acked(&mut self, uid: &str, key: &str, revision: u64) -> Option<Violation> {
        let last = self.last.entry(uid.to_string()).or_insert(0);
        if revision < *last {
            return broken(
                RESOURCE_VERSION_MONOTONIC,
                format!("{key} (uid {uid}) was acknowledged at resourceVersion {revision} after {last}"),
            );
        }
        *last = revision;
        None
    }

    pub fn forget(&mut self, uid: &str) {
        self.last.remove(uid);
    }
}

// ---------------------------------------------------------------------------------------------------------
// stopped-silent

/// `who` handled something while stopped and sent `sends` messages.
pub fn stopped_silent(who: &str, was_running: bool, sends: usize) -> Option<Violation> {
    (!was_running && sends > 0).then(|| Violation {
        invariant: STOPPED_SILENT,
        detail: format!("{who} is stopped and sent {sends} message(s)"),
    })
}

// ---------------------------------------------------------------------------------------------------------
// single-leader

/// A Lease as written: who holds it, when it was last renewed and for how long (ms).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LeaseRecord {
    pub holder: String,
    pub renew_ms: u64,
    pub duration_ms: u64,
}

#[derive(Debug, Default)]
pub struct SingleLeader {
    leases: BTreeMap<String, LeaseRecord>,
}

impl SingleLeader {
    /// The apiserver acknowledged Lease `name` as `lease` at `now_ms`.
    pub fn written(&mut self, name: &str, lease: LeaseRecord, now_ms: u64) -> Option<Violation> {
        let found = match self.leases.get(name) {
            Some(prev) if !prev.holder.is_empty() && !lease.holder.is_empty() && prev.holder != lease.holder => {
                let expires = prev.renew_ms + prev.duration_ms;
                (now_ms < expires).then(|| Violation {
                    invariant: SINGLE_LEADER,
                    detail: format!(
                        "Lease {name} went from {} to {} at {now_ms} ms while {}'s lease ran until {expires} ms",
                        prev.holder, lease.holder, prev.holder
                    ),
                })
            }
            _ => None,
        };
        self.leases.insert(name.to_string(), lease);
        found
    }
}

// ---------------------------------------------------------------------------------------------------------
// static-pod-mirror

/// A mirror pod written for node `node` as `name`, naming static pod `mirror_of`; `manifest_hash` is the
/// config hash of the manifest of the same pod name on that node, if there is one.
pub fn static_pod_mirror(
    name: &str,
    node: &str,
    bound_to: Option<&str>,
    mirror_of: &str,
    manifest_hash: Option<&str>,
) -> Option<Violation> {
    if bound_to.is_some_and(|b| b != node) {
        return broken(
            STATIC_POD_MIRROR,
            format!("mirror pod {name} of node {node} is bound to {}", bound_to.unwrap_or_default()),
        );
    }
    match manifest_hash {
        Some(hash) if hash != mirror_of => broken(
            STATIC_POD_MIRROR,
            format!("mirror pod {name} names static pod {mirror_of}; the manifest on {node} has hash {hash}"),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_allocatable_catches_a_node_whose_pods_request_more_than_it_has() {
        let mut load = NodeLoad {
            node: "node01".into(),
            cpu_m: 1900,
            memory: 1 << 30,
            pods: 12,
            allocatable_cpu_m: 2000,
            allocatable_memory: 4 << 30,
            allocatable_pods: 110,
        };
        assert_eq!(node_allocatable(&load), None);
        load.cpu_m = 2100;
        let v = node_allocatable(&load).expect("over cpu");
        assert_eq!(v.invariant, "node-allocatable");
        assert_eq!(v.detail, "node node01: admitted pods request cpu 2100m, allocatable is 2000m");
        load.cpu_m = 100;
        load.pods = 111;
        assert_eq!(
            node_allocatable(&load).unwrap().detail,
            "node node01: admitted pods request pods 111, allocatable is 110"
        );
    }

    #[test]
    fn bind_once_catches_a_pod_that_moves_or_is_bound_twice() {
        let mut b = BindOnce::default();
        assert_eq!(b.pod_seen("u1", "default/web-1", None), None);
        assert_eq!(b.pod_seen("u1", "default/web-1", Some("node01")), None);
        assert_eq!(b.pod_seen("u1", "default/web-1", Some("node01")), None);
        assert_eq!(b.bind_acked("u1", "default/web-1"), None);
        let moved = b.pod_seen("u1", "default/web-1", Some("node02")).expect("moved");
        assert_eq!(moved.invariant, "bind-once");
        assert_eq!(moved.detail, "pod default/web-1 (uid u1) was bound to node01 and is now on node02");
        let twice = b.bind_acked("u1", "default/web-1").expect("bound twice");
        assert_eq!(twice.detail, "pod default/web-1 (uid u1) was bound 2 times (each binding answered 201)");
        // A pod of the same name is a new uid.
        assert_eq!(b.pod_seen("u2", "default/web-1", Some("node02")), None);
    }

    struct FakeHistory {
        revision: u64,
        compact: u64,
        at: BTreeMap<u64, Vec<String>>,
    }

    impl History for FakeHistory {
        fn revision(&self) -> u64 {
            self.revision
        }
        fn compact_revision(&self) -> u64 {
            self.compact
        }
        fn keys_at(&self, revision: u64) -> Vec<String> {
            self.at.get(&revision).cloned().unwrap_or_default()
        }
    }

    #[test]
    fn acked_writes_durable_catches_a_write_the_leader_lost_and_forgets_compacted_ones() {
        let mut w = AckedWrites::default();
        w.ack("/registry/configmaps/default/a", 5);
        w.ack("/registry/configmaps/default/b", 6);
        let mut h = FakeHistory {
            revision: 6,
            compact: 0,
            at: BTreeMap::from([
                (5, vec!["/registry/configmaps/default/a".to_string()]),
                (6, vec!["/registry/configmaps/default/b".to_string()]),
            ]),
        };
        assert_eq!(w.check(&h, 0, 0), None);
        // A new leader whose revision 6 is another write: b was lost.
        h.at.insert(6, vec!["/registry/pods/default/x".into()]);
        let v = w.check(&h, 0, 0).expect("lost");
        assert_eq!(v.invariant, "acked-writes-durable");
        assert_eq!(
            v.detail,
            "/registry/configmaps/default/b was acknowledged at revision 6; the etcd leader's revision 6 changed [\"/registry/pods/default/x\"]"
        );
        // A leader behind the acknowledged revision may still be applying its predecessor's entries: it gets
        // the grace period, then the write counts as lost.
        h.revision = 5;
        h.at.insert(6, vec!["/registry/configmaps/default/b".into()]);
        assert_eq!(w.check(&h, 0, 1_000), None);
        assert_eq!(w.retry_from(), Some(6));
        assert_eq!(w.check(&h, 6, 1_000 + UNAPPLIED_GRACE_MS - 1), None);
        let v = w.check(&h, 6, 1_000 + UNAPPLIED_GRACE_MS).expect("never applied");
        assert_eq!(
            v.detail,
            "/registry/configmaps/default/b was acknowledged at revision 6; the etcd leader is at revision 5"
        );
        // Applied in time: nothing owed, and the grace starts over.
        h.revision = 6;
        assert_eq!(w.check(&h, 0, 20_000), None);
        assert_eq!(w.retry_from(), None);
        // Once compacted past, nothing is owed.
        h.compact = 6;
        assert_eq!(w.check(&h, 0, 0), None);
        assert!(w.is_empty());
    }

    #[test]
    fn etcd_revisions_catches_a_revision_going_back_two_leaders_and_a_diverging_follower() {
        let leader = MemberView {
            index: 0,
            running: true,
            leader: true,
            term: 2,
            applied_revision: 10,
            commit: 7,
            commit_term: Some(2),
        };
        let follower = MemberView { index: 1, leader: false, commit: 6, commit_term: Some(2), ..leader.clone() };
        let terms = |i: u64| (i <= 7).then_some(2);
        let mut e = EtcdRevisions::default();
        assert_eq!(e.observe(&[leader.clone(), follower.clone()], &terms), None);
        let back = MemberView { applied_revision: 9, ..leader.clone() };
        assert_eq!(
            e.observe(&[back, follower.clone()], &terms).unwrap().detail,
            "etcd-0's revision went back from 10 to 9"
        );
        let mut e = EtcdRevisions::default();
        let diverged = MemberView { commit_term: Some(1), ..follower.clone() };
        let v = e.observe(&[leader.clone(), diverged], &terms).expect("diverged");
        assert_eq!(v.invariant, "etcd-revisions");
        assert_eq!(v.detail, "etcd-1's committed entry 6 has term 1; the leader etcd-0's has term 2");
        let mut e = EtcdRevisions::default();
        let second = MemberView { leader: true, ..follower };
        assert_eq!(e.observe(&[leader, second], &terms).unwrap().detail, "etcd-0 and etcd-1 both led term 2");
    }

    #[test]
    fn watch_order_catches_out_of_order_events_events_after_error_and_watching_without_relist() {
        let mut w = WatchOrder::default();
        let k = "kube-scheduler#1";
        w.started(k, 1, "pods", None);
        assert_eq!(w.event(k, 1, "ADDED", 10, false), None);
        assert_eq!(w.event(k, 1, "BOOKMARK", 10, false), None);
        assert_eq!(w.event(k, 1, "MODIFIED", 12, false), None);
        let v = w.event(k, 1, "MODIFIED", 11, false).expect("out of order");
        assert_eq!(v.invariant, "watch-order");
        assert_eq!(v.detail, "watch 1 of kube-scheduler#1 on pods delivered MODIFIED at revision 11 after revision 12");
        assert_eq!(
            w.event(k, 1, "BOOKMARK", 3, false).unwrap().detail,
            "watch 1 of kube-scheduler#1 sent a BOOKMARK at 3 after revision 12"
        );
        assert_eq!(w.event(k, 1, "ERROR", 0, true), None);
        assert_eq!(
            w.event(k, 1, "ADDED", 20, false).unwrap().detail,
            "watch 1 of kube-scheduler#1 delivered ADDED after its ERROR"
        );
        assert_eq!(
            w.watch_requested(k, "pods", Some(12)).unwrap().detail,
            "kube-scheduler#1 got 410 Gone watching pods and watched again from 12 without listing"
        );
        // Watching from now (no revision) needs no list first; watching from a revision does.
        assert_eq!(w.watch_requested(k, "pods", None), None);
        w.listed(k, "pods");
        assert_eq!(w.watch_requested(k, "pods", Some(30)), None);
    }

    #[test]
    fn watch_order_catches_a_change_a_watch_of_every_object_skipped() {
        let mut w = WatchOrder::default();
        let k = "kube-controller-manager#1";
        let every = |prefix: &str| Some(Scope { prefix: prefix.into(), selector: None });
        w.started(k, 1, "pods", every("/registry/pods/"));
        w.started(k, 2, "pods", every("/registry/pods/default/"));
        // A watch the checker knows nothing of owes nothing it can check.
        w.started(k, 3, "pods", None);
        for (rev, key) in
            [(10, "/registry/pods/default/a"), (11, "/registry/pods/other/b"), (12, "/registry/pods/default/a")]
        {
            w.committed(rev, key, None, None);
        }
        w.committed(13, "/registry/configmaps/default/c", None, None);
        w.committed(14, "/registry/pods/default/a", None, None);
        assert_eq!(w.event(k, 1, "ADDED", 10, false), None);
        assert_eq!(w.event(k, 1, "MODIFIED", 11, false), None);
        let v = w.event(k, 1, "MODIFIED", 14, false).expect("12 skipped");
        assert_eq!(v.invariant, "watch-order");
        assert_eq!(
            v.detail,
            "watch 1 of kube-controller-manager#1 on pods delivered MODIFIED at revision 14 after revision 11 but not the \
             change of /registry/pods/default/a at revision 12"
        );
        // The namespace's watch never covered revision 11; a bookmark vouches for everything up to it.
        assert_eq!(w.event(k, 2, "ADDED", 10, false), None);
        assert_eq!(w.event(k, 2, "MODIFIED", 12, false), None);
        assert_eq!(w.event(k, 2, "BOOKMARK", 13, false), None);
        assert!(w.event(k, 2, "BOOKMARK", 14, false).is_some(), "the change at 14 was not delivered");
        assert_eq!(w.event(k, 3, "ADDED", 10, false), None);
        assert_eq!(w.event(k, 3, "MODIFIED", 14, false), None);
    }

    #[test]
    fn watch_order_catches_a_change_a_selector_watch_owed_and_skipped() {
        use crate::api::selector::{FieldSelector, LabelSelector};
        let mut w = WatchOrder::default();
        let k = "node01/kubelet#1";
        let on = |name: &str, node: Option<&str>| Some(Arc::new(crate::workload::pod("default", name, node)));
        let watcher = Watcher {
            client: crate::sim::ComponentId(0),
            kind: crate::api::Kind::Pod,
            namespace: None,
            labels: LabelSelector::everything(),
            fields: FieldSelector::parse("spec.nodeName=node01").unwrap(),
            bookmarks: false,
            events_v1: false,
            served_as: None,
        };
        w.started(k, 1, "pods", Some(Scope { prefix: "/registry/pods/".into(), selector: Some(watcher) }));
        w.committed(10, "/registry/pods/default/a", None, on("a", Some("node01")));
        // Pods of other nodes are not owed; a pod bound away from node01 is (as a DELETED event).
        w.committed(11, "/registry/pods/default/b", None, on("b", Some("node02")));
        w.committed(12, "/registry/pods/default/c", on("c", Some("node01")), on("c", Some("node02")));
        w.committed(13, "/registry/pods/default/d", None, on("d", Some("node02")));
        assert_eq!(w.event(k, 1, "ADDED", 10, false), None);
        let v = w.event(k, 1, "MODIFIED", 14, false).expect("12 skipped");
        assert_eq!(
            v.detail,
            "watch 1 of node01/kubelet#1 on pods delivered MODIFIED at revision 14 after revision 10 but not the change \
             of /registry/pods/default/c at revision 12"
        );
        let mut w2 = WatchOrder::default();
        let scope = w.watches.values().next().and_then(|e| e.2.clone());
        w2.started(k, 1, "pods", scope);
        w2.committed(10, "/registry/pods/default/a", None, on("a", Some("node01")));
        w2.committed(11, "/registry/pods/default/b", None, on("b", Some("node02")));
        assert_eq!(w2.event(k, 1, "ADDED", 10, false), None);
        assert_eq!(w2.event(k, 1, "MODIFIED", 12, false), None, "what it does not select it may skip");
    }

    #[test]
    fn resource_version_monotonic_catches_an_object_going_back() {
        let mut r = RvMonotonic::default();
        assert_eq!(r.acked("u", "default/a", 5), None);
        assert_eq!(r.acked("u", "default/a", 5), None);
        assert_eq!(r.acked("u", "default/a", 9), None);
        let v = r.acked("u", "default/a", 7).expect("went back");
        assert_eq!(v.invariant, "resource-version-monotonic");
        assert_eq!(v.detail, "default/a (uid u) was acknowledged at resourceVersion 7 after 9");
    }

    #[test]
    fn stopped_silent_catches_a_stopped_component_that_sends() {
        assert_eq!(stopped_silent("kube-scheduler", true, 3), None);
        assert_eq!(stopped_silent("kube-scheduler", false, 0), None);
        let v = stopped_silent("node01/containerd", false, 1).expect("sent while stopped");
        assert_eq!(v.invariant, "stopped-silent");
        assert_eq!(v.detail, "node01/containerd is stopped and sent 1 message(s)");
    }

    #[test]
    fn single_leader_catches_a_lease_taken_before_it_expired() {
        let mut s = SingleLeader::default();
        let a = |renew_ms| LeaseRecord { holder: "cp_a".into(), renew_ms, duration_ms: 15_000 };
        let b = LeaseRecord { holder: "cp_b".into(), renew_ms: 40_000, duration_ms: 15_000 };
        assert_eq!(s.written("kube-scheduler", a(10_000), 10_000), None);
        assert_eq!(s.written("kube-scheduler", a(12_000), 12_000), None);
        // Expired at 27 s: b may take it at 40 s.
        assert_eq!(s.written("kube-scheduler", b.clone(), 40_000), None);
        let v = s.written("kube-scheduler", a(45_000), 45_000).expect("taken early");
        assert_eq!(v.invariant, "single-leader");
        assert_eq!(
            v.detail,
            "Lease kube-scheduler went from cp_b to cp_a at 45000 ms while cp_b's lease ran until 55000 ms"
        );
        // A released lease (no holder) may be taken at once.
        let mut s = SingleLeader::default();
        assert_eq!(s.written("l", a(10_000), 10_000), None);
        assert_eq!(s.written("l", LeaseRecord { holder: String::new(), ..a(11_000) }, 11_000), None);
        assert_eq!(s.written("l", b, 11_500), None);
    }

    #[test]
    fn static_pod_mirror_catches_a_mirror_that_disagrees_with_its_manifest() {
        assert_eq!(static_pod_mirror("kube-scheduler-cp", "cp", Some("cp"), "h1", Some("h1")), None);
        assert_eq!(static_pod_mirror("kube-scheduler-cp", "cp", Some("cp"), "h1", None), None);
        let v = static_pod_mirror("kube-scheduler-cp", "cp", Some("cp"), "h1", Some("h2")).expect("disagree");
        assert_eq!(v.invariant, "static-pod-mirror");
        assert_eq!(v.detail, "mirror pod kube-scheduler-cp names static pod h1; the manifest on cp has hash h2");
        assert_eq!(
            static_pod_mirror("kube-scheduler-cp", "cp", Some("node01"), "h1", Some("h1")).unwrap().detail,
            "mirror pod kube-scheduler-cp of node cp is bound to node01"
        );
    }
}
