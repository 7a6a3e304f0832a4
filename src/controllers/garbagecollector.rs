//! The garbage collector: the ownerReferences graph over the kinds it watches, and the three deletion
//! propagation policies. Watches: Pods, ReplicaSets, Deployments, DaemonSets, StatefulSets, Jobs, CronJobs,
//! ControllerRevisions. Writes: deletes of dependents whose owners are gone (background), of dependents of
//! owners being deleted in the foreground (then removes the owner's `foregroundDeletion` finalizer once no
//! blocking dependent is left), and updates that drop ownerReferences to owners deleted with `orphan` (then
//! removes the `orphan` finalizer). Counterpart: `pkg/controller/garbagecollector/` (`garbagecollector.go`,
//! `graph_builder.go`).
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
    next: u64,
}

fn uid_of(o: &Object) -> String {
    o.meta().uid.clone().unwrap_or_default()
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
        self.pending.values().any(|(u, _)| u == uid)
    }

    fn send_tag(&mut self, uid: &str, what: &'static str) -> u64 {
        self.next += 1;
        self.pending.insert(self.next + SCAN, (uid.to_string(), what));
        self.next + SCAN
    }

    fn scan(&mut self, cx: &mut Cx) {
        let mut all: Vec<Arc<Object>> = Vec::new();
        for k in WATCHED {
            all.extend(cx.list(*k));
        }
        let by_uid: BTreeMap<String, Arc<Object>> = all.iter().map(|o| (uid_of(o), o.clone())).collect();
        let mut dependents: BTreeMap<String, Vec<Arc<Object>>> = BTreeMap::new();
        for o in &all {
            for r in o.meta().owner_references.iter().flatten() {
                dependents.entry(r.uid.clone()).or_default().push(o.clone());
            }
        }

        // Owners being deleted in the foreground or with orphaning.
        for owner in &all {
            if owner.meta().deletion_timestamp.is_none() {
                continue;
            }
            let uid = uid_of(owner);
            let deps = dependents.get(&uid).cloned().unwrap_or_default();
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
        let mut still: BTreeSet<String> = BTreeSet::new();
        let mut recheck = false;
        for dep in &all {
            let refs: Vec<_> = dep.meta().owner_references.iter().flatten().cloned().collect();
            if refs.is_empty() {
                continue;
            }
            let ns = dep.namespace().map(str::to_string);
            let dangling: Vec<&str> = refs
                .iter()
                .filter(|r| {
                    let Some(info) = lookup_kind(&r.api_version, &r.kind) else { return false };
                    if !WATCHED.contains(&info.kind) {
                        return false;
                    }
                    match by_uid.get(&r.uid) {
                        Some(owner) => owner.namespace().map(str::to_string) != ns && info.namespaced,
                        None => true,
                    }
                })
                .map(|r| r.uid.as_str())
                .collect();
            if dangling.is_empty() {
                continue;
            }
            let duid = uid_of(dep);
            still.insert(duid.clone());
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
        self.suspects.retain(|uid, _| still.contains(uid));
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

    fn on_synced(&mut self, cx: &mut Cx) {
        self.schedule(0, cx);
    }

    fn on_change(&mut self, _kind: Kind, _change: &Change, cx: &mut Cx) {
        // Changes are coalesced: one scan of the graph per SCAN_COALESCE_MS however many objects changed
        // (a scan is linear in the objects; scanning per change would be quadratic under load).
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
        if self.pending.remove(&tag).is_none() {
            return;
        }
        // A conflict or a lost connection: look again a little later.
        if matches!(result, Ok(ApiResponse::Error(_)) | Err(_)) {
            self.schedule(500, cx);
        } else {
            self.schedule(0, cx);
        }
    }
}
