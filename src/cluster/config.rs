//! The shape of a cluster: its nodes, etcd members, users and whether a cloud provider is present.

use std::collections::BTreeMap;

#[derive(Debug, Clone, PartialEq)]
pub struct NodeConfig {
    pub name: String,
    pub cpu: String,
    pub memory: String,
    pub pods: String,
    pub labels: BTreeMap<String, String>,
    /// `(key, value, effect)`.
    pub taints: Vec<(String, Option<String>, String)>,
}

impl NodeConfig {
    pub fn worker(name: &str) -> NodeConfig {
        NodeConfig {
            name: name.to_string(),
            cpu: "2".into(),
            memory: "4Gi".into(),
            pods: "110".into(),
            labels: BTreeMap::new(),
            taints: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserConfig {
    pub name: String,
    pub token: String,
    pub groups: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClusterConfig {
    pub etcd_members: u8,
    pub cloud: bool,
    /// Whether the metrics-server add-on is installed (`kubectl top`); kubeadm does not install it.
    pub metrics_server: bool,
    pub control_plane: NodeConfig,
    pub nodes: Vec<NodeConfig>,
    /// Users besides `kubernetes-admin` (who always exists, with admin.conf's `kubeadm:cluster-admins` certificate).
    pub users: Vec<UserConfig>,
}

impl Default for ClusterConfig {
    fn default() -> ClusterConfig {
        ClusterConfig {
            etcd_members: 1,
            cloud: false,
            metrics_server: false,
            control_plane: NodeConfig::worker("controlplane"),
            nodes: vec![NodeConfig::worker("node01"), NodeConfig::worker("node02")],
            users: Vec::new(),
        }
    }
}

impl ClusterConfig {
    /// The control-plane node first, then the workers.
    pub fn all_nodes(&self) -> impl Iterator<Item = &NodeConfig> {
        std::iter::once(&self.control_plane).chain(&self.nodes)
    }
}
