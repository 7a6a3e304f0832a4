//! The ReplicaSet controller: keeps `spec.replicas` live pods that match each ReplicaSet's selector and
//! name it as their controller. Watches: ReplicaSets, Pods. Writes: Pods (create from the template with
//! `generateName: <rs>-`, delete the surplus, adopt matching orphans, release pods that stopped matching),
//! ReplicaSet status, Events `SuccessfulCreate`/`SuccessfulDelete`/`FailedCreate`/`FailedDelete`.
//! Counterpart: `pkg/controller/replicaset/replica_set.go`, `pkg/controller/controller_utils.go`.
//!
//! The same loop, in its [`Flavour::ReplicationController`] flavour, is the replication manager: it watches
//! ReplicationControllers and Pods and writes the same things for them (`pkg/controller/replication`).
//!
//! Like the real loop it creates in slow-start batches (1, 2, 4, … up to what is missing, the next batch only
//! once the previous one succeeded) and keeps per-ReplicaSet expectations, so it neither double-creates nor
//! double-deletes while its own requests and their watch events are in flight. The surplus it deletes is
//! ranked as the real `ActivePodsWithRanks` ordering does, simplified: unassigned before assigned, Pending
//! before Unknown before Running, not ready before ready, lower `pod-deletion-cost` first, ready for less time
//! first, more restarts first, newer first. The real one also prefers pods doubled up on a node and compares
//! times in logarithmic buckets.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::apps::v1::ReplicaSet;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use crate::api::selector::LabelSelector;
use crate::api::{ApiResponse, Kind, Object, ObjectMeta};
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::time::parse_rfc3339;
use crate::sim::SimTime;

use super::{Controller, Cx};

mod flavour;
mod tally;
pub use flavour::Flavour;
use tally::{Basis, Counts, Tally};

/// The largest batch the slow start grows to (the real `burstReplicas`).
const BURST_REPLICAS: i64 = 500;

/// The controller ownerReference of `obj`, if any.
pub fn controller_ref(meta: &ObjectMeta) -> Option<&OwnerReference> {
    meta.owner_references.iter().flatten().find(|r| r.controller == Some(true))
}

/// A controller ownerReference to `owner` (with `blockOwnerDeletion`, as controllers set it).
pub fn owner_ref_to(owner: &ObjectMeta, api_version: &str, kind: &str) -> OwnerReference {
    OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name: owner.name.clone().unwrap_or_default(),
        uid: owner.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

/// Keeps the ownerReferences `keep` accepts; none left means the field is gone (as `omitempty` prints it).
pub fn retain_owner_refs(meta: &mut ObjectMeta, keep: impl Fn(&OwnerReference) -> bool) {
    if let Some(refs) = meta.owner_references.as_mut() {
        refs.retain(|r| keep(r));
    }
    if meta.owner_references.as_ref().is_some_and(Vec::is_empty) {
        meta.owner_references = None;
    }
}

/// A Kubernetes timestamp as simulated time.
pub fn sim_time(t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>) -> Option<SimTime> {
    let v = serde_json::to_value(t?).ok()?;
    parse_rfc3339(v.as_str()?)
}

/// When the pod last became Ready, if it is Ready now.
pub fn ready_since(pod: &Pod) -> Option<SimTime> {
    let c = pod.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == "Ready")?;
    if c.status != "True" {
        return None;
    }
    Some(sim_time(c.last_transition_time.as_ref()).unwrap_or(SimTime::ZERO))
}

/// Ready for at least `min_ready_seconds` at `now`.
pub fn is_available(pod: &Pod, min_ready_seconds: i32, now: SimTime) -> bool {
    ready_since(pod).is_some_and(|t| min_ready_seconds <= 0 || t.plus_ms(min_ready_seconds as u64 * 1000) <= now)
}

