//! A stand-in for the external provisioner a cluster installs next to its StorageClasses (the CSI
//! external-provisioner sidecar, or a local-path provisioner): for each claim the PersistentVolume controller
//! handed over (annotation `volume.kubernetes.io/storage-provisioner`), it makes a volume `pvc-<claim uid>`
//! of the requested size, pre-bound to the claim, after a short provisioning delay (1–3 s, seeded); and it
//! deletes the volumes it made once they are Released under the `Delete` reclaim policy. It serves every
//! provisioner name except `kubernetes.io/no-provisioner` (whose volumes are only ever made by hand), and
//! records its events under that name. Watches: PersistentVolumeClaims, StorageClasses, PersistentVolumes.
//! Writes: PersistentVolumes (create, delete), Events `Provisioning`, `ProvisioningSucceeded`,
//! `ProvisioningFailed`. Counterpart: `kubernetes-csi/external-provisioner` (`sig-storage-lib-external-
//! provisioner` controller.go). It runs inside kube-controller-manager here, so stopping that process stops
//! provisioning too.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{
    HostPathVolumeSource, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ObjectReference, PersistentVolume,
    PersistentVolumeClaim, PersistentVolumeSpec, VolumeNodeAffinity,
};
use k8s_openapi::api::storage::v1::StorageClass;

use crate::api::{ApiResponse, Kind, Object, ObjectMeta, Reason};
use crate::client::informer::Change;
use crate::client::ClientError;

use super::book::Book;
use super::persistentvolume::{BIND_COMPLETED, NO_PROVISIONER, PROVISIONED_BY, SELECTED_NODE, STORAGE_PROVISIONER};
use super::recorder::Recorder;
use super::{Controller, Cx};

/// The provisioning delay: at least this, plus up to [`DELAY_SPREAD_MS`].
const DELAY_MS: u64 = 1_000;
const DELAY_SPREAD_MS: u64 = 2_000;
/// Where the simulated volumes live on a node.
const VOLUME_DIR: &str = "/var/lib/kubeglass/volumes";

#[derive(Debug)]
enum Op {
    Create { claim: String, volume: String, provisioner: String },
    Delete { volume: String },
}

#[derive(Debug, Default)]
pub struct Provisioner {
    /// Claims (`ns/name`) with a provisioning timer or create in flight.
    working: BTreeSet<String>,
    /// Volumes whose deletion was asked for.
    deleting: BTreeSet<String>,
    book: Book<Op>,
    recorder: Recorder,
}

fn annotation<'a>(meta: &'a ObjectMeta, key: &str) -> Option<&'a str> {
    meta.annotations.as_ref()?.get(key).map(String::as_str)
}

/// The claim's provisioner and class when it waits for a volume this stand-in should make.
fn wanted(pvc: &PersistentVolumeClaim, cx: &Cx) -> Option<(String, StorageClass)> {
    if pvc.metadata.deletion_timestamp.is_some()
        || annotation(&pvc.metadata, BIND_COMPLETED).is_some()
        || pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()).is_some_and(|v| !v.is_empty())
    {
        return None;
    }
    let provisioner = annotation(&pvc.metadata, STORAGE_PROVISIONER)?.to_string();
    let class_name = pvc.spec.as_ref().and_then(|s| s.storage_class_name.clone())?;
    let class = match cx.get(Kind::StorageClass, &class_name).as_deref() {
        Some(Object::StorageClass(c)) => c.clone(),
        _ => return None,
    };
    let waits = class.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer");
    if class.provisioner != provisioner
        || provisioner == NO_PROVISIONER
        || (waits && annotation(&pvc.metadata, SELECTED_NODE).is_none())
    {
        return None;
    }
    let uid = pvc.metadata.uid.as_deref()?;
    if cx.get(Kind::PersistentVolume, &format!("pvc-{uid}")).is_some() {
        return None;
    }
    Some((provisioner, *class))
}

