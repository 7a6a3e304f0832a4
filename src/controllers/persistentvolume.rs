//! The PersistentVolume controller (the "persistentvolume-binder" loop): binds each Pending
//! PersistentVolumeClaim to an Available PersistentVolume that satisfies it, keeps volume phases
//! (Available, Bound, Released, Failed) and claim phases (Pending, Bound, Lost), and hands claims of a
//! StorageClass with a provisioner over to that provisioner. Watches: PersistentVolumes,
//! PersistentVolumeClaims, StorageClasses. Writes: the volume's `claimRef` and the claim's `volumeName`
//! with the annotations `pv.kubernetes.io/bound-by-controller` and `pv.kubernetes.io/bind-completed`, both
//! statuses, a default StorageClass into claims that name none, the `volume.kubernetes.io/storage-provisioner`
//! annotation, Events `FailedBinding`, `ExternalProvisioning`, `WaitForFirstConsumer`, `ProvisioningFailed`,
//! `VolumeMismatch`, `ClaimLost`, `ClaimMisbound`, `VolumeFailedDelete`.
//! Counterpart: `pkg/controller/volume/persistentvolume/pv_controller.go`, `index.go`, `util/util.go`.
//!
//! The best volume for a claim is the smallest Available one that has every access mode the claim asks for,
//! at least its storage request, its StorageClass (`""` matches only volumes without one), its volume mode,
//! and labels its selector matches; a volume already naming the claim in its `claimRef` wins outright. As in
//! the real controller, a claim that found nothing is looked at again at the next periodic resync (every
//! 15 s), while a volume made for a claim (pre-bound) is bound at once. When a claim goes, its volume is
//! Released and kept (`Retain`); with `Delete` a provisioned volume is deleted by its provisioner
//! ([`super::provisioner`]), while a volume made by hand fails, since no plugin can delete it. Claims of a
//! StorageClass in `WaitForFirstConsumer` mode wait for kube-scheduler: it either names them in a volume's
//! `claimRef` or writes `volume.kubernetes.io/selected-node` for their provisioner. No protection finalizers (`kubernetes.io/pvc-protection`) are simulated.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{ObjectReference, PersistentVolume, PersistentVolumeClaim};
use k8s_openapi::api::storage::v1::StorageClass;

use crate::api::quantity::Quantity;
use crate::api::selector::LabelSelector;
use crate::api::{ApiResponse, Kind, Object};
use crate::apiserver::registry::k8s_time;
use crate::client::informer::Change;
use crate::client::ClientError;

use super::book::Book;
use super::recorder::Recorder;
use super::replicaset::sim_time;
use super::{Controller, Cx};

pub const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
pub const BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
pub const PROVISIONED_BY: &str = "pv.kubernetes.io/provisioned-by";
pub const STORAGE_PROVISIONER: &str = "volume.kubernetes.io/storage-provisioner";
pub const BETA_STORAGE_PROVISIONER: &str = "volume.beta.kubernetes.io/storage-provisioner";
pub const SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
pub const DEFAULT_CLASS: &str = "storageclass.kubernetes.io/is-default-class";
const BETA_DEFAULT_CLASS: &str = "storageclass.beta.kubernetes.io/is-default-class";
const BETA_CLASS: &str = "volume.beta.kubernetes.io/storage-class";
/// The provisioner name of StorageClasses whose volumes are only ever made by hand.
pub const NO_PROVISIONER: &str = "kubernetes.io/no-provisioner";

/// `--pvclaimbinder-sync-period`.
pub const RESYNC_MS: u64 = 15_000;
const RESYNC: u64 = 1 << 39;

fn annotation<'a>(o: &'a k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta, key: &str) -> Option<&'a str> {
    o.annotations.as_ref()?.get(key).map(String::as_str)
}

/// The claim's StorageClass (the beta annotation first); `""` for none.
pub fn claim_class(pvc: &PersistentVolumeClaim) -> String {
    annotation(&pvc.metadata, BETA_CLASS)
        .map(str::to_string)
        .or_else(|| pvc.spec.as_ref().and_then(|s| s.storage_class_name.clone()))
        .unwrap_or_default()
}

/// The volume's StorageClass; `""` for none.
pub fn volume_class(pv: &PersistentVolume) -> String {
    annotation(&pv.metadata, BETA_CLASS)
        .map(str::to_string)
        .or_else(|| pv.spec.as_ref().and_then(|s| s.storage_class_name.clone()))
        .unwrap_or_default()
}

