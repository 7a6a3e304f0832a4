//! The convergence checks ("eventually"): once the faults end and everything is started again, within
//! [`BOUND_MS`] every one of these must hold, and keep holding for [`HOLD_MS`]. Each reads what the cluster
//! holds (the apiserver's cache of etcd, the control-plane node's manifests) and returns a sentence per
//! thing that does not hold yet.

use std::collections::BTreeSet;

use crate::api::{Kind, Object, RESOURCES};
use crate::cluster::Cluster;

/// How long after the faults end the cluster has to converge.
pub const BOUND_MS: u64 = 600_000;
/// How long every check must keep holding once they all hold.
pub const HOLD_MS: u64 = 30_000;
/// How often the checks are evaluated.
pub const POLL_MS: u64 = 5_000;

/// The convergence checks by name, in the order the README lists them.
pub const CHECKS: [&str; 8] = [
    "nodes-ready",
    "deployments-available",
    "endpointslices-ready-pods",
    "pods-on-existing-nodes",
    "quota-used",
    "leader-leases-held",
    "nothing-stuck-terminating",
    "static-pods-mirrored",
];

/// Every check that does not hold now: (check name, what is off).
pub fn unmet(cluster: &Cluster) -> Vec<(&'static str, String)> {
    let Some(api) = cluster.apiserver() else { return vec![("nodes-ready", "no kube-apiserver".into())] };
    let cache = api.cache();
    let mut out = Vec::new();
    let now = cluster.now().ms();
    let nodes: BTreeSet<String> = cache.list(Kind::Node, None).iter().map(|n| n.name().to_string()).collect();
    for n in cluster.config().all_nodes() {
        let ready = match cache.get(Kind::Node, None, &n.name).as_deref() {
            Some(Object::Node(node)) => node
                .status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
                .map(|c| c.status.clone()),
            _ => None,
        };
        if ready.as_deref() != Some("True") {
            out.push(("nodes-ready", format!("node {} Ready={}", n.name, ready.unwrap_or_else(|| "absent".into()))));
        }
    }
    for d in cache.list(Kind::Deployment, None) {
        let Object::Deployment(dep) = d.as_ref() else { continue };
        if dep.metadata.deletion_timestamp.is_some() {
            continue;
        }
        let want = dep.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
        let st = dep.status.clone().unwrap_or_default();
        let (available, updated) = (st.available_replicas.unwrap_or(0), st.updated_replicas.unwrap_or(0));
        if available != want || updated != want || st.observed_generation != dep.metadata.generation {
            let selector = dep.spec.as_ref().and_then(|s| s.selector.match_labels.clone()).unwrap_or_default();
            let pods: Vec<String> = cache
                .list(Kind::Pod, d.namespace())
                .iter()
                .filter_map(|p| match p.as_ref() {
                    Object::Pod(p) => Some(p),
                    _ => None,
                })
                .filter(|p| {
                    let labels = p.metadata.labels.clone().unwrap_or_default();
                    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
                })
                .map(|p| pod_line(p))
                .collect();
            out.push((
                "deployments-available",
                format!(
                    "deployment {}: {available} available, {updated} updated of {want}; pods: {}",
                    d.ns_name(),
                    pods.join("; ")
                ),
            ));
        }
    }
    out.extend(endpoints(cluster).into_iter().map(|e| ("endpointslices-ready-pods", e)));
    for p in cache.list(Kind::Pod, None) {
        let Object::Pod(pod) = p.as_ref() else { continue };
        if let Some(node) = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) {
            if !nodes.contains(node) {
                out.push(("pods-on-existing-nodes", format!("pod {} is bound to missing node {node}", p.ns_name())));
            }
        }
    }
    out.extend(quota(cluster).into_iter().map(|e| ("quota-used", e)));
    for name in ["kube-scheduler", "kube-controller-manager", "cloud-controller-manager"] {
        if let Some(Object::Lease(l)) = cache.get(Kind::Lease, Some("kube-system"), name).as_deref() {
            let held = l
                .spec
                .as_ref()
                .filter(|s| s.holder_identity.as_deref().is_some_and(|h| !h.is_empty()))
                .and_then(|s| {
                    let renew = serde_json::to_value(s.renew_time.as_ref()?).ok()?;
                    let renew = super::observer::micro_time_ms(renew.as_str()?)?;
                    Some(renew + u64::try_from(s.lease_duration_seconds.unwrap_or(0)).unwrap_or(0) * 1000 >= now)
                })
                .unwrap_or(false);
            if !held {
                out.push(("leader-leases-held", format!("Lease kube-system/{name} is not held")));
            }
        }
    }
    for info in RESOURCES.iter().filter(|r| r.stored) {
        for o in cache.list(info.kind, None) {
            let m = o.meta();
            if m.deletion_timestamp.is_some() && m.finalizers.as_ref().is_none_or(Vec::is_empty) {
                out.push(("nothing-stuck-terminating", format!("{} {} is terminating", info.resource, o.ns_name())));
            }
        }
    }
    out.extend(mirrors(cluster).into_iter().map(|e| ("static-pods-mirrored", e)));
    out
}

