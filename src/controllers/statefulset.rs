//! The StatefulSet controller: pods with stable names `<set>-<ordinal>` for ordinals `start ..
//! start+replicas`, each with its own PersistentVolumeClaims `<template>-<set>-<ordinal>` made from
//! `volumeClaimTemplates`, its hostname and subdomain (the set's `serviceName`), and the labels
//! `statefulset.kubernetes.io/pod-name`, `apps.kubernetes.io/pod-index` and `controller-revision-hash`.
//! Watches: StatefulSets, Pods, PersistentVolumeClaims, ControllerRevisions. Writes: ControllerRevisions
//! (one per template, `<set>-<hash>`, history cut to `revisionHistoryLimit`), PersistentVolumeClaims (create
//! only: they are kept when pods go, the default `Retain` retention policy), Pods (create, delete), the
//! StatefulSet's status, Events `SuccessfulCreate`/`SuccessfulDelete`/`FailedCreate`/`FailedDelete` with the
//! real texts (`create Pod web-0 in StatefulSet web successful`, `create Claim data-web-0 Pod web-0 in
//! StatefulSet web success`). Counterpart: `pkg/controller/statefulset/` (`stateful_set_control.go`,
//! `stateful_pod_control.go`, `stateful_set_utils.go`) and `pkg/controller/history`.
//!
//! `OrderedReady` (the default) creates ordinal N only once every lower ordinal is Running and Ready (and
//! available for `minReadySeconds`), deletes from the highest ordinal down, one at a time, and waits for
//! each deletion to finish; `Parallel` creates and deletes all at once. `RollingUpdate` replaces pods whose
//! revision is not the update revision from the highest ordinal down to `partition`, one at a time, each
//! only once the previous one is healthy again; `OnDelete` leaves that to whoever deletes pods. Pods in
//! phase Failed or Succeeded are deleted and made again.
//!
//! Like the real controller, the update revision's data is the strategic merge patch
//! `{"spec":{"template":{…,"$patch":"replace"}}}` and its name hashes that data (FNV-32a, then the collision
//! count in decimal, mapped through `SafeEncodeString`); the bytes hashed are kubeglass's JSON, so names
//! have the real shape but not the real digits. The controller waits to see each of its own creates and
//! deletes in its cache before acting on the same set again (where the real one relies on `AlreadyExists`
//! and on the next resync), keeps its own index of each set's pods and revisions (by controller
//! ownerReference, so a sync never scans every pod), and does not adopt orphan pods or revisions.
//! Retention policies other than `Retain` and `maxUnavailable` (alpha) are not simulated.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::apps::v1::{ControllerRevision, StatefulSet, StatefulSetStatus};
use k8s_openapi::api::core::v1::{
    PersistentVolumeClaim, PersistentVolumeClaimVolumeSource, Pod, PodTemplateSpec, Volume,
};
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use serde_json::{json, Value};

use crate::api::hash::{fnv32a, safe_encode};
use crate::api::{ApiResponse, Kind, Object, ObjectMeta, Reason};
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::book::Book;
use super::daemonset::REVISION_HASH;
use super::owned::Owned;
use super::replicaset::{controller_ref, owner_ref_to, ready_since};
use super::{Controller, Cx};

/// The label naming the pod (`web-0`), so a Service can select one replica.
pub const POD_NAME_LABEL: &str = "statefulset.kubernetes.io/pod-name";
/// The label carrying the ordinal (GA in v1.32).
pub const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";
/// The hash label a ControllerRevision carries (`history.ControllerRevisionHashLabel`).
pub const REVISION_HASH_LABEL: &str = "controller.kubernetes.io/hash";

/// Backoff after a failed request: doubles from this, up to [`MAX_BACKOFF_MS`].
const FIRST_BACKOFF_MS: u64 = 1_000;
const MAX_BACKOFF_MS: u64 = 60_000;

/// `<parent>-<ordinal>`: the parent and ordinal a pod name encodes (`getParentNameAndOrdinal`).
pub fn parent_and_ordinal(name: &str) -> Option<(&str, i32)> {
    let (parent, digits) = name.rsplit_once('-')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((parent, digits.parse().ok()?))
}

/// `<template>-<set>-<ordinal>`.
pub fn claim_name(template: &str, set: &str, ordinal: i32) -> String {
    format!("{template}-{set}-{ordinal}")
}

/// The data of a revision: a patch that puts the template back (`getPatch`).
fn revision_data(template: &PodTemplateSpec) -> Value {
    let mut t = serde_json::to_value(template).unwrap_or_else(|_| json!({}));
    if let Some(map) = t.as_object_mut() {
        map.insert("$patch".into(), json!("replace"));
    }
    json!({ "spec": { "template": t } })
}

/// The template a revision's data puts back.
fn revision_template(rev: &ControllerRevision) -> Option<PodTemplateSpec> {
    let mut t = rev.data.as_ref()?.0.pointer("/spec/template")?.clone();
    t.as_object_mut()?.remove("$patch");
    serde_json::from_value(t).ok()
}