/// The volume for `pvc`: its size, access modes and volume mode, the class's reclaim policy and mount options,
/// a host directory, pinned to the selected node when the class waited for one.
fn volume_for(pvc: &PersistentVolumeClaim, class: &StorageClass, provisioner: &str) -> PersistentVolume {
    let uid = pvc.metadata.uid.clone().unwrap_or_default();
    let name = format!("pvc-{uid}");
    let spec = pvc.spec.clone().unwrap_or_default();
    let ns = pvc.metadata.namespace.clone().unwrap_or_default();
    let claim = pvc.metadata.name.clone().unwrap_or_default();
    let node_affinity = annotation(&pvc.metadata, SELECTED_NODE).map(|node| VolumeNodeAffinity {
        required: Some(NodeSelector {
            node_selector_terms: vec![NodeSelectorTerm {
                match_expressions: Some(vec![NodeSelectorRequirement {
                    key: "kubernetes.io/hostname".into(),
                    operator: "In".into(),
                    values: Some(vec![node.to_string()]),
                }]),
                match_fields: None,
            }],
        }),
    });
    PersistentVolume {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            annotations: Some([(PROVISIONED_BY.to_string(), provisioner.to_string())].into()),
            ..ObjectMeta::default()
        },
        spec: Some(PersistentVolumeSpec {
            access_modes: spec.access_modes.clone(),
            capacity: spec
                .resources
                .as_ref()
                .and_then(|r| r.requests.as_ref())
                .and_then(|r| r.get("storage").map(|q| [("storage".to_string(), q.clone())].into())),
            claim_ref: Some(ObjectReference {
                api_version: Some("v1".into()),
                kind: Some("PersistentVolumeClaim".into()),
                name: Some(claim.clone()),
                namespace: Some(ns.clone()),
                uid: Some(uid),
                resource_version: pvc.metadata.resource_version.clone(),
                field_path: None,
            }),
            host_path: Some(HostPathVolumeSource {
                path: format!("{VOLUME_DIR}/{name}_{ns}_{claim}"),
                type_: Some("DirectoryOrCreate".into()),
            }),
            mount_options: class.mount_options.clone(),
            node_affinity,
            persistent_volume_reclaim_policy: Some(class.reclaim_policy.clone().unwrap_or_else(|| "Delete".into())),
            storage_class_name: class.metadata.name.clone(),
            volume_mode: spec.volume_mode.clone(),
            ..PersistentVolumeSpec::default()
        }),
        status: None,
    }
}

impl Provisioner {
    fn consider(&mut self, pvc: &PersistentVolumeClaim, cx: &mut Cx) {
        let key = format!(
            "{}/{}",
            pvc.metadata.namespace.as_deref().unwrap_or(""),
            pvc.metadata.name.as_deref().unwrap_or("")
        );
        if self.working.contains(&key) || wanted(pvc, cx).is_none() {
            return;
        }
        self.working.insert(key.clone());
        let delay = DELAY_MS + cx.rng().below(DELAY_SPREAD_MS);
        self.book.requeue(&key, delay, cx);
    }

    fn provision(&mut self, key: &str, cx: &mut Cx) {
        let pvc = match cx.get(Kind::PersistentVolumeClaim, key).as_deref() {
            Some(Object::PersistentVolumeClaim(c)) => c.clone(),
            _ => {
                self.working.remove(key);
                return;
            }
        };
        let Some((provisioner, class)) = wanted(&pvc, cx) else {
            self.working.remove(key);
            return;
        };
        let about = Object::PersistentVolumeClaim(pvc.clone());
        let msg = format!("External provisioner is provisioning volume for claim {key:?}");
        self.recorder.event_from(cx, &provisioner, &about, "Normal", "Provisioning", &msg);
        let pv = volume_for(&pvc, &class, &provisioner);
        let volume = pv.metadata.name.clone().unwrap_or_default();
        let tag = self.book.tag(Op::Create { claim: key.to_string(), volume, provisioner });
        cx.create(Object::PersistentVolume(Box::new(pv)), tag);
    }

    fn reclaim(&mut self, pv: &PersistentVolume, cx: &mut Cx) {
        let name = pv.metadata.name.clone().unwrap_or_default();
        let released = pv.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Released");
        let delete = pv.spec.as_ref().and_then(|s| s.persistent_volume_reclaim_policy.as_deref()) == Some("Delete");
        let ours = annotation(&pv.metadata, PROVISIONED_BY).is_some_and(|p| p != NO_PROVISIONER);
        if released && delete && ours && pv.metadata.deletion_timestamp.is_none() && self.deleting.insert(name.clone())
        {
            let tag = self.book.tag(Op::Delete { volume: name });
            cx.delete(&Object::PersistentVolume(Box::new(pv.clone())), None, None, tag);
        }
    }
}

