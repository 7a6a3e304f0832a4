//! The DaemonSet controller: one pod per eligible node. A node is eligible when it matches the template's
//! node selector and required node affinity and its NoSchedule/NoExecute taints are tolerated. Each pod
//! names its node with required node affinity (`matchFields metadata.name`) and carries the tolerations the
//! controller adds to every daemon pod; kube-scheduler binds it (since v1.12 daemon pods go through the
//! scheduler). Pods of an older template are replaced one node at a time (RollingUpdate, maxUnavailable 1).
//! Watches: DaemonSets, Pods, Nodes. Writes: Pods, DaemonSet status, Events.
//! Counterpart: `pkg/controller/daemon/daemon_controller.go`, `update.go`, `util/daemonset_util.go`.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::api::apps::v1::{DaemonSet, DaemonSetStatus};
use crate::api::api::core::v1::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod, Toleration,
};
use crate::api::hash::template_hash;
use crate::api::selector::LabelSelector;
use crate::api::{Kind, Object, ObjectMeta};
use crate::client::informer::Change;
use crate::scheduler::plugins::{term_matches, tolerates};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::owned::Owned;
use super::{Controller, Cx};

/// The label carrying the hash of the template a daemon pod was made from.
pub const REVISION_HASH: &str = "controller-revision-hash";

/// How long changes gather before the DaemonSets they touch are synced: a workqueue's deduplication, so a
/// burst of pod status updates costs one sync per DaemonSet rather than one each.
pub const SYNC_DELAY_MS: u64 = 50;

#[derive(Debug, Default)]
pub struct DaemonSetController {
    /// Creates and deletes in flight per DaemonSet (`ns/name`): expectations, so a burst of events does not
    /// create twice.
    pending: BTreeMap<String, BTreeSet<String>>,
    /// The pods each DaemonSet (`ns/name`) controls, by pod key: an index kept from the pod informer's changes
    /// so a sync never walks every pod in the cluster.
    owned: Owned,
    /// DaemonSets waiting for their sync.
    dirty: BTreeSet<String>,
    /// Whether the sync timer is set.
    timer_set: bool,
}

/// The tolerations every daemon pod gets (`util.AddOrUpdateDaemonPodTolerations`).
fn daemon_tolerations(host_network: bool) -> Vec<Toleration> {
    let t = |key: &str, effect: &str| Toleration {
        key: Some(key.into()),
        operator: Some("Exists".into()),
        effect: Some(effect.into()),
        ..Toleration::default()
    };
    let mut list = vec![
        t("node.kubernetes.io/not-ready", "NoExecute"),
        t("node.kubernetes.io/unreachable", "NoExecute"),
        t("node.kubernetes.io/disk-pressure", "NoSchedule"),
        t("node.kubernetes.io/memory-pressure", "NoSchedule"),
        t("node.kubernetes.io/pid-pressure", "NoSchedule"),
        t("node.kubernetes.io/unschedulable", "NoSchedule"),
    ];
    if host_network {
        list.push(t("node.kubernetes.io/network-unavailable", "NoSchedule"));
    }
    list
}

/// Whether the DaemonSet wants a pod on `node`.
fn should_run(ds: &DaemonSet, node: &Node) -> bool {
    let Some(spec) = ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else { return false };
    let name = node.metadata.name.as_deref().unwrap_or_default();
    let empty = BTreeMap::new();
    let labels = node.metadata.labels.as_ref().unwrap_or(&empty);
    let selector_ok = spec.node_selector.iter().flatten().all(|(k, v)| labels.get(k) == Some(v));
    let required = spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
    let affinity_ok = required.is_none_or(|r| r.node_selector_terms.iter().any(|t| term_matches(t, name, labels)));
    let mut tolerations = spec.tolerations.clone().unwrap_or_default();
    tolerations.extend(daemon_tolerations(spec.host_network.unwrap_or(false)));
    let taints_ok = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .into_iter()
        .flatten()
        .filter(|t| t.effect == "NoSchedule" || t.effect == "NoExecute")
        .all(|t| tolerates(&tolerations, t));
    selector_ok && affinity_ok && taints_ok
}