/// The default StorageClass: of several, the newest (then the first by name), as the real lookup picks.
pub fn default_class(classes: &[StorageClass]) -> Option<&StorageClass> {
    classes
        .iter()
        .filter(|c| [DEFAULT_CLASS, BETA_DEFAULT_CLASS].iter().any(|k| annotation(&c.metadata, k) == Some("true")))
        .max_by(|a, b| {
            let at = |c: &StorageClass| sim_time(c.metadata.creation_timestamp.as_ref());
            at(a).cmp(&at(b)).then_with(|| b.metadata.name.cmp(&a.metadata.name))
        })
}

fn storage(list: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>) -> Quantity {
    list.and_then(|l| l.get("storage")).map(|q| Quantity::parse_or_zero(&q.0)).unwrap_or_default()
}

pub fn requested(pvc: &PersistentVolumeClaim) -> Quantity {
    storage(pvc.spec.as_ref().and_then(|s| s.resources.as_ref()).and_then(|r| r.requests.as_ref()))
}

/// The volume's `capacity.storage`.
pub fn capacity(pv: &PersistentVolume) -> Quantity {
    storage(pv.spec.as_ref().and_then(|s| s.capacity.as_ref()))
}

fn volume_mode(mode: Option<&String>) -> &str {
    mode.map_or("Filesystem", String::as_str)
}

/// Why `pv` cannot serve `pvc` (`checkVolumeSatisfyClaim`), or None when it can.
pub fn mismatch(pv: &PersistentVolume, pvc: &PersistentVolumeClaim) -> Option<&'static str> {
    let (vspec, cspec) = (pv.spec.clone().unwrap_or_default(), pvc.spec.clone().unwrap_or_default());
    if capacity(pv) < requested(pvc) {
        return Some("requested PV is too small");
    }
    if volume_class(pv) != claim_class(pvc) {
        return Some("storageClassName does not match");
    }
    if volume_mode(vspec.volume_mode.as_ref()) != volume_mode(cspec.volume_mode.as_ref()) {
        return Some("incompatible volumeMode");
    }
    let have = vspec.access_modes.unwrap_or_default();
    if !cspec.access_modes.unwrap_or_default().iter().all(|m| have.contains(m)) {
        return Some("incompatible accessMode");
    }
    None
}

/// The `claimRef` a volume bound to `pvc` carries (kind, apiVersion, namespace, name, uid, resourceVersion).
pub fn claim_ref_to(pvc: &PersistentVolumeClaim) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("PersistentVolumeClaim".into()),
        name: pvc.metadata.name.clone(),
        namespace: pvc.metadata.namespace.clone(),
        uid: pvc.metadata.uid.clone(),
        resource_version: pvc.metadata.resource_version.clone(),
        field_path: None,
    }
}

pub fn selector_matches(pvc: &PersistentVolumeClaim, pv: &PersistentVolume) -> bool {
    match pvc.spec.as_ref().and_then(|s| s.selector.as_ref()) {
        None => true,
        Some(sel) => LabelSelector::from_api(sel).is_ok_and(|s| s.matches(pv.metadata.labels.as_ref())),
    }
}

fn claim_ref_names(pv: &PersistentVolume, pvc: &PersistentVolumeClaim) -> bool {
    pv.spec
        .as_ref()
        .and_then(|s| s.claim_ref.as_ref())
        .is_some_and(|r| r.name == pvc.metadata.name && r.namespace == pvc.metadata.namespace)
}

/// `findBestMatchForClaim`: a volume pre-bound to the claim, else the smallest free volume that fits.
pub fn best_volume<'a>(pvc: &PersistentVolumeClaim, volumes: &'a [PersistentVolume]) -> Option<&'a PersistentVolume> {
    let uid = pvc.metadata.uid.as_deref();
    let usable = |pv: &&PersistentVolume| pv.metadata.deletion_timestamp.is_none() && mismatch(pv, pvc).is_none();
    if let Some(pv) = volumes.iter().filter(usable).find(|pv| {
        claim_ref_names(pv, pvc)
            && pv
                .spec
                .as_ref()
                .and_then(|s| s.claim_ref.as_ref())
                .and_then(|r| r.uid.as_deref())
                .is_none_or(|u| Some(u) == uid)
    }) {
        return Some(pv);
    }
    volumes
        .iter()
        .filter(usable)
        .filter(|pv| pv.spec.as_ref().is_none_or(|s| s.claim_ref.is_none()))
        .filter(|pv| pv.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Available"))
        .filter(|pv| selector_matches(pvc, pv))
        .min_by(|a, b| capacity(a).cmp(&capacity(b)).then_with(|| a.metadata.name.cmp(&b.metadata.name)))
}

