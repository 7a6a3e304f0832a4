//! LimitRanger: the namespace's LimitRanges give pods' containers their default requests and limits
//! (mutating; annotated `kubernetes.io/limit-ranger: LimitRanger plugin set: …`) and bound them (validating:
//! `min`, `max` and `maxLimitRequestRatio` per Container and per Pod, `min`/`max` storage per
//! PersistentVolumeClaim), refusing with Forbidden and v1.34's messages (`maximum cpu usage per Container is
//! 500m, but limit is 1`). Pod updates are not checked, as in Kubernetes (containers' resources are
//! immutable there). LimitRanges apply in name order; Kubernetes walks Go maps, so where it would list
//! several failures of one LimitRange in random order they come here sorted by resource name.
//! Counterpart: `plugin/pkg/admission/limitranger`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, LimitRange, LimitRangeItem, PersistentVolumeClaim, Pod};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::api::{Kind, Object, Status, Verb};
use crate::apiserver::cache::WatchCache;
use crate::apiserver::validation::{parse_quantity, Quantity};

use super::AdmissionRequest;

const ANNOTATION: &str = "kubernetes.io/limit-ranger";

type ResourceList = BTreeMap<String, ApiQuantity>;

fn applies(req: &AdmissionRequest) -> bool {
    req.subresource.is_none()
        && match req.kind {
            Kind::Pod => req.verb == Verb::Create,
            Kind::PersistentVolumeClaim => matches!(req.verb, Verb::Create | Verb::Update | Verb::Patch),
            _ => false,
        }
}

fn limit_ranges(req: &AdmissionRequest, cache: &WatchCache) -> Vec<LimitRange> {
    cache
        .list(Kind::LimitRange, req.namespace)
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::LimitRange(lr) => Some((**lr).clone()),
            _ => None,
        })
        .collect()
}

fn items(lr: &LimitRange) -> &[LimitRangeItem] {
    lr.spec.as_ref().map_or(&[], |s| s.limits.as_slice())
}

/// Mutating: fills each container's missing requests and limits from the `Container` items' `defaultRequest`
/// and `default`.
pub fn admit(req: &AdmissionRequest, pod: &mut Pod, cache: &WatchCache) {
    if !applies(req) || req.kind != Kind::Pod {
        return;
    }
    for lr in limit_ranges(req, cache) {
        let mut requests = ResourceList::new();
        let mut limits = ResourceList::new();
        for item in items(&lr).iter().filter(|i| i.type_ == "Container") {
            requests.extend(item.default_request.clone().unwrap_or_default());
            limits.extend(item.default.clone().unwrap_or_default());
        }
        let Some(spec) = pod.spec.as_mut() else {
            return;
        };
        let mut notes = Vec::new();
        for c in spec.containers.iter_mut() {
            merge(c, &requests, &limits, "container", &mut notes);
        }
        for c in spec.init_containers.iter_mut().flatten() {
            merge(c, &requests, &limits, "init container", &mut notes);
        }
        if !notes.is_empty() {
            pod.metadata
                .annotations
                .get_or_insert_with(BTreeMap::new)
                .insert(ANNOTATION.to_string(), format!("LimitRanger plugin set: {}", notes.join("; ")));
        }
    }
}

fn merge(c: &mut Container, requests: &ResourceList, limits: &ResourceList, what: &str, notes: &mut Vec<String>) {
    let resources = c.resources.get_or_insert_with(Default::default);
    let mut set_limits = Vec::new();
    for (k, v) in limits {
        let have = resources.limits.get_or_insert_with(BTreeMap::new);
        if !have.contains_key(k) {
            have.insert(k.clone(), v.clone());
            set_limits.push(k.clone());
        }
    }
    let mut set_requests = Vec::new();
    for (k, v) in requests {
        let have = resources.requests.get_or_insert_with(BTreeMap::new);
        if !have.contains_key(k) {
            have.insert(k.clone(), v.clone());
            set_requests.push(k.clone());
        }
    }
    if resources.limits.as_ref().is_some_and(BTreeMap::is_empty) {
        resources.limits = None;
    }
    if resources.requests.as_ref().is_some_and(BTreeMap::is_empty) {
        resources.requests = None;
    }
    if !set_requests.is_empty() {
        notes.push(format!("{} request for {what} {}", set_requests.join(", "), c.name));
    }
    if !set_limits.is_empty() {
        notes.push(format!("{} limit for {what} {}", set_limits.join(", "), c.name));
    }
}