/// `HashControllerRevision`: FNV-32a of the data, then the collision count in decimal.
fn revision_hash(data: &Value, collision_count: i32) -> String {
    let mut bytes = serde_json::to_vec(data).unwrap_or_default();
    bytes.extend_from_slice(collision_count.to_string().as_bytes());
    safe_encode(&fnv32a(&bytes).to_string())
}

fn phase(pod: &Pod) -> &str {
    pod.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

/// `isRunningAndReady`.
fn running_and_ready(pod: &Pod) -> bool {
    phase(pod) == "Running" && ready_since(pod).is_some()
}

/// `isRunningAndAvailable`: ready for at least `minReadySeconds`.
fn running_and_available(pod: &Pod, min_ready_seconds: i32, now: SimTime) -> bool {
    running_and_ready(pod) && super::replicaset::is_available(pod, min_ready_seconds, now)
}

/// `isHealthy`.
fn healthy(pod: &Pod) -> bool {
    running_and_ready(pod) && !terminating(pod)
}

fn revision_of(pod: &Pod) -> Option<&str> {
    pod.metadata.labels.as_ref()?.get(REVISION_HASH).map(String::as_str)
}

/// What a set waits to see in the cache before it is synced again.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Awaited {
    /// A pod it created.
    Pod(String),
    /// A claim it created.
    Claim(String),
    /// A revision it created, or whose number it raised (name, revision number).
    Revision(String, i64),
    /// A pod it deleted (name, uid): gone or terminating.
    Gone(String, String),
}

#[derive(Debug)]
enum Op {
    CreatePod { set: String, pod: String },
    CreateClaim { set: String, claim: String, pod: String },
    DeletePod { set: String, pod: String, uid: String },
    CreateRevision { set: String, name: String, revision: i64 },
    Other { set: String },
}

/// One slot of the set: the pod with that ordinal, if it exists.
struct Slot {
    ordinal: i32,
    pod: Option<Pod>,
}

#[derive(Debug, Default)]
pub struct StatefulSetController {
    /// Set key → keys of the pods whose controller it is.
    pods: Owned,
    /// Set key → keys of its ControllerRevisions.
    revisions: Owned,
    awaited: BTreeMap<String, BTreeSet<Awaited>>,
    /// A higher collision count found while naming a new revision, not yet in the status.
    collisions: BTreeMap<String, i32>,
    backoff: BTreeMap<String, u64>,
    not_before: BTreeMap<String, SimTime>,
    book: Book<Op>,
}

/// `ns/name` of an object's controller of `kind`.
fn owner_key(meta: &ObjectMeta, kind: &str) -> Option<String> {
    let r = controller_ref(meta).filter(|r| r.kind == kind)?;
    Some(format!("{}/{}", meta.namespace.as_deref().unwrap_or(""), r.name))
}

fn key_of(meta: &ObjectMeta) -> String {
    format!("{}/{}", meta.namespace.as_deref().unwrap_or(""), meta.name.as_deref().unwrap_or(""))
}

impl StatefulSetController {
    fn await_(&mut self, set: &str, what: Awaited) {
        self.awaited.entry(set.to_string()).or_default().insert(what);
    }

    fn settle(&mut self, set: &str, what: &Awaited) {
        if let Some(a) = self.awaited.get_mut(set) {
            a.remove(what);
        }
    }

    fn failed(&mut self, set: &str, cx: &mut Cx) {
        let b = self.backoff.entry(set.to_string()).or_insert(FIRST_BACKOFF_MS / 2);
        *b = (*b * 2).min(MAX_BACKOFF_MS);
        let after = *b;
        self.not_before.insert(set.to_string(), cx.now.plus_ms(after));
        self.book.requeue(set, after, cx);
    }

    /// Keeps the pod index current; the set keys the change concerns.
    fn index_pod(&mut self, change: &Change) -> BTreeSet<String> {
        let mut sets = BTreeSet::new();
        match change {
            Change::Added(o) | Change::Modified { new: o, .. } => {
                let key = o.ns_name();
                if let Change::Modified { old, .. } = change {
                    if let Some(was) = owner_key(old.meta(), "StatefulSet") {
                        if owner_key(o.meta(), "StatefulSet").as_ref() != Some(&was) {
                            self.pods.set(&was, &key, false);
                            sets.insert(was);
                        }
                    }
                }
                if let Some(set) = owner_key(o.meta(), "StatefulSet") {
                    self.pods.set(&set, &key, true);
                    if matches!(change, Change::Added(_)) {
                        self.settle(&set, &Awaited::Pod(o.name().to_string()));
                    }
                    sets.insert(set);
                }
            }
            Change::Deleted(o) => {
                if let Some(set) = owner_key(o.meta(), "StatefulSet") {
                    self.pods.set(&set, &o.ns_name(), false);
                    sets.insert(set);
                }
            }
            Change::Resynced => {}
        }
        sets
    }

