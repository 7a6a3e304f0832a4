//! VolumeBinding, the basic part: every claim a pod mounts must exist; a claim not bound yet is fine only
//! with a `WaitForFirstConsumer` class, on nodes where an available volume matches it (or where the class
//! can provision one); a bound claim's volume must exist and its node affinity must match the node.
//! Binding those claims at bind time is [`super::super::volume_prebind`].
//! Counterpart: `pkg/scheduler/framework/plugins/volumebinding` (volume_binding.go, binder.go).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use crate::api::quantity::Quantity;
use crate::api::selector::LabelSelector;
use crate::api::Object;

use super::super::listers::Listers;
use super::super::nodeinfo::NodeInfo;
use super::super::podinfo::PodInfo;
use super::node::term_matches;
use super::Rejection;

pub const ERR_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";
pub const ERR_BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";
pub const ERR_NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";
pub const ERR_PV_NOT_EXIST: &str = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// What PreFilter found about the pod's claims.
#[derive(Debug, Clone, Default)]
pub struct VolumeState {
    /// Bound claims: the volume name each is bound to.
    pub bound: Vec<String>,
    /// Claims waiting for their first consumer.
    pub delayed: Vec<Arc<Object>>,
}

fn claim(obj: &Object) -> Option<&PersistentVolumeClaim> {
    match obj {
        Object::PersistentVolumeClaim(c) => Some(c),
        _ => None,
    }
}

fn volume(obj: &Object) -> Option<&PersistentVolume> {
    match obj {
        Object::PersistentVolume(v) => Some(v),
        _ => None,
    }
}

fn claim_class(c: &PersistentVolumeClaim) -> String {
    c.spec.as_ref().and_then(|s| s.storage_class_name.clone()).unwrap_or_default()
}

/// PreFilter: Ok(None) when the pod mounts no claim (the plugin is skipped), Err(message) when the pod
/// cannot be scheduled anywhere.
pub fn prefilter(pod: &PodInfo, listers: &Listers) -> Result<Option<VolumeState>, String> {
    let Some(spec) = pod.pod().spec.as_ref() else { return Ok(None) };
    let mut state = VolumeState::default();
    let mut any = false;
    let mut unbound_immediate = false;
    for v in spec.volumes.iter().flatten() {
        let (name, ephemeral) = match (&v.persistent_volume_claim, &v.ephemeral) {
            (Some(c), _) => (c.claim_name.clone(), false),
            (None, Some(_)) => (format!("{}-{}", pod.name(), v.name), true),
            _ => continue,
        };
        any = true;
        let Some(obj) = listers.pvcs.get(&format!("{}/{name}", pod.namespace)) else {
            return Err(if ephemeral {
                format!("waiting for ephemeral volume controller to create the persistentvolumeclaim {name:?}")
            } else {
                format!("persistentvolumeclaim {name:?} not found")
            });
        };
        let Some(c) = claim(obj) else { continue };
        let volume_name = c.spec.as_ref().and_then(|s| s.volume_name.clone()).unwrap_or_default();
        if c.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Lost") {
            return Err(format!(
                "persistentvolumeclaim {name:?} bound to non-existent persistentvolume {volume_name:?}"
            ));
        }
        if c.metadata.deletion_timestamp.is_some() {
            return Err(format!("persistentvolumeclaim {name:?} is being deleted"));
        }
        let bind_completed = c.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(BIND_COMPLETED));
        if !volume_name.is_empty() && bind_completed {
            state.bound.push(volume_name);
            continue;
        }
        let class = claim_class(c);
        let delayed = !class.is_empty()
            && listers.classes.get(&class).is_some_and(|o| match o.as_ref() {
                Object::StorageClass(sc) => sc.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer"),
                _ => false,
            });
        if delayed && volume_name.is_empty() {
            state.delayed.push(obj.clone());
        } else {
            unbound_immediate = true;
        }
    }
    if unbound_immediate {
        return Err(ERR_UNBOUND_IMMEDIATE.to_string());
    }
    Ok(any.then_some(state))
}

