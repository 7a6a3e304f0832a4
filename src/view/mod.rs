//! Plain data the UI renders: the topology with each component's state, nodes and their pods, the
//! messages in flight with their send and delivery times, and recent deliveries. Built by the engine
//! ([`crate::Cluster::view`]); the UI holds no cluster logic.

pub mod decision;
pub mod etcd_browser;
pub mod events;
pub mod flow;
pub mod object;
pub mod recent;
pub mod steps;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct View {
    pub time_ms: u64,
    pub components: Vec<ComponentView>,
    pub nodes: Vec<NodeView>,
    /// Pods no node runs yet (Pending, unscheduled).
    pub unscheduled: Vec<PodView>,
    pub in_flight: Vec<MessageView>,
    /// The latest deliveries (delivered, dropped or refused), oldest first.
    pub recent: Vec<recent::DeliveryView>,
    /// Each etcd member: its role, term and how far its copy of the data has come.
    pub etcd: Vec<EtcdMemberView>,
    /// The machines that are powered off (nothing on them can be started until they are on again).
    #[serde(default)]
    pub powered_off: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EtcdMemberView {
    pub name: String,
    /// `leader`, `follower` or `candidate` (as the member last knew itself).
    pub role: String,
    pub term: u64,
    /// The revision of the member's applied store: members that were down lag behind.
    pub revision: u64,
    pub keys: usize,
    pub running: bool,
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
    /// `pods default/web-x`: the object the message is about, when there is one.
    pub object: Option<String>,
}

use crate::api::{Kind, Object};
use crate::apiserver::cache::WatchCache;

/// Fills nodes and pods from what the cluster has stored (the apiserver's cache).
pub fn fill_workloads(view: &mut View, cache: &WatchCache) {
    for node in cache.list(Kind::Node, None) {
        let Object::Node(n) = node.as_ref() else { continue };
        let name = n.metadata.name.clone().unwrap_or_default();
        let ready =
            n.status.as_ref().and_then(|s| s.conditions.as_ref()).and_then(|c| c.iter().find(|c| c.type_ == "Ready"));
        let mut status = match ready {
            Some(c) if c.status == "True" => "Ready".to_string(),
            Some(_) => "NotReady".to_string(),
            None => "Unknown".to_string(),
        };
        if n.spec.as_ref().and_then(|s| s.unschedulable).unwrap_or(false) {
            status.push_str(",SchedulingDisabled");
        }
        let roles: Vec<String> = n
            .metadata
            .labels
            .iter()
            .flatten()
            .filter_map(|(k, _)| k.strip_prefix("node-role.kubernetes.io/").map(str::to_string))
            .collect();
        let taints = n
            .spec
            .as_ref()
            .and_then(|s| s.taints.as_ref())
            .map(|ts| {
                ts.iter()
                    .map(|t| {
                        format!(
                            "{}{}:{}",
                            t.key,
                            t.value.as_ref().map(|v| format!("={v}")).unwrap_or_default(),
                            t.effect
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let pods = cache.pods_on(&name).iter().filter_map(|p| pod_view(p)).collect();
        view.nodes.push(NodeView {
            name,
            status,
            roles: if roles.is_empty() { "<none>".into() } else { roles.join(",") },
            taints,
            pods,
        });
    }
    view.unscheduled = cache
        .list(Kind::Pod, None)
        .iter()
        .filter(|p| matches!(p.as_ref(), Object::Pod(pod) if pod.spec.as_ref().and_then(|s| s.node_name.as_deref()).is_none_or(str::is_empty)))
        .filter_map(|p| pod_view(p))
        .collect();
}

fn pod_view(obj: &Object) -> Option<PodView> {
    let Object::Pod(p) = obj else { return None };
    let total = p.spec.as_ref().map_or(0, |s| s.containers.len());
    let statuses = p.status.as_ref().and_then(|s| s.container_statuses.as_ref());
    let ready = statuses
        .map_or(0, |cs| cs.iter().filter(|c| c.ready && c.state.as_ref().is_some_and(|s| s.running.is_some())).count());
    let mut status =
        p.status.as_ref().and_then(|s| s.reason.clone().or(s.phase.clone())).unwrap_or_else(|| "Pending".into());
    if p.metadata.deletion_timestamp.is_some() {
        status = "Terminating".into();
    }
    Some(PodView {
        namespace: p.metadata.namespace.clone().unwrap_or_default(),
        name: p.metadata.name.clone().unwrap_or_default(),
        status,
        ready: format!("{ready}/{total}"),
    })
}