    fn index_revision(&mut self, change: &Change) -> Option<String> {
        match change {
            Change::Added(o) | Change::Modified { new: o, .. } => {
                let set = owner_key(o.meta(), "StatefulSet")?;
                self.revisions.set(&set, &o.ns_name(), true);
                Some(set)
            }
            Change::Deleted(o) => {
                let set = owner_key(o.meta(), "StatefulSet")?;
                self.revisions.set(&set, &o.ns_name(), false);
                Some(set)
            }
            Change::Resynced => None,
        }
    }

    fn rebuild(&mut self, cx: &Cx) {
        self.pods.clear();
        self.revisions.clear();
        self.awaited.clear();
        for o in cx.list(Kind::Pod) {
            if let Some(set) = owner_key(o.meta(), "StatefulSet") {
                self.pods.set(&set, &o.ns_name(), true);
            }
        }
        for o in cx.list(Kind::ControllerRevision) {
            if let Some(set) = owner_key(o.meta(), "StatefulSet") {
                self.revisions.set(&set, &o.ns_name(), true);
            }
        }
    }

    /// Drops what the cache now shows; true while something is still awaited.
    fn still_awaiting(&mut self, set: &str, ns: &str, cx: &Cx) -> bool {
        let Some(list) = self.awaited.get_mut(set) else { return false };
        list.retain(|a| match a {
            Awaited::Pod(name) => cx.get(Kind::Pod, &format!("{ns}/{name}")).is_none(),
            Awaited::Claim(name) => cx.get(Kind::PersistentVolumeClaim, &format!("{ns}/{name}")).is_none(),
            Awaited::Revision(name, number) => !matches!(
                cx.get(Kind::ControllerRevision, &format!("{ns}/{name}")).as_deref(),
                Some(Object::ControllerRevision(r)) if r.revision == *number
            ),
            Awaited::Gone(name, uid) => matches!(
                cx.get(Kind::Pod, &format!("{ns}/{name}")).as_deref(),
                Some(Object::Pod(p)) if p.metadata.uid.as_deref() == Some(uid.as_str()) && !terminating(p)
            ),
        });
        !list.is_empty()
    }

    fn owned_pods(&self, key: &str, cx: &Cx) -> Vec<Pod> {
        let pods = self.pods.cached(key, Kind::Pod, cx);
        pods.iter()
            .filter_map(|o| match o.as_ref() {
                Object::Pod(p) => Some((**p).clone()),
                _ => None,
            })
            .collect()
    }

