//! The kubelet's Node (`pkg/kubelet/kubelet_node_status.go`, `nodestatus/setters.go`, `runtime.go`,
//! `pleg/generic.go`): the Node it registers (with its status, as `initialNode` sets it), and the status
//! update every 10 s, which reads the Node the apiserver holds (`GET …/nodes/<node>?resourceVersion=0`), applies
//! the setters to it and patches it when the result differs or 5 minutes passed since the last report. So a
//! status someone else wrote (the node lifecycle controller's `Unknown`) is corrected at the next update.
//!
//! The setters record the node's events as the real ones do: `NodeHasSufficientMemory`,
//! `NodeHasNoDiskPressure`, `NodeHasSufficientPID` when a pressure condition becomes False (from missing or
//! `Unknown`), `NodeReady` / `NodeNotReady` when Ready changes from what the apiserver holds; each is
//! `Node <node> status is now: <reason>`; a boot id other than the one the apiserver holds is a Warning
//! `NodeRebooted` (`Node <node> has been rebooted, boot id: <id>`). Ready is False (`KubeletNotReady`) with the runtime state's errors:
//! `container runtime status check may not have completed yet` before the first check, `container runtime is
//! down` once 30 s passed since the last successful one (checked every 5 s), and `PLEG is not healthy: pleg was
//! last seen active <d> ago; threshold is 3m0s` when the last successful relist is more than 3 minutes old
//! (several errors as `[a, b]`, as an error aggregate prints them).
//!
//! Simplified: PLEG's relist (every second in Kubernetes) is not sent to containerd; it counts as successful
//! every second while containerd answers, and its last success is the last such second before containerd
//! stopped answering.

use serde_json::{json, Value};

/// The in-tree volume plugins whose CSI migration is on in v1.34 (`migratedPlugins` in the kubelet's CSI
/// plugin), sorted and comma-joined as the CSINode annotation lists them.
const MIGRATED_PLUGINS: &str = "kubernetes.io/aws-ebs,kubernetes.io/azure-disk,kubernetes.io/azure-file,kubernetes.io/cinder,kubernetes.io/gce-pd,kubernetes.io/portworx-volume,kubernetes.io/vsphere-volume";

use crate::api::api::core::v1::{Node, NodeStatus};
use crate::api::{ApiRequest, ApiResponse, Credentials, Kind, Object, PatchBody, Verb};
use crate::client::events::Reporter;
use crate::client::ClientError;
use crate::sim::time::go_duration;
use crate::sim::{Ctx, SimTime};

use super::{ApiCall, Kubelet, KUBELET_VERSION, REPORT_MS};

/// How often the runtime status check runs (`updateRuntimeUp`).
pub(super) const RUNTIME_CHECK_MS: u64 = 5_000;
/// How long after its last successful status check the runtime counts as down (`maxWaitForContainerRuntime`).
const RUNTIME_SYNC_THRESHOLD_MS: u64 = 30_000;
/// PLEG's `relistThreshold`.
const PLEG_THRESHOLD_MS: u64 = 180_000;
/// PLEG's `relistPeriod`.
const PLEG_PERIOD_MS: u64 = 1_000;