fn phase_of_volume(pv: &PersistentVolume) -> &str {
    pv.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn phase_of_claim(pvc: &PersistentVolumeClaim) -> &str {
    pvc.status.as_ref().and_then(|s| s.phase.as_deref()).unwrap_or("")
}

fn claim_key(pvc: &PersistentVolumeClaim) -> String {
    format!("{}/{}", pvc.metadata.namespace.as_deref().unwrap_or(""), pvc.metadata.name.as_deref().unwrap_or(""))
}

#[derive(Debug)]
enum Op {
    /// The volume's claimRef was written; next its phase, then the claim.
    BindVolume { claim: String, volume: String },
    /// The claim's volumeName was written; next its phase.
    BindClaim { claim: String, volume: String },
    /// The last write of a binding, or any other write about `key`.
    Done { key: String },
}

#[derive(Debug, Default)]
pub struct PersistentVolumeController {
    /// `pvc:ns/name` and `pv:name` with writes in flight: nothing else is decided about them meanwhile.
    busy: BTreeSet<String>,
    /// `pvc:…`/`pv:…` → the resourceVersion of its last write: the cache must show it before the next decision.
    written: BTreeMap<String, u64>,
    book: Book<Op>,
    recorder: Recorder,
    resync_scheduled: bool,
}

impl PersistentVolumeController {
    /// Every cached object of `kind` as its type.
    fn all<T: Clone>(cx: &Cx, kind: Kind, pick: fn(&Object) -> Option<&T>) -> Vec<T> {
        cx.list(kind).iter().filter_map(|o| pick(o).cloned()).collect()
    }

    fn volumes(cx: &Cx) -> Vec<PersistentVolume> {
        Self::all(cx, Kind::PersistentVolume, |o| match o {
            Object::PersistentVolume(v) => Some(v),
            _ => None,
        })
    }

    fn classes(cx: &Cx) -> Vec<StorageClass> {
        Self::all(cx, Kind::StorageClass, |o| match o {
            Object::StorageClass(c) => Some(c),
            _ => None,
        })
    }

    fn claim(cx: &Cx, key: &str) -> Option<PersistentVolumeClaim> {
        match cx.get(Kind::PersistentVolumeClaim, key).as_deref() {
            Some(Object::PersistentVolumeClaim(c)) => Some((**c).clone()),
            _ => None,
        }
    }

    fn volume(cx: &Cx, name: &str) -> Option<PersistentVolume> {
        match cx.get(Kind::PersistentVolume, name).as_deref() {
            Some(Object::PersistentVolume(v)) => Some((**v).clone()),
            _ => None,
        }
    }

    /// Whether `key` may be decided on now: no write in flight, and the cache shows the last one.
    fn ready(&mut self, key: &str, cached_rv: u64) -> bool {
        if self.busy.contains(key) {
            return false;
        }
        match self.written.get(key) {
            Some(rv) if cached_rv < *rv => false,
            Some(_) => {
                self.written.remove(key);
                true
            }
            None => true,
        }
    }

    /// A write of `key` succeeded with `rv`; decides again at once if the cache already shows it.
    fn wrote(&mut self, key: &str, rv: u64, cx: &mut Cx) {
        self.busy.remove(key);
        self.written.insert(key.to_string(), rv);
        match key.split_once(':') {
            Some(("pvc", k)) => self.sync_claim(k, cx),
            Some(("pv", k)) => self.sync_volume(k, cx),
            _ => {}
        }
    }

    fn mark(&mut self, key: String) -> u64 {
        self.busy.insert(key.clone());
        self.book.tag(Op::Done { key })
    }

    fn resync(&mut self, cx: &mut Cx) {
        let claims: Vec<String> = cx.list(Kind::PersistentVolumeClaim).iter().map(|o| o.ns_name()).collect();
        for key in claims {
            self.sync_claim(&key, cx);
        }
        for pv in cx.list(Kind::PersistentVolume) {
            self.sync_volume(pv.name(), cx);
        }
    }

    /// `syncClaim`: run on every change of the claim and at every resync, reporting a Pending claim each time
    /// (repeats bump the event's count).
    fn sync_claim(&mut self, key: &str, cx: &mut Cx) {
        let Some(pvc) = Self::claim(cx, key) else { return };
        let rv = pvc.metadata.resource_version.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0);
        if !self.ready(&format!("pvc:{key}"), rv) || pvc.metadata.deletion_timestamp.is_some() {
            return;
        }
        if annotation(&pvc.metadata, BIND_COMPLETED).is_none() {
            self.sync_unbound_claim(&pvc, cx);
        } else {
            self.sync_bound_claim(&pvc, cx);
        }
    }

    fn sync_unbound_claim(&mut self, pvc: &PersistentVolumeClaim, cx: &mut Cx) {
        let spec = pvc.spec.clone().unwrap_or_default();
        let about = Object::PersistentVolumeClaim(Box::new(pvc.clone()));
        let key = claim_key(pvc);
        match spec.volume_name.as_deref().filter(|v| !v.is_empty()) {
            None => {
                let volumes = Self::volumes(cx);
                // A claim waiting for its first consumer takes only a volume already promised to it (by
                // kube-scheduler's PreBind); once the scheduler selected a node for provisioning it is
                // matched as any other (`shouldDelayBinding`).
                let class_name = claim_class(pvc);
                let delayed = annotation(&pvc.metadata, SELECTED_NODE).is_none()
                    && Self::classes(cx).iter().any(|c| {
                        c.metadata.name.as_deref() == Some(class_name.as_str())
                            && c.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer")
                    });
                if let Some(pv) = best_volume(pvc, &volumes).filter(|pv| !delayed || claim_ref_names(pv, pvc)) {
                    self.bind(pv.clone(), pvc.clone(), cx);
                    return;
                }
                let classes = Self::classes(cx);
                if spec.storage_class_name.is_none() && annotation(&pvc.metadata, BETA_CLASS).is_none() {
                    if let Some(default) = default_class(&classes) {
                        // Retroactive default StorageClass assignment (GA in v1.28).
                        let mut updated = pvc.clone();
                        updated.spec.get_or_insert_with(Default::default).storage_class_name =
                            default.metadata.name.clone();
                        let tag = self.mark(format!("pvc:{key}"));
                        cx.update(Object::PersistentVolumeClaim(Box::new(updated)), tag);
                        return;
                    }
                }
                let class_name = claim_class(pvc);
                if class_name.is_empty() {
                    let msg = "no persistent volumes available for this claim and no storage class is set";
                    self.recorder.event(cx, &about, "Normal", "FailedBinding", msg);
                    return;
                }
                let Some(class) = classes.iter().find(|c| c.metadata.name.as_deref() == Some(class_name.as_str()))
                else {
                    let msg = format!("storageclass.storage.k8s.io {class_name:?} not found");
                    self.recorder.event(cx, &about, "Warning", "ProvisioningFailed", &msg);
                    return;
                };
                let wait = class.volume_binding_mode.as_deref() == Some("WaitForFirstConsumer");
                if wait && annotation(&pvc.metadata, SELECTED_NODE).is_none() {
                    let msg = "waiting for first consumer to be created before binding";
                    self.recorder.event(cx, &about, "Normal", "WaitForFirstConsumer", msg);
                    return;
                }
                let provisioner = class.provisioner.clone();
                if annotation(&pvc.metadata, STORAGE_PROVISIONER) != Some(provisioner.as_str()) {
                    let mut updated = pvc.clone();
                    let a = updated.metadata.annotations.get_or_insert_with(Default::default);
                    a.insert(STORAGE_PROVISIONER.into(), provisioner.clone());
                    a.insert(BETA_STORAGE_PROVISIONER.into(), provisioner.clone());
                    let tag = self.mark(format!("pvc:{key}"));
                    cx.update(Object::PersistentVolumeClaim(Box::new(updated)), tag);
                }
                let msg = format!(
                    "Waiting for a volume to be created either by the external provisioner '{provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered."
                );
                self.recorder.event(cx, &about, "Normal", "ExternalProvisioning", &msg);
            }
            Some(name) => {
                // Pre-bound by its author to a named volume.
                let Some(pv) = Self::volume(cx, name) else { return };
                let claim_ref = pv.spec.as_ref().and_then(|s| s.claim_ref.clone());
                match claim_ref {
                    None => match mismatch(&pv, pvc) {
                        Some(why) => {
                            let msg = format!("Cannot bind to requested volume {name:?}: {why}");
                            self.recorder.event(cx, &about, "Warning", "VolumeMismatch", &msg);
                        }
                        None => self.bind(pv, pvc.clone(), cx),
                    },
                    Some(r)
                        if claim_ref_names(&pv, pvc)
                            && r.uid.as_deref().is_none_or(|u| Some(u) == pvc.metadata.uid.as_deref()) =>
                    {
                        self.bind(pv, pvc.clone(), cx)
                    }
                    Some(_) => {}
                }
            }
        }
    }

    fn sync_bound_claim(&mut self, pvc: &PersistentVolumeClaim, cx: &mut Cx) {
        let about = Object::PersistentVolumeClaim(Box::new(pvc.clone()));
        let name = pvc.spec.as_ref().and_then(|s| s.volume_name.clone()).unwrap_or_default();
        let lost = |this: &mut Self, cx: &mut Cx, reason: &str, msg: &str| {
            if phase_of_claim(pvc) != "Lost" {
                this.recorder.event(cx, &about, "Warning", reason, msg);
                let mut updated = pvc.clone();
                updated.status.get_or_insert_with(Default::default).phase = Some("Lost".into());
                let tag = this.mark(format!("pvc:{}", claim_key(pvc)));
                cx.update_status(Object::PersistentVolumeClaim(Box::new(updated)), tag);
            }
        };
        let Some(pv) = Self::volume(cx, &name) else {
            lost(self, cx, "ClaimLost", "Bound claim has lost its PersistentVolume. Data on the volume is lost!");
            return;
        };
        match pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) {
            None => self.bind(pv.clone(), pvc.clone(), cx),
            Some(r) if r.uid.is_some() && r.uid == pvc.metadata.uid => self.bind(pv.clone(), pvc.clone(), cx),
            Some(_) => lost(
                self,
                cx,
                "ClaimMisbound",
                "Two claims are bound to the same volume, this one is bound incorrectly",
            ),
        }
    }

    /// `syncVolume`.
    fn sync_volume(&mut self, name: &str, cx: &mut Cx) {
        let Some(pv) = Self::volume(cx, name) else { return };
        let rv = pv.metadata.resource_version.as_deref().and_then(|v| v.parse().ok()).unwrap_or(0);
        if !self.ready(&format!("pv:{name}"), rv) || pv.metadata.deletion_timestamp.is_some() {
            return;
        }
        let Some(r) = pv.spec.as_ref().and_then(|s| s.claim_ref.clone()) else {
            self.set_volume_phase(&pv, "Available", None, cx);
            return;
        };
        let key = format!("{}/{}", r.namespace.as_deref().unwrap_or(""), r.name.as_deref().unwrap_or(""));
        let Some(uid) = r.uid.as_deref().filter(|u| !u.is_empty()) else {
            // Pre-bound by its author to a claim that may come later.
            self.set_volume_phase(&pv, "Available", None, cx);
            if Self::claim(cx, &key).is_some() {
                self.sync_claim(&key, cx);
            }
            return;
        };
        match Self::claim(cx, &key).filter(|c| c.metadata.uid.as_deref() == Some(uid)) {
            None => {
                // The claim is gone: reclaim.
                match pv.spec.as_ref().and_then(|s| s.persistent_volume_reclaim_policy.as_deref()) {
                    Some("Delete") if annotation(&pv.metadata, PROVISIONED_BY).is_none() => {
                        if phase_of_volume(&pv) != "Failed" {
                            let msg = format!(
                                "error getting deleter volume plugin for volume {name:?}: no deletable volume plugin matched"
                            );
                            let about = Object::PersistentVolume(Box::new(pv.clone()));
                            self.recorder.event(cx, &about, "Warning", "VolumeFailedDelete", &msg);
                            self.set_volume_phase(&pv, "Failed", Some(&msg), cx);
                        }
                    }
                    _ => {
                        if !matches!(phase_of_volume(&pv), "Released" | "Failed") {
                            self.set_volume_phase(&pv, "Released", None, cx);
                        }
                    }
                }
            }
            Some(pvc) => {
                let bound_here = pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()) == Some(name);
                let unbound = pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()).unwrap_or("").is_empty();
                if bound_here {
                    self.set_volume_phase(&pv, "Bound", None, cx);
                } else if unbound {
                    // A volume made for this claim (or bound first): the claim's sync finishes the binding now.
                    self.sync_claim(&key, cx);
                } else if annotation(&pv.metadata, BOUND_BY_CONTROLLER).is_some() {
                    // The claim went to another volume: this one is free again.
                    let mut freed = pv.clone();
                    if let Some(s) = freed.spec.as_mut() {
                        s.claim_ref = None;
                    }
                    if let Some(a) = freed.metadata.annotations.as_mut() {
                        a.remove(BOUND_BY_CONTROLLER);
                    }
                    let tag = self.mark(format!("pv:{name}"));
                    cx.update(Object::PersistentVolume(Box::new(freed)), tag);
                }
            }
        }
    }

    fn set_volume_phase(&mut self, pv: &PersistentVolume, phase: &str, message: Option<&str>, cx: &mut Cx) {
        if phase_of_volume(pv) == phase {
            return;
        }
        let mut updated = pv.clone();
        let status = updated.status.get_or_insert_with(Default::default);
        status.phase = Some(phase.into());
        status.message = message.map(str::to_string);
        status.last_phase_transition_time = Some(k8s_time(cx.now));
        let tag = self.mark(format!("pv:{}", pv.metadata.name.as_deref().unwrap_or("")));
        cx.update_status(Object::PersistentVolume(Box::new(updated)), tag);
    }

    /// `bind`: the volume's claimRef, the volume's phase, the claim's volumeName, the claim's phase, each
    /// written only if not yet so, one after the other.
    fn bind(&mut self, pv: PersistentVolume, pvc: PersistentVolumeClaim, cx: &mut Cx) {
        let key = claim_key(&pvc);
        let name = pv.metadata.name.clone().unwrap_or_default();
        let has_ref = pv
            .spec
            .as_ref()
            .and_then(|s| s.claim_ref.as_ref())
            .is_some_and(|r| r.uid.is_some() && r.uid == pvc.metadata.uid && claim_ref_names(&pv, &pvc));
        if !has_ref {
            let mut updated = pv.clone();
            let spec = updated.spec.get_or_insert_with(Default::default);
            if spec.claim_ref.is_none() {
                updated
                    .metadata
                    .annotations
                    .get_or_insert_with(Default::default)
                    .insert(BOUND_BY_CONTROLLER.into(), "yes".into());
            }
            let spec = updated.spec.get_or_insert_with(Default::default);
            spec.claim_ref = Some(claim_ref_to(&pvc));
            self.busy.insert(format!("pv:{name}"));
            self.busy.insert(format!("pvc:{key}"));
            let tag = self.book.tag(Op::BindVolume { claim: key, volume: name });
            cx.update(Object::PersistentVolume(Box::new(updated)), tag);
            return;
        }
        if phase_of_volume(&pv) != "Bound" {
            self.set_volume_phase(&pv, "Bound", None, cx);
        }
        self.bind_claim(&pv, pvc, cx);
    }

    fn bind_claim(&mut self, pv: &PersistentVolume, pvc: PersistentVolumeClaim, cx: &mut Cx) {
        let key = claim_key(&pvc);
        let name = pv.metadata.name.clone().unwrap_or_default();
        let named = pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()) == Some(name.as_str());
        if !named || annotation(&pvc.metadata, BIND_COMPLETED).is_none() {
            let mut updated = pvc.clone();
            let annotations = updated.metadata.annotations.get_or_insert_with(Default::default);
            if !named {
                annotations.insert(BOUND_BY_CONTROLLER.into(), "yes".into());
            }
            annotations.insert(BIND_COMPLETED.into(), "yes".into());
            updated.spec.get_or_insert_with(Default::default).volume_name = Some(name.clone());
            self.busy.insert(format!("pvc:{key}"));
            let tag = self.book.tag(Op::BindClaim { claim: key, volume: name });
            cx.update(Object::PersistentVolumeClaim(Box::new(updated)), tag);
            return;
        }
        self.claim_status(pv, pvc, cx);
    }

    fn claim_status(&mut self, pv: &PersistentVolume, pvc: PersistentVolumeClaim, cx: &mut Cx) {
        let spec = pv.spec.clone().unwrap_or_default();
        let mut updated = pvc;
        let status = updated.status.get_or_insert_with(Default::default);
        let before = status.clone();
        status.phase = Some("Bound".into());
        status.access_modes = spec.access_modes;
        status.capacity = spec.capacity;
        if *status == before {
            self.busy.remove(&format!("pvc:{}", claim_key(&updated)));
            return;
        }
        let tag = self.mark(format!("pvc:{}", claim_key(&updated)));
        cx.update_status(Object::PersistentVolumeClaim(Box::new(updated)), tag);
    }
}

