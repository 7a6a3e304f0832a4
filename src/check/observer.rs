//! The fault simulator's [`Observer`]: after every delivery it turns what just happened into facts for the
//! safety invariants of [`super::invariants`]. It reads only the messages themselves and the cluster's
//! public views (the apiserver's cache, the etcd members' status and stores, the nodes' files), and each
//! check touches only what the step changed: the node a pod write names, the watch an event belongs to, the
//! etcd members when one of them handled something, the Lease or mirror pod that was written.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::invariants::{self as inv, Violation};
use crate::api::{ApiResponse, Kind, Object, Verb, WatchEventType};
use crate::cluster::{Cluster, Observer};
use crate::etcd::EtcdMessage;
use crate::sim::{Command, ComponentId, Envelope, Payload};

/// What a request to the apiserver asked, kept until its answer leaves.
#[derive(Debug, Clone)]
struct Asked {
    verb: Verb,
    resource: &'static str,
    subresource: Option<String>,
    namespace: Option<String>,
    name: Option<String>,
}

/// The first broken invariant of a run, when and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub violation: Violation,
    pub at_ms: u64,
    /// The trace's last deliveries, oldest first, as [`crate::sim::Delivery::line`] writes them.
    pub recent: Vec<String>,
}

/// How many of the trace's last deliveries a failure report shows.
pub const RECENT_LINES: usize = 30;

/// The invariants' state over one run.
#[derive(Default)]
pub struct Checker {
    pub found: Option<Found>,
    /// Facts checked (for the summary).
    pub checks: u64,
    asked: BTreeMap<(ComponentId, u64), Asked>,
    bind_once: inv::BindOnce,
    acked: inv::AckedWrites,
    etcd: inv::EtcdRevisions,
    watches: inv::WatchOrder,
    rv: inv::RvMonotonic,
    leases: inv::SingleLeader,
    dirty_nodes: BTreeSet<String>,
    etcd_dirty: bool,
    ack_from: Option<u64>,
    leader: Option<(usize, u64)>,
}

impl Checker {
    fn record(&mut self, cluster: &Cluster, v: Option<Violation>) {
        self.checks += 1;
        let Some(violation) = v else { return };
        if self.found.is_some() {
            return;
        }
        let trace = &cluster.kernel().trace;
        let names = |d: &crate::sim::Delivery| {
            format!(
                "{} {}",
                d.line(),
                format_args!("({} -> {})", cluster.kernel().name(d.from), cluster.kernel().name(d.to))
            )
        };
        let mut recent: Vec<String> = trace.recent().rev().take(RECENT_LINES).map(names).collect();
        recent.reverse();
        self.found = Some(Found { violation, at_ms: cluster.now().ms(), recent });
    }

    /// Every check that needs the whole state once, at the end of a phase.
    pub fn check_all(&mut self, cluster: &Cluster) {
        self.etcd_dirty = true;
        self.leader = None;
        self.stepped(cluster);
        for node in cluster.config().all_nodes().map(|n| n.name.clone()).collect::<Vec<_>>() {
            let v = node_load(cluster, &node).and_then(|l| inv::node_allocatable(&l));
            self.record(cluster, v);
        }
    }

    fn who(cluster: &Cluster, id: ComponentId) -> String {
        format!("{}#{}", cluster.kernel().name(id), cluster.kernel().slot(id).incarnation)
    }

    fn answered(&mut self, cluster: &Cluster, to: ComponentId, request_id: u64, response: &ApiResponse) {
        let Some(asked) = self.asked.remove(&(to, request_id)) else { return };
        match response {
            ApiResponse::WatchStarted { watch_id, .. } => {
                let who = Self::who(cluster, to);
                self.watches.started(&who, *watch_id, asked.resource, watch_scope(cluster, *watch_id));
            }
            ApiResponse::Object(o) if is_write(asked.verb) => self.write_acked(cluster, &asked, o),
            _ => {}
        }
    }