/// The pressure conditions: type, reason, message, event.
const PRESSURE: [(&str, &str, &str, &str); 3] = [
    (
        "MemoryPressure",
        "KubeletHasSufficientMemory",
        "kubelet has sufficient memory available",
        "NodeHasSufficientMemory",
    ),
    ("DiskPressure", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", "NodeHasNoDiskPressure"),
    ("PIDPressure", "KubeletHasSufficientPID", "kubelet has sufficient PID available", "NodeHasSufficientPID"),
];

/// What the kubelet knows of its runtime's health (`runtimeState` and PLEG's relist time).
#[derive(Debug, Clone, Default)]
pub(super) struct RuntimeState {
    /// When this kubelet process started (PLEG relists on whole seconds from then).
    started: SimTime,
    /// The last successful runtime status check (`lastBaseRuntimeSync`).
    last_sync: Option<SimTime>,
    /// PLEG's first successful relist while the runtime answers, or its last one once it stopped.
    relist: Option<SimTime>,
    relisting: bool,
}

impl RuntimeState {
    pub(super) fn new(started: SimTime) -> RuntimeState {
        RuntimeState { started, ..RuntimeState::default() }
    }

    pub(super) fn synced(&mut self, now: SimTime) {
        self.last_sync = Some(now);
    }

    /// containerd's sandboxes and containers were listed: PLEG relists again.
    pub(super) fn relisted(&mut self, now: SimTime) {
        self.relist = Some(now);
        self.relisting = true;
    }

    /// containerd stopped answering: the last relist is the last whole second before now.
    pub(super) fn relist_failed(&mut self, now: SimTime) {
        if self.relisting {
            let since = now.since(self.started);
            let last = self.started.plus_ms(since - since % PLEG_PERIOD_MS);
            self.relist = Some(self.relist.map_or(last, |r| r.max(last)));
        }
        self.relisting = false;
    }

    /// `runtimeErrors()`, printed as the error aggregate prints it; None when healthy.
    pub(super) fn errors(&self, now: SimTime) -> Option<String> {
        let mut errs = Vec::new();
        match self.last_sync {
            None => errs.push("container runtime status check may not have completed yet".to_string()),
            Some(t) if now.since(t) >= RUNTIME_SYNC_THRESHOLD_MS => errs.push("container runtime is down".into()),
            Some(_) => {}
        }
        match (self.relisting, self.relist) {
            (_, None) => errs.push("PLEG is not healthy: pleg has yet to be successful".into()),
            (false, Some(t)) if now.since(t) > PLEG_THRESHOLD_MS => errs.push(format!(
                "PLEG is not healthy: pleg was last seen active {} ago; threshold is {}",
                go_duration(now.since(t)),
                go_duration(PLEG_THRESHOLD_MS)
            )),
            _ => {}
        }
        match errs.len() {
            0 => None,
            1 => errs.pop(),
            _ => Some(format!("[{}]", errs.join(", "))),
        }
    }
}

/// A node condition's type, status, reason and message.
type Condition = (String, String, String, String);

fn conditions_of(status: &Value) -> Vec<(Condition, Option<String>)> {
    let text = |c: &Value, k: &str| c[k].as_str().unwrap_or("").to_string();
    status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let since = c["lastTransitionTime"].as_str().map(str::to_string);
            ((text(c, "type"), text(c, "status"), text(c, "reason"), text(c, "message")), since)
        })
        .collect()
}

impl Kubelet {
    pub(super) fn node_object(&self) -> Value {
        let n = &self.cfg.node;
        let mut labels = json!({
            "beta.kubernetes.io/arch": "amd64",
            "beta.kubernetes.io/os": "linux",
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": n.name,
            "kubernetes.io/os": "linux",
        });
        if self.cfg.control_plane {
            labels["node-role.kubernetes.io/control-plane"] = json!("");
            labels["node.kubernetes.io/exclude-from-external-load-balancers"] = json!("");
        }
        for (k, v) in &n.labels {
            labels[k] = json!(v);
        }
        let mut taints: Vec<Value> =
            n.taints.iter().map(|(k, v, e)| json!({"key": k, "value": v, "effect": e})).collect();
        if self.cfg.control_plane && taints.is_empty() {
            taints.push(json!({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}));
        }
        json!({
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": n.name, "labels": labels, "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
            "spec": {"podCIDR": self.cfg.pod_cidr, "podCIDRs": [self.cfg.pod_cidr],
                     "taints": if taints.is_empty() { Value::Null } else { json!(taints) }},
        })
    }

