//! The observation hook: what the fault simulator (`crate::check`) sees of a running cluster without reading
//! any component's private memory ad hoc. An [`Observer`] is told of every message just before its receiver
//! gets it, of every handling (which component, whether it was running, what it asked the kernel to do), and of
//! the end of every step; between those calls it may read the cluster through its public, read-only views
//! (the apiserver's cache, the etcd members, the nodes' files). Nothing here changes what the cluster does.

use std::cell::RefCell;
use std::rc::Rc;

use super::Cluster;
use crate::sim::{Command, ComponentId, Envelope};

/// Watches a cluster step by step. Every method has an empty default.
pub trait Observer {
    /// `envelope` is about to be handed to its receiver (running, the incarnation it was sent to).
    fn delivering(&mut self, _cluster: &Cluster, _envelope: &Envelope) {}
    /// Component `who` handled a message, a timer or a call from the cluster and asked for `commands` (not yet
    /// applied); `was_running` says whether it was running when the handling began.
    fn handled(&mut self, _cluster: &Cluster, _who: ComponentId, _was_running: bool, _commands: &[Command]) {}
    /// One delivery or timer was handled and what it asked for was done.
    fn stepped(&mut self, _cluster: &Cluster) {}
}

impl Cluster {
    /// Installs (or with None removes) the observer told of every step from now on.
    pub fn set_observer(&mut self, observer: Option<Rc<RefCell<dyn Observer>>>) {
        self.observer = observer;
    }

    /// The names of every component a person can stop, crash and start (`kube-apiserver`, `etcd-0`,
    /// `node01/kubelet`, …), in registry order: client hosts and systemd are not among them.
    pub fn component_names(&self) -> Vec<String> {
        self.kernel
            .slots()
            .zip(&self.placements)
            .filter(|(_, p)| p.role != "client")
            .map(|((_, slot), _)| slot.name.clone())
            .collect()
    }

    /// Whether the component with this registry name runs now (false for an unknown name).
    pub fn is_running(&self, name: &str) -> bool {
        self.kernel.id(name).is_some_and(|id| self.kernel.is_running(id))
    }

    /// The index of the etcd member this component is, if it is one.
    pub fn etcd_index(&self, id: ComponentId) -> Option<usize> {
        self.etcd.iter().position(|m| *m == id)
    }

    /// Whether etcd member `index` runs now.
    pub fn etcd_running(&self, index: usize) -> bool {
        self.etcd.get(index).is_some_and(|id| self.kernel.is_running(*id))
    }

    /// The kube-apiserver's component id.
    pub fn apiserver_id(&self) -> ComponentId {
        self.apiserver
    }
}