/// Not terminating and not finished: a pod that counts towards replicas.
pub fn is_active(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_none()
        && !matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

fn selector_of(rs: &ReplicaSet) -> Option<LabelSelector> {
    parsed_selector(&rs.spec.as_ref()?.selector)
}

fn parsed_selector(sel: &k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector) -> Option<LabelSelector> {
    let parsed = LabelSelector::from_api(sel).ok()?;
    // An empty selector selects nothing for a controller (the real one refuses it).
    (!parsed.is_empty()).then_some(parsed)
}

/// The sort key of the real ranking for which pod to delete first (see the module header): smaller sorts first.
pub type Rank =
    (u8, u8, u8, i64, std::cmp::Reverse<SimTime>, std::cmp::Reverse<i64>, std::cmp::Reverse<SimTime>, String);

pub fn deletion_rank(pod: &Pod) -> Rank {
    let assigned = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_some_and(|n| !n.is_empty());
    let phase = match pod.status.as_ref().and_then(|s| s.phase.as_deref()) {
        Some("Pending") | None => 0,
        Some("Running") => 2,
        _ => 1,
    };
    let ready = ready_since(pod);
    // `controller.kubernetes.io/pod-deletion-cost`: lower cost goes first.
    let cost = pod
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("controller.kubernetes.io/pod-deletion-cost"))
        .and_then(|c| c.parse::<i32>().ok())
        .unwrap_or(0) as i64;
    let restarts: i64 = pod
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .map(|cs| cs.iter().map(|c| c.restart_count.max(0) as i64).sum())
        .unwrap_or(0);
    let created = sim_time(pod.metadata.creation_timestamp.as_ref()).unwrap_or(SimTime::ZERO);
    (
        assigned as u8,
        phase,
        ready.is_some() as u8,
        cost,
        std::cmp::Reverse(ready.unwrap_or(SimTime::ZERO)),
        std::cmp::Reverse(restarts),
        std::cmp::Reverse(created),
        pod.metadata.name.clone().unwrap_or_default(),
    )
}

#[derive(Debug, Default, Clone, Copy)]
struct Expectations {
    adds: i64,
    dels: i64,
}

#[derive(Debug)]
enum Op {
    Create { rs: String },
    Delete { rs: String, pod: String, uid: String },
    Claim { rs: String },
    Status,
}

#[derive(Debug, Default)]
pub struct ReplicaSetController {
    /// ReplicaSets, or the core group's ReplicationControllers.
    flavour: Flavour,
    expectations: BTreeMap<String, Expectations>,
    /// Pod uids whose deletion this controller asked for and has not yet seen.
    deleting: BTreeMap<String, BTreeSet<String>>,
    /// The next slow-start batch size per ReplicaSet.
    batch: BTreeMap<String, i64>,
    /// Backoff per ReplicaSet after a failed request, in ms.
    backoff: BTreeMap<String, u64>,
    /// No creates or deletes before this time after a failure (the rate-limited requeue of the real one).
    not_before: BTreeMap<String, SimTime>,
    /// The last failed create or delete per ReplicaSet (reason, message), for the ReplicaFailure condition.
    failure: BTreeMap<String, (&'static str, String)>,
    timers: BTreeMap<u64, String>,
    pending: BTreeMap<u64, Op>,
    next: u64,
    /// The cached pods by the uid of their controller (`namespace/name` keys), and the pods without one by
    /// namespace: a sync reads the pods it owns and the orphans it may adopt instead of every pod.
    owned_pods: BTreeMap<String, BTreeMap<String, Arc<Object>>>,
    orphan_pods: BTreeMap<String, BTreeMap<String, Arc<Object>>>,
    /// ReplicaSets whose sync a pod event asked for and that has not run yet: events that arrive meanwhile
    /// join it, as the real controller's work queue holds each key once.
    queued: BTreeSet<String>,
    /// Each ReplicaSet's running counts of the pods it controls, by its uid (see [`tally`]).
    tallies: BTreeMap<String, Tally>,
}

impl ReplicaSetController {
    /// The loop for `flavour`'s kind.
    pub fn new(flavour: Flavour) -> ReplicaSetController {
        ReplicaSetController { flavour, ..ReplicaSetController::default() }
    }

    fn tag(&mut self, op: Op) -> u64 {
        self.next += 1;
        self.pending.insert(self.next, op);
        self.next
    }

    fn requeue(&mut self, key: &str, after_ms: u64, cx: &mut Cx) {
        self.next += 1;
        self.timers.insert(self.next, key.to_string());
        cx.timer(after_ms, self.next);
    }

    /// Queues a sync of `key` (at the current time, after what is already being delivered), once.
    fn enqueue(&mut self, key: String, cx: &mut Cx) {
        if self.queued.insert(key.clone()) {
            self.requeue(&key, 0, cx);
        }
    }

