//! VolumeBinding at Reserve and PreBind: for the pod's claims that wait for their first consumer, on the
//! chosen node, either a matching Available volume (the smallest that fits; the scheduler writes the
//! volume's `claimRef`, and the PersistentVolume controller finishes the binding) or, when none fits and the
//! class has a provisioner, provisioning (the scheduler writes `volume.kubernetes.io/selected-node` into
//! the claim, and the provisioner makes a volume pinned to that node). The pod is bound to the node only
//! once every such claim is Bound. Counterpart: `pkg/scheduler/framework/plugins/volumebinding`
//! (`binder.go`: `FindPodVolumes`, `AssumePodVolumes`, `BindPodVolumes`, `checkBindings`).

use std::collections::{BTreeMap, BTreeSet};

use crate::api::api::core::v1::{PersistentVolume, PersistentVolumeClaim};
use crate::api::Object;
use crate::controllers::persistentvolume::{
    capacity, claim_ref_to, mismatch, selector_matches, BIND_COMPLETED, BOUND_BY_CONTROLLER, NO_PROVISIONER,
    SELECTED_NODE,
};

use super::listers::Listers;
use super::nodeinfo::NodeInfo;
use super::plugins::volumes::{node_affinity_ok, VolumeState};

/// How long PreBind waits for the claims to be bound (`bindTimeoutSeconds`, 600 s by default).
pub const BIND_TIMEOUT_MS: u64 = 600_000;

/// What PreBind writes for one claim.
#[derive(Debug, Clone, PartialEq)]
pub enum Write {
    /// The volume with its `claimRef` set to the claim.
    Volume(Box<PersistentVolume>),
    /// The claim with the selected node, for its provisioner.
    Claim(Box<PersistentVolumeClaim>),
}

impl Write {
    pub fn object(&self) -> Object {
        match self {
            Write::Volume(pv) => Object::PersistentVolume(pv.clone()),
            Write::Claim(pvc) => Object::PersistentVolumeClaim(pvc.clone()),
        }
    }

    /// `default/data → local-1` or `default/data: provisioned on node02`, for the decision record.
    pub fn describe(&self, claim: &str, node: &str) -> String {
        match self {
            Write::Volume(pv) => format!("{claim} → {}", pv.metadata.name.as_deref().unwrap_or("")),
            Write::Claim(_) => format!("{claim}: provisioned on {node}"),
        }
    }
}

/// The writes for the pod's delayed claims on `node`, with each claim's key (`namespace/name`); volumes in
/// `taken` are already promised to other pods. Err when a claim can neither get a volume nor be provisioned
/// (another pod took the volume the filter saw).
pub fn plan(
    state: &VolumeState,
    node: &NodeInfo,
    listers: &Listers,
    taken: &BTreeSet<String>,
) -> Result<Vec<(String, Write)>, String> {
    let mut chosen: BTreeSet<String> = BTreeSet::new();
    let mut writes = Vec::new();
    for obj in &state.delayed {
        let Object::PersistentVolumeClaim(pvc) = obj.as_ref() else { continue };
        let key = format!(
            "{}/{}",
            pvc.metadata.namespace.as_deref().unwrap_or(""),
            pvc.metadata.name.as_deref().unwrap_or("")
        );
        let best = listers
            .pvs
            .objects()
            .filter_map(|o| match o.as_ref() {
                Object::PersistentVolume(pv) => Some(pv),
                _ => None,
            })
            .filter(|pv| {
                let name = pv.metadata.name.clone().unwrap_or_default();
                !taken.contains(&name) && !chosen.contains(&name)
            })
            .filter(|pv| available_for(pv, pvc) && node_affinity_ok(pv, node))
            .min_by(|a, b| capacity(a).cmp(&capacity(b)).then_with(|| a.metadata.name.cmp(&b.metadata.name)));
        if let Some(pv) = best {
            chosen.insert(pv.metadata.name.clone().unwrap_or_default());
            writes.push((key, Write::Volume(Box::new(bound_to(pv, pvc)))));
            continue;
        }
        let class = pvc.spec.as_ref().and_then(|s| s.storage_class_name.clone()).unwrap_or_default();
        let provisioner = listers.classes.get(&class).and_then(|o| match o.as_ref() {
            Object::StorageClass(sc) => Some(sc.provisioner.clone()),
            _ => None,
        });
        match provisioner {
            Some(p) if p != NO_PROVISIONER => {
                let mut claim = pvc.clone();
                claim
                    .metadata
                    .annotations
                    .get_or_insert_with(BTreeMap::new)
                    .insert(SELECTED_NODE.into(), node.name.to_string());
                writes.push((key, Write::Claim(claim)));
            }
            _ => return Err(format!("pvc {key:?}: no volume available on node {:?}", node.name)),
        }
    }
    Ok(writes)
}

/// Whether every claim is bound (its `volumeName` set and the binding completed).
pub fn all_bound<'a>(claims: impl IntoIterator<Item = &'a String>, listers: &Listers) -> bool {
    claims.into_iter().all(|key| {
        listers.pvcs.get(key).is_some_and(|o| match o.as_ref() {
            Object::PersistentVolumeClaim(c) => {
                c.spec.as_ref().and_then(|s| s.volume_name.as_deref()).is_some_and(|v| !v.is_empty())
                    && c.metadata.annotations.as_ref().is_some_and(|a| a.contains_key(BIND_COMPLETED))
            }
            _ => false,
        })
    })
}

/// An Available volume without a claim (or already naming this one) that satisfies the claim.
fn available_for(pv: &PersistentVolume, pvc: &PersistentVolumeClaim) -> bool {
    let claim_ref = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref());
    let ours = claim_ref.is_some_and(|r| {
        r.name.as_deref() == pvc.metadata.name.as_deref() && r.namespace.as_deref() == pvc.metadata.namespace.as_deref()
    });
    let phase = pv.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("");
    (ours || (claim_ref.is_none() && phase == "Available"))
        && pv.metadata.deletion_timestamp.is_none()
        && mismatch(pv, pvc).is_none()
        && selector_matches(pvc, pv)
}

/// The volume with its `claimRef` naming the claim, as `GetBindVolumeToClaim` makes it.
fn bound_to(pv: &PersistentVolume, pvc: &PersistentVolumeClaim) -> PersistentVolume {
    let mut pv = pv.clone();
    let spec = pv.spec.get_or_insert_with(Default::default);
    spec.claim_ref = Some(claim_ref_to(pvc));
    pv.metadata.annotations.get_or_insert_with(BTreeMap::new).insert(BOUND_BY_CONTROLLER.into(), "yes".into());
    pv
}