fn key(o: &Object) -> String {
    o.ns_name()
}

fn is_active(p: &Pod) -> bool {
    p.metadata.deletion_timestamp.is_none()
        && !matches!(p.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

fn node_of(p: &Pod) -> Option<String> {
    if let Some(n) = p.spec.as_ref().and_then(|s| s.node_name.clone()).filter(|n| !n.is_empty()) {
        return Some(n);
    }
    let terms = p
        .spec
        .as_ref()?
        .affinity
        .as_ref()?
        .node_affinity
        .as_ref()?
        .required_during_scheduling_ignored_during_execution
        .as_ref()?;
    terms.node_selector_terms.iter().flat_map(|t| t.match_fields.iter().flatten()).find_map(|f| {
        (f.key == "metadata.name").then(|| f.values.clone().unwrap_or_default().into_iter().next()).flatten()
    })
}

fn is_ready(p: &Pod) -> bool {
    p.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

impl DaemonSetController {
    fn sync(&mut self, ds_obj: &Object, cx: &mut Cx) {
        let Object::DaemonSet(ds) = ds_obj else { return };
        if ds.metadata.deletion_timestamp.is_some() {
            return;
        }
        let ds_key = key(ds_obj);
        let ns = ds.metadata.namespace.clone().unwrap_or_default();
        let uid = ds.metadata.uid.clone().unwrap_or_default();
        let template = ds.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
        let hash = template_hash(&serde_json::to_value(&template).unwrap_or_default(), None);
        let selector =
            ds.spec.as_ref().map(|s| LabelSelector::from_api(&s.selector)).and_then(Result::ok).unwrap_or_default();
        let cached = self.owned.cached(&ds_key, Kind::Pod, cx);
        let pods: Vec<&Pod> = cached
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::Pod(p)
                    if p.metadata.namespace.as_deref() == Some(&ns)
                        && p.metadata
                            .owner_references
                            .iter()
                            .flatten()
                            .any(|r| r.uid == uid && r.controller == Some(true))
                        && selector.matches(p.metadata.labels.as_ref()) =>
                {
                    Some(&**p)
                }
                _ => None,
            })
            .collect();
        let pending = self.pending.entry(ds_key.clone()).or_default();
        pending.retain(|node| !pods.iter().any(|p| node_of(p).as_deref() == Some(node.as_str()) && is_active(p)));
        let mut by_node: BTreeMap<String, Vec<&Pod>> = BTreeMap::new();
        for p in pods.iter().copied().filter(|p| is_active(p)) {
            if let Some(n) = node_of(p) {
                by_node.entry(n).or_default().push(p);
            }
        }
        let node_objects = cx.list(Kind::Node);
        let nodes = node_objects.iter().filter_map(|o| match o.as_ref() {
            Object::Node(n) => Some(n),
            _ => None,
        });
        let mut desired = 0;
        let mut updated = 0;
        let mut ready = 0;
        let mut misscheduled = 0;
        let mut outdated: Option<Pod> = None;
        let mut unavailable = 0;
        for node in nodes {
            let name = node.metadata.name.clone().unwrap_or_default();
            let run = should_run(ds, node);
            let here = by_node.get(&name).cloned().unwrap_or_default();
            if run {
                desired += 1;
                if here.is_empty() && !self.pending.get(&ds_key).is_some_and(|p| p.contains(&name)) {
                    self.create(ds, &name, &hash, cx);
                } else if let Some(p) = here.first() {
                    let current = p.metadata.labels.as_ref().and_then(|l| l.get(REVISION_HASH)) == Some(&hash);
                    updated += i32::from(current);
                    ready += i32::from(is_ready(p));
                    unavailable += i32::from(!is_ready(p));
                    if !current && outdated.is_none() {
                        outdated = Some(Pod::clone(p));
                    }
                }
            } else if !here.is_empty() {
                misscheduled += 1;
                for p in here {
                    cx.delete(&Object::Pod(Box::new(Pod::clone(p))), None, None, 0);
                }
            }
        }
        // RollingUpdate with maxUnavailable 1: replace one outdated pod while none is unavailable.
        if let (Some(p), 0) = (outdated, unavailable) {
            let name = p.metadata.name.clone().unwrap_or_default();
            cx.delete(&Object::Pod(Box::new(p)), None, None, 0);
            cx.event(ds_obj, "Normal", "SuccessfulDelete", &format!("Deleted pod: {name}"));
        }
        let current = by_node.len() as i32 - misscheduled;
        let status = DaemonSetStatus {
            current_number_scheduled: current.max(0),
            desired_number_scheduled: desired,
            number_misscheduled: misscheduled,
            number_ready: ready,
            number_available: Some(ready),
            number_unavailable: (desired - ready > 0).then_some(desired - ready),
            updated_number_scheduled: Some(updated),
            observed_generation: ds.metadata.generation,
            ..DaemonSetStatus::default()
        };
        if ds.status.as_ref() != Some(&status) {
            let mut next = ds.clone();
            next.status = Some(status);
            cx.update_status(Object::DaemonSet(next), 0);
        }
    }

    fn create(&mut self, ds: &DaemonSet, node: &str, hash: &str, cx: &mut Cx) {
        let ds_name = ds.metadata.name.clone().unwrap_or_default();
        let template = ds.spec.as_ref().map(|s| s.template.clone()).unwrap_or_default();
        let mut meta = template.metadata.clone().unwrap_or_default();
        meta.generate_name = Some(format!("{ds_name}-"));
        meta.namespace = ds.metadata.namespace.clone();
        let labels = meta.labels.get_or_insert_with(Default::default);
        labels.insert(REVISION_HASH.into(), hash.into());
        labels.insert("pod-template-generation".into(), ds.metadata.generation.unwrap_or(1).to_string());
        meta.owner_references = Some(vec![OwnerReference {
            api_version: "apps/v1".into(),
            kind: "DaemonSet".into(),
            name: ds_name.clone(),
            uid: ds.metadata.uid.clone().unwrap_or_default(),
            controller: Some(true),
            block_owner_deletion: Some(true),
        }]);
        let mut spec = template.spec.unwrap_or_default();
        let term = NodeSelectorTerm {
            match_fields: Some(vec![NodeSelectorRequirement {
                key: "metadata.name".into(),
                operator: "In".into(),
                values: Some(vec![node.to_string()]),
            }]),
            match_expressions: None,
        };
        let affinity = spec.affinity.get_or_insert_with(Affinity::default);
        let node_affinity = affinity.node_affinity.get_or_insert_with(NodeAffinity::default);
        node_affinity.required_during_scheduling_ignored_during_execution =
            Some(NodeSelector { node_selector_terms: vec![term] });
        let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
        for t in daemon_tolerations(spec.host_network.unwrap_or(false)) {
            if !tolerations.iter().any(|x| x.key == t.key && x.effect == t.effect) {
                tolerations.push(t);
            }
        }
        let pod = Pod { metadata: ObjectMeta { ..meta }, spec: Some(spec), status: None };
        self.pending
            .entry(format!("{}/{ds_name}", ds.metadata.namespace.clone().unwrap_or_default()))
            .or_default()
            .insert(node.to_string());
        cx.create(Object::Pod(Box::new(pod)), 0);
    }

    /// Queues the sync of `ds_key`; the timer runs every queued sync at once.
    fn queue(&mut self, ds_key: String, cx: &mut Cx) {
        self.dirty.insert(ds_key);
        if !self.timer_set {
            self.timer_set = true;
            cx.timer(SYNC_DELAY_MS, 0);
        }
    }

    fn queue_all(&mut self, cx: &mut Cx) {
        for ds in cx.list(Kind::DaemonSet) {
            self.queue(key(&ds), cx);
        }
    }

    /// Records which DaemonSet (if any) controls the pod `p`.
    fn index_pod(&mut self, p: &Object, present: bool) -> Option<String> {
        let ds_key = controlling_daemonset(p)?;
        self.owned.set(&ds_key, &key(p), present);
        Some(ds_key)
    }
}

/// `ns/name` of the DaemonSet named as `p`'s controller.
fn controlling_daemonset(p: &Object) -> Option<String> {
    let owner =
        p.meta().owner_references.iter().flatten().find(|r| r.kind == "DaemonSet" && r.controller == Some(true))?;
    Some(format!("{}/{}", p.namespace().unwrap_or(""), owner.name))
}

/// Whether a node change can change which DaemonSets want a pod there: a node came or went, or its labels,
/// taints or schedulability changed. Status heartbeats cannot.
fn node_placement_changed(change: &Change) -> bool {
    let Change::Modified { old, new } = change else { return true };
    let (Object::Node(a), Object::Node(b)) = (old.as_ref(), new.as_ref()) else { return true };
    a.metadata.labels != b.metadata.labels
        || a.spec.as_ref().map(|s| (&s.taints, s.unschedulable))
            != b.spec.as_ref().map(|s| (&s.taints, s.unschedulable))
}

impl Controller for DaemonSetController {
    fn name(&self) -> &'static str {
        "daemonset-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::DaemonSet, Kind::Pod, Kind::Node]
    }

    fn on_start(&mut self) {
        *self = DaemonSetController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.owned.clear();
        for p in cx.list(Kind::Pod) {
            self.index_pod(&p, true);
        }
        self.queue_all(cx);
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::DaemonSet, Change::Added(ds) | Change::Modified { new: ds, .. }) => self.queue(key(ds), cx),
            (Kind::DaemonSet, Change::Deleted(ds)) => {
                self.pending.remove(&key(ds));
                self.dirty.remove(&key(ds));
            }
            (Kind::Pod, Change::Added(p) | Change::Modified { new: p, .. }) => {
                if let Some(ds_key) = self.index_pod(p, true) {
                    self.queue(ds_key, cx);
                }
            }
            (Kind::Pod, Change::Deleted(p)) => {
                if let Some(ds_key) = self.index_pod(p, false) {
                    self.queue(ds_key, cx);
                }
            }
            (Kind::Node, change) if node_placement_changed(change) => self.queue_all(cx),
            _ => {}
        }
    }

    fn on_timer(&mut self, _token: u64, cx: &mut Cx) {
        self.timer_set = false;
        for ds_key in std::mem::take(&mut self.dirty) {
            if let Some(ds) = cx.get(Kind::DaemonSet, &ds_key) {
                self.sync(&ds, cx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::core::v1::{NodeSpec, NodeStatus, Taint};
    use std::sync::Arc;

    fn node(labels: &[(&str, &str)], taint: Option<&str>, heartbeat: &str) -> Arc<Object> {
        Arc::new(Object::Node(Box::new(Node {
            metadata: ObjectMeta {
                name: Some("node01".into()),
                labels: Some(labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()),
                ..ObjectMeta::default()
            },
            spec: Some(NodeSpec {
                taints: taint.map(|k| vec![Taint { key: k.into(), effect: "NoSchedule".into(), ..Taint::default() }]),
                ..NodeSpec::default()
            }),
            status: Some(NodeStatus { node_info: None, phase: Some(heartbeat.into()), ..NodeStatus::default() }),
        })))
    }

    #[test]
    fn only_node_changes_that_can_move_daemon_pods_trigger_a_resync() {
        let base = node(&[("zone", "a")], None, "one");
        let modified = |new: Arc<Object>| Change::Modified { old: Arc::clone(&base), new };
        assert!(!node_placement_changed(&modified(node(&[("zone", "a")], None, "two"))), "a status update");
        assert!(node_placement_changed(&modified(node(&[("zone", "b")], None, "one"))), "a label");
        assert!(node_placement_changed(&modified(node(&[("zone", "a")], Some("gpu"), "one"))), "a taint");
        assert!(node_placement_changed(&Change::Added(Arc::clone(&base))));
        assert!(node_placement_changed(&Change::Deleted(Arc::clone(&base))));
    }
}
