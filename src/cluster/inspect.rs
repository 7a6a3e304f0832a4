//! What the UI's inspectors read: one request's data flow, any object as YAML, the etcd browser, the
//! scheduler's decision table, kube-proxy's rules, the event stream and kubectl completion. All of it is
//! read-only: looking changes nothing in the cluster.

use super::Cluster;
use crate::api::Kind;
use crate::kubectl::complete::{complete, Completion, Names};
use crate::view::decision::{decision_view, DecisionView};
use crate::view::etcd_browser::{key_view, level, EtcdKeyView, EtcdLevel};
use crate::view::events::{events_view, EventsView};
use crate::view::flow::{flow, FlowView};
use crate::view::object::{object_names, object_view, ObjectView};

/// Completion asks for at most this many names of a kind.
const NAMES_MAX: usize = 500;

impl Names for Cluster {
    fn names(&self, kind: Kind, namespace: Option<&str>) -> Vec<String> {
        let Some(a) = self.apiserver() else { return Vec::new() };
        a.cache().list(kind, namespace).iter().take(NAMES_MAX).map(|o| o.name().to_string()).collect()
    }
}

impl Cluster {
    /// The numbered steps of `chain` and the path of each of its requests through the apiserver.
    pub fn flow(&self, chain: u64) -> FlowView {
        let records = self.apiserver().map(|a| a.requests().for_chain(chain)).unwrap_or_default();
        flow(&self.kernel, records, chain)
    }

    /// One stored object as YAML with its owners (`resource` as kubectl accepts it).
    pub fn object_view(&self, resource: &str, namespace: Option<&str>, name: &str) -> Result<ObjectView, String> {
        let a = self.apiserver().ok_or("kube-apiserver is not part of this cluster")?;
        object_view(a.cache(), resource, namespace, name, self.now())
    }

    /// Up to `max` stored objects of `resource`, as `namespace/name`.
    pub fn object_names(&self, resource: &str, max: usize) -> Vec<String> {
        self.apiserver().map(|a| object_names(a.cache(), resource, max)).unwrap_or_default()
    }

    /// The member whose store the etcd browser reads: the running one furthest ahead (the leader, normally).
    fn browsed_member(&self) -> Option<usize> {
        (0..self.etcd.len())
            .filter_map(|i| self.etcd_member(i).map(|m| (i, m)))
            .max_by_key(|(i, m)| (self.kernel.is_running(self.etcd[*i]), m.store().revision(), std::cmp::Reverse(*i)))
            .map(|(i, _)| i)
    }

    /// The etcd keys directly under `prefix` (folders and keys).
    pub fn etcd_level(&self, prefix: &str) -> EtcdLevel {
        match self.browsed_member().and_then(|i| self.etcd_member(i)) {
            Some(m) => level(m.store(), prefix),
            None => EtcdLevel { prefix: prefix.to_string(), ..EtcdLevel::default() },
        }
    }

    /// One etcd key's value and revisions, and which member holds which revision of it.
    pub fn etcd_key(&self, key: &str) -> Option<EtcdKeyView> {
        let browsed = self.etcd_member(self.browsed_member()?)?;
        let members: Vec<_> = (0..self.etcd.len())
            .filter_map(|i| self.etcd_member(i).map(|m| (m, self.kernel.is_running(self.etcd[i]))))
            .collect();
        key_view(browsed.store(), &members, key)
    }

    /// kube-scheduler's decision table for the pod `namespace/name`.
    pub fn decision_view(&self, pod: &str) -> Result<DecisionView, String> {
        let running = self.kernel.id("kube-scheduler").is_some_and(|id| self.kernel.is_running(id));
        match self.scheduler().and_then(|s| s.decision(pod)) {
            Some(d) => Ok(decision_view(d)),
            None => Err(format!(
                "kube-scheduler has not tried to schedule {pod}{}",
                if running { "" } else { " (kube-scheduler is stopped)" }
            )),
        }
    }

    /// The cluster's Events, newest first.
    pub fn events_view(&self) -> EventsView {
        self.apiserver().map(|a| events_view(a.cache(), self.now())).unwrap_or_default()
    }

    /// Whether `node`'s kube-proxy runs (its rules stay in the kernel either way).
    pub fn kube_proxy_running(&self, node: &str) -> bool {
        self.kernel.id(&format!("{node}/kube-proxy")).is_some_and(|id| self.kernel.is_running(id))
    }

    /// Tab completion of a kubectl line at char `cursor`.
    pub fn complete(&self, line: &str, cursor: usize) -> Completion {
        complete(line, cursor, &self.namespace, self)
    }

    /// The node names, control plane first.
    pub fn node_names(&self) -> Vec<String> {
        self.config.all_nodes().map(|n| n.name.clone()).collect()
    }
}
