//! What the scheduler works out once per pod version: the effective requests (and the non-zero ones
//! scoring uses), host ports, priority, the parsed inter-pod (anti-)affinity terms and topology spread
//! constraints. Counterpart: `pkg/scheduler/framework/types.go` (PodInfo, AffinityTerm, Resource) and
//! `k8s.io/component-helpers/resource` (PodRequests).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::api::api::core::v1::{Container, Pod, PodAffinityTerm, PodSpec};
use crate::api::quantity::Quantity;
use crate::api::selector::{LabelSelector, Requirement};
use crate::api::Object;

/// CPU a container without a cpu request counts as when scoring (`DefaultMilliCPURequest`).
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
/// Memory a container without a memory request counts as when scoring (`DefaultMemoryRequest`, 200 MiB).
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

/// Compute resources as the scheduler adds them up (`framework.Resource`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resources {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    /// Extended resources, hugepages and the like, by name.
    pub scalar: BTreeMap<String, i64>,
}

impl Resources {
    /// From a resource list (requests, allocatable); `pods` and `storage` are not compute resources here.
    pub fn from_list(list: Option<&BTreeMap<String, ApiQuantity>>) -> Resources {
        let mut r = Resources::default();
        for (name, q) in list.into_iter().flatten() {
            let q = Quantity::parse_or_zero(&q.0);
            match name.as_str() {
                "cpu" => r.milli_cpu = r.milli_cpu.saturating_add(q.milli_value()),
                "memory" => r.memory = r.memory.saturating_add(q.value_i64()),
                "ephemeral-storage" => r.ephemeral_storage = r.ephemeral_storage.saturating_add(q.value_i64()),
                "pods" | "storage" => {}
                other => *r.scalar.entry(other.to_string()).or_default() += q.value_i64(),
            }
        }
        r
    }

    pub fn add(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.saturating_add(other.milli_cpu);
        self.memory = self.memory.saturating_add(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_add(other.ephemeral_storage);
        for (k, v) in &other.scalar {
            let e = self.scalar.entry(k.clone()).or_default();
            *e = e.saturating_add(*v);
        }
    }

    pub fn sub(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.saturating_sub(other.milli_cpu);
        self.memory = self.memory.saturating_sub(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_sub(other.ephemeral_storage);
        for (k, v) in &other.scalar {
            let e = self.scalar.entry(k.clone()).or_default();
            *e = e.saturating_sub(*v);
        }
    }

    fn max_with(&mut self, other: &Resources) {
        self.milli_cpu = self.milli_cpu.max(other.milli_cpu);
        self.memory = self.memory.max(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.max(other.ephemeral_storage);
        for (k, v) in &other.scalar {
            let e = self.scalar.entry(k.clone()).or_default();
            *e = (*e).max(*v);
        }
    }

    /// Whether nothing at all is requested (a best-effort pod).
    pub fn is_zero(&self) -> bool {
        self.milli_cpu == 0 && self.memory == 0 && self.ephemeral_storage == 0 && self.scalar.values().all(|v| *v == 0)
    }
}

/// One `hostPort` a pod's container asks for (`0.0.0.0` and `TCP` when left out).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HostPort {
    pub ip: String,
    pub protocol: String,
    pub port: i32,
}

/// A pod (anti-)affinity term, parsed: whose pods it selects and over which topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AffinityTerm {
    /// Namespaces listed (or the pod's own when neither namespaces nor a namespace selector is given).
    pub namespaces: BTreeSet<String>,
    /// None: no namespace selector (matches no further namespace); Some(empty): every namespace.
    pub namespace_selector: Option<LabelSelector>,
    /// None: no label selector, which selects no pod.
    pub selector: Option<LabelSelector>,
    pub topology_key: String,
}

impl AffinityTerm {
    fn parse(owner_namespace: &str, term: &PodAffinityTerm) -> AffinityTerm {
        let mut namespaces: BTreeSet<String> = term.namespaces.iter().flatten().cloned().collect();
        if namespaces.is_empty() && term.namespace_selector.is_none() {
            namespaces.insert(owner_namespace.to_string());
        }
        AffinityTerm {
            namespaces,
            namespace_selector: term.namespace_selector.as_ref().and_then(|s| LabelSelector::from_api(s).ok()),
            selector: term.label_selector.as_ref().and_then(|s| LabelSelector::from_api(s).ok()),
            topology_key: term.topology_key.clone(),
        }
    }

