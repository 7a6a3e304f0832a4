//! The node controllers of cloud-controller-manager. The cloud node controller gives each node its
//! instance's identity: `spec.providerID` and the labels `node.kubernetes.io/instance-type`,
//! `topology.kubernetes.io/region` and `topology.kubernetes.io/zone`. The cloud node lifecycle controller
//! looks every 5 s at the nodes that are not Ready and deletes those whose instance no longer exists in the
//! cloud (`DeletingNode`: `Deleting node node02 because it does not exist in the cloud provider`).
//! Watches: Nodes. Writes: Nodes (patch, delete), Events.
//! Counterpart: `k8s.io/cloud-provider/controllers/node/node_controller.go` and
//! `controllers/nodelifecycle/node_lifecycle_controller.go`.
//!
//! Simplified: the kubelets do not run with `--cloud-provider=external`, so there is no
//! `node.cloudprovider.kubernetes.io/uninitialized` taint to remove, no node addresses from the cloud, and
//! no shutdown taint (a simulated instance either runs or is gone).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use serde_json::json;

use crate::api::api::core::v1::Node;
use crate::api::{ApiResponse, Kind, Object};
use crate::client::informer::Change;
use crate::client::ClientError;

use super::cloud::{Cloud, INSTANCE_TYPE, REGION, ZONE};
use super::{Controller, Cx};

/// `--node-monitor-period` of the lifecycle controller.
pub const MONITOR_MS: u64 = 5_000;
const MONITOR: u64 = 1;

fn ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// Gives nodes their instance's provider ID and topology labels.
#[derive(Debug)]
pub struct CloudNodeController {
    cloud: Rc<RefCell<Cloud>>,
    patched: BTreeSet<String>,
}

impl CloudNodeController {
    pub fn new(cloud: Rc<RefCell<Cloud>>) -> CloudNodeController {
        CloudNodeController { cloud, patched: BTreeSet::new() }
    }

    fn initialize(&mut self, obj: &Object, cx: &mut Cx) {
        let Object::Node(node) = obj else { return };
        let name = node.metadata.name.clone().unwrap_or_default();
        let has_id = node.spec.as_ref().and_then(|s| s.provider_id.as_deref()).is_some_and(|p| !p.is_empty());
        if has_id || self.patched.contains(&name) {
            return;
        }
        let Some(provider_id) = self.cloud.borrow().provider_id(&name) else { return };
        self.patched.insert(name);
        let patch = json!({
            "metadata": {"labels": {
                "node.kubernetes.io/instance-type": INSTANCE_TYPE,
                "topology.kubernetes.io/region": REGION,
                "topology.kubernetes.io/zone": ZONE,
            }},
            "spec": {"providerID": provider_id},
        });
        cx.patch(obj, None, patch, 1);
    }
}

impl Controller for CloudNodeController {
    fn name(&self) -> &'static str {
        "cloud-node-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Node]
    }

    fn on_start(&mut self) {
        self.patched.clear();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for node in cx.list(Kind::Node) {
            self.initialize(&node, cx);
        }
    }

    fn on_change(&mut self, _kind: Kind, change: &Change, cx: &mut Cx) {
        if let Change::Added(o) = change {
            self.initialize(o, cx);
        }
    }

    fn on_answer(&mut self, _tag: u64, result: &Result<ApiResponse, ClientError>, _cx: &mut Cx) {
        if !matches!(result, Ok(ApiResponse::Object(_))) {
            // Try again at the next change or restart.
            self.patched.clear();
        }
    }
}

/// Deletes nodes whose instance is gone.
#[derive(Debug)]
pub struct CloudNodeLifecycleController {
    cloud: Rc<RefCell<Cloud>>,
    deleting: BTreeSet<String>,
    scheduled: bool,
}

impl CloudNodeLifecycleController {
    pub fn new(cloud: Rc<RefCell<Cloud>>) -> CloudNodeLifecycleController {
        CloudNodeLifecycleController { cloud, deleting: BTreeSet::new(), scheduled: false }
    }

    /// `MonitorNodes`.
    fn monitor(&mut self, cx: &mut Cx) {
        for obj in cx.list(Kind::Node) {
            let Object::Node(node) = obj.as_ref() else { continue };
            let name = node.metadata.name.clone().unwrap_or_default();
            if ready(node) || self.deleting.contains(&name) || self.cloud.borrow().instance_exists(&name) {
                continue;
            }
            let msg = format!("Deleting node {name} because it does not exist in the cloud provider");
            cx.event(&obj, "Normal", "DeletingNode", &msg);
            self.deleting.insert(name);
            cx.delete(&obj, None, None, 1);
        }
    }
}

impl Controller for CloudNodeLifecycleController {
    fn name(&self) -> &'static str {
        "cloud-node-lifecycle-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Node]
    }

    fn on_start(&mut self) {
        self.deleting.clear();
        self.scheduled = false;
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        if !self.scheduled {
            self.scheduled = true;
            cx.timer(MONITOR_MS, MONITOR);
        }
    }

    fn on_change(&mut self, _kind: Kind, change: &Change, _cx: &mut Cx) {
        if let Change::Deleted(o) = change {
            self.deleting.remove(o.name());
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if token == MONITOR {
            cx.timer(MONITOR_MS, MONITOR);
            self.monitor(cx);
        }
    }

    fn on_answer(&mut self, _tag: u64, result: &Result<ApiResponse, ClientError>, _cx: &mut Cx) {
        if !matches!(result, Ok(ApiResponse::Object(_))) {
            // Look again at the next pass.
            self.deleting.clear();
        }
    }
}
