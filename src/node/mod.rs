//! The node agents: the kubelet (a systemd service, not a pod) and containerd, the container runtime it
//! drives over CRI. Both run on every node, the control-plane node included, and write to their units'
//! journals. The node shell (`on: <node>` steps, `kubeglass shell`) runs systemctl, journalctl, crictl and
//! file commands on a node.

pub mod attach;
pub mod container_output;
pub mod curl;
pub mod exec;
pub mod journal;
pub mod kubelet;
pub mod listeners;
pub mod net;
pub mod os;
pub mod runtime;
pub mod shell;
pub mod static_pods;
pub mod systemd;
pub mod units;
pub mod usage;
pub mod volumes;
pub mod wget;

pub use kubelet::server::{KubeletCall, KubeletMessage, KubeletReply, LogOptions, ResourceMetrics};
pub use kubelet::{Kubelet, KubeletConfig};
pub use runtime::Containerd;