pub fn node_affinity_ok(pv: &PersistentVolume, node: &NodeInfo) -> bool {
    let empty = BTreeMap::new();
    let labels = node.labels().unwrap_or(&empty);
    let required = pv.spec.as_ref().and_then(|s| s.node_affinity.as_ref()).and_then(|a| a.required.as_ref());
    required.is_none_or(|r| r.node_selector_terms.iter().any(|t| term_matches(t, &node.name, labels)))
}

fn storage(map: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>) -> i64 {
    map.and_then(|m| m.get("storage")).map(|q| Quantity::parse_or_zero(&q.0).value_i64()).unwrap_or(0)
}

/// Whether `pv` is available for `c` and usable from `node`.
fn volume_fits(pv: &PersistentVolume, c: &PersistentVolumeClaim, class: &str, node: &NodeInfo) -> bool {
    let Some(spec) = pv.spec.as_ref() else { return false };
    let claim_spec = c.spec.as_ref();
    let claimed_by_other = spec.claim_ref.as_ref().is_some_and(|r| {
        r.name.as_deref() != c.metadata.name.as_deref() || r.namespace.as_deref() != c.metadata.namespace.as_deref()
    });
    let want = storage(claim_spec.and_then(|s| s.resources.as_ref()).and_then(|r| r.requests.as_ref()));
    let modes_ok = claim_spec
        .and_then(|s| s.access_modes.as_ref())
        .into_iter()
        .flatten()
        .all(|m| spec.access_modes.iter().flatten().any(|x| x == m));
    let mode = |m: Option<&String>| m.map(String::as_str).unwrap_or("Filesystem").to_string();
    let selector_ok = claim_spec
        .and_then(|s| s.selector.as_ref())
        .is_none_or(|s| LabelSelector::from_api(s).is_ok_and(|sel| sel.matches(pv.metadata.labels.as_ref())));
    let phase = pv.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("Available");
    !claimed_by_other
        && pv.metadata.deletion_timestamp.is_none()
        && phase != "Released"
        && phase != "Failed"
        && spec.storage_class_name.clone().unwrap_or_default() == class
        && storage(spec.capacity.as_ref()) >= want
        && modes_ok
        && mode(spec.volume_mode.as_ref()) == mode(claim_spec.and_then(|s| s.volume_mode.as_ref()))
        && selector_ok
        && node_affinity_ok(pv, node)
}

pub fn filter(state: &VolumeState, node: &NodeInfo, listers: &Listers) -> Option<Rejection> {
    let (mut node_conflict, mut missing) = (false, false);
    for name in &state.bound {
        match listers.pvs.get(name).and_then(|o| volume(o)) {
            None => missing = true,
            Some(pv) if !node_affinity_ok(pv, node) => node_conflict = true,
            Some(_) => {}
        }
    }
    let bind_conflict = state.delayed.iter().filter_map(|o| claim(o)).any(|c| {
        let class = claim_class(c);
        let found = listers.pvs.objects().filter_map(|o| volume(o)).any(|pv| volume_fits(pv, c, &class, node));
        let provisioner = listers.classes.get(&class).and_then(|o| match o.as_ref() {
            Object::StorageClass(sc) => Some(sc.provisioner.clone()),
            _ => None,
        });
        !found && provisioner.is_none_or(|p| p == NO_PROVISIONER)
    });
    let reasons: Vec<String> =
        [(node_conflict, ERR_NODE_CONFLICT), (bind_conflict, ERR_BIND_CONFLICT), (missing, ERR_PV_NOT_EXIST)]
            .into_iter()
            .filter(|(hit, _)| *hit)
            .map(|(_, r)| r.to_string())
            .collect();
    (!reasons.is_empty()).then_some(Rejection { plugin: "VolumeBinding", reasons, unresolvable: true })
}