    /// Everything the setters write but the conditions.
    fn status_fields(&self) -> Value {
        let n = &self.cfg.node;
        let capacity = json!({"cpu": n.cpu, "memory": n.memory, "pods": n.pods, "ephemeral-storage": "20Gi",
                              "hugepages-2Mi": "0"});
        // The VersionInfo setter asks the runtime for its version at every update.
        let runtime_version = if self.runtime_up {
            super::super::os::container_runtime_version()
        } else {
            "containerd://Unknown".to_string()
        };
        let boot_id = self.boot_id();
        let mut status = json!({
            "capacity": capacity,
            "allocatable": capacity,
            "addresses": [{"type": "InternalIP", "address": self.cfg.node_ip}, {"type": "Hostname", "address": n.name}],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64", "bootID": boot_id, "containerRuntimeVersion": runtime_version,
                // Left empty: DisableNodeKubeProxyVersion is on by default since v1.33 (KEP-4004; the kubelet
                // never knew kube-proxy's version).
                "kernelVersion": super::super::os::KERNEL_RELEASE, "kubeProxyVersion": "",
                "kubeletVersion": KUBELET_VERSION, "machineID": "", "operatingSystem": "linux",
                "osImage": super::super::os::OS_IMAGE, "systemUUID": ""
            }
        });
        if !self.images.is_empty() {
            status["images"] = super::node_images::status_images(&self.images);
        }
        status
    }

    /// The machine's boot id (`/proc/sys/kernel/random/boot_id`): a UUID, new at each boot.
    fn boot_id(&self) -> String {
        let boot = self.cfg.fs.borrow().reboots;
        let h = |salt: &str| crate::sim::rng::fnv1a64(format!("{}#{boot}#{salt}", self.cfg.node.name).as_bytes());
        let (a, b) = (h("a"), h("b"));
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }

    /// The conditions the kubelet computes now, Ready last (as the setters order them).
    fn computed_conditions(&self, now: SimTime) -> Vec<Condition> {
        let mut out: Vec<Condition> = PRESSURE
            .iter()
            .map(|(t, reason, message, _)| (t.to_string(), "False".into(), reason.to_string(), message.to_string()))
            .collect();
        let ready = match self.runtime_state.errors(now) {
            None => ("Ready".into(), "True".into(), "KubeletReady".into(), "kubelet is posting ready status".into()),
            Some(e) => ("Ready".into(), "False".into(), "KubeletNotReady".into(), e),
        };
        out.push(ready);
        out
    }

    /// The status the setters make of `current` (the apiserver's status; None when registering): heartbeats
    /// now, transition times kept where the status did not change, and the events of what changed. Also
    /// whether it differs from `current` apart from heartbeats.
    fn apply_setters(&mut self, ctx: &mut Ctx, current: Option<&Value>) -> (Value, bool) {
        let now = ctx.now;
        let stamp = now.rfc3339();
        let held = current.map(conditions_of).unwrap_or_default();
        let mut conditions = Vec::new();
        let mut changed = false;
        for (t, status, reason, message) in self.computed_conditions(now) {
            let was = held.iter().find(|((ht, ..), _)| *ht == t);
            let same = was.is_some_and(|((_, s, ..), _)| *s == status);
            let since = match was {
                Some((_, Some(at))) if same => at.clone(),
                _ => stamp.clone(),
            };
            changed |= was.is_none_or(|((_, s, r, m), _)| *s != status || *r != reason || *m != message);
            if let Some((_, _, _, event)) = PRESSURE.iter().find(|(pt, ..)| *pt == t) {
                // A pressure condition made (Unknown) or found not False becomes False: its event.
                if !same {
                    let msg = format!("Node {} status is now: {event}", self.cfg.node.name);
                    self.record_node(ctx, "Normal", event, &msg);
                }
            } else if was.is_some() && !same {
                let event = if status == "True" { "NodeReady" } else { "NodeNotReady" };
                let msg = format!("Node {} status is now: {event}", self.cfg.node.name);
                self.record_node(ctx, "Normal", event, &msg);
                if status != "True" {
                    let condition = json!({"type": t, "status": status, "lastHeartbeatTime": stamp,
                        "lastTransitionTime": since, "reason": reason, "message": message});
                    let line = format!("\"Node became not ready\" node={:?} condition={condition}", self.cfg.node.name);
                    self.log(now, 'I', "setters.go:602", &line);
                }
            }
            conditions.push(json!({"type": t, "status": status, "reason": reason, "message": message,
                                   "lastHeartbeatTime": stamp, "lastTransitionTime": since}));
        }
        let mut status = self.status_fields();
        let held_boot = current.and_then(|c| c["nodeInfo"]["bootID"].as_str()).unwrap_or("");
        if !held_boot.is_empty() && held_boot != status["nodeInfo"]["bootID"] {
            // The MachineInfo setter: the machine booted since the kubelet last reported.
            let boot = status["nodeInfo"]["bootID"].as_str().unwrap_or("").to_string();
            let msg = format!("Node {} has been rebooted, boot id: {boot}", self.cfg.node.name);
            self.record_node(ctx, "Warning", "NodeRebooted", &msg);
        }
        if let Some(current) = current {
            // Only the fields the setters write count (as the kubelet compares its copy of the apiserver's).
            let normalized = serde_json::from_value::<NodeStatus>(status.clone())
                .ok()
                .and_then(|s| serde_json::to_value(s).ok())
                .unwrap_or_else(|| status.clone());
            if let Some(fields) = normalized.as_object() {
                changed |= fields.iter().any(|(k, v)| k != "conditions" && current.get(k) != Some(v));
            }
        }
        status["conditions"] = json!(conditions);
        (status, changed)
    }

    /// The Node to register, with its status (`initialNode`).
    pub(super) fn register(&mut self, ctx: &mut Ctx) {
        let mut body = self.node_object();
        body["status"] = self.apply_setters(ctx, None).0;
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Node.info());
        req.raw_body = Some(body);
        self.call(ctx, req, ApiCall::Register);
    }

    /// The node's CSINode, as the CSI volume plugin's node info manager creates it once the Node exists: owned
    /// by the Node, no drivers registered, and the in-tree plugins whose volumes CSI migration serves.
    pub(super) fn ensure_csi_node(&mut self, ctx: &mut Ctx) {
        let name = self.cfg.node.name.clone();
        let body = json!({
            "apiVersion": "storage.k8s.io/v1",
            "kind": "CSINode",
            "metadata": {
                "name": name,
                "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": MIGRATED_PLUGINS},
                "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": self.node_uid.clone().unwrap_or_default()}],
            },
            "spec": {"drivers": []},
        });
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::CSINode.info());
        req.raw_body = Some(body);
        self.call(ctx, req, ApiCall::Other);
    }

    /// `updateNodeStatus`: reads the Node the apiserver holds; [`Kubelet::on_node_read`] goes on.
    pub(super) fn update_node_status(&mut self, ctx: &mut Ctx, force: bool) {
        if self.node_read_in_flight {
            return;
        }
        self.node_read_in_flight = true;
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Get, Kind::Node.info()).name(&self.cfg.node.name);
        req.params.resource_version = Some("0".into());
        self.call(ctx, req, ApiCall::NodeRead { force });
    }

    pub(super) fn on_node_read(&mut self, ctx: &mut Ctx, force: bool, result: Result<ApiResponse, ClientError>) {
        self.node_read_in_flight = false;
        let node = match &result {
            Ok(ApiResponse::Object(o)) => match o.as_ref() {
                Object::Node(n) => Node::clone(n),
                _ => return,
            },
            _ => {
                let name = self.cfg.node.name.clone();
                let path = format!("/api/v1/nodes/{name}?resourceVersion=0&timeout=10s");
                let err = format!(
                    "error getting node {name:?}: {}",
                    crate::client::process::request_error(&result, "GET", &path)
                );
                if self.last_status_error.as_ref() != Some(&err) {
                    let msg = format!("\"Error updating node status, will retry\" err={}", super::go_quote(&err));
                    self.log(ctx.now, 'E', "kubelet_node_status.go:535", &msg);
                    self.last_status_error = Some(err);
                }
                return;
            }
        };
        self.last_status_error = None;
        let current = node.status.as_ref().and_then(|s| serde_json::to_value(s).ok()).unwrap_or(json!({}));
        let (status, changed) = self.apply_setters(ctx, Some(&current));
        let due = self.last_node_post.is_none_or(|t| ctx.now.since(t) >= REPORT_MS);
        if !(force || changed || due) {
            return;
        }
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Node.info())
            .name(&self.cfg.node.name)
            .subresource("status");
        req.patch = Some(PatchBody::Merge(json!({ "status": status })));
        self.last_node_post = Some(ctx.now);
        self.call(ctx, req, ApiCall::NodeStatus);
    }

    /// An event about this kubelet's Node (its `nodeRef`: the node's name as its UID).
    pub(super) fn record_node(&mut self, ctx: &mut Ctx, type_: &str, reason: &str, message: &str) {
        let name = self.cfg.node.name.clone();
        let key = format!("node|{type_}|{reason}|{message}");
        if let Some((event, count)) = self.recorded.get_mut(&key) {
            *count += 1;
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, Kind::Event.info())
                .namespace(Some("default"))
                .name(event);
            let now = crate::apiserver::registry::k8s_time(ctx.now);
            req.patch = Some(PatchBody::Merge(json!({"count": *count, "lastTimestamp": now})));
            self.call(ctx, req, ApiCall::Other);
            return;
        }
        let mut node = Node::default();
        node.metadata.name = Some(name.clone());
        node.metadata.uid = Some(name.clone());
        let about = Object::Node(Box::new(node));
        let by = Reporter { component: "kubelet", host: Some(&name) };
        let event = crate::client::events::event(&about, by, type_, reason, message, ctx.now, ctx.rng);
        self.recorded.insert(key, (event.name().to_string(), 1));
        let req = ApiRequest::new(Credentials::Anonymous, Verb::Create, Kind::Event.info())
            .namespace(Some("default"))
            .body(event);
        self.call(ctx, req.clone(), ApiCall::Event { req: Box::new(req), tries: 0 });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_runtime_state_reports_each_error_the_way_the_kubelet_words_it() {
        let t = |ms: u64| SimTime::ZERO.plus_ms(ms);
        let mut s = RuntimeState::new(t(0));
        assert_eq!(
            s.errors(t(10)).as_deref(),
            Some(
                "[container runtime status check may not have completed yet, PLEG is not healthy: pleg has yet to be successful]"
            )
        );
        s.relisted(t(20));
        s.synced(t(25));
        assert_eq!(s.errors(t(1_000)), None);
        // containerd stops at 60.4 s: the last check was at 60 s, the last relist at 60 s.
        s.synced(t(60_000));
        s.relist_failed(t(60_400));
        assert_eq!(s.errors(t(89_999)), None);
        assert_eq!(s.errors(t(90_000)).as_deref(), Some("container runtime is down"));
        assert_eq!(s.errors(t(240_000)).as_deref(), Some("container runtime is down"));
        assert_eq!(
            s.errors(t(245_250)).as_deref(),
            Some(
                "[container runtime is down, PLEG is not healthy: pleg was last seen active 3m5.25s ago; threshold is 3m0s]"
            )
        );
        s.synced(t(250_000));
        s.relisted(t(250_010));
        assert_eq!(s.errors(t(250_020)), None);
    }
}