    fn owned_revisions(&self, key: &str, cx: &Cx) -> Vec<ControllerRevision> {
        let revisions = self.revisions.cached(key, Kind::ControllerRevision, cx);
        let mut list: Vec<ControllerRevision> = revisions
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::ControllerRevision(r) => Some((**r).clone()),
                _ => None,
            })
            .collect();
        list.sort_by(|a, b| (a.revision, &a.metadata.name).cmp(&(b.revision, &b.metadata.name)));
        list
    }

    /// The current and update revisions (`getStatefulSetRevisions`); None after asking the apiserver for a
    /// new revision (or a new number for an old one), which the next sync will see.
    fn revisions_of(
        &mut self,
        key: &str,
        set: &StatefulSet,
        revisions: &[ControllerRevision],
        cx: &mut Cx,
    ) -> Option<(ControllerRevision, ControllerRevision, i32)> {
        let template = set.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
        let data = revision_data(&template);
        let mut collisions = set.status.as_ref().and_then(|s| s.collision_count).unwrap_or(0);
        collisions = collisions.max(self.collisions.get(key).copied().unwrap_or(0));
        let next = revisions.last().map_or(1, |r| r.revision.saturating_add(1));
        let equal = revisions.iter().rfind(|r| r.data.as_ref().map(|d| &d.0) == Some(&data));
        let update = match equal {
            Some(e) if revisions.last().map(|r| &r.metadata.name) == Some(&e.metadata.name) => e.clone(),
            Some(e) => {
                // A rollback to an older template: that revision gets the next number.
                let mut raised = e.clone();
                raised.revision = next;
                let name = raised.metadata.name.clone().unwrap_or_default();
                self.await_(key, Awaited::Revision(name, next));
                let tag = self.book.tag(Op::Other { set: key.to_string() });
                cx.update(Object::ControllerRevision(Box::new(raised)), tag);
                return None;
            }
            None => {
                let set_name = set.metadata.name.as_deref().unwrap_or("");
                let mut hash = revision_hash(&data, collisions);
                // A name already taken by different data: count the collision and hash again.
                while revisions.iter().any(|r| r.metadata.name.as_deref() == Some(&format!("{set_name}-{hash}"))) {
                    collisions = collisions.saturating_add(1);
                    hash = revision_hash(&data, collisions);
                }
                self.collisions.insert(key.to_string(), collisions);
                let name = format!("{set_name}-{hash}");
                let mut labels = template.metadata.as_ref().and_then(|m| m.labels.clone()).unwrap_or_default();
                labels.insert(REVISION_HASH_LABEL.into(), hash);
                let revision = ControllerRevision {
                    metadata: ObjectMeta {
                        name: Some(name.clone()),
                        namespace: set.metadata.namespace.clone(),
                        labels: Some(labels),
                        owner_references: Some(vec![owner_ref_to(&set.metadata, "apps/v1", "StatefulSet")]),
                        ..ObjectMeta::default()
                    },
                    data: Some(RawExtension(data)),
                    revision: next,
                };
                self.await_(key, Awaited::Revision(name.clone(), next));
                let tag = self.book.tag(Op::CreateRevision { set: key.to_string(), name, revision: next });
                cx.create(Object::ControllerRevision(Box::new(revision)), tag);
                return None;
            }
        };
        let current_name = set.status.as_ref().and_then(|s| s.current_revision.clone());
        let current = revisions
            .iter()
            .find(|r| current_name.is_some() && r.metadata.name == current_name)
            .cloned()
            .unwrap_or_else(|| update.clone());
        Some((current, update, collisions))
    }

    fn sync(&mut self, key: &str, cx: &mut Cx) {
        let Some(obj) = cx.get(Kind::StatefulSet, key) else {
            self.forget(key);
            return;
        };
        let Object::StatefulSet(set) = obj.as_ref() else { return };
        let ns = set.metadata.namespace.clone().unwrap_or_default();
        if self.still_awaiting(key, &ns, cx) || self.not_before.get(key).is_some_and(|t| cx.now < *t) {
            return;
        }
        let revisions = self.owned_revisions(key, cx);
        let Some((current, update, collisions)) = self.revisions_of(key, set, &revisions, cx) else { return };
        let pods = self.owned_pods(key, cx);
        let mut status = self.update_set(key, set, &pods, &current, &update, cx);
        status.collision_count = Some(collisions);
        self.truncate_history(set, &pods, &revisions, &current, &update, cx);
        self.write_status(set, status, cx);
    }

    fn forget(&mut self, key: &str) {
        self.awaited.remove(key);
        self.collisions.remove(key);
        self.backoff.remove(key);
        self.not_before.remove(key);
    }

    /// `updateStatefulSet`: one round of creates, deletes and updates; returns the status to record.
    fn update_set(
        &mut self,
        key: &str,
        set: &StatefulSet,
        pods: &[Pod],
        current: &ControllerRevision,
        update: &ControllerRevision,
        cx: &mut Cx,
    ) -> StatefulSetStatus {
        let spec = set.spec.clone().unwrap_or_default();
        let min_ready = spec.min_ready_seconds.unwrap_or(0);
        let current_name = current.metadata.name.clone().unwrap_or_default();
        let update_name = update.metadata.name.clone().unwrap_or_default();
        let mut status = StatefulSetStatus {
            observed_generation: set.metadata.generation,
            current_revision: Some(current_name.clone()),
            update_revision: Some(update_name.clone()),
            conditions: set.status.as_ref().and_then(|s| s.conditions.clone()),
            ..StatefulSetStatus::default()
        };
        count_replicas(&mut status, pods, min_ready, &current_name, &update_name, cx.now);
        self.wake_for_availability(key, pods, min_ready, cx);

        let set_name = set.metadata.name.clone().unwrap_or_default();
        let replicas = spec.replicas.unwrap_or(1).max(0);
        let start = spec.ordinals.as_ref().and_then(|o| o.start).unwrap_or(0).max(0);
        let end = start.saturating_add(replicas);
        let mut slots: Vec<Slot> = (start..end).map(|ordinal| Slot { ordinal, pod: None }).collect();
        let mut condemned: Vec<Pod> = Vec::new();
        for pod in pods {
            let Some((parent, ordinal)) = pod.metadata.name.as_deref().and_then(parent_and_ordinal) else { continue };
            if parent != set_name {
                continue;
            }
            if (start..end).contains(&ordinal) {
                slots[(ordinal - start) as usize].pod = Some(pod.clone());
            } else {
                condemned.push(pod.clone());
            }
        }
        condemned.sort_by_key(|p| {
            std::cmp::Reverse(p.metadata.name.as_deref().and_then(parent_and_ordinal).map(|(_, o)| o))
        });
        let first_unhealthy: Option<String> = slots
            .iter()
            .find(|s| !s.pod.as_ref().is_some_and(healthy))
            .map(|s| format!("{set_name}-{}", s.ordinal))
            .or_else(|| condemned.iter().rev().find(|p| !healthy(p)).and_then(|p| p.metadata.name.clone()));
        if set.metadata.deletion_timestamp.is_some() {
            return status;
        }
        let monotonic = spec.pod_management_policy.as_deref() != Some("Parallel");
        let current_template = revision_template(current).unwrap_or_default();
        let update_template = revision_template(update).unwrap_or_default();
        let rolling = spec.update_strategy.as_ref().and_then(|s| s.type_.as_deref()) != Some("OnDelete");
        let partition = spec
            .update_strategy
            .as_ref()
            .and_then(|s| s.rolling_update.as_ref())
            .and_then(|r| r.partition)
            .unwrap_or(0)
            .max(0);

        // The replicas, in ordinal order.
        for slot in &slots {
            match &slot.pod {
                None => {
                    // Ordinals below the partition keep the current revision (`newVersionedStatefulSetPod`).
                    let (template, revision) = if rolling && slot.ordinal - start < partition {
                        (&current_template, &current_name)
                    } else {
                        (&update_template, &update_name)
                    };
                    let pod = new_pod(set, template, revision, slot.ordinal);
                    if self.create_claims(key, set, &pod, cx) {
                        self.create_pod(key, pod, cx);
                    }
                    if monotonic {
                        return status;
                    }
                }
                Some(pod) => {
                    if matches!(phase(pod), "Failed" | "Succeeded") {
                        if !terminating(pod) {
                            self.delete_pod(key, pod, cx);
                        }
                        if monotonic {
                            return status;
                        }
                        continue;
                    }
                    if phase(pod) == "Pending" && !terminating(pod) {
                        self.create_claims(key, set, pod, cx);
                    }
                    if monotonic
                        && (terminating(pod)
                            || !running_and_ready(pod)
                            || !running_and_available(pod, min_ready, cx.now))
                    {
                        return status;
                    }
                }
            }
        }

        // Scale down: the condemned pods, highest ordinal first.
        for pod in &condemned {
            if terminating(pod) {
                if monotonic {
                    return status;
                }
                continue;
            }
            let first = first_unhealthy.as_deref() == pod.metadata.name.as_deref();
            if monotonic && !first && !running_and_available(pod, min_ready, cx.now) {
                return status;
            }
            self.delete_pod(key, pod, cx);
            if monotonic {
                return status;
            }
        }
        if !rolling {
            return status;
        }
        // Rolling update: the highest ordinal not at the update revision goes first, down to the partition.
        for slot in slots.iter().skip(partition as usize).rev() {
            let Some(pod) = &slot.pod else { return status };
            if revision_of(pod) != Some(update_name.as_str()) && !terminating(pod) {
                self.delete_pod(key, pod, cx);
                status.current_replicas = status.current_replicas.map(|c| c - 1).filter(|c| *c > 0);
                return status;
            }
            if !healthy(pod) {
                return status;
            }
        }
        status
    }

    /// Syncs again when the next ready pod has been ready for `minReadySeconds`.
    fn wake_for_availability(&mut self, key: &str, pods: &[Pod], min_ready: i32, cx: &mut Cx) {
        if min_ready <= 0 {
            return;
        }
        let wait = min_ready as u64 * 1000;
        if let Some(next) = pods.iter().filter_map(ready_since).map(|t| t.plus_ms(wait)).filter(|t| *t > cx.now).min() {
            self.book.requeue(key, next.since(cx.now), cx);
        }
    }

    /// Creates the pod's missing claims; true when all of them exist (the pod may be created).
    fn create_claims(&mut self, key: &str, set: &StatefulSet, pod: &Pod, cx: &mut Cx) -> bool {
        let pod_name = pod.metadata.name.clone().unwrap_or_default();
        let Some((_, ordinal)) = parent_and_ordinal(&pod_name) else { return false };
        let ns = set.metadata.namespace.clone().unwrap_or_default();
        let mut all_there = true;
        for claim in claims_for(set, ordinal) {
            let name = claim.metadata.name.clone().unwrap_or_default();
            match cx.get(Kind::PersistentVolumeClaim, &format!("{ns}/{name}")).as_deref() {
                Some(Object::PersistentVolumeClaim(existing)) => {
                    // A claim still being deleted cannot serve a new pod.
                    all_there &= existing.metadata.deletion_timestamp.is_none();
                }
                _ => {
                    all_there = false;
                    self.await_(key, Awaited::Claim(name.clone()));
                    let tag =
                        self.book.tag(Op::CreateClaim { set: key.to_string(), claim: name, pod: pod_name.clone() });
                    cx.create(Object::PersistentVolumeClaim(Box::new(claim)), tag);
                }
            }
        }
        all_there
    }

    fn create_pod(&mut self, key: &str, pod: Pod, cx: &mut Cx) {
        let name = pod.metadata.name.clone().unwrap_or_default();
        self.await_(key, Awaited::Pod(name.clone()));
        let tag = self.book.tag(Op::CreatePod { set: key.to_string(), pod: name });
        cx.create(Object::Pod(Box::new(pod)), tag);
    }

    fn delete_pod(&mut self, key: &str, pod: &Pod, cx: &mut Cx) {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        self.await_(key, Awaited::Gone(name.clone(), uid.clone()));
        let tag = self.book.tag(Op::DeletePod { set: key.to_string(), pod: name, uid });
        cx.delete(&Object::Pod(Box::new(pod.clone())), None, None, tag);
    }

    /// `truncateHistory`: revisions no pod uses beyond `revisionHistoryLimit` go, oldest first.
    fn truncate_history(
        &mut self,
        set: &StatefulSet,
        pods: &[Pod],
        revisions: &[ControllerRevision],
        current: &ControllerRevision,
        update: &ControllerRevision,
        cx: &mut Cx,
    ) {
        let mut live: BTreeSet<&str> = pods.iter().filter_map(revision_of).collect();
        live.extend(current.metadata.name.as_deref());
        live.extend(update.metadata.name.as_deref());
        let history: Vec<&ControllerRevision> =
            revisions.iter().filter(|r| !live.contains(r.metadata.name.as_deref().unwrap_or(""))).collect();
        let limit = set.spec.as_ref().and_then(|s| s.revision_history_limit).unwrap_or(10).max(0) as usize;
        if history.len() <= limit {
            return;
        }
        let key = key_of(&set.metadata);
        for old in &history[..history.len() - limit] {
            let tag = self.book.tag(Op::Other { set: key.clone() });
            cx.delete(&Object::ControllerRevision(Box::new((*old).clone())), None, None, tag);
        }
    }

    fn write_status(&mut self, set: &StatefulSet, mut status: StatefulSetStatus, cx: &mut Cx) {
        // `completeRollingUpdate`.
        let rolling = set.spec.as_ref().and_then(|s| s.update_strategy.as_ref()).and_then(|s| s.type_.as_deref())
            != Some("OnDelete");
        let updated = status.updated_replicas.unwrap_or(0);
        if rolling && updated == status.replicas && status.ready_replicas.unwrap_or(0) == status.replicas {
            status.current_replicas = status.updated_replicas;
            status.current_revision = status.update_revision.clone();
        }
        if set.status.as_ref() == Some(&status) {
            return;
        }
        let mut next = set.clone();
        next.status = Some(status);
        let tag = self.book.tag(Op::Other { set: key_of(&set.metadata) });
        cx.update_status(Object::StatefulSet(Box::new(next)), tag);
    }
}