/// `web-1 on node01 Running ready=False (ContainerCreating)`: a pod's state in one line.
fn pod_line(p: &crate::api::api::core::v1::Pod) -> String {
    let st = p.status.clone().unwrap_or_default();
    let ready = st.conditions.iter().flatten().find(|c| c.type_ == "Ready").map_or("-".into(), |c| c.status.clone());
    let waiting: Vec<String> = st
        .container_statuses
        .iter()
        .flatten()
        .filter_map(|c| c.state.as_ref()?.waiting.as_ref()?.reason.clone())
        .collect();
    format!(
        "{} on {} {} ready={ready}{}{}",
        p.metadata.name.as_deref().unwrap_or(""),
        p.spec.as_ref().and_then(|s| s.node_name.as_deref()).unwrap_or("(unbound)"),
        st.phase.as_deref().unwrap_or("-"),
        if waiting.is_empty() { String::new() } else { format!(" ({})", waiting.join(",")) },
        if p.metadata.deletion_timestamp.is_some() { " terminating" } else { "" }
    )
}

/// Each Service with a selector: its EndpointSlices' ready addresses are exactly its ready pods' IPs.
fn endpoints(cluster: &Cluster) -> Vec<String> {
    let Some(api) = cluster.apiserver() else { return Vec::new() };
    let cache = api.cache();
    let mut out = Vec::new();
    let pods = cache.list(Kind::Pod, None);
    let slices = cache.list(Kind::EndpointSlice, None);
    for s in cache.list(Kind::Service, None) {
        let Object::Service(svc) = s.as_ref() else { continue };
        let Some(selector) = svc.spec.as_ref().and_then(|s| s.selector.clone()).filter(|s| !s.is_empty()) else {
            continue;
        };
        let ns = s.namespace().unwrap_or("default");
        let want: BTreeSet<String> = pods
            .iter()
            .filter_map(|p| match p.as_ref() {
                Object::Pod(p) if p.metadata.namespace.as_deref() == Some(ns) => Some(p),
                _ => None,
            })
            .filter(|p| {
                let labels = p.metadata.labels.clone().unwrap_or_default();
                selector.iter().all(|(k, v)| labels.get(k) == Some(v))
            })
            .filter(|p| p.metadata.deletion_timestamp.is_none())
            .filter(|p| {
                p.status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
            })
            .filter_map(|p| p.status.as_ref().and_then(|s| s.pod_ip.clone()))
            .collect();
        let mut have = BTreeSet::new();
        for sl in &slices {
            let Object::EndpointSlice(slice) = sl.as_ref() else { continue };
            let owner = slice.metadata.labels.as_ref().and_then(|l| l.get("kubernetes.io/service-name"));
            if slice.metadata.namespace.as_deref() != Some(ns) || owner.map(String::as_str) != Some(s.name()) {
                continue;
            }
            for e in &slice.endpoints {
                if e.conditions.as_ref().and_then(|c| c.ready) == Some(true) {
                    have.extend(e.addresses.iter().cloned());
                }
            }
        }
        if have != want {
            out.push(format!("service {}: EndpointSlices list {have:?}, ready pods are {want:?}", s.ns_name()));
        }
    }
    out
}