    fn write_acked(&mut self, cluster: &Cluster, asked: &Asked, o: &Object) {
        let binding = asked.resource == "pods" && asked.subresource.as_deref() == Some("binding");
        if binding {
            let pod = asked.name.as_deref().and_then(|n| {
                cluster.apiserver().and_then(|a| a.cache().get(Kind::Pod, asked.namespace.as_deref(), n))
            });
            if let Some(pod) = pod {
                let uid = pod.meta().uid.clone().unwrap_or_default();
                let v = self.bind_once.bind_acked(&uid, &pod.ns_name());
                self.record(cluster, v);
            }
            return;
        }
        if !o.info().stored || o.kind() == Kind::Event {
            // Events are written without a check here: they churn, and nothing reads them back as truth.
            return;
        }
        let rev = o.resource_version();
        let uid = o.meta().uid.clone().unwrap_or_default();
        self.acked.ack(&o.key(), rev);
        self.ack_from = Some(self.ack_from.map_or(rev, |f| f.min(rev)));
        let v = self.rv.acked(&uid, &o.ns_name(), rev);
        self.record(cluster, v);
        match o {
            Object::Pod(p) => {
                let node = p.spec.as_ref().and_then(|s| s.node_name.as_deref());
                let v = self.bind_once.pod_seen(&uid, &o.ns_name(), node);
                self.record(cluster, v);
                if let Some(n) = node {
                    self.dirty_nodes.insert(n.to_string());
                }
                if let Some(mirror_of) = crate::node::static_pods::mirror_of(p) {
                    let v = mirror_check(cluster, p, mirror_of);
                    self.record(cluster, v);
                }
            }
            Object::Node(_) => {
                self.dirty_nodes.insert(o.name().to_string());
            }
            // Leader election Leases; kube-apiserver's identity Lease is not one: a restarted apiserver
            // takes its own over at once with a new holder, as v1.34's does.
            Object::Lease(l) if o.namespace() == Some("kube-system") && !identity_lease(o) => {
                if let Some(record) = lease_record(l) {
                    let v = self.leases.written(o.name(), record, cluster.now().ms());
                    self.record(cluster, v);
                }
            }
            _ => {}
        }
    }
}

/// What a client watch covers, from the apiserver's record of the watch: its resource's etcd key prefix,
/// and its selectors when it has any.
fn watch_scope(cluster: &Cluster, watch_id: u64) -> Option<inv::Scope> {
    let w = cluster.apiserver()?.cache().watcher(watch_id)?;
    let every = w.labels.is_empty() && w.fields.terms.is_empty();
    Some(inv::Scope { prefix: w.kind.info().prefix(w.namespace.as_deref()), selector: (!every).then(|| w.clone()) })
}

fn is_write(v: Verb) -> bool {
    matches!(v, Verb::Create | Verb::Update | Verb::Patch | Verb::Delete)
}

impl Observer for Checker {
    fn delivering(&mut self, cluster: &Cluster, env: &Envelope) {
        match &env.payload {
            Payload::ApiRequest { request_id, request } if env.to == cluster.apiserver_id() => {
                let resource = request.resource.resource;
                let who = Self::who(cluster, env.from);
                match request.verb {
                    Verb::List => self.watches.listed(&who, resource),
                    Verb::Watch => {
                        let from = request.params.resource_version.as_deref().and_then(|r| r.parse().ok());
                        let v = self.watches.watch_requested(&who, resource, from);
                        self.record(cluster, v);
                    }
                    _ => {}
                }
                self.asked.insert(
                    (env.from, *request_id),
                    Asked {
                        verb: request.verb,
                        resource,
                        subresource: request.subresource.clone(),
                        namespace: request.namespace.clone(),
                        name: request.name.clone(),
                    },
                );
            }
            Payload::Etcd(EtcdMessage::WatchEvents { events, .. }) if env.to == cluster.apiserver_id() => {
                for e in events {
                    let (old, new) = match e.kind {
                        crate::etcd::EventType::Delete => (Some(Arc::clone(&e.kv.value)), None),
                        _ => (e.prev.as_ref().map(|p| Arc::clone(&p.value)), Some(Arc::clone(&e.kv.value))),
                    };
                    self.watches.committed(e.kv.mod_revision, &e.kv.key, old, new);
                }
            }
            Payload::WatchEvent { watch_id, event } if env.from == cluster.apiserver_id() => {
                let who = Self::who(cluster, env.to);
                if !self.watches.knows(&who, *watch_id) {
                    // A watch opened before the checker was attached (at install).
                    if let Some(w) = cluster.apiserver().and_then(|a| a.cache().watcher(*watch_id)) {
                        self.watches.started(&who, *watch_id, w.kind.info().resource, watch_scope(cluster, *watch_id));
                    }
                }
                let gone = event.status.as_ref().is_some_and(|s| s.code == 410);
                let v = self.watches.event(&who, *watch_id, event.kind.as_str(), event.resource_version, gone);
                self.record(cluster, v);
                if let (Some(Object::Pod(p)), WatchEventType::Added | WatchEventType::Modified) =
                    (event.object.as_deref(), event.kind)
                {
                    let uid = p.metadata.uid.clone().unwrap_or_default();
                    let node = p.spec.as_ref().and_then(|s| s.node_name.as_deref());
                    let key = format!(
                        "{}/{}",
                        p.metadata.namespace.as_deref().unwrap_or(""),
                        p.metadata.name.as_deref().unwrap_or("")
                    );
                    let v = self.bind_once.pod_seen(&uid, &key, node);
                    self.record(cluster, v);
                }
            }
            _ => {}
        }
    }