/// Validating: the first LimitRange a pod or claim violates refuses it.
pub fn validate(req: &AdmissionRequest, obj: Option<&Object>, cache: &WatchCache) -> Result<(), Status> {
    if !applies(req) {
        return Ok(());
    }
    for lr in limit_ranges(req, cache) {
        let errors = match obj {
            Some(Object::Pod(pod)) => validate_pod(&lr, pod),
            Some(Object::PersistentVolumeClaim(pvc)) => validate_claim(&lr, pvc),
            _ => Vec::new(),
        };
        if !errors.is_empty() {
            return Err(req.forbidden(&aggregate(&errors)));
        }
    }
    Ok(())
}

/// apimachinery's `utilerrors.NewAggregate(errs).Error()`: one message as it is, several de-duplicated in
/// brackets.
pub fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.as_str()) {
            seen.push(e);
        }
    }
    if errors.len() == 1 || seen.len() == 1 {
        return seen.first().map(|s| s.to_string()).unwrap_or_default();
    }
    format!("[{}]", seen.join(", "))
}

/// The quantities of a resource list, parsed (unparsable entries were refused by decoding already).
fn parsed(list: Option<&ResourceList>) -> BTreeMap<String, Quantity> {
    list.into_iter().flatten().filter_map(|(k, v)| parse_quantity(&v.0).ok().map(|q| (k.clone(), q))).collect()
}

/// `MaxMilliValue`: values up to this many units are compared in milli-units.
const MAX_MILLI_VALUE: i128 = (i64::MAX / 1000) as i128;

/// `requestLimitEnforcedValues`: request, limit and enforced at a common precision.
fn common(req: Option<&Quantity>, lim: Option<&Quantity>, enforced: &Quantity) -> (i128, i128, i128) {
    let value = |q: Option<&Quantity>| q.map_or(0, Quantity::value);
    let milli = |q: Option<&Quantity>| q.map_or(0, Quantity::milli);
    if value(req) <= MAX_MILLI_VALUE && value(lim) <= MAX_MILLI_VALUE && enforced.value() <= MAX_MILLI_VALUE {
        (milli(req), milli(lim), enforced.milli())
    } else {
        (value(req), value(lim), enforced.value())
    }
}

type Lists = (BTreeMap<String, Quantity>, BTreeMap<String, Quantity>);

fn min_constraint(kind: &str, name: &str, enforced: &Quantity, (requests, limits): &Lists) -> Option<String> {
    let (req, lim) = (requests.get(name), limits.get(name));
    let (r, l, e) = common(req, lim, enforced);
    let Some(req) = req else {
        return Some(format!("minimum {name} usage per {kind} is {enforced}.  No request is specified"));
    };
    if r < e {
        return Some(format!("minimum {name} usage per {kind} is {enforced}, but request is {req}"));
    }
    match lim {
        Some(lim) if l < e => Some(format!("minimum {name} usage per {kind} is {enforced}, but limit is {lim}")),
        _ => None,
    }
}

fn max_constraint(kind: &str, name: &str, enforced: &Quantity, (requests, limits): &Lists) -> Option<String> {
    let (req, lim) = (requests.get(name), limits.get(name));
    let (r, l, e) = common(req, lim, enforced);
    let Some(lim) = lim else {
        return Some(format!("maximum {name} usage per {kind} is {enforced}.  No limit is specified"));
    };
    if l > e {
        return Some(format!("maximum {name} usage per {kind} is {enforced}, but limit is {lim}"));
    }
    match req {
        Some(req) if r > e => Some(format!("maximum {name} usage per {kind} is {enforced}, but request is {req}")),
        _ => None,
    }
}

fn max_request_constraint(
    kind: &str,
    name: &str,
    enforced: &Quantity,
    requests: &BTreeMap<String, Quantity>,
) -> Option<String> {
    let req = requests.get(name);
    let (r, _, e) = common(req, None, enforced);
    let Some(req) = req else {
        return Some(format!("maximum {name} usage per {kind} is {enforced}.  No request is specified"));
    };
    (r > e).then(|| format!("maximum {name} usage per {kind} is {enforced}, but request is {req}"))
}

