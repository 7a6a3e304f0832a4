//! The node lifecycle controller (`node-controller`): every node-monitor-period (5 s) it checks each
//! node's last heartbeat — the renewTime of its Lease `kube-node-lease/<node>` or the Ready condition's
//! lastHeartbeatTime, whichever changed last, timed when this controller observed the change. After
//! node-monitor-grace-period (50 s in v1.34; 60 s node-startup-grace-period for a node that never posted a
//! Ready condition) without one, it sets Ready, MemoryPressure, DiskPressure and PIDPressure to `Unknown`
//! through the node status subresource, records `NodeNotReady` on the Node, marks every pod on it
//! Ready=False with a Warning `NodeNotReady` each, and keeps the node's taints in step with its Ready
//! condition (`node.kubernetes.io/unreachable` for Unknown, `node.kubernetes.io/not-ready` for False,
//! NoSchedule and NoExecute, with timeAdded). A node seen for the first time gets `RegisteredNode`.
//!
//! A node is tracked from the first pass that sees it (as `tryUpdateNodeHealth` does): the grace period
//! runs from that moment, or from the node's creation when it never posted a Ready condition, so a kubelet
//! that stopped before it ever renewed its Lease still makes its node NotReady.
//!
//! `NodeReady` is not recorded here: in Kubernetes the kubelet records it when it posts Ready=True again.
//!
//! Watches: Nodes, Leases, Pods. Writes: Node status (conditions), Node spec.taints, Pod status (Ready
//! condition), Events.
//! Counterpart: `pkg/controller/nodelifecycle/node_lifecycle_controller.go` and the helpers in
//! `pkg/controller/util/node/controller_utils.go`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::api::coordination::v1::Lease;
use crate::api::api::core::v1::{Node, NodeCondition, Pod};
use crate::api::{Kind, Object};
use crate::client::informer::Change;
use crate::sim::SimTime;

use super::{Controller, Cx};

/// `--node-monitor-period`.
pub const MONITOR_PERIOD_MS: u64 = 5_000;
/// `--node-monitor-grace-period` (40 s up to v1.31, 50 s from v1.32).
pub const MONITOR_GRACE_MS: u64 = 50_000;
/// `--node-startup-grace-period`.
pub const STARTUP_GRACE_MS: u64 = 60_000;
/// Where kubelets keep their heartbeat Leases.
pub const LEASE_NAMESPACE: &str = "kube-node-lease";

pub const TAINT_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const TAINT_NOT_READY: &str = "node.kubernetes.io/not-ready";

/// The conditions the controller turns `Unknown` when the kubelet goes silent.
const CONDITIONS: [&str; 4] = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/// What the controller last observed of one node's heartbeats.
#[derive(Debug, Clone)]
struct Health {
    /// When a heartbeat was last observed.
    probe: SimTime,
    renew: Option<Value>,
    heartbeat: Option<Value>,
}

#[derive(Debug, Default)]
pub struct NodeLifecycleController {
    /// Bumped at every process start; timers of an older incarnation are ignored.
    epoch: u64,
    armed: Option<u64>,
    /// Every node seen by a monitor pass (or whose Lease was seen): its last observed heartbeat.
    health: BTreeMap<String, Health>,
    /// Nodes already announced with `RegisteredNode`.
    known: BTreeSet<String>,
    /// Taint writes in flight: node → the node-lifecycle taints asked for.
    pending_taints: BTreeMap<String, Vec<(String, String)>>,
    /// Pods whose Ready=False write is in flight (uid).
    pending_pods: BTreeSet<String>,
}

fn as_node(obj: &Object) -> Option<&Node> {
    match obj {
        Object::Node(n) => Some(n),
        _ => None,
    }
}

fn condition<'a>(node: &'a Node, type_: &str) -> Option<&'a NodeCondition> {
    node.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == type_)
}

fn heartbeat(node: &Node) -> Option<Value> {
    condition(node, "Ready").and_then(|c| c.last_heartbeat_time.as_ref()).and_then(|t| serde_json::to_value(t).ok())
}

fn renew_time(lease: &Lease) -> Option<Value> {
    lease.spec.as_ref()?.renew_time.as_ref().and_then(|t| serde_json::to_value(t).ok())
}