    fn handled(&mut self, cluster: &Cluster, who: ComponentId, was_running: bool, commands: &[Command]) {
        let sends = commands.iter().filter(|c| matches!(c, Command::Send { .. })).count();
        let v = inv::stopped_silent(cluster.kernel().name(who), was_running, sends);
        self.record(cluster, v);
        if cluster.etcd_index(who).is_some() || commands.iter().any(|c| matches!(c, Command::Lifecycle { .. })) {
            self.etcd_dirty = true;
        }
        if who != cluster.apiserver_id() {
            return;
        }
        for c in commands {
            if let Command::Send { to, payload: Payload::ApiResponse { request_id, response, .. }, .. } = c {
                self.answered(cluster, *to, *request_id, response);
            }
        }
    }

    fn stepped(&mut self, cluster: &Cluster) {
        for node in std::mem::take(&mut self.dirty_nodes) {
            let v = node_load(cluster, &node).and_then(|l| inv::node_allocatable(&l));
            self.record(cluster, v);
        }
        if std::mem::take(&mut self.etcd_dirty) {
            let (views, leader) = member_views(cluster);
            let leader_term_at = |i: u64| leader.and_then(|l| cluster.etcd_member(l)).and_then(|m| m.log_term_at(i));
            let v = self.etcd.observe(&views, &leader_term_at);
            self.record(cluster, v);
            let now = leader.and_then(|l| cluster.etcd_member(l).map(|m| (l, m.term())));
            if now.is_some() && now != self.leader {
                // A new leader (or term): every acknowledged write must be in its history.
                self.leader = now;
                self.ack_from = Some(0);
            }
        }
        if let Some(from) = self.ack_from {
            if let Some(m) = self.leader.and_then(|(l, _)| cluster.etcd_member(l)) {
                if cluster.etcd_running(self.leader.map_or(0, |l| l.0)) {
                    self.ack_from = None;
                    let v = self.acked.check(m.store(), from, cluster.now().ms());
                    self.record(cluster, v);
                    if let Some(rev) = self.acked.retry_from() {
                        self.ack_from = Some(self.ack_from.map_or(rev, |f| f.min(rev)));
                    }
                }
            }
        }
    }
}

fn member_views(cluster: &Cluster) -> (Vec<inv::MemberView>, Option<usize>) {
    let mut views = Vec::new();
    let mut leader: Option<(u64, usize)> = None;
    for i in 0..cluster.config().etcd_members.max(1) as usize {
        let Some(m) = cluster.etcd_member(i) else { continue };
        let running = cluster.etcd_running(i);
        let is_leader = m.role() == crate::etcd::member::Role::Leader;
        if running && is_leader && leader.is_none_or(|(t, _)| m.term() > t) {
            leader = Some((m.term(), i));
        }
        views.push(inv::MemberView {
            index: i,
            running,
            leader: is_leader,
            term: m.term(),
            applied_revision: m.applied_revision(),
            commit: m.commit_index(),
            commit_term: m.log_term_at(m.commit_index()),
        });
    }
    (views, leader.map(|(_, i)| i))
}

