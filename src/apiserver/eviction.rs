//! The eviction subresource's PodDisruptionBudget check: a pod may be evicted only while every budget that
//! selects it allows one more disruption. The allowance is computed from the pods the apiserver's cache
//! holds (kubeglass has no disruption controller writing `status.disruptionsAllowed` yet).
//! Counterpart: `pkg/registry/core/pod/storage/eviction.go`.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::api::selector::LabelSelector;
use crate::api::{Kind, Object};

use super::cache::WatchCache;

fn ready(o: &Object) -> bool {
    match o {
        Object::Pod(p) => {
            p.metadata.deletion_timestamp.is_none()
                && p.status
                    .as_ref()
                    .and_then(|s| s.conditions.as_ref())
                    .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        }
        _ => false,
    }
}

/// `n` or `n%` of `total` (percentages round up, as the disruption controller rounds minAvailable).
fn scaled(v: &IntOrString, total: i32) -> i32 {
    match v {
        IntOrString::Int(i) => *i,
        IntOrString::String(s) => {
            let pct: i32 = s.trim_end_matches('%').parse().unwrap_or(0);
            (pct * total + 99) / 100
        }
    }
}

/// Why evicting `pod` would break a budget, or None when it may go.
pub fn blocked_by_budget(pod: &Object, cache: &WatchCache) -> Option<String> {
    let ns = pod.namespace()?;
    for pdb in cache.list(Kind::PodDisruptionBudget, Some(ns)) {
        let Object::PodDisruptionBudget(b) = pdb.as_ref() else { continue };
        let Some(spec) = b.spec.as_ref() else { continue };
        let Some(selector) = spec.selector.as_ref().and_then(|s| LabelSelector::from_api(s).ok()) else { continue };
        if selector.is_empty() || !selector.matches(pod.meta().labels.as_ref()) {
            continue;
        }
        let pods: Vec<_> = cache
            .list(Kind::Pod, Some(ns))
            .into_iter()
            .filter(|p| selector.matches(p.meta().labels.as_ref()))
            .collect();
        let expected = pods.len() as i32;
        let healthy = pods.iter().filter(|p| ready(p)).count() as i32;
        let desired = match (&spec.min_available, &spec.max_unavailable) {
            (Some(min), _) => scaled(min, expected),
            (None, Some(max)) => expected - scaled(max, expected),
            (None, None) => expected,
        };
        let allowed = if ready(pod) { healthy - desired } else { 1 };
        if allowed <= 0 {
            return Some("Cannot evict pod as it would violate the pod's disruption budget.".to_string());
        }
    }
    None
}
