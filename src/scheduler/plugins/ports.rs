//! NodePorts: a pod asking for a `hostPort` fits only where no pod already holds that port on the same
//! address (`0.0.0.0` overlapping every address). Counterpart: `pkg/scheduler/framework/plugins/nodeports`.

use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::PodInfo;
use super::Rejection;

pub const ERR_PORTS: &str = "node(s) didn't have free ports for the requested pod ports";

pub fn filter(pod: &PodInfo, node: &NodeInfo) -> Option<Rejection> {
    pod.host_ports.iter().any(|p| node.port_conflict(p)).then(|| Rejection::new("NodePorts", ERR_PORTS, false))
}
