//! A node as its shell sees it ([`crate::node::shell::Node`]), inside the cluster: the node's filesystem,
//! its units (the kubelet and containerd components, started and stopped as systemd would, with systemd's
//! journal lines), containerd's state, and the programs that are simulated processes: `kubectl` (with the
//! admin kubeconfig on the control-plane node; elsewhere there is none, so it tries localhost:8080),
//! `etcdctl` and `etcdutl` (control-plane node only), `iptables-save` and `curl` (through the node's
//! kube-proxy rules, see [`super::network`]).

use std::cell::RefCell;
use std::rc::Rc;

use super::{Cluster, Component};
use crate::node::journal::Journal;
use crate::node::runtime::Containerd;
use crate::node::shell::{Node, Outcome, UnitAction, UnitState};
use crate::node::units::Unit;
use crate::sim::{ComponentId, SimTime};

pub struct NodeShell<'a> {
    cluster: &'a mut Cluster,
    node: String,
    chain: u64,
    limit_ms: u64,
    /// The chain of the last program that sent messages (what `--steps` shows for the line).
    last_chain: u64,
}

impl<'a> NodeShell<'a> {
    pub fn new(cluster: &'a mut Cluster, node: &str, chain: u64, limit_ms: u64) -> NodeShell<'a> {
        NodeShell { cluster, node: node.to_string(), chain, limit_ms, last_chain: chain }
    }

    pub fn last_chain(&self) -> u64 {
        self.last_chain
    }

    fn control_plane(&self) -> bool {
        self.node == self.cluster.config.control_plane.name
    }

    fn unit_id(&self, unit: Unit) -> Option<ComponentId> {
        self.cluster.kernel.id(&format!("{}/{}", self.node, unit.name))
    }
}

/// Words joined back into a command line that splits into the same words.
fn join(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            let plain = !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

impl Node for NodeShell<'_> {
    fn name(&self) -> &str {
        &self.node
    }

    fn now(&self) -> SimTime {
        self.cluster.now()
    }

    fn fs(&self) -> Rc<RefCell<crate::cluster::NodeFs>> {
        self.cluster.node_fs.get(&self.node).cloned().unwrap_or_default()
    }

    fn containerd(&self) -> Option<&Containerd> {
        self.cluster.containerd(&self.node)
    }

    fn containerd_running(&self) -> bool {
        self.unit_id(crate::node::units::CONTAINERD).is_some_and(|id| self.cluster.kernel.is_running(id))
    }

    fn unit_state(&self, unit: Unit) -> UnitState {
        let Some(id) = self.unit_id(unit) else {
            return UnitState { running: false, since: SimTime::ZERO, pid: 0, restarting: false };
        };
        let slot = self.cluster.kernel.slot(id);
        let restarting = match &self.cluster.components[self.cluster.systemd.0 as usize] {
            Component::Systemd(s) => s.restart_pending(&slot.name),
            _ => false,
        };
        UnitState { running: slot.running, since: slot.since, pid: self.cluster.pid_of(id), restarting }
    }

    fn journal(&self, unit: Unit) -> Option<&Journal> {
        match self.unit_id(unit).map(|id| &self.cluster.components[id.0 as usize]) {
            Some(Component::Kubelet(k)) => Some(k.journal()),
            Some(Component::Containerd(c)) => Some(c.journal()),
            _ => None,
        }
    }

    fn unit_action(&mut self, unit: Unit, action: UnitAction) {
        let Some(id) = self.unit_id(unit) else { return };
        self.cluster.cancel_restarts(&[id]);
        if matches!(action, UnitAction::Stop | UnitAction::Restart) {
            self.cluster.stop_ids(&[id]);
        }
        if matches!(action, UnitAction::Start | UnitAction::Restart) {
            self.cluster.start_ids(&[id], self.chain);
        }
    }

    fn process(&mut self, words: &[String], stdin: Option<&str>) -> Option<Outcome> {
        let program = words.first()?.as_str();
        let result = match program {
            "kubectl" if self.control_plane() => {
                self.cluster.deliver_fs_events(&self.node, self.chain);
                self.cluster.kubectl(&join(&words[1..]), stdin.map(str::to_string), self.limit_ms)
            }
            "kubectl" => return Some(Outcome::fail(
                "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n",
                1,
            )),
            // kube-proxy's view of the node: its programmed tables, and connections through them.
            "iptables-save" => {
                let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
                self.cluster.iptables_save_command(&self.node, &args)
            }
            "curl" => {
                self.cluster.deliver_fs_events(&self.node, self.chain);
                let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
                self.cluster.curl(&self.node, &args)
            }
            "etcdctl" | "etcdutl" if self.control_plane() => {
                self.cluster.deliver_fs_events(&self.node, self.chain);
                let node = self.node.clone();
                self.cluster.run_etcdctl(&node, words.to_vec(), self.limit_ms)
            }
            _ => return None,
        };
        self.last_chain = result.chain;
        Some(Outcome { stdout: result.output, stderr: String::new(), exit: result.exit.unwrap_or(130) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_words_split_back_the_same() {
        let words: Vec<String> = ["get", "pods", "-o", "jsonpath={.items[*].metadata.name}", "it's", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let line = join(&words);
        assert_eq!(crate::kubectl::args::split_words(&line), Ok(words));
    }
}
