//! One node as the scheduler accounts it: its allocatable resources, what its pods (bound or assumed)
//! request, the host ports they hold, and the images it reports. Kept up to date pod by pod, never rebuilt.
//! Counterpart: `pkg/scheduler/framework/types.go` (NodeInfo, HostPortInfo).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::api::core::v1::{Node, Taint};
use crate::api::Object;

use super::podinfo::{HostPort, PodInfo, Resources};

#[derive(Debug, Clone)]
pub struct NodeInfo {
    /// None while pods still point at a node the informer no longer has.
    obj: Option<Arc<Object>>,
    pub name: Arc<str>,
    pub allocatable: Resources,
    /// `status.allocatable.pods`.
    pub allowed_pods: i64,
    /// The sum of the pods' requests.
    pub requested: Resources,
    /// The sum of the pods' cpu and memory requests with the non-zero defaults (for scoring).
    pub non_zero_requested: (i64, i64),
    /// The pods on the node, by `namespace/name`.
    pub pods: BTreeMap<String, Arc<PodInfo>>,
    /// (protocol, port) → host IP → how many pods hold it.
    used_ports: BTreeMap<(String, i32), BTreeMap<String, u32>>,
    /// Image name (as the node reports it) → size in bytes.
    pub images: BTreeMap<String, i64>,
    /// Copied from the Node so the filters read them without reaching into the object.
    taints: Vec<Taint>,
    unschedulable: bool,
}

fn node_of(obj: &Object) -> Option<&Node> {
    match obj {
        Object::Node(n) => Some(n),
        _ => None,
    }
}

impl NodeInfo {
    pub fn new(name: &str) -> NodeInfo {
        NodeInfo {
            obj: None,
            name: Arc::from(name),
            allocatable: Resources::default(),
            allowed_pods: 0,
            requested: Resources::default(),
            non_zero_requested: (0, 0),
            pods: BTreeMap::new(),
            used_ports: BTreeMap::new(),
            images: BTreeMap::new(),
            taints: Vec::new(),
            unschedulable: false,
        }
    }

    /// Sets (or replaces) the Node object.
    pub fn set_node(&mut self, obj: Arc<Object>) {
        if let Some(n) = node_of(&obj) {
            let alloc = n.status.as_ref().and_then(|s| s.allocatable.as_ref());
            self.allocatable = Resources::from_list(alloc);
            self.allowed_pods = alloc
                .and_then(|a| a.get("pods"))
                .map(|q| crate::api::quantity::Quantity::parse_or_zero(&q.0).value_i64())
                .unwrap_or(0);
            self.images = n
                .status
                .as_ref()
                .and_then(|s| s.images.as_ref())
                .into_iter()
                .flatten()
                .flat_map(|img| {
                    let size = img.size_bytes.unwrap_or(0);
                    img.names.iter().flatten().map(move |name| (name.clone(), size))
                })
                .collect();
            let spec = n.spec.as_ref();
            self.taints = spec.and_then(|s| s.taints.clone()).unwrap_or_default();
            self.unschedulable = spec.and_then(|s| s.unschedulable).unwrap_or(false);
        }
        self.obj = Some(obj);
    }

    /// The node is gone from the informer; its pods may still be in the cache.
    pub fn clear_node(&mut self) {
        self.obj = None;
        self.allocatable = Resources::default();
        self.allowed_pods = 0;
        self.images.clear();
        self.taints.clear();
        self.unschedulable = false;
    }

    pub fn has_node(&self) -> bool {
        self.obj.is_some()
    }

    pub fn node(&self) -> Option<&Node> {
        self.obj.as_deref().and_then(node_of)
    }

    pub fn labels(&self) -> Option<&BTreeMap<String, String>> {
        self.node().and_then(|n| n.metadata.labels.as_ref())
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels().and_then(|l| l.get(key)).map(String::as_str)
    }

    pub fn taints(&self) -> &[Taint] {
        &self.taints
    }

    pub fn unschedulable(&self) -> bool {
        self.unschedulable
    }

    pub fn add_pod(&mut self, pod: Arc<PodInfo>) {
        if let Some(old) = self.pods.remove(&pod.key) {
            self.account(&old, -1);
        }
        self.account(&pod, 1);
        self.pods.insert(pod.key.clone(), pod);
    }

    pub fn remove_pod(&mut self, key: &str) -> Option<Arc<PodInfo>> {
        let pod = self.pods.remove(key)?;
        self.account(&pod, -1);
        Some(pod)
    }

    fn account(&mut self, pod: &PodInfo, sign: i64) {
        if sign > 0 {
            self.requested.add(&pod.requests);
        } else {
            self.requested.sub(&pod.requests);
        }
        self.non_zero_requested.0 += sign * pod.non_zero.0;
        self.non_zero_requested.1 += sign * pod.non_zero.1;
        for hp in &pod.host_ports {
            let ips = self.used_ports.entry((hp.protocol.clone(), hp.port)).or_default();
            let count = ips.entry(hp.ip.clone()).or_default();
            if sign > 0 {
                *count += 1;
            } else {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    ips.remove(&hp.ip);
                }
            }
            if ips.is_empty() {
                self.used_ports.remove(&(hp.protocol.clone(), hp.port));
            }
        }
    }

    /// Whether `want` collides with a port a pod here holds: `0.0.0.0` collides with every address.
    pub fn port_conflict(&self, want: &HostPort) -> bool {
        let Some(ips) = self.used_ports.get(&(want.protocol.clone(), want.port)) else { return false };
        want.ip == "0.0.0.0" || ips.contains_key("0.0.0.0") || ips.contains_key(&want.ip)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(yaml: &str) -> Arc<PodInfo> {
        let value: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
        Arc::new(PodInfo::new(&Arc::new(Object::Pod(serde_json::from_value(value).unwrap()))).unwrap())
    }

    #[test]
    fn adding_and_removing_pods_keeps_the_sums_and_ports() {
        let mut n = NodeInfo::new("n1");
        let a = pod("metadata: {name: a, namespace: d}\nspec:\n  containers:\n  - {name: c, resources: {requests: {cpu: 300m}}, ports: [{containerPort: 80, hostPort: 80}]}\n");
        let b = pod("metadata: {name: b, namespace: d}\nspec:\n  containers:\n  - {name: c}\n");
        n.add_pod(a.clone());
        n.add_pod(b);
        n.add_pod(a);
        assert_eq!(n.pods.len(), 2);
        assert_eq!(n.requested.milli_cpu, 300);
        assert_eq!(n.non_zero_requested.0, 400);
        let port = |ip: &str, p: i32| HostPort { ip: ip.into(), protocol: "TCP".into(), port: p };
        assert!(n.port_conflict(&port("10.0.0.1", 80)));
        assert!(!n.port_conflict(&port("0.0.0.0", 81)));
        n.remove_pod("d/a");
        assert_eq!((n.requested.milli_cpu, n.non_zero_requested.0), (0, 100));
        assert!(!n.port_conflict(&port("0.0.0.0", 80)));
        assert!(n.remove_pod("d/a").is_none());
    }
}
