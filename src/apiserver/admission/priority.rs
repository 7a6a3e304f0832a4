//! Priority: resolves a pod's `priorityClassName` to its `priority` (0 without one) and preemption policy;
//! an unknown class is refused. Counterpart: `plugin/pkg/admission/priority`.

use crate::api::api::core::v1::Pod;
use crate::api::{Kind, Object, Status};

use super::super::cache::WatchCache;

pub fn admit(pod: &mut Pod, cache: &WatchCache) -> Result<(), Status> {
    let name = pod.metadata.name.clone().unwrap_or_default();
    let Some(spec) = pod.spec.as_mut() else {
        return Ok(());
    };
    let value = match spec.priority_class_name.as_deref() {
        None | Some("") => 0,
        Some(class) => match cache.get(Kind::PriorityClass, None, class).as_deref() {
            Some(Object::PriorityClass(pc)) => {
                if spec.preemption_policy.is_none() {
                    spec.preemption_policy = pc.preemption_policy.clone();
                }
                pc.value
            }
            _ => {
                return Err(Status::forbidden("pods", &name, &format!("no PriorityClass with name {class} was found")))
            }
        },
    };
    spec.priority = Some(value);
    if spec.preemption_policy.is_none() {
        spec.preemption_policy = Some("PreemptLowerPriority".to_string());
    }
    Ok(())
}