    fn fail_backoff(&mut self, key: &str, cx: &mut Cx) {
        let b = self.backoff.entry(key.to_string()).or_insert(500);
        *b = (*b * 2).min(60_000);
        let after = *b;
        self.not_before.insert(key.to_string(), cx.now.plus_ms(after));
        self.requeue(key, after, cx);
    }

    /// Files the cached pod `obj` under its controller's uid, or as an orphan of its namespace (`present`), or
    /// removes it.
    fn index_pod(&mut self, obj: &Arc<Object>, present: bool) {
        let Object::Pod(pod) = obj.as_ref() else { return };
        let key = pod_key(pod);
        let (map, slot) = match controller_ref(&pod.metadata) {
            Some(r) => {
                if let Some(tally) = self.tallies.get_mut(&r.uid) {
                    tally.apply(pod, present);
                }
                (&mut self.owned_pods, r.uid.clone())
            }
            None => (&mut self.orphan_pods, pod.metadata.namespace.clone().unwrap_or_default()),
        };
        if present {
            map.entry(slot).or_default().insert(key, Arc::clone(obj));
        } else if let Some(pods) = map.get_mut(&slot) {
            pods.remove(&key);
            if pods.is_empty() {
                map.remove(&slot);
            }
        }
    }

    /// The tally of the ReplicaSet with `uid` on `basis`, built from its pods when it has none yet or its
    /// selector or template labels changed.
    fn tally(&mut self, uid: &str, basis: Basis) -> &Tally {
        let fresh = self.tallies.get(uid).is_some_and(|t| t.basis == basis);
        if !fresh {
            let pods = self.owned_pods.get(uid).into_iter().flat_map(|m| m.values());
            let tally = Tally::new(
                basis,
                pods.filter_map(|o| match o.as_ref() {
                    Object::Pod(p) => Some(&**p),
                    _ => None,
                }),
            );
            self.tallies.insert(uid.to_string(), tally);
        }
        &self.tallies[uid]
    }

    /// The active pods the ReplicaSet with `uid` controls that match its selector (a walk: only for deleting).
    fn active_owned(&self, uid: &str, selector: &LabelSelector) -> Vec<Arc<Object>> {
        let pods = self.owned_pods.get(uid).into_iter().flat_map(|m| m.values());
        pods.filter(|o| match o.as_ref() {
            Object::Pod(p) => is_active(p) && selector.matches(p.metadata.labels.as_ref()),
            _ => false,
        })
        .cloned()
        .collect()
    }

    /// The ReplicaSets in the pod's namespace that control it or whose selector matches it.
    fn rs_keys_for_pod(&self, pod: &Pod, cx: &Cx) -> Vec<String> {
        let ns = pod.metadata.namespace.clone().unwrap_or_default();
        if let Some(r) = controller_ref(&pod.metadata) {
            if r.kind == self.flavour.kind_name() && r.api_version == self.flavour.api_version() {
                return vec![format!("{ns}/{}", r.name)];
            }
            return vec![];
        }
        cx.cached_in(self.flavour.kind(), &ns)
            .iter()
            .filter_map(|o| {
                let selector = self.flavour.selector(o)?;
                parsed_selector(&selector).filter(|s| s.matches(pod.metadata.labels.as_ref())).map(|_| o.ns_name())
            })
            .collect()
    }

    fn observe_pod(&mut self, pod: &Pod, cx: &Cx, added: bool) {
        let mine =
            |r: &&OwnerReference| r.kind == self.flavour.kind_name() && r.api_version == self.flavour.api_version();
        let Some(r) = controller_ref(&pod.metadata).filter(mine) else { return };
        let key = format!("{}/{}", pod.metadata.namespace.as_deref().unwrap_or(""), r.name);
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        if added {
            if let Some(e) = self.expectations.get_mut(&key) {
                e.adds -= 1;
            }
        }
        if pod.metadata.deletion_timestamp.is_some() || cx.get(Kind::Pod, &pod_key(pod)).is_none() {
            if let Some(set) = self.deleting.get_mut(&key) {
                if set.remove(&uid) {
                    if let Some(e) = self.expectations.get_mut(&key) {
                        e.dels -= 1;
                    }
                }
            }
        }
    }

