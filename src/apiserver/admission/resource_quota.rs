//! ResourceQuota: refuses a create that would take a namespace's usage past a quota's `hard` limits
//! (`exceeded quota: <name>, requested: …, used: …, limited: …`, resources sorted, quantities printed as
//! Kubernetes prints them) and pods that do not state the requests or limits a quota on cpu or memory
//! needs (`failed quota: <name>: must specify limits.cpu for: web`), both wrapped in Forbidden. It runs
//! last, after validation and the other validating plugins, so only valid objects are charged.
//!
//! Usage: the real plugin reads each quota's `status.used`, kept by the quota controller in
//! kube-controller-manager, and writes the new usage back itself before admitting. kubeglass's quota
//! controller ([`crate::controllers::resourcequota`]) keeps `status.used` with [`kind_usage`] for people to
//! read, but the plugin computes usage here, at admission, from the watch cache, which needs no write inside
//! admission: the objects of the request's kind in the namespace, counted with the same evaluators (pods in
//! phase Succeeded or Failed count only for `count/pods`; pods being deleted count until they are gone, where
//! the controller stops at the end of their grace period). The limits are the quota's `spec.hard` (what the
//! controller copies to `status.hard`). There is therefore no `status unknown for quota` refusal. Quotas are
//! checked in name order; the first exceeded one is reported.
//!
//! Evaluators: pods (`pods`, `count/pods`, `cpu`/`memory`/`ephemeral-storage` with their `requests.` and
//! `limits.` forms, `hugepages-*`, extended `requests.<domain>/<name>`; scopes `Terminating`,
//! `NotTerminating`, `BestEffort`, `NotBestEffort`, `PriorityClass`), services (`services`,
//! `services.nodeports`, `services.loadbalancers`), configmaps, secrets, persistentvolumeclaims (with
//! `requests.storage` and the per-StorageClass forms), replicationcontrollers, resourcequotas, and the
//! object count `count/<resource>[.<group>]` of every other resource. Only creates are charged: updates that
//! change usage (a Service turned into a LoadBalancer, a PVC resized) pass unchecked.
//! Counterpart: `staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota`, `pkg/quota/v1/evaluator/core`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Container, PersistentVolumeClaim, Pod, ResourceQuota, Service};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::api::{Kind, Object, Status, Verb};
use crate::apiserver::cache::WatchCache;
use crate::apiserver::validation::{parse_quantity, Quantity, QuantityFormat};

use super::AdmissionRequest;

pub type Usage = BTreeMap<String, Quantity>;

fn one() -> Quantity {
    Quantity::count(1)
}

/// `count/pods`, `count/deployments.apps`.
fn object_count_name(kind: Kind) -> String {
    format!("count/{}", kind.info().qualified())
}

/// The pre-`count/` names of the core resources that have one.
fn legacy_name(kind: Kind) -> Option<&'static str> {
    Some(match kind {
        Kind::Pod => "pods",
        Kind::Service => "services",
        Kind::ConfigMap => "configmaps",
        Kind::Secret => "secrets",
        Kind::PersistentVolumeClaim => "persistentvolumeclaims",
        Kind::ResourceQuota => "resourcequotas",
        _ => return None,
    })
}

const POD_RESOURCES: &[&str] = &[
    "count/pods",
    "pods",
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
];

/// The resources of a quota an evaluator of `kind` accounts for (`MatchingResources`).
fn matching_resources(kind: Kind, names: &BTreeSet<String>) -> BTreeSet<String> {
    names
        .iter()
        .filter(|n| match kind {
            Kind::Pod => {
                POD_RESOURCES.contains(&n.as_str())
                    || n.starts_with("hugepages-")
                    || n.starts_with("requests.hugepages-")
                    || (n.starts_with("requests.") && n.contains('/'))
            }
            Kind::Service => {
                matches!(n.as_str(), "services" | "count/services" | "services.nodeports" | "services.loadbalancers")
            }
            Kind::PersistentVolumeClaim => {
                matches!(n.as_str(), "persistentvolumeclaims" | "count/persistentvolumeclaims" | "requests.storage")
                    || n.ends_with(".storageclass.storage.k8s.io/persistentvolumeclaims")
                    || n.ends_with(".storageclass.storage.k8s.io/requests.storage")
            }
            other => **n == object_count_name(other) || legacy_name(other) == Some(n.as_str()),
        })
        .cloned()
        .collect()
}