    /// Whether a pod in `namespace` with `labels` (its namespace labelled `ns_labels`) is selected.
    pub fn matches(
        &self,
        namespace: &str,
        labels: Option<&BTreeMap<String, String>>,
        ns_labels: Option<&BTreeMap<String, String>>,
    ) -> bool {
        let in_namespace = self.namespaces.contains(namespace)
            || self.namespace_selector.as_ref().is_some_and(|s| s.matches(ns_labels));
        in_namespace && self.selector.as_ref().is_some_and(|s| s.matches(labels))
    }
}

/// A topology spread constraint, parsed (`matchLabelKeys` merged into the selector).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpreadConstraint {
    pub max_skew: i64,
    pub topology_key: String,
    /// `whenUnsatisfiable: DoNotSchedule` (a filter); otherwise ScheduleAnyway (a score).
    pub hard: bool,
    /// None selects no pod.
    pub selector: Option<LabelSelector>,
    pub min_domains: Option<i64>,
    /// `nodeAffinityPolicy: Honor` (the default): only nodes matching the pod's node affinity count.
    pub honor_node_affinity: bool,
    /// `nodeTaintsPolicy: Honor`: only nodes whose taints the pod tolerates count (default Ignore).
    pub honor_taints: bool,
}

/// Everything the plugins read about a pod, worked out once.
#[derive(Debug, Clone)]
pub struct PodInfo {
    pub obj: Arc<Object>,
    /// `namespace/name`.
    pub key: String,
    pub namespace: String,
    pub uid: String,
    pub priority: i32,
    /// Effective requests (containers, init containers and sidecars, overhead).
    pub requests: Resources,
    /// cpu and memory with the non-zero defaults for containers that leave them out (what scoring uses).
    pub non_zero: (i64, i64),
    pub host_ports: Vec<HostPort>,
    pub required_affinity: Vec<AffinityTerm>,
    pub required_anti_affinity: Vec<AffinityTerm>,
    pub preferred_affinity: Vec<(i64, AffinityTerm)>,
    pub preferred_anti_affinity: Vec<(i64, AffinityTerm)>,
    /// Identifies pods with the same namespace and pod (anti-)affinity; None without any.
    pub affinity_signature: Option<String>,
    pub spread: Vec<SpreadConstraint>,
    /// Being deleted (`metadata.deletionTimestamp`).
    pub terminating: bool,
    /// Terminating because the scheduler preempted it (DisruptionTarget, reason PreemptionByScheduler).
    pub preempted: bool,
    /// `status.startTime` in Unix milliseconds.
    pub start_time: Option<i64>,
}

fn spec(pod: &Pod) -> Option<&PodSpec> {
    pod.spec.as_ref()
}

impl PodInfo {
    /// None when `obj` is not a pod.
    pub fn new(obj: &Arc<Object>) -> Option<PodInfo> {
        let Object::Pod(pod) = obj.as_ref() else { return None };
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let key = format!("{namespace}/{}", pod.metadata.name.as_deref().unwrap_or(""));
        let s = spec(pod);
        let requests = pod_requests(pod, false);
        let nz = pod_requests(pod, true);
        let affinity = s.and_then(|s| s.affinity.as_ref());
        let pod_affinity = affinity.and_then(|a| a.pod_affinity.as_ref());
        let pod_anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        let parse_all = |terms: Option<&Vec<PodAffinityTerm>>| -> Vec<AffinityTerm> {
            terms.into_iter().flatten().map(|t| AffinityTerm::parse(&namespace, t)).collect()
        };
        let parse_weighted = |terms: Option<&Vec<k8s_openapi::api::core::v1::WeightedPodAffinityTerm>>| {
            terms
                .into_iter()
                .flatten()
                .map(|t| (i64::from(t.weight), AffinityTerm::parse(&namespace, &t.pod_affinity_term)))
                .collect::<Vec<_>>()
        };
        let required_affinity =
            parse_all(pod_affinity.and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref()));
        let required_anti_affinity =
            parse_all(pod_anti.and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref()));
        let preferred_affinity =
            parse_weighted(pod_affinity.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()));
        let preferred_anti_affinity =
            parse_weighted(pod_anti.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()));
        let affinity_signature = (pod_affinity.is_some() || pod_anti.is_some())
            .then(|| format!("{namespace}\u{0}{pod_affinity:?}\u{0}{pod_anti:?}"));
        let conditions = pod.status.as_ref().and_then(|st| st.conditions.as_ref());
        let preempted = conditions.into_iter().flatten().any(|c| {
            c.type_ == "DisruptionTarget" && c.status == "True" && c.reason.as_deref() == Some("PreemptionByScheduler")
        });
        Some(PodInfo {
            obj: obj.clone(),
            uid: pod.metadata.uid.clone().unwrap_or_default(),
            priority: s.and_then(|s| s.priority).unwrap_or(0),
            non_zero: (nz.milli_cpu, nz.memory),
            requests,
            host_ports: host_ports(pod),
            required_affinity,
            required_anti_affinity,
            preferred_affinity,
            preferred_anti_affinity,
            affinity_signature,
            spread: spread_constraints(pod),
            terminating: pod.metadata.deletion_timestamp.is_some(),
            preempted,
            start_time: pod.status.as_ref().and_then(|st| st.start_time.as_ref()).map(|t| t.0.as_millisecond()),
            key,
            namespace,
        })
    }

    pub fn pod(&self) -> &Pod {
        match self.obj.as_ref() {
            Object::Pod(p) => p,
            _ => unreachable_pod(),
        }
    }

    pub fn labels(&self) -> Option<&BTreeMap<String, String>> {
        self.pod().metadata.labels.as_ref()
    }

    pub fn name(&self) -> &str {
        self.obj.name()
    }

    /// The node the pod is bound to (`spec.nodeName`), if any.
    pub fn node_name(&self) -> Option<&str> {
        spec(self.pod()).and_then(|s| s.node_name.as_deref()).filter(|n| !n.is_empty())
    }

    pub fn has_affinity(&self) -> bool {
        self.affinity_signature.is_some()
    }

    /// `preemptionPolicy: Never`.
    pub fn never_preempts(&self) -> bool {
        spec(self.pod()).and_then(|s| s.preemption_policy.as_deref()) == Some("Never")
    }
}