impl Controller for PersistentVolumeController {
    fn name(&self) -> &'static str {
        "persistentvolume-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::PersistentVolume, Kind::PersistentVolumeClaim, Kind::StorageClass]
    }

    fn on_start(&mut self) {
        *self = PersistentVolumeController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.busy.clear();
        self.written.clear();
        if !self.resync_scheduled {
            self.resync_scheduled = true;
            cx.timer(RESYNC_MS, RESYNC);
        }
        self.resync(cx);
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        match (kind, change) {
            (Kind::PersistentVolumeClaim, Change::Added(o)) => self.sync_claim(&o.ns_name(), cx),
            (Kind::PersistentVolumeClaim, Change::Modified { new: o, .. }) => self.sync_claim(&o.ns_name(), cx),
            (Kind::PersistentVolumeClaim, Change::Deleted(o)) => {
                // Its volume is Released now.
                self.recorder.forget(o);
                if let Object::PersistentVolumeClaim(pvc) = o.as_ref() {
                    if let Some(v) = pvc.spec.as_ref().and_then(|s| s.volume_name.clone()) {
                        self.sync_volume(&v, cx);
                    }
                }
            }
            (Kind::PersistentVolume, Change::Added(o) | Change::Modified { new: o, .. }) => {
                self.sync_volume(o.name(), cx)
            }
            (Kind::PersistentVolume, Change::Deleted(o)) => {
                self.recorder.forget(o);
                if let Object::PersistentVolume(pv) = o.as_ref() {
                    if let Some(r) = pv.spec.as_ref().and_then(|s| s.claim_ref.as_ref()) {
                        let key =
                            format!("{}/{}", r.namespace.as_deref().unwrap_or(""), r.name.as_deref().unwrap_or(""));
                        self.sync_claim(&key, cx);
                    }
                }
            }
            _ => {}
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if token == RESYNC {
            cx.timer(RESYNC_MS, RESYNC);
            self.resync(cx);
        } else if let Some(key) = self.book.fired(token) {
            match key.split_once(':') {
                Some(("pvc", k)) => self.sync_claim(k, cx),
                Some(("pv", k)) => self.sync_volume(k, cx),
                _ => {}
            }
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(op) = self.book.answered(tag) else { return };
        let written = match result {
            Ok(ApiResponse::Object(o)) => Some(o.clone()),
            _ => None,
        };
        match (op, written.as_deref()) {
            (Op::BindVolume { claim, .. }, Some(Object::PersistentVolume(pv))) => {
                let name = pv.metadata.name.clone().unwrap_or_default();
                self.busy.remove(&format!("pv:{name}"));
                self.written.insert(format!("pv:{name}"), written.as_deref().map_or(0, Object::resource_version));
                self.set_volume_phase(pv, "Bound", None, cx);
                match Self::claim(cx, &claim) {
                    Some(pvc) => self.bind_claim(pv, pvc, cx),
                    None => {
                        self.busy.remove(&format!("pvc:{claim}"));
                    }
                }
            }
            (Op::BindClaim { volume, .. }, Some(Object::PersistentVolumeClaim(pvc))) => {
                let key = claim_key(pvc);
                self.busy.remove(&format!("pvc:{key}"));
                self.written.insert(format!("pvc:{key}"), written.as_deref().map_or(0, Object::resource_version));
                match Self::volume(cx, &volume) {
                    Some(pv) => self.claim_status(&pv, *pvc.clone(), cx),
                    None => self.sync_claim(&key, cx),
                }
            }
            (Op::BindVolume { claim, volume } | Op::BindClaim { claim, volume }, _) => {
                // A conflict (another claim got there first) or a lost connection: look again soon.
                self.busy.remove(&format!("pv:{volume}"));
                self.busy.remove(&format!("pvc:{claim}"));
                self.book.requeue(&format!("pvc:{claim}"), 100, cx);
            }
            (Op::Done { key }, Some(o)) => self.wrote(&key, o.resource_version(), cx),
            (Op::Done { key }, None) => {
                self.busy.remove(&key);
                self.book.requeue(&key, 100, cx);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pv(yaml: &str) -> PersistentVolume {
        serde_yaml::from_str(yaml).expect("pv")
    }

    fn pvc(yaml: &str) -> PersistentVolumeClaim {
        serde_yaml::from_str(yaml).expect("pvc")
    }

    fn available(name: &str, size: &str, modes: &str, extra: &str) -> PersistentVolume {
        pv(&format!(
            "metadata: {{name: {name}{extra}}}\nspec: {{capacity: {{storage: {size}}}, accessModes: [{modes}]}}\nstatus: {{phase: Available}}\n"
        ))
    }

    #[test]
    fn the_smallest_volume_that_fits_wins() {
        let claim = pvc("metadata: {name: c, namespace: default, uid: u}\nspec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 2Gi}}}\n");
        let volumes = vec![
            available("big", "10Gi", "ReadWriteOnce", ""),
            available("small", "1Gi", "ReadWriteOnce", ""),
            available("fits", "5Gi", "ReadWriteOnce", ""),
            available("rox", "2Gi", "ReadOnlyMany", ""),
            available("exact", "2048Mi", "ReadWriteOnce, ReadOnlyMany", ""),
        ];
        assert_eq!(best_volume(&claim, &volumes).and_then(|v| v.metadata.name.as_deref()), Some("exact"));
        assert_eq!(mismatch(&volumes[1], &claim), Some("requested PV is too small"));
        assert_eq!(mismatch(&volumes[3], &claim), Some("incompatible accessMode"));
    }

    #[test]
    fn class_selector_and_prebinding_decide_too() {
        let claim = pvc("metadata: {name: c, namespace: default, uid: u}\nspec: {accessModes: [ReadWriteOnce], storageClassName: fast, selector: {matchLabels: {tier: db}}, resources: {requests: {storage: 1Gi}}}\n");
        let unlabelled = pv("metadata: {name: a}\nspec: {storageClassName: fast, capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}\nstatus: {phase: Available}\n");
        let labelled = pv("metadata: {name: b, labels: {tier: db}}\nspec: {storageClassName: fast, capacity: {storage: 3Gi}, accessModes: [ReadWriteOnce]}\nstatus: {phase: Available}\n");
        let other_class = pv("metadata: {name: c, labels: {tier: db}}\nspec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce]}\nstatus: {phase: Available}\n");
        let volumes = vec![unlabelled, labelled.clone(), other_class];
        assert_eq!(best_volume(&claim, &volumes).and_then(|v| v.metadata.name.as_deref()), Some("b"));
        assert_eq!(mismatch(&volumes[2], &claim), Some("storageClassName does not match"));
        // A volume naming the claim goes first, even when bigger and unlabelled.
        let prebound = pv("metadata: {name: z}\nspec: {storageClassName: fast, capacity: {storage: 9Gi}, accessModes: [ReadWriteOnce], claimRef: {name: c, namespace: default}}\nstatus: {phase: Available}\n");
        let volumes = vec![labelled, prebound];
        assert_eq!(best_volume(&claim, &volumes).and_then(|v| v.metadata.name.as_deref()), Some("z"));
    }

    #[test]
    fn the_newest_default_class_is_the_default() {
        let class = |name: &str, at: &str, default: bool| -> StorageClass {
            let ann = if default { format!(", annotations: {{{DEFAULT_CLASS}: \"true\"}}") } else { String::new() };
            serde_yaml::from_str(&format!(
                "metadata: {{name: {name}, creationTimestamp: \"{at}\"{ann}}}\nprovisioner: example.com/disk\n"
            ))
            .expect("class")
        };
        let classes = vec![
            class("old", "2025-01-01T00:00:00Z", true),
            class("new", "2025-06-01T00:00:00Z", true),
            class("newest", "2025-09-01T00:00:00Z", false),
        ];
        assert_eq!(default_class(&classes).and_then(|c| c.metadata.name.as_deref()), Some("new"));
        assert!(default_class(&classes[2..]).is_none());
    }
}