/// Each ResourceQuota's `used` counts equal what exists in its namespace.
fn quota(cluster: &Cluster) -> Vec<String> {
    let now = cluster.now().ms();
    let Some(api) = cluster.apiserver() else { return Vec::new() };
    let cache = api.cache();
    let mut out = Vec::new();
    for q in cache.list(Kind::ResourceQuota, None) {
        let Object::ResourceQuota(rq) = q.as_ref() else { continue };
        let ns = q.namespace().unwrap_or("default");
        let used = rq.status.as_ref().and_then(|s| s.used.clone()).unwrap_or_default();
        let hard = rq.spec.as_ref().and_then(|s| s.hard.clone()).unwrap_or_default();
        for key in hard.keys() {
            let exists = match key.as_str() {
                "pods" => cache
                    .list(Kind::Pod, Some(ns))
                    .iter()
                    .filter(|p| match p.as_ref() {
                        // As the quota's pod evaluator counts: not finished, and not past its deletion time.
                        Object::Pod(p) => {
                            let finished = matches!(
                                p.status.as_ref().and_then(|s| s.phase.as_deref()),
                                Some("Succeeded" | "Failed")
                            );
                            let deleted = p.metadata.deletion_timestamp.as_ref().is_some_and(|t| {
                                serde_json::to_value(t)
                                    .ok()
                                    .and_then(|v| crate::sim::time::parse_rfc3339(v.as_str()?).map(|t| t.ms() <= now))
                                    == Some(true)
                            });
                            !finished && !deleted
                        }
                        _ => false,
                    })
                    .count(),
                "services" => cache.list(Kind::Service, Some(ns)).len(),
                "configmaps" => cache.list(Kind::ConfigMap, Some(ns)).len(),
                "persistentvolumeclaims" => cache.list(Kind::PersistentVolumeClaim, Some(ns)).len(),
                _ => continue,
            };
            let counted = used.get(key).map(|q| q.0.clone()).unwrap_or_else(|| "absent".into());
            if counted != exists.to_string() {
                out.push(format!("quota {}: used {key} is {counted}, {exists} exist", q.ns_name()));
            }
        }
    }
    out
}

/// Every manifest on the control-plane node has its mirror pod, with the manifest's hash, and no mirror pod
/// is left without its manifest.
fn mirrors(cluster: &Cluster) -> Vec<String> {
    let Some(api) = cluster.apiserver() else { return Vec::new() };
    let cache = api.cache();
    let node = cluster.config().control_plane.name.clone();
    let Some(fs) = cluster.node_fs(&node) else { return Vec::new() };
    let read = crate::node::static_pods::read(&fs, "/etc/kubernetes/manifests", &node, "");
    let mut out = Vec::new();
    let mut expected = BTreeSet::new();
    for s in &read.pods {
        expected.insert(s.key.clone());
        let (ns, name) = s.key.split_once('/').unwrap_or(("kube-system", &s.key));
        match cache.get(Kind::Pod, Some(ns), name).as_deref() {
            Some(Object::Pod(p)) if crate::node::static_pods::mirror_of(p) == Some(s.uid.as_str()) => {}
            Some(_) => out.push(format!("mirror pod {} does not name its manifest's hash {}", s.key, s.uid)),
            None => out.push(format!("manifest {} has no mirror pod {}", s.path, s.key)),
        }
    }
    for p in cache.list(Kind::Pod, None) {
        if let Object::Pod(pod) = p.as_ref() {
            let on_node = pod.spec.as_ref().and_then(|s| s.node_name.as_deref()) == Some(node.as_str());
            if on_node && crate::node::static_pods::mirror_of(pod).is_some() && !expected.contains(&p.ns_name()) {
                out.push(format!("mirror pod {} has no manifest on {node}", p.ns_name()));
            }
        }
    }
    out
}