/// PodInfo is only built from pods (`PodInfo::new` checks), so this cannot be reached.
fn unreachable_pod() -> &'static Pod {
    static EMPTY: std::sync::OnceLock<Pod> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Pod::default)
}

fn container_requests(c: &Container, non_missing: bool) -> Resources {
    let list = c.resources.as_ref().and_then(|r| r.requests.as_ref());
    let mut r = Resources::from_list(list);
    if non_missing {
        if !list.is_some_and(|l| l.contains_key("cpu")) {
            r.milli_cpu += DEFAULT_MILLI_CPU_REQUEST;
        }
        if !list.is_some_and(|l| l.contains_key("memory")) {
            r.memory += DEFAULT_MEMORY_REQUEST;
        }
    }
    r
}

/// The pod's requests as `resourcehelper.PodRequests` adds them: the containers, sidecars (restartable init
/// containers) on top, at least each init container (with the sidecars started before it), plus overhead.
/// With `non_missing`, containers without a cpu or memory request count the defaults.
pub fn pod_requests(pod: &Pod, non_missing: bool) -> Resources {
    let Some(spec) = spec(pod) else { return Resources::default() };
    let mut total = Resources::default();
    for c in &spec.containers {
        total.add(&container_requests(c, non_missing));
    }
    let mut sidecars = Resources::default();
    let mut init_max = Resources::default();
    for c in spec.init_containers.iter().flatten() {
        let r = container_requests(c, non_missing);
        if c.restart_policy.as_deref() == Some("Always") {
            total.add(&r);
            sidecars.add(&r);
            init_max.max_with(&sidecars);
        } else {
            let mut with_sidecars = r;
            with_sidecars.add(&sidecars);
            init_max.max_with(&with_sidecars);
        }
    }
    total.max_with(&init_max);
    total.add(&Resources::from_list(spec.overhead.as_ref()));
    total
}

fn host_ports(pod: &Pod) -> Vec<HostPort> {
    let Some(spec) = spec(pod) else { return Vec::new() };
    let sidecars = spec.init_containers.iter().flatten().filter(|c| c.restart_policy.as_deref() == Some("Always"));
    let mut ports: Vec<HostPort> = spec
        .containers
        .iter()
        .chain(sidecars)
        .flat_map(|c| c.ports.iter().flatten())
        .filter(|p| p.host_port.is_some_and(|h| h > 0))
        .map(|p| HostPort {
            ip: p.host_ip.clone().filter(|ip| !ip.is_empty()).unwrap_or_else(|| "0.0.0.0".into()),
            protocol: p.protocol.clone().filter(|p| !p.is_empty()).unwrap_or_else(|| "TCP".into()),
            port: p.host_port.unwrap_or(0),
        })
        .collect();
    ports.sort();
    ports.dedup();
    ports
}