    fn sync(&mut self, key: &str, cx: &mut Cx) {
        let Some(obj) = cx.get(self.flavour.kind(), key) else {
            self.expectations.remove(key);
            self.deleting.remove(key);
            self.batch.remove(key);
            self.backoff.remove(key);
            self.not_before.remove(key);
            self.failure.remove(key);
            return;
        };
        let Some(rs) = self.flavour.view(&obj) else { return };
        let rs: &ReplicaSet = &rs;
        let ns = rs.metadata.namespace.clone().unwrap_or_default();
        let uid = rs.metadata.uid.clone().unwrap_or_default();
        let Some(selector) = selector_of(rs) else { return };
        let being_deleted = rs.metadata.deletion_timestamp.is_some();

        // Claim: release what stopped matching, adopt matching orphans. Adopted pods count at once, as they do
        // in the real controller's claim, until their update comes back and files them under this ReplicaSet.
        let basis = Basis::of(rs, selector.clone());
        let strays: Vec<String> = self.tally(&uid, basis).strays().iter().cloned().collect();
        for pod_key in strays {
            let Some(Object::Pod(pod)) = self.owned_pods.get(&uid).and_then(|m| m.get(&pod_key)).map(|o| o.as_ref())
            else {
                continue;
            };
            let mut released = pod.clone();
            retain_owner_refs(&mut released.metadata, |r| r.uid != uid);
            let tag = self.tag(Op::Claim { rs: key.to_string() });
            cx.update(Object::Pod(released), tag);
        }
        let mut adopted: Vec<Pod> = Vec::new();
        let orphans: Vec<Arc<Object>> =
            self.orphan_pods.get(&ns).into_iter().flat_map(|m| m.values().cloned()).collect();
        for p in orphans {
            let Object::Pod(pod) = p.as_ref() else { continue };
            if being_deleted
                || pod.metadata.deletion_timestamp.is_some()
                || !selector.matches(pod.metadata.labels.as_ref())
            {
                continue;
            }
            let mut adopting = pod.clone();
            adopting.metadata.owner_references.get_or_insert_with(Vec::new).push(owner_ref_to(
                &rs.metadata,
                self.flavour.api_version(),
                self.flavour.kind_name(),
            ));
            let tag = self.tag(Op::Claim { rs: key.to_string() });
            cx.update(Object::Pod(adopting.clone()), tag);
            if is_active(&adopting) {
                adopted.push(*adopting);
            }
        }
        let min_ready = rs.spec.as_ref().and_then(|s| s.min_ready_seconds).unwrap_or(0);
        let counts = if adopted.is_empty() {
            self.tallies[&uid].counts(min_ready, cx.now)
        } else {
            let mut with_adopted = self.tallies[&uid].clone();
            for pod in &adopted {
                with_adopted.apply(pod, true);
            }
            with_adopted.counts(min_ready, cx.now)
        };

        let exp = self.expectations.get(key).copied().unwrap_or_default();
        let waiting = self.not_before.get(key).is_some_and(|t| cx.now < *t);
        let satisfied = exp.adds <= 0 && exp.dels <= 0 && !waiting;
        if satisfied && !being_deleted {
            let want = rs.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1).max(0) as i64;
            let diff = counts.replicas as i64 - want;
            if diff < 0 {
                let batch = self.batch.get(key).copied().unwrap_or(1).min(BURST_REPLICAS);
                let n = (-diff).min(batch);
                self.batch.insert(key.to_string(), batch * 2);
                self.expectations.insert(key.to_string(), Expectations { adds: n, dels: 0 });
                for _ in 0..n {
                    let pod = pod_from_template(rs, self.flavour);
                    let tag = self.tag(Op::Create { rs: key.to_string() });
                    cx.create(Object::Pod(Box::new(pod)), tag);
                }
            } else {
                self.batch.remove(key);
                if diff > 0 {
                    let owned = self.active_owned(&uid, &selector);
                    let mut ranked: Vec<&Pod> = owned
                        .iter()
                        .filter_map(|o| match o.as_ref() {
                            Object::Pod(p) => Some(&**p),
                            _ => None,
                        })
                        .chain(adopted.iter())
                        .collect();
                    ranked.sort_by_cached_key(|p| deletion_rank(p));
                    let n = diff.min(BURST_REPLICAS) as usize;
                    self.expectations.insert(key.to_string(), Expectations { adds: 0, dels: n as i64 });
                    let victims: Vec<&Pod> = ranked.into_iter().take(n).collect();
                    let set = self.deleting.entry(key.to_string()).or_default();
                    for pod in &victims {
                        set.insert(pod.metadata.uid.clone().unwrap_or_default());
                    }
                    for pod in victims {
                        let op = Op::Delete {
                            rs: key.to_string(),
                            pod: pod.metadata.name.clone().unwrap_or_default(),
                            uid: pod.metadata.uid.clone().unwrap_or_default(),
                        };
                        let tag = self.tag(op);
                        cx.delete(&Object::Pod(Box::new(pod.clone())), None, None, tag);
                    }
                }
            }
        }
        self.update_status(&obj, rs, counts, cx);
    }

