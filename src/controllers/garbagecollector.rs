//! The garbage collector: the ownerReferences graph over the kinds it watches, and the three deletion
//! propagation policies. Watches: Pods, ReplicaSets, Deployments, DaemonSets, StatefulSets, Jobs, CronJobs,
//! ControllerRevisions. Writes: deletes of dependents whose owners are gone (background), of dependents of
//! owners being deleted in the foreground (then removes the owner's `foregroundDeletion` finalizer once no
//! blocking dependent is left), and updates that drop ownerReferences to owners deleted with `orphan` (then
//! removes the `orphan` finalizer). Counterpart: `pkg/controller/garbagecollector/` (`garbagecollector.go`,
//! `graph_builder.go`).
//!
//! Like the real graph builder it keeps the graph (objects by uid, each owner's dependents) from watch
//! events, and a scan, at most one per `SCAN_COALESCE_MS`, looks only at what changed since the last one:
//! changed objects, their owners, the dependents of deleted owners, objects whose requests came back.
//!
//! The real collector confirms an owner's absence with a live GET before deleting; here an owner must be
//! missing from the cache at two scans at least a second apart, which covers the same informer lag. An
//! ownerReference to a kind not watched here is taken as alive.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{lookup_kind, ApiResponse, Kind, Object};
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::{Controller, Cx};

const WATCHED: &[Kind] = &[
    Kind::Pod,
    Kind::ReplicaSet,
    Kind::ReplicationController,
    Kind::Deployment,
    Kind::DaemonSet,
    Kind::StatefulSet,
    Kind::Job,
    Kind::CronJob,
    Kind::ControllerRevision,
];

/// How long an owner must stay absent before its dependents are collected.
const ABSENCE_MS: u64 = 1_000;
const SCAN: u64 = 1;

#[derive(Debug, Default)]
pub struct GarbageCollector {
    scan_scheduled: bool,
    /// Dependent uid → when its owners were first seen missing.
    suspects: BTreeMap<String, SimTime>,
    /// Requests in flight, by tag: (uid, what) — never sent twice while in flight.
    pending: BTreeMap<u64, (String, &'static str)>,
    /// The uids of `pending`, for the busy check.
    in_flight: BTreeSet<String>,
    next: u64,
    /// The graph (the real `GraphBuilder`'s `uidToNode`): every watched object by uid, and for each owner uid
    /// the uids of the objects naming it in their ownerReferences (present or not: a dependent may outlive
    /// its owner until it is collected).
    objects: BTreeMap<String, Arc<Object>>,
    dependents: BTreeMap<String, BTreeSet<String>>,
    /// The uids the next scan looks at: objects that changed, their owners, the dependents of deleted
    /// owners, and those whose requests came back. A scan walks these, not the whole graph.
    dirty: BTreeSet<String>,
}

fn uid_of(o: &Object) -> String {
    o.meta().uid.clone().unwrap_or_default()
}

fn owner_uids(o: &Object) -> impl Iterator<Item = &str> {
    o.meta().owner_references.iter().flatten().map(|r| r.uid.as_str())
}

fn has_finalizer(o: &Object, f: &str) -> bool {
    o.meta().finalizers.iter().flatten().any(|x| x == f)
}

/// How long changes gather before the graph is scanned again.
pub const SCAN_COALESCE_MS: u64 = 200;

impl GarbageCollector {
    fn schedule(&mut self, after_ms: u64, cx: &mut Cx) {
        if !self.scan_scheduled || after_ms > 0 {
            self.scan_scheduled = true;
            cx.timer(after_ms, SCAN);
        }
    }

    fn busy(&self, uid: &str) -> bool {
        self.in_flight.contains(uid)
    }

    fn send_tag(&mut self, uid: &str, what: &'static str) -> u64 {
        self.next += 1;
        self.in_flight.insert(uid.to_string());
        self.pending.insert(self.next + SCAN, (uid.to_string(), what));
        self.next + SCAN
    }

    /// Takes the object with `uid` out of the graph (its edges to its owners go with it) and marks its owners
    /// to be looked at again.
    fn unlink(&mut self, uid: &str) {
        let Some(old) = self.objects.remove(uid) else { return };
        for owner in owner_uids(&old) {
            if let Some(deps) = self.dependents.get_mut(owner) {
                deps.remove(uid);
                if deps.is_empty() {
                    self.dependents.remove(owner);
                }
            }
            self.dirty.insert(owner.to_string());
        }
    }

    /// Puts `o` into the graph (replacing its previous version) and marks it and its owners.
    fn link(&mut self, o: &Arc<Object>) {
        let uid = uid_of(o);
        self.unlink(&uid);
        for owner in owner_uids(o) {
            self.dependents.entry(owner.to_string()).or_default().insert(uid.clone());
            self.dirty.insert(owner.to_string());
        }
        self.objects.insert(uid.clone(), Arc::clone(o));
        self.dirty.insert(uid);
    }

    fn dependents_of(&self, uid: &str) -> Vec<Arc<Object>> {
        let deps = self.dependents.get(uid).into_iter().flatten();
        deps.filter_map(|d| self.objects.get(d).cloned()).collect()
    }