/// `computeReplicaStatus` over every pod of the set. Zero counts stay out of the omitempty fields;
/// `availableReplicas` is always written, as the real status is.
fn count_replicas(
    status: &mut StatefulSetStatus,
    pods: &[Pod],
    min_ready: i32,
    current: &str,
    update: &str,
    now: SimTime,
) {
    let (mut ready, mut available, mut at_current, mut at_update) = (0, 0, 0, 0);
    for pod in pods {
        if running_and_ready(pod) {
            ready += 1;
            available += i32::from(running_and_available(pod, min_ready, now));
        }
        if !terminating(pod) {
            at_current += i32::from(revision_of(pod) == Some(current));
            at_update += i32::from(revision_of(pod) == Some(update));
        }
    }
    status.replicas = pods.len() as i32;
    status.ready_replicas = (ready > 0).then_some(ready);
    status.available_replicas = Some(available);
    status.current_replicas = (at_current > 0).then_some(at_current);
    status.updated_replicas = (at_update > 0).then_some(at_update);
}

/// The claims of ordinal `ordinal` (`getPersistentVolumeClaims`): each template renamed, in the set's namespace,
/// labelled with the set's selector labels.
fn claims_for(set: &StatefulSet, ordinal: i32) -> Vec<PersistentVolumeClaim> {
    let set_name = set.metadata.name.as_deref().unwrap_or("");
    let spec = set.spec.as_ref();
    let selector_labels = spec.and_then(|s| s.selector.match_labels.clone()).unwrap_or_default();
    spec.and_then(|s| s.volume_claim_templates.clone())
        .unwrap_or_default()
        .into_iter()
        .map(|template| {
            let tname = template.metadata.name.clone().unwrap_or_default();
            let mut labels = template.metadata.labels.clone().unwrap_or_default();
            labels.extend(selector_labels.clone());
            PersistentVolumeClaim {
                metadata: ObjectMeta {
                    name: Some(claim_name(&tname, set_name, ordinal)),
                    namespace: set.metadata.namespace.clone(),
                    labels: (!labels.is_empty()).then_some(labels),
                    annotations: template.metadata.annotations.clone(),
                    ..ObjectMeta::default()
                },
                spec: template.spec.clone(),
                status: None,
            }
        })
        .collect()
}