fn parsed(list: Option<&BTreeMap<String, ApiQuantity>>) -> Usage {
    list.into_iter().flatten().filter_map(|(k, v)| parse_quantity(&v.0).ok().map(|q| (k.clone(), q))).collect()
}

/// `quota.Add`: keys of both; shared keys summed with the left operand's format.
fn add(a: &Usage, b: &Usage) -> Usage {
    let mut out = a.clone();
    for (k, v) in b {
        let sum = match a.get(k) {
            Some(x) => x.plus(v),
            None => v.clone(),
        };
        out.insert(k.clone(), sum);
    }
    out
}

fn mask(u: &Usage, names: &BTreeSet<String>) -> Usage {
    u.iter().filter(|(k, _)| names.contains(*k)).map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// `prettyPrint`: `key=value` sorted by key, comma-joined.
fn pretty(u: &Usage) -> String {
    u.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

fn container_lists(c: &Container) -> (Usage, Usage) {
    let r = c.resources.as_ref();
    (parsed(r.and_then(|r| r.requests.as_ref())), parsed(r.and_then(|r| r.limits.as_ref())))
}

/// `resourcehelper.PodRequests` / `PodLimits`: containers summed, sidecars added, other init containers
/// taken when larger, overhead added.
fn pod_totals(pod: &Pod, limits: bool) -> Usage {
    let Some(spec) = pod.spec.as_ref() else {
        return Usage::new();
    };
    let pick = |c: &Container| {
        let (req, lim) = container_lists(c);
        if limits {
            lim
        } else {
            req
        }
    };
    let mut total = Usage::new();
    for c in &spec.containers {
        total = add(&total, &pick(c));
    }
    let mut sidecars = Usage::new();
    let mut init_max = Usage::new();
    for c in spec.init_containers.iter().flatten() {
        let own = pick(c);
        if c.restart_policy.as_deref() == Some("Always") {
            sidecars = add(&sidecars, &own);
            total = add(&total, &own);
        } else {
            for (k, v) in add(&own, &mask(&sidecars, &own.keys().cloned().collect())) {
                if init_max.get(&k).is_none_or(|m| v > *m) {
                    init_max.insert(k, v);
                }
            }
        }
    }
    for (k, v) in init_max {
        if total.get(&k).is_none_or(|t| v > *t) {
            total.insert(k, v);
        }
    }
    if let Some(overhead) = spec.overhead.as_ref() {
        let overhead = parsed(Some(overhead));
        total = add(&total, &mask(&overhead, &total.keys().cloned().collect()));
    }
    total
}

/// `podComputeUsageHelper`.
fn compute_usage(requests: &Usage, limits: &Usage) -> Usage {
    let mut out = Usage::new();
    out.insert("pods".to_string(), one());
    for res in ["cpu", "memory", "ephemeral-storage"] {
        if let Some(r) = requests.get(res) {
            out.insert(res.to_string(), r.clone());
            out.insert(format!("requests.{res}"), r.clone());
        }
        if let Some(l) = limits.get(res) {
            out.insert(format!("limits.{res}"), l.clone());
        }
    }
    for (k, v) in requests {
        if k.starts_with("hugepages-") {
            out.insert(k.clone(), v.clone());
            out.insert(format!("requests.{k}"), v.clone());
        } else if k.contains('/') && !k.starts_with("kubernetes.io/") && !k.starts_with("requests.") {
            out.insert(format!("requests.{k}"), v.clone());
        }
    }
    out
}

fn pod_is_terminal(pod: &Pod) -> bool {
    matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

fn pod_usage(pod: &Pod) -> Usage {
    let mut out = Usage::new();
    out.insert(object_count_name(Kind::Pod), one());
    if pod_is_terminal(pod) {
        return out;
    }
    add(&out, &compute_usage(&pod_totals(pod, false), &pod_totals(pod, true)))
}

fn service_usage(svc: &Service) -> Usage {
    let mut out = Usage::new();
    out.insert(object_count_name(Kind::Service), one());
    out.insert("services".to_string(), one());
    let zero = Quantity::from_nanos(0, QuantityFormat::DecimalSI);
    out.insert("services.loadbalancers".to_string(), zero.clone());
    out.insert("services.nodeports".to_string(), zero);
    let spec = svc.spec.as_ref();
    let ports = spec.and_then(|s| s.ports.as_ref()).map_or(0, Vec::len) as i64;
    match spec.and_then(|s| s.type_.as_deref()) {
        Some("NodePort") => {
            out.insert("services.nodeports".to_string(), Quantity::count(ports));
        }
        Some("LoadBalancer") => {
            let allocate = spec.and_then(|s| s.allocate_load_balancer_node_ports).unwrap_or(true);
            let node_ports = if allocate {
                ports
            } else {
                spec.and_then(|s| s.ports.as_ref())
                    .map_or(0, |p| p.iter().filter(|p| p.node_port.is_some_and(|n| n != 0)).count())
                    as i64
            };
            out.insert("services.nodeports".to_string(), Quantity::count(node_ports));
            out.insert("services.loadbalancers".to_string(), one());
        }
        _ => {}
    }
    out
}

fn claim_usage(pvc: &PersistentVolumeClaim) -> Usage {
    let mut out = Usage::new();
    out.insert(object_count_name(Kind::PersistentVolumeClaim), one());
    out.insert("persistentvolumeclaims".to_string(), one());
    let class = pvc
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("volume.beta.kubernetes.io/storage-class").cloned())
        .or_else(|| pvc.spec.as_ref().and_then(|s| s.storage_class_name.clone()))
        .filter(|c| !c.is_empty());
    if let Some(class) = &class {
        out.insert(format!("{class}.storageclass.storage.k8s.io/persistentvolumeclaims"), one());
    }
    let requests = parsed(pvc.spec.as_ref().and_then(|s| s.resources.as_ref()).and_then(|r| r.requests.as_ref()));
    if let Some(storage) = requests.get("storage") {
        out.insert("requests.storage".to_string(), storage.clone());
        if let Some(class) = &class {
            out.insert(format!("{class}.storageclass.storage.k8s.io/requests.storage"), storage.clone());
        }
    }
    out
}

/// What one object uses, for its kind's evaluator.
fn usage(obj: &Object) -> Usage {
    match obj {
        Object::Pod(p) => pod_usage(p),
        Object::Service(s) => service_usage(s),
        Object::PersistentVolumeClaim(p) => claim_usage(p),
        other => {
            let mut out = Usage::new();
            out.insert(object_count_name(other.kind()), one());
            if let Some(legacy) = legacy_name(other.kind()) {
                out.insert(legacy.to_string(), one());
            }
            out
        }
    }
}

fn is_best_effort(pod: &Pod) -> bool {
    let spec = match pod.spec.as_ref() {
        Some(s) => s,
        None => return true,
    };
    spec.containers.iter().chain(spec.init_containers.iter().flatten()).all(|c| {
        let (req, lim) = container_lists(c);
        !["cpu", "memory"].iter().any(|r| req.contains_key(*r) || lim.contains_key(*r))
    })
}

/// Whether a quota's scopes (and scope selector) select the object. Only pods have scopes.
fn scopes_match(quota: &ResourceQuota, obj: &Object) -> bool {
    let spec = quota.spec.as_ref();
    let mut selectors: Vec<(String, String, Vec<String>)> = spec
        .and_then(|s| s.scopes.as_ref())
        .into_iter()
        .flatten()
        .map(|s| (s.clone(), "Exists".to_string(), Vec::new()))
        .collect();
    for e in
        spec.and_then(|s| s.scope_selector.as_ref()).and_then(|s| s.match_expressions.as_ref()).into_iter().flatten()
    {
        selectors.push((e.scope_name.clone(), e.operator.clone(), e.values.clone().unwrap_or_default()));
    }
    if selectors.is_empty() {
        return true;
    }
    let Object::Pod(pod) = obj else {
        return false;
    };
    selectors.iter().all(|(scope, op, values)| {
        let deadline = pod.spec.as_ref().and_then(|s| s.active_deadline_seconds);
        match scope.as_str() {
            "Terminating" => deadline.is_some_and(|d| d >= 0),
            "NotTerminating" => deadline.is_none_or(|d| d < 0),
            "BestEffort" => is_best_effort(pod),
            "NotBestEffort" => !is_best_effort(pod),
            "PriorityClass" => {
                let class = pod.spec.as_ref().and_then(|s| s.priority_class_name.clone()).unwrap_or_default();
                match op.as_str() {
                    "Exists" => !class.is_empty(),
                    "DoesNotExist" => class.is_empty(),
                    "In" => values.contains(&class),
                    "NotIn" => !values.contains(&class),
                    _ => false,
                }
            }
            _ => false,
        }
    })
}

const VALIDATION_SET: &[&str] = &["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"];

/// The pod evaluator's `Constraints`: every container must state what a cpu or memory quota counts.
fn constraints(required: &BTreeSet<String>, pod: &Pod) -> Option<String> {
    let required: BTreeSet<&str> = required.iter().map(String::as_str).filter(|r| VALIDATION_SET.contains(r)).collect();
    let spec = pod.spec.as_ref()?;
    let mut missing: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in spec.containers.iter().chain(spec.init_containers.iter().flatten()) {
        let (req, lim) = container_lists(c);
        let have = compute_usage(&req, &lim);
        for r in &required {
            if !have.contains_key(*r) {
                missing.entry(r).or_default().insert(c.name.clone());
            }
        }
    }
    if missing.is_empty() {
        return None;
    }
    let parts: Vec<String> = missing
        .iter()
        .map(|(r, names)| format!("{r} for: {}", names.iter().cloned().collect::<Vec<_>>().join(",")))
        .collect();
    Some(format!("must specify {}", parts.join("; ")))
}

/// The namespace's usage of `names` by objects of `kind` the quota selects, those still on their way to etcd
/// included.
fn used(
    cache: &WatchCache,
    charged: &[std::sync::Arc<Object>],
    namespace: Option<&str>,
    kind: Kind,
    quota: &ResourceQuota,
    names: &BTreeSet<String>,
) -> Usage {
    let mut objects = cache.list(kind, namespace);
    objects.extend(charged.iter().filter(|o| cache.get(o.kind(), o.namespace(), o.name()).is_none()).cloned());
    let all = kind_usage(quota, kind, objects.iter().map(|o| o.as_ref())).unwrap_or_default();
    names
        .iter()
        .map(|n| (n.clone(), all.get(n).cloned().unwrap_or_else(|| Quantity::from_nanos(0, QuantityFormat::DecimalSI))))
        .collect()
}

/// What `objects` (of `kind`, in the quota's namespace) use of the quota's `hard` resources, each of those
/// resources the kind's evaluator accounts for starting at zero (`UsageStats`); None when none concerns `kind`.
pub fn kind_usage<'a>(quota: &ResourceQuota, kind: Kind, objects: impl Iterator<Item = &'a Object>) -> Option<Usage> {
    let hard = parsed(quota.spec.as_ref().and_then(|s| s.hard.as_ref()));
    let names = matching_resources(kind, &hard.keys().cloned().collect());
    if names.is_empty() {
        return None;
    }
    let mut total: Usage =
        names.iter().map(|n| (n.clone(), Quantity::from_nanos(0, QuantityFormat::DecimalSI))).collect();
    for obj in objects.filter(|o| scopes_match(quota, o)) {
        total = add(&total, &mask(&usage(obj), &names));
    }
    Some(total)
}

/// `quota.Add`, for summing what several kinds use.
pub fn add_usage(a: &Usage, b: &Usage) -> Usage {
    add(a, b)
}

/// Checks a create against the namespace's quotas.
pub fn validate(req: &AdmissionRequest, obj: Option<&Object>, cache: &WatchCache) -> Result<(), Status> {
    if req.verb != Verb::Create || req.subresource.is_some() || !req.kind.info().namespaced || req.kind == Kind::Event {
        return Ok(());
    }
    let Some(obj) = obj else {
        return Ok(());
    };
    let quotas: Vec<ResourceQuota> = cache
        .list(Kind::ResourceQuota, req.namespace)
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::ResourceQuota(q) => Some((**q).clone()),
            _ => None,
        })
        .collect();
    let mut interesting = Vec::new();
    for quota in &quotas {
        let hard = parsed(quota.spec.as_ref().and_then(|s| s.hard.as_ref()));
        let names: BTreeSet<String> = hard.keys().cloned().collect();
        let restricted = matching_resources(req.kind, &names);
        if restricted.is_empty() || !scopes_match(quota, obj) {
            continue;
        }
        if let Object::Pod(pod) = obj {
            if let Some(err) = constraints(&restricted, pod) {
                let name = quota.metadata.name.as_deref().unwrap_or("");
                return Err(req.forbidden(&format!("failed quota: {name}: {err}")));
            }
        }
        interesting.push((quota, hard));
    }
    let input = usage(obj);
    let negative: Vec<&str> = input.iter().filter(|(_, v)| v.is_negative()).map(|(k, _)| k.as_str()).collect();
    if !negative.is_empty() {
        return Err(req.forbidden(&format!("quota usage is negative for resource(s): {}", negative.join(","))));
    }
    let delta: Usage = input.into_iter().filter(|(_, v)| !v.is_zero()).collect();
    if delta.is_empty() {
        return Ok(());
    }
    for (quota, hard) in interesting {
        let hard_names: BTreeSet<String> = hard.keys().cloned().collect();
        let requested = mask(&delta, &hard_names);
        if requested.is_empty() {
            continue;
        }
        let requested_names: BTreeSet<String> = requested.keys().cloned().collect();
        let used = used(cache, req.charged, req.namespace, req.kind, quota, &requested_names);
        let new_usage = mask(&add(&used, &requested), &requested_names);
        let exceeded: BTreeSet<String> = hard
            .iter()
            .filter(|(k, limit)| new_usage.get(*k).is_some_and(|n| n > *limit))
            .map(|(k, _)| k.clone())
            .collect();
        if !exceeded.is_empty() {
            let name = quota.metadata.name.as_deref().unwrap_or("");
            return Err(req.forbidden(&format!(
                "exceeded quota: {name}, requested: {}, used: {}, limited: {}",
                pretty(&mask(&requested, &exceeded)),
                pretty(&mask(&used, &exceeded)),
                pretty(&mask(&hard, &exceeded)),
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{PodSpec, PodStatus, ResourceRequirements};

    fn pod_with(requests: &[(&str, &str)], phase: Option<&str>) -> Pod {
        let requests = requests.iter().map(|(k, v)| (k.to_string(), ApiQuantity(v.to_string()))).collect();
        Pod {
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: "app".into(),
                    resources: Some(ResourceRequirements { requests: Some(requests), ..Default::default() }),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            status: phase.map(|p| PodStatus { phase: Some(p.into()), ..Default::default() }),
            ..Default::default()
        }
    }

    #[test]
    fn a_finished_pod_counts_only_as_a_stored_object() {
        let done = pod_usage(&pod_with(&[("cpu", "500m")], Some("Succeeded")));
        assert_eq!(done.keys().collect::<Vec<_>>(), ["count/pods"]);
        let running = pod_usage(&pod_with(&[("cpu", "500m")], Some("Running")));
        assert_eq!(pretty(&running), "count/pods=1,cpu=500m,pods=1,requests.cpu=500m");
    }

    #[test]
    fn sums_print_in_canonical_form_and_keep_the_first_non_zero_format() {
        let a = parse_quantity("0.5").unwrap_or_else(|_| Quantity::count(0));
        let b = parse_quantity("1500m").unwrap_or_else(|_| Quantity::count(0));
        assert_eq!(a.to_string(), "500m");
        assert_eq!(a.plus(&b).to_string(), "2");
        let zero = Quantity::from_nanos(0, QuantityFormat::DecimalSI);
        let gi = parse_quantity("1Gi").unwrap_or_else(|_| Quantity::count(0));
        assert_eq!(zero.plus(&gi).plus(&gi).to_string(), "2Gi");
    }
}