    fn scan(&mut self, cx: &mut Cx) {
        let mut look: BTreeSet<String> = std::mem::take(&mut self.dirty);
        look.extend(self.suspects.keys().cloned());
        let objects: Vec<Arc<Object>> = look.iter().filter_map(|uid| self.objects.get(uid).cloned()).collect();

        // Owners being deleted in the foreground or with orphaning.
        for owner in &objects {
            if owner.meta().deletion_timestamp.is_none() {
                continue;
            }
            let uid = uid_of(owner);
            let deps = self.dependents_of(&uid);
            if has_finalizer(owner, "orphan") {
                for dep in &deps {
                    let duid = uid_of(dep);
                    if self.busy(&duid) {
                        continue;
                    }
                    let mut updated = dep.as_ref().clone();
                    super::replicaset::retain_owner_refs(updated.meta_mut(), |r| r.uid != uid);
                    let tag = self.send_tag(&duid, "orphan");
                    cx.update(updated, tag);
                }
                if deps.is_empty() && !self.busy(&uid) {
                    self.remove_finalizer(owner, "orphan", cx);
                }
            } else if has_finalizer(owner, "foregroundDeletion") {
                let mut blocking = 0;
                for dep in &deps {
                    let blocks = dep
                        .meta()
                        .owner_references
                        .iter()
                        .flatten()
                        .any(|r| r.uid == uid && r.block_owner_deletion == Some(true));
                    if blocks {
                        blocking += 1;
                    }
                    let duid = uid_of(dep);
                    if dep.meta().deletion_timestamp.is_none() && !self.busy(&duid) {
                        let policy = if blocks { "Foreground" } else { "Background" };
                        let tag = self.send_tag(&duid, "delete");
                        cx.delete(dep, Some(policy), None, tag);
                    }
                }
                if blocking == 0 && !self.busy(&uid) {
                    self.remove_finalizer(owner, "foregroundDeletion", cx);
                }
            }
        }

        // Dependents whose owners are gone.
        let mut recheck = false;
        for uid in &look {
            if !self.objects.contains_key(uid) {
                self.suspects.remove(uid);
            }
        }
        for dep in &objects {
            let refs: Vec<_> = dep.meta().owner_references.iter().flatten().cloned().collect();
            let duid = uid_of(dep);
            let ns = dep.namespace().map(str::to_string);
            let dangling: Vec<&str> = refs
                .iter()
                .filter(|r| {
                    let Some(info) = lookup_kind(&r.api_version, &r.kind) else { return false };
                    if !WATCHED.contains(&info.kind) {
                        return false;
                    }
                    match self.objects.get(&r.uid) {
                        Some(owner) => owner.namespace().map(str::to_string) != ns && info.namespaced,
                        None => true,
                    }
                })
                .map(|r| r.uid.as_str())
                .collect();
            if dangling.is_empty() {
                self.suspects.remove(&duid);
                continue;
            }
            let first = *self.suspects.entry(duid.clone()).or_insert(cx.now);
            if cx.now.since(first) < ABSENCE_MS {
                recheck = true;
                continue;
            }
            if self.busy(&duid) {
                continue;
            }
            if dangling.len() == refs.len() {
                if dep.meta().deletion_timestamp.is_none() {
                    let tag = self.send_tag(&duid, "delete");
                    cx.delete(dep, Some("Background"), None, tag);
                }
            } else {
                let mut updated = dep.as_ref().clone();
                super::replicaset::retain_owner_refs(updated.meta_mut(), |r| !dangling.contains(&r.uid.as_str()));
                let tag = self.send_tag(&duid, "dangling");
                cx.update(updated, tag);
            }
        }
        if recheck {
            self.schedule(ABSENCE_MS, cx);
        }
    }

    fn remove_finalizer(&mut self, owner: &Object, finalizer: &str, cx: &mut Cx) {
        let mut updated = owner.clone();
        if let Some(f) = updated.meta_mut().finalizers.as_mut() {
            f.retain(|x| x != finalizer);
        }
        let tag = self.send_tag(&uid_of(owner), "finalizer");
        cx.update(updated, tag);
    }
}

impl Controller for GarbageCollector {
    fn name(&self) -> &'static str {
        "garbage-collector-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        WATCHED
    }

    /// A restarted controller-manager starts from nothing and builds its graph again from the lists.
    fn on_start(&mut self) {
        *self = GarbageCollector::default();
    }

    /// A (re)list: the graph is built again from the caches and every object is looked at.
    fn on_synced(&mut self, cx: &mut Cx) {
        self.objects.clear();
        self.dependents.clear();
        for k in WATCHED {
            for o in cx.list(*k) {
                self.link(&o);
            }
        }
        self.schedule(0, cx);
    }

    fn on_change(&mut self, _kind: Kind, change: &Change, cx: &mut Cx) {
        match change {
            Change::Added(o) | Change::Modified { new: o, .. } => self.link(o),
            Change::Deleted(o) => {
                let uid = uid_of(o);
                self.unlink(&uid);
                // Its dependents may now be dangling.
                if let Some(deps) = self.dependents.get(&uid) {
                    self.dirty.extend(deps.iter().cloned());
                }
            }
            Change::Resynced => {}
        }
        // Changes are coalesced: one scan of what changed per SCAN_COALESCE_MS however many objects changed.
        if !self.scan_scheduled {
            self.scan_scheduled = true;
            cx.timer(SCAN_COALESCE_MS, SCAN);
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if token == SCAN {
            self.scan_scheduled = false;
            self.scan(cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some((uid, _)) = self.pending.remove(&tag) else { return };
        self.in_flight.remove(&uid);
        // What waited for this request to come back is looked at again: the object and its owners.
        if let Some(o) = self.objects.get(&uid) {
            self.dirty.extend(owner_uids(o).map(str::to_string));
        }
        self.dirty.insert(uid);
        // A conflict or a lost connection: look again a little later.
        if matches!(result, Ok(ApiResponse::Error(_)) | Err(_)) {
            self.schedule(500, cx);
        } else {
            self.schedule(0, cx);
        }
    }
}