/// A pod of the set for `ordinal` from `template` (`newStatefulSetPod`, `initIdentity`, `updateStorage`).
fn new_pod(set: &StatefulSet, template: &PodTemplateSpec, revision: &str, ordinal: i32) -> Pod {
    let set_name = set.metadata.name.clone().unwrap_or_default();
    let name = format!("{set_name}-{ordinal}");
    let tmeta = template.metadata.clone().unwrap_or_default();
    let mut labels = tmeta.labels.unwrap_or_default();
    labels.insert(POD_NAME_LABEL.into(), name.clone());
    labels.insert(POD_INDEX_LABEL.into(), ordinal.to_string());
    labels.insert(REVISION_HASH.into(), revision.to_string());
    let mut spec = template.spec.clone().unwrap_or_default();
    spec.hostname = Some(name.clone());
    spec.subdomain = set.spec.as_ref().and_then(|s| s.service_name.clone()).filter(|s| !s.is_empty());
    let claims = set.spec.as_ref().and_then(|s| s.volume_claim_templates.clone()).unwrap_or_default();
    if !claims.is_empty() {
        let mut volumes: Vec<Volume> = claims
            .iter()
            .map(|c| {
                let tname = c.metadata.name.clone().unwrap_or_default();
                Volume {
                    name: tname.clone(),
                    persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                        claim_name: claim_name(&tname, &set_name, ordinal),
                        read_only: None,
                    }),
                    ..Volume::default()
                }
            })
            .collect();
        for v in spec.volumes.take().unwrap_or_default() {
            if !volumes.iter().any(|c| c.name == v.name) {
                volumes.push(v);
            }
        }
        spec.volumes = Some(volumes);
    }
    Pod {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: set.metadata.namespace.clone(),
            labels: Some(labels),
            annotations: tmeta.annotations,
            finalizers: tmeta.finalizers,
            owner_references: Some(vec![owner_ref_to(&set.metadata, "apps/v1", "StatefulSet")]),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        status: None,
    }
}

