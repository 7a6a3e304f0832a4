//! The cluster: builds the kernel and every component of a scenario's cluster, dispatches each delivery to
//! its receiver, runs the clock, and answers the UI and the CLI (views, stop/start, kubectl).

use crate::sim::{Kernel, SimTime};
use crate::view::{ComponentView, View};

/// A whole simulated cluster.
pub struct Cluster {
    kernel: Kernel,
    roles: Vec<(String, Option<String>)>,
}

impl Cluster {
    /// The default cluster (controlplane, node01, node02; one etcd member) with this seed.
    pub fn new_default(seed: u64) -> Cluster {
        let mut kernel = Kernel::new(seed);
        let mut roles = Vec::new();
        for name in [
            "etcd-0",
            "kube-apiserver",
            "kube-scheduler",
            "kube-controller-manager",
        ] {
            kernel.register(name);
            roles.push((
                if name.starts_with("etcd") {
                    "etcd"
                } else {
                    "control-plane"
                }
                .to_string(),
                Some("controlplane".to_string()),
            ));
        }
        for node in ["controlplane", "node01", "node02"] {
            for part in ["kubelet", "containerd", "kube-proxy"] {
                kernel.register(&format!("{node}/{part}"));
                roles.push(("node".to_string(), Some(node.to_string())));
            }
        }
        Cluster { kernel, roles }
    }

    pub fn now(&self) -> SimTime {
        self.kernel.now()
    }

    /// Runs every event up to `ms` milliseconds from now and moves the clock there.
    pub fn advance_ms(&mut self, ms: u64) {
        let until = self.kernel.now().plus_ms(ms);
        while self.kernel.next_time().is_some_and(|t| t <= until) {
            if self.kernel.pop().is_none() {
                break;
            }
        }
        self.kernel.advance_to(until);
    }

    /// Stops a running component or starts a stopped one, by its scenario name.
    pub fn toggle(&mut self, name: &str) -> Result<bool, String> {
        let id = self
            .kernel
            .id(name)
            .ok_or_else(|| format!("unknown component {name:?}"))?;
        if self.kernel.is_running(id) {
            self.kernel.stop(id);
            Ok(false)
        } else {
            self.kernel.start(id);
            Ok(true)
        }
    }

    /// What the UI draws now.
    pub fn view(&self) -> View {
        let components = self
            .kernel
            .slots()
            .zip(&self.roles)
            .map(|((_, slot), (role, node))| ComponentView {
                name: slot.name.clone(),
                role: role.clone(),
                node: node.clone(),
                running: slot.running,
            })
            .collect();
        View {
            time_ms: self.kernel.now().ms(),
            components,
            ..View::default()
        }
    }
}