    fn update_status(&mut self, obj: &Object, rs: &ReplicaSet, counts: Counts, cx: &mut Cx) {
        let [fully, ready, available] = [counts.fully_labeled, counts.ready, counts.available].map(|n| n as i32);
        if let Some(next) = counts.next_available {
            // Look again when the next ready pod has been ready for minReadySeconds.
            let key = format!(
                "{}/{}",
                rs.metadata.namespace.as_deref().unwrap_or(""),
                rs.metadata.name.as_deref().unwrap_or("")
            );
            self.requeue(&key, next.since(cx.now), cx);
        }
        let old = rs.status.clone().unwrap_or_default();
        let mut status = old.clone();
        status.replicas = counts.replicas as i32;
        // Zero counts are left out, as the real status's `omitempty` fields are.
        status.fully_labeled_replicas = (fully > 0).then_some(fully);
        status.ready_replicas = (ready > 0).then_some(ready);
        status.available_replicas = (available > 0).then_some(available);
        status.observed_generation = rs.metadata.generation;
        // ReplicaFailure: set while creating or deleting pods fails, removed once it works again.
        let key =
            format!("{}/{}", rs.metadata.namespace.as_deref().unwrap_or(""), rs.metadata.name.as_deref().unwrap_or(""));
        let mut conditions = status.conditions.take().unwrap_or_default();
        match self.failure.get(&key) {
            Some((reason, message)) => {
                if !conditions.iter().any(|c| c.type_ == "ReplicaFailure") {
                    conditions.push(k8s_openapi::api::apps::v1::ReplicaSetCondition {
                        type_: "ReplicaFailure".into(),
                        status: "True".into(),
                        reason: Some((*reason).into()),
                        message: Some(message.clone()),
                        last_transition_time: Some(crate::apiserver::registry::k8s_time(cx.now)),
                    });
                }
            }
            None => conditions.retain(|c| c.type_ != "ReplicaFailure"),
        }
        status.conditions = (!conditions.is_empty()).then_some(conditions);
        if status != old {
            let tag = self.tag(Op::Status);
            cx.update_status(self.flavour.with_status(obj, status), tag);
        }
    }
}

fn pod_key(pod: &Pod) -> String {
    format!("{}/{}", pod.metadata.namespace.as_deref().unwrap_or(""), pod.metadata.name.as_deref().unwrap_or(""))
}

/// A pod from the ReplicaSet's template, as `GetPodFromTemplate` builds it.
fn pod_from_template(rs: &ReplicaSet, flavour: Flavour) -> Pod {
    let template = rs.spec.as_ref().and_then(|s| s.template.clone()).unwrap_or_default();
    let tmeta = template.metadata.unwrap_or_default();
    Pod {
        metadata: ObjectMeta {
            generate_name: Some(format!("{}-", rs.metadata.name.as_deref().unwrap_or(""))),
            namespace: rs.metadata.namespace.clone(),
            labels: tmeta.labels,
            annotations: tmeta.annotations,
            finalizers: tmeta.finalizers,
            owner_references: Some(vec![owner_ref_to(&rs.metadata, flavour.api_version(), flavour.kind_name())]),
            ..ObjectMeta::default()
        },
        spec: template.spec,
        status: None,
    }
}

