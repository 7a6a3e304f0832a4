//! Priority: resolves a pod's `priorityClassName` (or, without one, the `globalDefault` class with the lowest
//! value) to its `priority` (0 when there is none) and preemption policy; an unknown class is refused, and so
//! is a priority or preemption policy written in the spec that differs from the class's.
//! Counterpart: `plugin/pkg/admission/priority`.

use crate::api::api::core::v1::Pod;
use crate::api::api::scheduling::v1::PriorityClass;
use crate::api::{Kind, Object, Status};

use super::super::cache::WatchCache;

/// The `globalDefault` class; the one with the lowest value if several claim it.
fn default_class(cache: &WatchCache) -> Option<PriorityClass> {
    cache
        .list(Kind::PriorityClass, None)
        .iter()
        .filter_map(|o| match o.as_ref() {
            Object::PriorityClass(pc) if pc.global_default == Some(true) => Some((**pc).clone()),
            _ => None,
        })
        .min_by_key(|pc| pc.value)
}

pub fn admit(pod: &mut Pod, cache: &WatchCache) -> Result<(), Status> {
    let name = pod.metadata.name.clone().unwrap_or_default();
    let Some(spec) = pod.spec.as_mut() else {
        return Ok(());
    };
    let forbidden = |detail: String| Status::forbidden("pods", &name, &detail);
    let (value, policy) = match spec.priority_class_name.as_deref() {
        None | Some("") => match default_class(cache) {
            Some(pc) => {
                spec.priority_class_name = pc.metadata.name.clone();
                (pc.value, pc.preemption_policy)
            }
            None => (0, None),
        },
        Some(class) => match cache.get(Kind::PriorityClass, None, class).as_deref() {
            Some(Object::PriorityClass(pc)) => (pc.value, pc.preemption_policy.clone()),
            _ => return Err(forbidden(format!("no PriorityClass with name {class} was found"))),
        },
    };
    if let Some(given) = spec.priority.filter(|p| *p != value) {
        return Err(forbidden(format!(
            "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {value} from the given PriorityClass name"
        )));
    }
    spec.priority = Some(value);
    let policy = policy.unwrap_or_else(|| "PreemptLowerPriority".to_string());
    if let Some(given) = spec.preemption_policy.as_deref().filter(|p| *p != policy) {
        return Err(forbidden(format!(
            "the string value of PreemptionPolicy ({given}) must not be provided in pod spec; priority admission controller computed {policy} from the given PriorityClass name"
        )));
    }
    spec.preemption_policy = Some(policy);
    Ok(())
}