/// A node's bound pods that are not finished (the kubelet admits or rejects each; a rejected pod is Failed)
/// against its allocatable.
fn node_load(cluster: &Cluster, node: &str) -> Option<inv::NodeLoad> {
    let cache = cluster.apiserver()?.cache();
    let Object::Node(n) = cache.get(Kind::Node, None, node)?.as_ref().clone() else { return None };
    let allocatable = n.status.as_ref()?.allocatable.as_ref()?;
    let alloc = crate::scheduler::podinfo::Resources::from_list(Some(allocatable));
    let alloc_pods = allocatable.get("pods").and_then(|q| q.0.parse::<i64>().ok()).unwrap_or(i64::MAX);
    let mut load = inv::NodeLoad {
        node: node.to_string(),
        allocatable_cpu_m: alloc.milli_cpu,
        allocatable_memory: alloc.memory,
        allocatable_pods: alloc_pods,
        ..Default::default()
    };
    for pod in cache.pods_on(node) {
        let Object::Pod(p) = pod.as_ref() else { continue };
        let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
        if matches!(phase, Some("Succeeded" | "Failed")) {
            continue;
        }
        let r = crate::scheduler::podinfo::pod_requests(p, false);
        load.cpu_m += r.milli_cpu;
        load.memory += r.memory;
        load.pods += 1;
    }
    Some(load)
}

fn identity_lease(o: &Object) -> bool {
    o.meta().labels.as_ref().is_some_and(|l| l.contains_key(crate::apiserver::identity::COMPONENT_LABEL))
}

fn lease_record(l: &crate::api::api::coordination::v1::Lease) -> Option<inv::LeaseRecord> {
    let spec = l.spec.as_ref()?;
    let renew = spec.renew_time.as_ref().and_then(|t| serde_json::to_value(t).ok())?;
    Some(inv::LeaseRecord {
        holder: spec.holder_identity.clone().unwrap_or_default(),
        renew_ms: micro_time_ms(renew.as_str()?)?,
        duration_ms: u64::try_from(spec.lease_duration_seconds.unwrap_or(0)).unwrap_or(0) * 1000,
    })
}

/// `2025-09-01T00:00:12.345678Z` → simulated ms.
pub fn micro_time_ms(text: &str) -> Option<u64> {
    let whole = text.get(..19)?;
    let base = crate::sim::time::parse_rfc3339(&format!("{whole}Z"))?.ms();
    let frac = text.get(19..).unwrap_or("").trim_start_matches('.').trim_end_matches('Z');
    let ms = frac.get(..frac.len().min(3)).unwrap_or("");
    let ms = if ms.is_empty() { 0 } else { format!("{ms:0<3}").parse::<u64>().ok()? };
    Some(base + ms)
}

fn mirror_check(cluster: &Cluster, p: &crate::api::api::core::v1::Pod, mirror_of: &str) -> Option<Violation> {
    let name = p.metadata.name.as_deref().unwrap_or("");
    let bound = p.spec.as_ref().and_then(|s| s.node_name.as_deref());
    let node = cluster
        .config()
        .all_nodes()
        .map(|n| n.name.clone())
        .find(|n| name.ends_with(&format!("-{}", n.to_lowercase())))?;
    let fs = cluster.node_fs(&node)?;
    let read = crate::node::static_pods::read(&fs, "/etc/kubernetes/manifests", &node, "");
    let key = format!("{}/{name}", p.metadata.namespace.as_deref().unwrap_or(""));
    let hash = read.pods.iter().find(|s| s.key == key).map(|s| s.uid.clone());
    inv::static_pod_mirror(name, &node, bound, mirror_of, hash.as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn micro_times_read_back_to_the_millisecond() {
        let t = crate::sim::SimTime::ZERO.plus_ms(12_345);
        let text = t.rfc3339().replace('Z', ".345678Z");
        assert_eq!(micro_time_ms(&text), Some(12_345));
        assert_eq!(micro_time_ms(&crate::sim::SimTime::ZERO.plus_ms(9_000).rfc3339()), Some(9_000));
        assert_eq!(micro_time_ms("garbage"), None);
    }
}