impl Controller for ReplicaSetController {
    fn name(&self) -> &'static str {
        self.flavour.component()
    }

    fn kinds(&self) -> &'static [Kind] {
        self.flavour.watched()
    }

    /// A restarted controller-manager starts from nothing: expectations, queue and timers lived in its memory.
    fn on_start(&mut self) {
        *self = ReplicaSetController::new(self.flavour);
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.owned_pods.clear();
        self.orphan_pods.clear();
        self.tallies.clear();
        for p in cx.list(Kind::Pod) {
            self.index_pod(&p, true);
        }
        for rs in cx.list(self.flavour.kind()) {
            self.sync(&rs.ns_name(), cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (k, Change::Added(o) | Change::Modified { new: o, .. }) if k == self.flavour.kind() => {
                self.sync(&o.ns_name(), cx)
            }
            (k, Change::Deleted(o)) if k == self.flavour.kind() => {
                if let Some(uid) = o.meta().uid.as_deref() {
                    self.tallies.remove(uid);
                }
                self.sync(&o.ns_name(), cx)
            }
            (Kind::Pod, Change::Added(o) | Change::Deleted(o)) => {
                let added = matches!(change, Change::Added(_));
                self.index_pod(o, added);
                if let Object::Pod(p) = o.as_ref() {
                    self.observe_pod(p, cx, added);
                    for key in self.rs_keys_for_pod(p, cx) {
                        self.enqueue(key, cx);
                    }
                }
            }
            (Kind::Pod, Change::Modified { old, new }) => {
                self.index_pod(old, false);
                self.index_pod(new, true);
                let (Object::Pod(o), Object::Pod(n)) = (old.as_ref(), new.as_ref()) else { return };
                self.observe_pod(n, cx, false);
                let mut keys: BTreeSet<String> = self.rs_keys_for_pod(n, cx).into_iter().collect();
                keys.extend(self.rs_keys_for_pod(o, cx));
                for key in keys {
                    self.enqueue(key, cx);
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(key) = self.timers.remove(&token) {
            self.queued.remove(&key);
            self.sync(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(op) = self.pending.remove(&tag) else { return };
        let error = match result {
            Ok(ApiResponse::Error(s)) => Some(s.message.clone()),
            Ok(_) => None,
            Err(e) => Some(format!("{e:?}")),
        };
        match op {
            Op::Create { rs } => {
                let Some(owner) = cx.get(self.flavour.kind(), &rs) else { return };
                match (error, result) {
                    (None, Ok(ApiResponse::Object(pod))) => {
                        self.backoff.remove(&rs);
                        self.not_before.remove(&rs);
                        self.failure.remove(&rs);
                        cx.event(&owner, "Normal", "SuccessfulCreate", &format!("Created pod: {}", pod.name()));
                    }
                    (error, _) => {
                        // The pod will never be observed: lower the expectation, restart the slow start.
                        if let Some(e) = self.expectations.get_mut(&rs) {
                            e.adds -= 1;
                        }
                        self.batch.remove(&rs);
                        let msg = error.unwrap_or_default();
                        cx.event(&owner, "Warning", "FailedCreate", &format!("Error creating: {msg}"));
                        self.failure.insert(rs.clone(), ("FailedCreate", msg));
                        self.fail_backoff(&rs, cx);
                    }
                }
                // The next batch starts once every create of this one has been observed.
                self.sync(&rs, cx);
            }
            Op::Delete { rs, pod, uid } => {
                let owner = cx.get(self.flavour.kind(), &rs);
                match error {
                    None => {
                        if let Some(owner) = owner {
                            cx.event(&owner, "Normal", "SuccessfulDelete", &format!("Deleted pod: {pod}"));
                        }
                    }
                    Some(msg) => {
                        if self.deleting.get_mut(&rs).is_some_and(|s| s.remove(&uid)) {
                            if let Some(e) = self.expectations.get_mut(&rs) {
                                e.dels -= 1;
                            }
                        }
                        if let Some(owner) = owner {
                            if !msg.contains("not found") {
                                cx.event(&owner, "Warning", "FailedDelete", &format!("Error deleting: {msg}"));
                                self.failure.insert(rs.clone(), ("FailedDelete", msg));
                            }
                        }
                        self.fail_backoff(&rs, cx);
                    }
                }
            }
            Op::Claim { rs } => {
                if error.is_some() {
                    self.fail_backoff(&rs, cx);
                }
            }
            Op::Status => {}
        }
    }
}