fn ratio_constraint(kind: &str, name: &str, enforced: &Quantity, (requests, limits): &Lists) -> Option<String> {
    let (req, lim) = (requests.get(name), limits.get(name));
    let (r, l, _) = common(req, lim, enforced);
    if req.is_none() || r == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no request is specified or request is 0"
        ));
    }
    if lim.is_none() || l == 0 {
        return Some(format!(
            "{name} max limit to request ratio per {kind} is {enforced}, but no limit is specified or limit is 0"
        ));
    }
    let observed = l as f64 / r as f64;
    let (scaled, max) = if enforced.value() <= MAX_MILLI_VALUE {
        (observed * 1000.0, enforced.milli() as f64)
    } else {
        (observed, enforced.value() as f64)
    };
    (scaled > max).then(|| {
        format!("{name} max limit to request ratio per {kind} is {enforced}, but provided ratio is {observed:.6}")
    })
}

fn check_item(item: &LimitRangeItem, kind: &str, lists: &Lists, errors: &mut Vec<String>) {
    for (name, q) in parsed(item.min.as_ref()) {
        errors.extend(min_constraint(kind, &name, &q, lists));
    }
    for (name, q) in parsed(item.max.as_ref()) {
        errors.extend(max_constraint(kind, &name, &q, lists));
    }
    for (name, q) in parsed(item.max_limit_request_ratio.as_ref()) {
        errors.extend(ratio_constraint(kind, &name, &q, lists));
    }
}

fn container_lists(c: &Container) -> Lists {
    let r = c.resources.as_ref();
    (parsed(r.and_then(|r| r.requests.as_ref())), parsed(r.and_then(|r| r.limits.as_ref())))
}

/// A pod's requests or limits: the sum over its containers, or the largest init container's when larger.
fn pod_totals(pod_spec: &k8s_openapi::api::core::v1::PodSpec, limits: bool) -> BTreeMap<String, Quantity> {
    let pick = |c: &Container| {
        let (req, lim) = container_lists(c);
        if limits {
            lim
        } else {
            req
        }
    };
    let mut total: BTreeMap<String, Quantity> = BTreeMap::new();
    for c in &pod_spec.containers {
        for (k, v) in pick(c) {
            let sum = total.get(&k).map_or_else(|| v.clone(), |t| t.plus(&v));
            total.insert(k, sum);
        }
    }
    for c in pod_spec.init_containers.iter().flatten() {
        for (k, v) in pick(c) {
            if total.get(&k).is_none_or(|t| v > *t) {
                total.insert(k, v);
            }
        }
    }
    total
}

fn validate_pod(lr: &LimitRange, pod: &Pod) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(spec) = pod.spec.as_ref() else {
        return errors;
    };
    for item in items(lr) {
        match item.type_.as_str() {
            "Container" => {
                for c in spec.containers.iter().chain(spec.init_containers.iter().flatten()) {
                    check_item(item, "Container", &container_lists(c), &mut errors);
                }
            }
            "Pod" => {
                let lists = (pod_totals(spec, false), pod_totals(spec, true));
                check_item(item, "Pod", &lists, &mut errors);
            }
            _ => {}
        }
    }
    errors
}

fn validate_claim(lr: &LimitRange, pvc: &PersistentVolumeClaim) -> Vec<String> {
    let mut errors = Vec::new();
    let requests = parsed(pvc.spec.as_ref().and_then(|s| s.resources.as_ref()).and_then(|r| r.requests.as_ref()));
    for item in items(lr).iter().filter(|i| i.type_ == "PersistentVolumeClaim") {
        let lists = (requests.clone(), BTreeMap::new());
        for (name, q) in parsed(item.min.as_ref()) {
            errors.extend(min_constraint("PersistentVolumeClaim", &name, &q, &lists));
        }
        for (name, q) in parsed(item.max.as_ref()) {
            errors.extend(max_request_constraint("PersistentVolumeClaim", &name, &q, &requests));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_failures_are_bracketed_and_repeats_collapse() {
        assert_eq!(aggregate(&["a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into()]), "[a, b]");
        assert_eq!(aggregate(&["a".into(), "a".into()]), "a");
        assert_eq!(aggregate(&["a".into(), "b".into(), "a".into()]), "[a, b]");
    }

    #[test]
    fn the_limit_to_request_ratio_prints_with_six_decimals() {
        let q = |s: &str| parse_quantity(s).unwrap_or_else(|_| Quantity::count(0));
        let lists: Lists = ([("cpu".to_string(), q("100m"))].into(), [("cpu".to_string(), q("450m"))].into());
        assert_eq!(
            ratio_constraint("Container", "cpu", &q("4"), &lists).as_deref(),
            Some("cpu max limit to request ratio per Container is 4, but provided ratio is 4.500000")
        );
        assert_eq!(ratio_constraint("Container", "cpu", &q("5"), &lists), None);
    }
}