fn pod_ready(pod: &Pod) -> Option<&str> {
    pod.status.as_ref()?.conditions.as_ref()?.iter().find(|c| c.type_ == "Ready").map(|c| c.status.as_str())
}

fn pod_node(pod: &Pod) -> Option<&str> {
    pod.spec.as_ref()?.node_name.as_deref().filter(|n| !n.is_empty())
}

/// The node-lifecycle taints a Ready status calls for.
fn wanted_taints(ready: Option<&str>) -> Vec<(String, String)> {
    let key = match ready {
        Some("False") => TAINT_NOT_READY,
        Some("Unknown") => TAINT_UNREACHABLE,
        _ => return Vec::new(),
    };
    vec![(key.to_string(), "NoSchedule".to_string()), (key.to_string(), "NoExecute".to_string())]
}

fn is_lifecycle_taint(key: &str, effect: &str) -> bool {
    (key == TAINT_UNREACHABLE || key == TAINT_NOT_READY) && (effect == "NoSchedule" || effect == "NoExecute")
}

fn current_lifecycle_taints(node: &Node) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = node
        .spec
        .as_ref()
        .and_then(|s| s.taints.as_ref())
        .map(|ts| {
            ts.iter()
                .filter(|t| is_lifecycle_taint(&t.key, &t.effect))
                .map(|t| (t.key.clone(), t.effect.clone()))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

impl NodeLifecycleController {
    /// Notes a Lease renewal: opens the gate for its node and restarts the grace period.
    fn observe_lease(&mut self, lease: &Object, now: SimTime) {
        let Object::Lease(l) = lease else { return };
        if l.metadata.namespace.as_deref() != Some(LEASE_NAMESPACE) {
            return;
        }
        let node = l.metadata.name.clone().unwrap_or_default();
        let renew = renew_time(l);
        match self.health.get_mut(&node) {
            Some(h) if h.renew == renew => {}
            Some(h) => {
                h.renew = renew;
                h.probe = now;
            }
            None => {
                self.health.insert(node, Health { probe: now, renew, heartbeat: None });
            }
        }
    }

    /// Notes a Ready heartbeat posted in node status (for nodes already tracked).
    fn observe_node(&mut self, node: &Node, now: SimTime) {
        let name = node.metadata.name.clone().unwrap_or_default();
        if let Some(h) = self.health.get_mut(&name) {
            let hb = heartbeat(node);
            if h.heartbeat != hb {
                h.heartbeat = hb;
                h.probe = now;
            }
        }
    }

    /// Keeps the unreachable / not-ready taints in step with the Ready condition.
    fn reconcile_taints(&mut self, obj: &Object, cx: &mut Cx) {
        let Some(node) = as_node(obj) else { return };
        let name = node.metadata.name.clone().unwrap_or_default();
        let ready = condition(node, "Ready").map(|c| c.status.as_str());
        // NoSchedule first, then NoExecute: the order they are added in.
        let in_order = wanted_taints(ready);
        let mut wanted = in_order.clone();
        wanted.sort();
        let current = current_lifecycle_taints(node);
        if current == wanted {
            self.pending_taints.remove(&name);
            return;
        }
        if self.pending_taints.get(&name) == Some(&wanted) {
            return;
        }
        let now = cx.now.rfc3339();
        let mut taints: Vec<Value> = Vec::new();
        for t in node.spec.as_ref().and_then(|s| s.taints.as_ref()).into_iter().flatten() {
            let pair = (t.key.clone(), t.effect.clone());
            if is_lifecycle_taint(&t.key, &t.effect) && !wanted.contains(&pair) {
                continue;
            }
            taints.push(serde_json::to_value(t).unwrap_or(Value::Null));
        }
        for (key, effect) in &in_order {
            if !current.contains(&(key.clone(), effect.clone())) {
                taints.push(json!({"key": key, "effect": effect, "timeAdded": now}));
            }
        }
        let value = if taints.is_empty() { Value::Null } else { Value::Array(taints) };
        self.pending_taints.insert(name, wanted);
        cx.patch(obj, None, json!({"spec": {"taints": value}}), 0);
    }

    /// MarkPodsNotReady: each pod on the node gets Ready=False and a Warning event.
    fn mark_pods_not_ready(&mut self, node: &str, cx: &mut Cx) {
        for pod in cx.pods_on(node) {
            self.mark_pod_not_ready(&pod, Some(node), cx);
        }
    }

    fn mark_pod_not_ready(&mut self, obj: &Arc<Object>, node: Option<&str>, cx: &mut Cx) {
        let Object::Pod(pod) = obj.as_ref() else { return };
        let uid = pod.metadata.uid.clone().unwrap_or_default();
        let ready = pod_ready(pod);
        if ready != Some("True") {
            self.pending_pods.remove(&uid);
            return;
        }
        if node.is_some() && pod_node(pod) != node {
            return;
        }
        if !self.pending_pods.insert(uid) {
            return;
        }
        let patch = json!({"status": {"conditions": [
            {"type": "Ready", "status": "False", "lastTransitionTime": cx.now.rfc3339()}
        ]}});
        cx.patch(obj, Some("status"), patch, 0);
        cx.event(obj, "Warning", "NodeNotReady", "Node is not ready");
    }

    /// One pass of monitorNodeHealth.
    fn monitor(&mut self, cx: &mut Cx) {
        for obj in cx.list(Kind::Node) {
            let Some(node) = as_node(&obj) else { continue };
            let name = node.metadata.name.clone().unwrap_or_default();
            if self.known.insert(name.clone()) {
                cx.event(
                    &obj,
                    "Normal",
                    "RegisteredNode",
                    &format!("Node {name} event: Registered Node {name} in Controller"),
                );
            }
            let observed = condition(node, "Ready").map(|c| c.status.clone());
            let health = self.health.entry(name.clone()).or_insert_with(|| {
                // First sight: a node that never posted status counts from its creation.
                let created = node
                    .metadata
                    .creation_timestamp
                    .as_ref()
                    .and_then(|t| serde_json::to_value(t).ok())
                    .and_then(|v| v.as_str().and_then(crate::sim::time::parse_rfc3339));
                let probe = if observed.is_none() { created.unwrap_or(cx.now) } else { cx.now };
                Health { probe, renew: None, heartbeat: heartbeat(node) }
            });
            let grace = if observed.is_none() { STARTUP_GRACE_MS } else { MONITOR_GRACE_MS };
            if cx.now.since(health.probe) < grace {
                continue;
            }
            let now = cx.now.rfc3339();
            let created = node.metadata.creation_timestamp.as_ref().and_then(|t| serde_json::to_value(t).ok());
            let mut patched = Vec::new();
            for type_ in CONDITIONS {
                match condition(node, type_) {
                    Some(c) if c.status == "Unknown" => {}
                    Some(_) => patched.push(json!({
                        "type": type_, "status": "Unknown", "reason": "NodeStatusUnknown",
                        "message": "Kubelet stopped posting node status.", "lastTransitionTime": now,
                    })),
                    None => patched.push(json!({
                        "type": type_, "status": "Unknown", "reason": "NodeStatusNeverUpdated",
                        "message": "Kubelet never posted node status.", "lastHeartbeatTime": created,
                        "lastTransitionTime": now,
                    })),
                }
            }
            if patched.is_empty() {
                continue;
            }
            cx.patch(&obj, Some("status"), json!({"status": {"conditions": patched}}), 0);
            if observed.as_deref() == Some("True") {
                cx.event(&obj, "Normal", "NodeNotReady", &format!("Node {name} status is now: NodeNotReady"));
                self.mark_pods_not_ready(&name, cx);
            }
        }
    }
}

impl Controller for NodeLifecycleController {
    fn name(&self) -> &'static str {
        "node-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Node, Kind::Lease, Kind::Pod]
    }

    fn on_start(&mut self) {
        self.epoch += 1;
        self.health.clear();
        self.known.clear();
        self.pending_taints.clear();
        self.pending_pods.clear();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for lease in cx.list(Kind::Lease) {
            self.observe_lease(&lease, cx.now);
        }
        for node in cx.list(Kind::Node) {
            if let Some(n) = as_node(&node) {
                self.observe_node(n, cx.now);
            }
            self.reconcile_taints(&node, cx);
        }
        if self.armed != Some(self.epoch) {
            self.armed = Some(self.epoch);
            self.monitor(cx);
            cx.timer(MONITOR_PERIOD_MS, self.epoch);
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if token != self.epoch {
            return;
        }
        self.monitor(cx);
        cx.timer(MONITOR_PERIOD_MS, self.epoch);
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::Lease, Change::Added(l) | Change::Modified { new: l, .. }) => self.observe_lease(l, cx.now),
            (Kind::Node, Change::Added(n) | Change::Modified { new: n, .. }) => {
                if let Some(node) = as_node(n) {
                    self.observe_node(node, cx.now);
                }
                self.reconcile_taints(n, cx);
            }
            (Kind::Node, Change::Deleted(n)) => {
                self.health.remove(n.name());
                self.known.remove(n.name());
                self.pending_taints.remove(n.name());
            }
            (Kind::Pod, Change::Added(p) | Change::Modified { new: p, .. }) => {
                let Object::Pod(pod) = p.as_ref() else { return };
                let Some(node_name) = pod_node(pod) else { return };
                if !self.health.contains_key(node_name) {
                    return;
                }
                let node_ready = cx
                    .get(Kind::Node, node_name)
                    .and_then(|n| as_node(&n).and_then(|n| condition(n, "Ready")).map(|c| c.status.clone()));
                if node_ready.as_deref().is_some_and(|s| s != "True") {
                    self.mark_pod_not_ready(p, None, cx);
                } else if let Some(uid) = pod.metadata.uid.as_ref() {
                    self.pending_pods.remove(uid);
                }
            }
            (Kind::Pod, Change::Deleted(p)) => {
                if let Some(uid) = p.meta().uid.as_ref() {
                    self.pending_pods.remove(uid);
                }
            }
            _ => {}
        }
    }

    fn on_answer(
        &mut self,
        _tag: u64,
        result: &Result<crate::api::ApiResponse, crate::client::ClientError>,
        _cx: &mut Cx,
    ) {
        if !matches!(result, Ok(crate::api::ApiResponse::Object(_))) {
            // A write failed: forget what is in flight so the next pass asks again.
            self.pending_taints.clear();
            self.pending_pods.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ready_condition_decides_the_taints() {
        let both = |k: &str| vec![(k.to_string(), "NoSchedule".to_string()), (k.to_string(), "NoExecute".to_string())];
        assert_eq!(wanted_taints(Some("Unknown")), both(TAINT_UNREACHABLE));
        assert_eq!(wanted_taints(Some("False")), both(TAINT_NOT_READY));
        assert!(wanted_taints(Some("True")).is_empty());
        assert!(wanted_taints(None).is_empty());
        assert!(is_lifecycle_taint(TAINT_UNREACHABLE, "NoExecute"));
        assert!(!is_lifecycle_taint("node.kubernetes.io/unschedulable", "NoSchedule"));
    }

    #[test]
    fn a_lease_starts_tracking_and_each_renewal_restarts_the_grace_period() {
        let mut c = NodeLifecycleController::default();
        let lease = |renew: &str| {
            Object::Lease(
                serde_json::from_value(json!({
                    "metadata": {"name": "node02", "namespace": LEASE_NAMESPACE},
                    "spec": {"renewTime": renew},
                }))
                .unwrap(),
            )
        };
        assert!(c.health.is_empty());
        c.observe_lease(&lease("2025-09-01T00:00:10.000000Z"), SimTime(10_000));
        assert_eq!(c.health["node02"].probe, SimTime(10_000));
        c.observe_lease(&lease("2025-09-01T00:00:10.000000Z"), SimTime(15_000));
        assert_eq!(c.health["node02"].probe, SimTime(10_000));
        c.observe_lease(&lease("2025-09-01T00:00:20.000000Z"), SimTime(20_000));
        assert_eq!(c.health["node02"].probe, SimTime(20_000));
        let other: Object = Object::Lease(
            serde_json::from_value(json!({"metadata": {"name": "kube-scheduler", "namespace": "kube-system"}}))
                .unwrap(),
        );
        c.observe_lease(&other, SimTime(25_000));
        assert_eq!(c.health.len(), 1);
    }
}