impl Controller for Provisioner {
    fn name(&self) -> &'static str {
        "external-provisioner"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::PersistentVolumeClaim, Kind::StorageClass, Kind::PersistentVolume]
    }

    fn on_start(&mut self) {
        *self = Provisioner::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for o in cx.list(Kind::PersistentVolumeClaim) {
            if let Object::PersistentVolumeClaim(pvc) = o.as_ref() {
                self.consider(pvc, cx);
            }
        }
        for o in cx.list(Kind::PersistentVolume) {
            if let Object::PersistentVolume(pv) = o.as_ref() {
                self.reclaim(pv, cx);
            }
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::PersistentVolumeClaim, Change::Added(o) | Change::Modified { new: o, .. }) => {
                if let Object::PersistentVolumeClaim(pvc) = o.as_ref() {
                    self.consider(pvc, cx);
                }
            }
            (Kind::PersistentVolumeClaim, Change::Deleted(o)) => self.recorder.forget(o),
            (Kind::PersistentVolume, Change::Added(o) | Change::Modified { new: o, .. }) => {
                if let Object::PersistentVolume(pv) = o.as_ref() {
                    self.reclaim(pv, cx);
                }
            }
            (Kind::PersistentVolume, Change::Deleted(o)) => {
                self.deleting.remove(o.name());
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(key) = self.book.fired(token) {
            self.provision(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        match self.book.answered(tag) {
            Some(Op::Create { claim, volume, provisioner }) => {
                self.working.remove(&claim);
                let Some(about) = cx.get(Kind::PersistentVolumeClaim, &claim) else { return };
                match result {
                    Ok(ApiResponse::Object(_)) => {
                        let msg = format!("Successfully provisioned volume {volume}");
                        self.recorder.event_from(cx, &provisioner, &about, "Normal", "ProvisioningSucceeded", &msg);
                    }
                    Ok(ApiResponse::Error(s)) if s.reason == Reason::AlreadyExists => {}
                    other => {
                        let msg = match other {
                            Ok(ApiResponse::Error(s)) => s.message.clone(),
                            _ => "the apiserver did not answer".to_string(),
                        };
                        let class = match about.as_ref() {
                            Object::PersistentVolumeClaim(c) => {
                                c.spec.as_ref().and_then(|s| s.storage_class_name.clone()).unwrap_or_default()
                            }
                            _ => String::new(),
                        };
                        let text = format!("failed to provision volume with StorageClass {class:?}: {msg}");
                        self.recorder.event_from(cx, &provisioner, &about, "Warning", "ProvisioningFailed", &text);
                        self.working.insert(claim.clone());
                        self.book.requeue(&claim, 10_000, cx);
                    }
                }
            }
            Some(Op::Delete { volume }) if !matches!(result, Ok(ApiResponse::Object(_))) => {
                self.deleting.remove(&volume);
            }
            Some(Op::Delete { .. }) | None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provisioned_volume_is_made_for_its_claim() {
        let pvc: PersistentVolumeClaim = serde_yaml::from_str(
            "metadata: {name: data, namespace: db, uid: 1234, annotations: {volume.kubernetes.io/selected-node: node02}}\nspec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 2Gi}}}\n",
        )
        .expect("pvc");
        let class: StorageClass = serde_yaml::from_str(
            "metadata: {name: local}\nprovisioner: rancher.io/local-path\nreclaimPolicy: Retain\n",
        )
        .expect("class");
        let pv = volume_for(&pvc, &class, "rancher.io/local-path");
        assert_eq!(pv.metadata.name.as_deref(), Some("pvc-1234"));
        let spec = pv.spec.unwrap();
        assert_eq!(spec.capacity.unwrap()["storage"].0, "2Gi");
        assert_eq!(spec.persistent_volume_reclaim_policy.as_deref(), Some("Retain"));
        assert_eq!(spec.storage_class_name.as_deref(), Some("local"));
        let r = spec.claim_ref.unwrap();
        assert_eq!(
            (r.namespace.as_deref(), r.name.as_deref(), r.uid.as_deref()),
            (Some("db"), Some("data"), Some("1234"))
        );
        let term = &spec.node_affinity.unwrap().required.unwrap().node_selector_terms[0];
        assert_eq!(term.match_expressions.as_ref().unwrap()[0].values, Some(vec!["node02".to_string()]));
        assert_eq!(spec.host_path.unwrap().path, "/var/lib/kubeglass/volumes/pvc-1234_db_data");
    }
}