fn error_of(result: &Result<ApiResponse, ClientError>) -> Option<(Option<Reason>, String)> {
    match result {
        Ok(ApiResponse::Error(s)) => Some((Some(s.reason), s.message.clone())),
        Ok(_) => None,
        Err(e) => Some((None, format!("{e:?}"))),
    }
}

impl Controller for StatefulSetController {
    fn name(&self) -> &'static str {
        "statefulset-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::StatefulSet, Kind::Pod, Kind::PersistentVolumeClaim, Kind::ControllerRevision]
    }

    fn on_start(&mut self) {
        *self = StatefulSetController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.rebuild(cx);
        for set in cx.list(Kind::StatefulSet) {
            self.sync(&set.ns_name(), cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        let sets: BTreeSet<String> = match (kind, change) {
            (Kind::StatefulSet, Change::Added(o) | Change::Modified { new: o, .. } | Change::Deleted(o)) => {
                BTreeSet::from([o.ns_name()])
            }
            (Kind::Pod, c) => self.index_pod(c),
            (Kind::ControllerRevision, c) => self.index_revision(c).into_iter().collect(),
            (Kind::PersistentVolumeClaim, Change::Added(o)) => {
                // A claim it created: the set it was made for may go on.
                let mut sets = BTreeSet::new();
                let claim = Awaited::Claim(o.name().to_string());
                for (set, awaited) in &mut self.awaited {
                    if set.split_once('/').map(|(ns, _)| ns) == o.namespace() && awaited.remove(&claim) {
                        sets.insert(set.clone());
                    }
                }
                sets
            }
            _ => BTreeSet::new(),
        };
        for set in sets {
            self.sync(&set, cx);
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(key) = self.book.fired(token) {
            self.sync(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(op) = self.book.answered(tag) else { return };
        let error = error_of(result);
        let set_key = match &op {
            Op::CreatePod { set, .. }
            | Op::CreateClaim { set, .. }
            | Op::DeletePod { set, .. }
            | Op::CreateRevision { set, .. }
            | Op::Other { set } => set.clone(),
        };
        let owner = cx.get(Kind::StatefulSet, &set_key);
        let set_name = set_key.split_once('/').map(|(_, n)| n.to_string()).unwrap_or_default();
        let event = |cx: &mut Cx, type_: &str, reason: &str, message: String| {
            if let Some(o) = owner.as_deref() {
                cx.event(o, type_, reason, &message);
            }
        };
        match (op, error) {
            (Op::CreatePod { pod, .. }, None) => {
                self.backoff.remove(&set_key);
                event(
                    cx,
                    "Normal",
                    "SuccessfulCreate",
                    format!("create Pod {pod} in StatefulSet {set_name} successful"),
                );
            }
            (Op::CreatePod { pod, .. }, Some((reason, msg))) => {
                self.settle(&set_key, &Awaited::Pod(pod.clone()));
                // AlreadyExists is sunk, as the real pod control does.
                if reason != Some(Reason::AlreadyExists) {
                    let text = format!("create Pod {pod} in StatefulSet {set_name} failed error: {msg}");
                    event(cx, "Warning", "FailedCreate", text);
                    self.failed(&set_key, cx);
                }
            }
            (Op::CreateClaim { claim, pod, .. }, None) => {
                let text = format!("create Claim {claim} Pod {pod} in StatefulSet {set_name} success");
                event(cx, "Normal", "SuccessfulCreate", text);
            }
            (Op::CreateClaim { claim, pod, .. }, Some((reason, msg))) => {
                self.settle(&set_key, &Awaited::Claim(claim.clone()));
                if reason != Some(Reason::AlreadyExists) {
                    let text =
                        format!("create Claim {claim} for Pod {pod} in StatefulSet {set_name} failed error: {msg}");
                    event(cx, "Warning", "FailedCreate", text);
                    // The pod is not created without its claims; its own event says why.
                    let text = format!(
                        "create Pod {pod} in StatefulSet {set_name} failed error: failed to create PVC {claim}: {msg}"
                    );
                    event(cx, "Warning", "FailedCreate", text);
                    self.failed(&set_key, cx);
                }
            }
            (Op::DeletePod { pod, .. }, None) => {
                event(
                    cx,
                    "Normal",
                    "SuccessfulDelete",
                    format!("delete Pod {pod} in StatefulSet {set_name} successful"),
                );
            }
            (Op::DeletePod { pod, uid, .. }, Some((reason, msg))) => {
                self.settle(&set_key, &Awaited::Gone(pod.clone(), uid));
                if reason != Some(Reason::NotFound) {
                    let text = format!("delete Pod {pod} in StatefulSet {set_name} failed error: {msg}");
                    event(cx, "Warning", "FailedDelete", text);
                    self.failed(&set_key, cx);
                }
            }
            (Op::CreateRevision { name, revision, .. }, Some(_)) => {
                self.settle(&set_key, &Awaited::Revision(name, revision));
                self.failed(&set_key, cx);
            }
            (Op::CreateRevision { .. }, None) => {}
            (Op::Other { .. }, Some(_)) => {
                // A conflict (someone wrote the object meanwhile) or a lost connection: look again.
                if let Some(awaited) = self.awaited.get_mut(&set_key) {
                    awaited.retain(|a| !matches!(a, Awaited::Revision(..)));
                }
                self.book.requeue(&set_key, 100, cx);
            }
            (Op::Other { .. }, None) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(yaml: &str) -> StatefulSet {
        serde_yaml::from_str(yaml).expect("statefulset")
    }

    const WEB: &str = "metadata: {name: web, namespace: default, uid: u1}\nspec:\n  serviceName: nginx\n  replicas: 2\n  selector: {matchLabels: {app: nginx}}\n  template:\n    metadata: {labels: {app: nginx}}\n    spec:\n      containers: [{name: nginx, image: nginx}]\n      volumes: [{name: www, emptyDir: {}}, {name: cache, emptyDir: {}}]\n  volumeClaimTemplates:\n  - metadata: {name: www}\n    spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}\n";

    #[test]
    fn pod_names_give_back_their_parent_and_ordinal() {
        assert_eq!(parent_and_ordinal("web-0"), Some(("web", 0)));
        assert_eq!(parent_and_ordinal("my-db-12"), Some(("my-db", 12)));
        assert_eq!(parent_and_ordinal("web-7c5ddbdf54-x2x9q"), None);
        assert_eq!(parent_and_ordinal("web-"), None);
        assert_eq!(parent_and_ordinal("web"), None);
        assert_eq!(parent_and_ordinal("web-99999999999999"), None);
    }

    #[test]
    fn a_new_pod_has_its_identity_labels_and_claims() {
        let s = set(WEB);
        let template = s.spec.as_ref().map(|sp| sp.template.clone()).unwrap();
        let pod = new_pod(&s, &template, "web-6d4cf56db6", 1);
        assert_eq!(pod.metadata.name.as_deref(), Some("web-1"));
        let labels = pod.metadata.labels.clone().unwrap();
        assert_eq!(labels.get(POD_NAME_LABEL).map(String::as_str), Some("web-1"));
        assert_eq!(labels.get(POD_INDEX_LABEL).map(String::as_str), Some("1"));
        assert_eq!(labels.get(REVISION_HASH).map(String::as_str), Some("web-6d4cf56db6"));
        assert_eq!(labels.get("app").map(String::as_str), Some("nginx"));
        let spec = pod.spec.unwrap();
        assert_eq!((spec.hostname.as_deref(), spec.subdomain.as_deref()), (Some("web-1"), Some("nginx")));
        // The template's own `www` volume gives way to the claim; other volumes stay, after the claims.
        let volumes: Vec<(String, Option<String>)> = spec
            .volumes
            .unwrap()
            .into_iter()
            .map(|v| (v.name, v.persistent_volume_claim.map(|c| c.claim_name)))
            .collect();
        assert_eq!(volumes, vec![("www".into(), Some("www-web-1".into())), ("cache".into(), None)]);
        let claims = claims_for(&s, 1);
        assert_eq!(claims.len(), 1);
        assert_eq!(claims[0].metadata.name.as_deref(), Some("www-web-1"));
        assert_eq!(claims[0].metadata.labels.as_ref().and_then(|l| l.get("app")).map(String::as_str), Some("nginx"));
    }

    #[test]
    fn revision_data_puts_the_template_back_and_hashes_like_a_revision_name() {
        let s = set(WEB);
        let template = s.spec.as_ref().map(|sp| sp.template.clone()).unwrap();
        let data = revision_data(&template);
        assert_eq!(data["spec"]["template"]["$patch"], json!("replace"));
        let rev = ControllerRevision { data: Some(RawExtension(data.clone())), ..Default::default() };
        assert_eq!(revision_template(&rev), Some(template.clone()));
        let hash = revision_hash(&data, 0);
        assert!(hash.chars().all(|c| "456789bcdf".contains(c)) && !hash.is_empty(), "{hash}");
        assert_ne!(hash, revision_hash(&data, 1));
        let mut other = template;
        other.spec.as_mut().unwrap().containers[0].image = Some("nginx:1.27".into());
        assert_ne!(hash, revision_hash(&revision_data(&other), 0));
    }
}
