//! Plain data the UI renders: the topology with each component's state, nodes and their pods, the
//! messages in flight with their send and delivery times, and recent deliveries. Built by the engine
//! ([`crate::Cluster::view`]); the UI holds no cluster logic.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct View {
    pub time_ms: u64,
    pub components: Vec<ComponentView>,
    pub nodes: Vec<NodeView>,
    /// Pods no node runs yet (Pending, unscheduled).
    pub unscheduled: Vec<PodView>,
    pub in_flight: Vec<MessageView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ComponentView {
    /// The scenario name: `kube-apiserver`, `etcd-0`, `node01/kubelet`, `kubectl`.
    pub name: String,
    /// `control-plane`, `etcd`, `node`, `client`.
    pub role: String,
    /// The node it runs on, if any.
    pub node: Option<String>,
    pub running: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeView {
    pub name: String,
    /// `Ready`, `NotReady`, `Ready,SchedulingDisabled`, … as `kubectl get nodes` prints it.
    pub status: String,
    pub roles: String,
    pub taints: Vec<String>,
    pub pods: Vec<PodView>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PodView {
    pub namespace: String,
    pub name: String,
    /// The STATUS column of `kubectl get pods`.
    pub status: String,
    /// `1/1`.
    pub ready: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageView {
    pub id: u64,
    pub from: String,
    pub to: String,
    pub label: String,
    /// `request`, `response`, `watch`, `etcd`, `network`.
    pub class: String,
    pub sent_ms: u64,
    pub deliver_ms: u64,
    pub chain: u64,
}