fn spread_constraints(pod: &Pod) -> Vec<SpreadConstraint> {
    let labels = pod.metadata.labels.as_ref();
    let Some(spec) = spec(pod) else { return Vec::new() };
    spec.topology_spread_constraints
        .iter()
        .flatten()
        .map(|c| {
            let mut selector = c.label_selector.as_ref().and_then(|s| LabelSelector::from_api(s).ok());
            if let Some(sel) = selector.as_mut() {
                for key in c.match_label_keys.iter().flatten() {
                    if let Some(v) = labels.and_then(|l| l.get(key)) {
                        sel.requirements.push(Requirement::In(key.clone(), vec![v.clone()]));
                    }
                }
            }
            SpreadConstraint {
                max_skew: i64::from(c.max_skew),
                topology_key: c.topology_key.clone(),
                hard: c.when_unsatisfiable == "DoNotSchedule",
                selector,
                min_domains: c.min_domains.map(i64::from),
                honor_node_affinity: c.node_affinity_policy.as_deref() != Some("Ignore"),
                honor_taints: c.node_taints_policy.as_deref() == Some("Honor"),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(yaml: &str) -> Arc<Object> {
        let value: serde_json::Value = serde_yaml::from_str(yaml).unwrap();
        Arc::new(Object::Pod(serde_json::from_value(value).unwrap()))
    }

    #[test]
    fn requests_add_containers_and_take_the_largest_init_container() {
        let p = pod("metadata: {name: p, namespace: d}\nspec:\n  initContainers:\n  - {name: i, resources: {requests: {cpu: '2'}}}\n  containers:\n  - {name: a, resources: {requests: {cpu: 500m, memory: 1Gi}}}\n  - {name: b, resources: {requests: {cpu: 250m}}}\n");
        let info = PodInfo::new(&p).unwrap();
        assert_eq!((info.requests.milli_cpu, info.requests.memory), (2000, 1 << 30));
        // b has no memory request: scoring counts 200Mi for it.
        assert_eq!(info.non_zero, (2000, (1 << 30) + DEFAULT_MEMORY_REQUEST));
        assert_eq!(info.key, "d/p");
    }

    #[test]
    fn sidecars_add_to_the_containers_and_to_later_init_containers() {
        let p = pod("metadata: {name: p}\nspec:\n  initContainers:\n  - {name: s, restartPolicy: Always, resources: {requests: {cpu: 100m}}}\n  - {name: i, resources: {requests: {cpu: '1'}}}\n  containers:\n  - {name: a, resources: {requests: {cpu: 200m}}}\n");
        let info = PodInfo::new(&p).unwrap();
        assert_eq!(info.requests.milli_cpu, 1100);
    }

    #[test]
    fn host_ports_default_to_all_addresses_and_tcp() {
        let p = pod("metadata: {name: p}\nspec:\n  containers:\n  - name: a\n    ports: [{containerPort: 80, hostPort: 8080}, {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}, {containerPort: 9}]\n");
        let ports = PodInfo::new(&p).unwrap().host_ports;
        assert_eq!(
            ports,
            vec![
                HostPort { ip: "0.0.0.0".into(), protocol: "TCP".into(), port: 8080 },
                HostPort { ip: "10.0.0.1".into(), protocol: "UDP".into(), port: 53 },
            ]
        );
    }

    #[test]
    fn affinity_terms_default_to_the_pods_namespace_and_a_missing_selector_selects_nothing() {
        let p = pod("metadata: {name: p, namespace: web}\nspec:\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}\n      - {topologyKey: kubernetes.io/hostname}\n");
        let info = PodInfo::new(&p).unwrap();
        let labels = BTreeMap::from([("app".to_string(), "web".to_string())]);
        let [a, b] = &info.required_anti_affinity[..] else { panic!() };
        assert!(a.matches("web", Some(&labels), None));
        assert!(!a.matches("other", Some(&labels), None));
        assert!(!b.matches("web", Some(&labels), None));
        assert!(info.has_affinity());
    }

    #[test]
    fn match_label_keys_narrow_a_spread_constraint_to_the_pods_own_value() {
        let p = pod("metadata: {name: p, labels: {app: web, pod-template-hash: abc}}\nspec:\n  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [pod-template-hash]}\n");
        let c = &PodInfo::new(&p).unwrap().spread[0];
        assert!(c.hard && c.honor_node_affinity && !c.honor_taints);
        let other = BTreeMap::from([("app".to_string(), "web".to_string()), ("pod-template-hash".into(), "x".into())]);
        assert!(!c.selector.as_ref().unwrap().matches(Some(&other)));
    }
}
