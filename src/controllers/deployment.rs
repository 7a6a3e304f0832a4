//! The Deployment controller: one ReplicaSet per pod template, named `<deployment>-<pod-template-hash>`, rolled
//! from old to new by the strategy (RollingUpdate within maxSurge/maxUnavailable, or Recreate), with revision
//! history and the Deployment's status and conditions. Watches: Deployments, ReplicaSets. Writes: ReplicaSets
//! (create, scale, adopt/release, delete beyond `revisionHistoryLimit`), Deployment status, Events
//! `ScalingReplicaSet`. Counterpart: `pkg/controller/deployment/` (`deployment_controller.go`, `sync.go`,
//! `rolling.go`, `recreate.go`, `progress.go`, `util/deployment_util.go`).
//!
//! The pod-template-hash is FNV-32a, rendered in decimal and mapped digit by digit into the apiserver's
//! name alphabet, exactly as `SafeEncodeString` does; what is hashed differs from the real controller, which
//! feeds Go's `spew` dump of the `PodTemplateSpec` struct to the hasher: here the bytes are the template's
//! canonical JSON (keys sorted), followed by the collision count's four little-endian bytes when it is set,
//! as the real code appends it. Hashes therefore have the real shape but not the real values. Scaling a
//! Deployment during a rollout scales the newest ReplicaSet first rather than proportionally.

use std::collections::BTreeMap;
use std::sync::Arc;

use k8s_openapi::api::apps::v1::{Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet, ReplicaSetSpec};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::api::selector::LabelSelector;
use crate::api::{ApiResponse, Kind, Object, ObjectMeta, Reason};
use crate::apiserver::registry::k8s_time;
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::replicaset::{controller_ref, owner_ref_to, retain_owner_refs, sim_time};
use super::{Controller, Cx};

pub const REVISION: &str = "deployment.kubernetes.io/revision";
pub const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
pub const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
pub const HASH_LABEL: &str = "pod-template-hash";

/// Deployment annotations not copied onto its ReplicaSets (`skipCopyAnnotation`).
const SKIP_COPY: &[&str] = &[
    "kubectl.kubernetes.io/last-applied-configuration",
    REVISION,
    "deployment.kubernetes.io/revision-history",
    DESIRED_REPLICAS,
    MAX_REPLICAS,
    "deprecated.deployment.rollback.to",
];

use crate::api::hash::template_hash as pod_template_hash;

/// A template as JSON without the pod-template-hash label (what `EqualIgnoreHash` compares).
fn template_without_hash(spec: Option<&k8s_openapi::api::core::v1::PodTemplateSpec>) -> serde_json::Value {
    let mut v = serde_json::to_value(spec.cloned().unwrap_or_default()).unwrap_or_default();
    if let Some(labels) = v.pointer_mut("/metadata/labels").and_then(|l| l.as_object_mut()) {
        labels.remove(HASH_LABEL);
        if labels.is_empty() {
            if let Some(m) = v.pointer_mut("/metadata").and_then(|m| m.as_object_mut()) {
                m.remove("labels");
            }
        }
    }
    if v.pointer("/metadata").and_then(|m| m.as_object()).is_some_and(|m| m.is_empty()) {
        if let Some(m) = v.as_object_mut() {
            m.remove("metadata");
        }
    }
    v
}

/// Resolves an int-or-percent against `total`, rounding up or down.
fn resolve(v: Option<&IntOrString>, default_percent: i32, total: i32, round_up: bool) -> i32 {
    match v {
        Some(IntOrString::Int(i)) => bounded(*i),
        Some(IntOrString::String(s)) => {
            let p: i64 = s.trim_end_matches('%').parse::<i64>().unwrap_or(0).clamp(0, 1_000);
            let t = total as i64 * p;
            (if round_up { (t + 99) / 100 } else { t / 100 }) as i32
        }
        None => {
            let t = total as i64 * default_percent as i64;
            (if round_up { (t + 99) / 100 } else { t / 100 }) as i32
        }
    }
}

/// (maxSurge, maxUnavailable) for `replicas`: surge rounds up, unavailable down, never both zero
/// (`ResolveFenceposts`). Recreate has neither.
pub fn fenceposts(d: &Deployment) -> (i32, i32) {
    let spec = d.spec.as_ref();
    let replicas = bounded(spec.and_then(|s| s.replicas).unwrap_or(1));
    let strategy = spec.and_then(|s| s.strategy.as_ref());
    if strategy.and_then(|s| s.type_.as_deref()) == Some("Recreate") {
        return (0, 0);
    }
    let ru = strategy.and_then(|s| s.rolling_update.as_ref());
    let surge = bounded(resolve(ru.and_then(|r| r.max_surge.as_ref()), 25, replicas, true));
    let mut unavailable = bounded(resolve(ru.and_then(|r| r.max_unavailable.as_ref()), 25, replicas, false));
    if surge == 0 && unavailable == 0 {
        unavailable = 1;
    }
    (surge, unavailable.min(replicas))
}

fn revision(rs: &ReplicaSet) -> i64 {
    rs.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(REVISION))
        .and_then(|r| r.parse::<i64>().ok())
        .unwrap_or(0)
        .max(0)
}

/// Every replica count is kept within `0..=MAX_COUNT`, so sums over ReplicaSets cannot overflow.
const MAX_COUNT: i32 = 1 << 24;

fn bounded(n: i32) -> i32 {
    n.clamp(0, MAX_COUNT)
}

fn spec_replicas(rs: &ReplicaSet) -> i32 {
    bounded(rs.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0))
}

fn status_of(rs: &ReplicaSet) -> (i32, i32, i32) {
    let s = rs.status.clone().unwrap_or_default();
    (bounded(s.replicas), bounded(s.ready_replicas.unwrap_or(0)), bounded(s.available_replicas.unwrap_or(0)))
}

#[derive(Debug)]
enum Op {
    CreateRs { deploy: String, replicas: i32 },
    Scale { deploy: String, from: i32, to: i32 },
    Other { deploy: String },
}

#[derive(Debug, Default)]
pub struct DeploymentController {
    pending: BTreeMap<u64, Op>,
    timers: BTreeMap<u64, String>,
    /// ReplicaSets asked for and not yet seen, per Deployment: do not act on a stale view meanwhile.
    in_flight: BTreeMap<String, u32>,
    /// Per Deployment: objects this loop wrote, with the resourceVersion the informer has yet to show.
    awaiting: BTreeMap<String, BTreeMap<(Kind, String), u64>>,
    next: u64,
}

impl DeploymentController {
    fn tag(&mut self, op: Op) -> u64 {
        let deploy = match &op {
            Op::CreateRs { deploy, .. } | Op::Scale { deploy, .. } | Op::Other { deploy } => deploy.clone(),
        };
        *self.in_flight.entry(deploy).or_default() += 1;
        self.next += 1;
        self.pending.insert(self.next, op);
        self.next
    }

    fn requeue(&mut self, key: &str, after_ms: u64, cx: &mut Cx) {
        self.next += 1;
        self.timers.insert(self.next, key.to_string());
        cx.timer(after_ms, self.next);
    }

    fn deploy_keys_for_rs(rs: &ReplicaSet, cx: &Cx) -> Vec<String> {
        let ns = rs.metadata.namespace.clone().unwrap_or_default();
        if let Some(r) = controller_ref(&rs.metadata) {
            return if r.kind == "Deployment" { vec![format!("{ns}/{}", r.name)] } else { vec![] };
        }
        let labels = rs.spec.as_ref().and_then(|s| s.template.as_ref()?.metadata.as_ref()?.labels.clone());
        cx.list(Kind::Deployment)
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::Deployment(d) if d.metadata.namespace.as_deref() == Some(ns.as_str()) => {
                    let sel = LabelSelector::from_api(&d.spec.as_ref()?.selector).ok()?;
                    (!sel.is_empty() && sel.matches(labels.as_ref())).then(|| o.ns_name())
                }
                _ => None,
            })
            .collect()
    }

    /// Scales `rs` to `to`, with the annotations and the `ScalingReplicaSet` event of `scaleReplicaSet`.
    fn scale(&mut self, d: &Deployment, rs: &ReplicaSet, to: i32, key: &str, cx: &mut Cx) {
        let from = spec_replicas(rs);
        let (surge, _) = fenceposts(d);
        let replicas = bounded(d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1));
        let mut updated = rs.clone();
        let ann = updated.metadata.annotations.get_or_insert_with(BTreeMap::new);
        let desired = replicas.to_string();
        let max = (replicas + surge).to_string();
        let ann_changed = ann.get(DESIRED_REPLICAS) != Some(&desired) || ann.get(MAX_REPLICAS) != Some(&max);
        if from == to && !ann_changed {
            return;
        }
        ann.insert(DESIRED_REPLICAS.into(), desired);
        ann.insert(MAX_REPLICAS.into(), max);
        updated.spec.get_or_insert_with(Default::default).replicas = Some(to);
        let tag = self.tag(Op::Scale { deploy: key.to_string(), from, to });
        cx.update(Object::ReplicaSet(Box::new(updated)), tag);
    }

    fn sync(&mut self, key: &str, cx: &mut Cx) {
        if self.in_flight.get(key).copied().unwrap_or(0) > 0 {
            return;
        }
        if let Some(waiting) = self.awaiting.get_mut(key) {
            waiting.retain(|(kind, name), rv| cx.get(*kind, name).is_none_or(|o| o.resource_version() < *rv));
            waiting.retain(|(kind, name), _| *kind != Kind::Deployment || cx.get(*kind, name).is_some());
            if !waiting.is_empty() {
                return;
            }
            self.awaiting.remove(key);
        }
        let Some(obj) = cx.get(Kind::Deployment, key) else { return };
        let Object::Deployment(d) = obj.as_ref() else { return };
        let Some(spec) = d.spec.as_ref() else { return };
        let Ok(selector) = LabelSelector::from_api(&spec.selector) else { return };
        if selector.is_empty() || d.metadata.deletion_timestamp.is_some() {
            return;
        }
        let ns = d.metadata.namespace.clone().unwrap_or_default();
        let uid = d.metadata.uid.clone().unwrap_or_default();
        let replicas = bounded(spec.replicas.unwrap_or(1));
        let paused = spec.paused == Some(true);
        let (surge, max_unavailable) = fenceposts(d);

        // Claim ReplicaSets.
        let mut owned: Vec<ReplicaSet> = Vec::new();
        for o in cx.list(Kind::ReplicaSet) {
            let Object::ReplicaSet(rs) = o.as_ref() else { continue };
            if rs.metadata.namespace.as_deref() != Some(ns.as_str()) {
                continue;
            }
            let labels = rs.spec.as_ref().and_then(|s| s.template.as_ref()?.metadata.as_ref()?.labels.clone());
            let matches = selector.matches(labels.as_ref());
            match controller_ref(&rs.metadata) {
                Some(r) if r.uid == uid => {
                    if matches {
                        owned.push((**rs).clone());
                    } else {
                        let mut released = rs.clone();
                        retain_owner_refs(&mut released.metadata, |r| r.uid != uid);
                        let tag = self.tag(Op::Other { deploy: key.to_string() });
                        cx.update(Object::ReplicaSet(released), tag);
                        return;
                    }
                }
                None if matches && rs.metadata.deletion_timestamp.is_none() => {
                    let mut adopted = rs.clone();
                    adopted.metadata.owner_references.get_or_insert_with(Vec::new).push(owner_ref_to(
                        &d.metadata,
                        "apps/v1",
                        "Deployment",
                    ));
                    let tag = self.tag(Op::Other { deploy: key.to_string() });
                    cx.update(Object::ReplicaSet(adopted), tag);
                    return;
                }
                _ => {}
            }
        }
        owned.sort_by_key(|rs| {
            (sim_time(rs.metadata.creation_timestamp.as_ref()).unwrap_or(SimTime::ZERO), rs.metadata.name.clone())
        });

        let template = template_without_hash(Some(&spec.template));
        let new_rs = owned
            .iter()
            .find(|rs| template_without_hash(rs.spec.as_ref().and_then(|s| s.template.as_ref())) == template)
            .cloned();
        let new_name = new_rs.as_ref().and_then(|r| r.metadata.name.clone());
        let olds: Vec<&ReplicaSet> =
            owned.iter().filter(|rs| rs.metadata.name != new_name || new_name.is_none()).collect();
        let max_old_revision = olds.iter().map(|rs| revision(rs)).max().unwrap_or(0);

        // Create the new ReplicaSet for this template, when rolling out.
        let Some(new_rs) = new_rs else {
            if paused {
                self.sync_status(d, None, &owned, key, cx);
                return;
            }
            let start = if spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate") {
                if olds.iter().any(|rs| spec_replicas(rs) > 0) {
                    for rs in &olds {
                        self.scale(d, rs, 0, key, cx);
                    }
                    self.sync_status(d, None, &owned, key, cx);
                    return;
                }
                if olds.iter().any(|rs| status_of(rs).0 > 0) {
                    self.sync_status(d, None, &owned, key, cx);
                    return;
                }
                replicas
            } else if olds.iter().all(|rs| spec_replicas(rs) == 0) {
                replicas
            } else {
                let current: i32 = olds.iter().map(|rs| spec_replicas(rs)).sum();
                (replicas + surge - current).clamp(0, replicas)
            };
            self.create_new_rs(d, start, max_old_revision.saturating_add(1), key, cx);
            return;
        };

        // Keep the revision of the new ReplicaSet above every old one (a rollback makes an old one new again).
        if revision(&new_rs) <= max_old_revision && !paused {
            let mut updated = new_rs.clone();
            updated
                .metadata
                .annotations
                .get_or_insert_with(BTreeMap::new)
                .insert(REVISION.into(), (max_old_revision.saturating_add(1)).to_string());
            let tag = self.tag(Op::Other { deploy: key.to_string() });
            cx.update(Object::ReplicaSet(Box::new(updated)), tag);
            return;
        }

        // The Deployment carries the revision of its new ReplicaSet (`SetDeploymentRevision`).
        let rs_revision = revision(&new_rs).to_string();
        if d.metadata.annotations.as_ref().and_then(|a| a.get(REVISION)) != Some(&rs_revision) && !paused {
            let mut updated = d.clone();
            updated.metadata.annotations.get_or_insert_with(BTreeMap::new).insert(REVISION.into(), rs_revision);
            let tag = self.tag(Op::Other { deploy: key.to_string() });
            cx.update(Object::Deployment(updated), tag);
            return;
        }

        let new_spec = spec_replicas(&new_rs);
        let active_olds: Vec<&&ReplicaSet> = olds.iter().filter(|rs| spec_replicas(rs) > 0).collect();
        if paused || active_olds.is_empty() {
            // Not rolling: scale the one active ReplicaSet to the Deployment's size.
            if new_spec != replicas || !paused {
                self.scale(d, &new_rs, replicas, key, cx);
            }
        } else if spec.strategy.as_ref().and_then(|s| s.type_.as_deref()) == Some("Recreate") {
            for rs in &active_olds {
                self.scale(d, rs, 0, key, cx);
            }
        } else {
            self.rolling(d, &new_rs, &active_olds, replicas, surge, max_unavailable, key, cx);
        }
        if !paused {
            self.cleanup(d, &olds, cx);
        }
        self.sync_status(d, Some(&new_rs), &owned, key, cx);
    }

    #[allow(clippy::too_many_arguments)]
    fn rolling(
        &mut self,
        d: &Deployment,
        new_rs: &ReplicaSet,
        olds: &[&&ReplicaSet],
        replicas: i32,
        surge: i32,
        max_unavailable: i32,
        key: &str,
        cx: &mut Cx,
    ) {
        let new_spec = spec_replicas(new_rs);
        let old_total: i32 = olds.iter().map(|rs| spec_replicas(rs)).sum();
        let total = new_spec + old_total;
        // Scale up the new ReplicaSet within maxSurge.
        if new_spec < replicas && total < replicas + surge {
            let to = new_spec + (replicas + surge - total).min(replicas - new_spec);
            self.scale(d, new_rs, to, key, cx);
            return;
        }
        if new_spec > replicas {
            self.scale(d, new_rs, replicas, key, cx);
            return;
        }
        // Scale down old ReplicaSets within maxUnavailable: unhealthy pods first, then available ones.
        let min_available = replicas - max_unavailable;
        let new_unavailable = (new_spec - status_of(new_rs).2).max(0);
        let mut budget = total - min_available - new_unavailable;
        if budget <= 0 {
            return;
        }
        let mut targets: BTreeMap<String, i32> = BTreeMap::new();
        for rs in olds {
            let unhealthy = (spec_replicas(rs) - status_of(rs).2).max(0).min(budget);
            if unhealthy > 0 {
                targets.insert(rs.metadata.name.clone().unwrap_or_default(), spec_replicas(rs) - unhealthy);
                budget -= unhealthy;
            }
        }
        let available: i32 = status_of(new_rs).2 + olds.iter().map(|rs| status_of(rs).2).sum::<i32>();
        let unhealthy_removed: i32 = olds
            .iter()
            .filter_map(|rs| targets.get(rs.metadata.name.as_deref().unwrap_or("")).map(|t| spec_replicas(rs) - t))
            .sum();
        let mut down = (available - min_available).min(budget + unhealthy_removed) - unhealthy_removed;
        for rs in olds {
            if down <= 0 {
                break;
            }
            let name = rs.metadata.name.clone().unwrap_or_default();
            let current = targets.get(&name).copied().unwrap_or(spec_replicas(rs));
            let cut = current.min(down);
            if cut > 0 {
                targets.insert(name, current - cut);
                down -= cut;
            }
        }
        for rs in olds {
            if let Some(to) = targets.get(rs.metadata.name.as_deref().unwrap_or("")) {
                self.scale(d, rs, *to, key, cx);
            }
        }
    }

    fn create_new_rs(&mut self, d: &Deployment, replicas: i32, revision: i64, key: &str, cx: &mut Cx) {
        let spec = d.spec.clone().unwrap_or_default();
        let collision = d.status.as_ref().and_then(|s| s.collision_count);
        let hash = pod_template_hash(&template_without_hash(Some(&spec.template)), collision);
        let mut template = spec.template.clone();
        template
            .metadata
            .get_or_insert_with(Default::default)
            .labels
            .get_or_insert_with(BTreeMap::new)
            .insert(HASH_LABEL.into(), hash.clone());
        let mut selector = spec.selector.clone();
        selector.match_labels.get_or_insert_with(BTreeMap::new).insert(HASH_LABEL.into(), hash.clone());
        let (surge, _) = fenceposts(d);
        let total = bounded(spec.replicas.unwrap_or(1));
        let mut annotations: BTreeMap<String, String> = d
            .metadata
            .annotations
            .iter()
            .flatten()
            .filter(|(k, _)| !SKIP_COPY.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        annotations.insert(REVISION.into(), revision.to_string());
        annotations.insert(DESIRED_REPLICAS.into(), total.to_string());
        annotations.insert(MAX_REPLICAS.into(), (total + surge).to_string());
        let name = format!("{}-{hash}", d.metadata.name.as_deref().unwrap_or(""));
        let rs = ReplicaSet {
            metadata: ObjectMeta {
                name: Some(name),
                namespace: d.metadata.namespace.clone(),
                labels: template.metadata.as_ref().and_then(|m| m.labels.clone()),
                annotations: Some(annotations),
                owner_references: Some(vec![owner_ref_to(&d.metadata, "apps/v1", "Deployment")]),
                ..ObjectMeta::default()
            },
            spec: Some(ReplicaSetSpec {
                replicas: Some(replicas),
                min_ready_seconds: spec.min_ready_seconds,
                selector,
                template: Some(template),
            }),
            status: None,
        };
        let tag = self.tag(Op::CreateRs { deploy: key.to_string(), replicas });
        cx.create(Object::ReplicaSet(Box::new(rs)), tag);
    }

    /// Deletes old ReplicaSets with nothing left beyond `revisionHistoryLimit`, oldest revision first.
    fn cleanup(&mut self, d: &Deployment, olds: &[&ReplicaSet], cx: &mut Cx) {
        let limit = d.spec.as_ref().and_then(|s| s.revision_history_limit).unwrap_or(10).max(0) as usize;
        let mut idle: Vec<&&ReplicaSet> = olds
            .iter()
            .filter(|rs| spec_replicas(rs) == 0 && status_of(rs).0 == 0 && rs.metadata.deletion_timestamp.is_none())
            .collect();
        if idle.len() <= limit {
            return;
        }
        idle.sort_by_key(|rs| (revision(rs), rs.metadata.name.clone()));
        let surplus = idle.len() - limit;
        for rs in idle.into_iter().take(surplus) {
            cx.delete(&Object::ReplicaSet(Box::new((*rs).clone())), None, None, 0);
        }
    }

    fn sync_status(&mut self, d: &Deployment, new_rs: Option<&ReplicaSet>, all: &[ReplicaSet], key: &str, cx: &mut Cx) {
        let spec = d.spec.clone().unwrap_or_default();
        let replicas = bounded(spec.replicas.unwrap_or(1));
        let (_, max_unavailable) = fenceposts(d);
        let old = d.status.clone().unwrap_or_default();
        let sum = |f: fn(&ReplicaSet) -> i32| all.iter().map(f).sum::<i32>();
        let total = sum(|rs| status_of(rs).0);
        let available = sum(|rs| status_of(rs).2);
        let mut status = DeploymentStatus {
            observed_generation: d.metadata.generation,
            replicas: Some(total),
            updated_replicas: Some(new_rs.map(|rs| status_of(rs).0).unwrap_or(0)),
            ready_replicas: Some(sum(|rs| status_of(rs).1)),
            available_replicas: Some(available),
            unavailable_replicas: Some((replicas - available).max(0)),
            terminating_replicas: old.terminating_replicas,
            collision_count: old.collision_count,
            conditions: old.conditions.clone(),
        };
        for f in [&mut status.replicas, &mut status.updated_replicas, &mut status.ready_replicas] {
            if *f == Some(0) {
                *f = None;
            }
        }
        if status.available_replicas == Some(0) {
            status.available_replicas = None;
        }
        if status.unavailable_replicas == Some(0) {
            status.unavailable_replicas = None;
        }
        let now = k8s_time(cx.now);
        let mut conditions = old.conditions.clone().unwrap_or_default();
        let set = |conditions: &mut Vec<DeploymentCondition>, type_: &str, st: &str, reason: &str, message: String| {
            let existing = conditions.iter().find(|c| c.type_ == type_).cloned();
            if let Some(e) = &existing {
                if e.status == st && e.reason.as_deref() == Some(reason) && e.message.as_deref() == Some(&message) {
                    return;
                }
            }
            let transition = match &existing {
                Some(e) if e.status == st => e.last_transition_time.clone(),
                _ => Some(now.clone()),
            };
            conditions.retain(|c| c.type_ != type_);
            conditions.push(DeploymentCondition {
                type_: type_.into(),
                status: st.into(),
                reason: Some(reason.into()),
                message: Some(message),
                last_update_time: Some(now.clone()),
                last_transition_time: transition,
            });
        };
        if available >= replicas - max_unavailable {
            set(
                &mut conditions,
                "Available",
                "True",
                "MinimumReplicasAvailable",
                "Deployment has minimum availability.".into(),
            );
        } else {
            set(
                &mut conditions,
                "Available",
                "False",
                "MinimumReplicasUnavailable",
                "Deployment does not have minimum availability.".into(),
            );
        }
        let progressing = conditions.iter().find(|c| c.type_ == "Progressing").cloned();
        let deadline = spec.progress_deadline_seconds.unwrap_or(600);
        if spec.paused == Some(true) {
            if progressing.as_ref().and_then(|c| c.reason.as_deref()) != Some("DeploymentPaused") {
                set(&mut conditions, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused".into());
            }
        } else if progressing.as_ref().and_then(|c| c.reason.as_deref()) == Some("DeploymentPaused") {
            set(&mut conditions, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed".into());
        } else if let Some(rs) = new_rs {
            let name = rs.metadata.name.clone().unwrap_or_default();
            let (rs_replicas, _, rs_available) = status_of(rs);
            let complete = spec_replicas(rs) == replicas
                && rs_replicas == replicas
                && rs_available == replicas
                && total == replicas;
            let n = |v: Option<i32>| v.unwrap_or(0);
            // `DeploymentProgressing`: more updated, ready or available pods, or fewer old ones.
            let progressed = n(status.updated_replicas) > n(old.updated_replicas)
                || n(status.ready_replicas) > n(old.ready_replicas)
                || n(status.available_replicas) > n(old.available_replicas)
                || n(status.replicas) - n(status.updated_replicas) < n(old.replicas) - n(old.updated_replicas);
            if complete {
                set(
                    &mut conditions,
                    "Progressing",
                    "True",
                    "NewReplicaSetAvailable",
                    format!("ReplicaSet \"{name}\" has successfully progressed."),
                );
            } else if progressed {
                // A fresh lastUpdateTime: the progress deadline counts from here.
                let transition = progressing
                    .as_ref()
                    .filter(|c| c.status == "True")
                    .and_then(|c| c.last_transition_time.clone())
                    .unwrap_or_else(|| now.clone());
                conditions.retain(|c| c.type_ != "Progressing");
                conditions.push(DeploymentCondition {
                    type_: "Progressing".into(),
                    status: "True".into(),
                    reason: Some("ReplicaSetUpdated".into()),
                    message: Some(format!("ReplicaSet \"{name}\" is progressing.")),
                    last_update_time: Some(now.clone()),
                    last_transition_time: Some(transition),
                });
            } else if let Some(c) = progressing.as_ref().filter(|c| {
                c.status == "True" && c.reason.as_deref() != Some("NewReplicaSetAvailable") && deadline < i32::MAX
            }) {
                let since = sim_time(c.last_update_time.as_ref()).unwrap_or(SimTime::ZERO);
                let due = since.plus_ms(deadline.max(0) as u64 * 1000);
                if cx.now >= due {
                    set(
                        &mut conditions,
                        "Progressing",
                        "False",
                        "ProgressDeadlineExceeded",
                        format!("ReplicaSet \"{name}\" has timed out progressing."),
                    );
                } else {
                    self.requeue(key, due.since(cx.now) + 1, cx);
                }
            }
        }
        // Conditions in the order the real controller keeps them: Available, then Progressing.
        conditions.sort_by_key(|c| if c.type_ == "Available" { 0 } else { 1 });
        status.conditions = (!conditions.is_empty()).then_some(conditions);
        if status != old {
            let mut updated = d.clone();
            updated.status = Some(status);
            let tag = self.tag(Op::Other { deploy: key.to_string() });
            cx.update_status(Object::Deployment(Box::new(updated)), tag);
        }
    }

    fn after_create(&mut self, key: &str, rs: &Arc<Object>, cx: &mut Cx) {
        let (Some(obj), Object::ReplicaSet(rs)) = (cx.get(Kind::Deployment, key), rs.as_ref()) else { return };
        let Object::Deployment(d) = obj.as_ref() else { return };
        let name = rs.metadata.name.clone().unwrap_or_default();
        let mut d = d.clone();
        let mut status = d.status.clone().unwrap_or_default();
        let mut conditions = status.conditions.clone().unwrap_or_default();
        let now = k8s_time(cx.now);
        conditions.retain(|c| c.type_ != "Progressing");
        conditions.push(DeploymentCondition {
            type_: "Progressing".into(),
            status: "True".into(),
            reason: Some("NewReplicaSetCreated".into()),
            message: Some(format!("Created new replica set \"{name}\"")),
            last_update_time: Some(now.clone()),
            last_transition_time: Some(now),
        });
        conditions.sort_by_key(|c| if c.type_ == "Available" { 0 } else { 1 });
        status.conditions = Some(conditions);
        // Only the condition changes: the counts and observedGeneration stay as they were until the next sync
        // computes them with the new ReplicaSet (kubectl rollout status keeps waiting meanwhile).
        d.status = Some(status);
        let tag = self.tag(Op::Other { deploy: key.to_string() });
        cx.update_status(Object::Deployment(d), tag);
    }
}

impl Controller for DeploymentController {
    fn name(&self) -> &'static str {
        "deployment-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Deployment, Kind::ReplicaSet]
    }

    /// A new process: the calls, timers and writes the previous one was waiting for are gone with it (one
    /// whose status write died with the apiserver would otherwise wait for its answer for good).
    fn on_start(&mut self) {
        *self = Self::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        for d in cx.list(Kind::Deployment) {
            self.sync(&d.ns_name(), cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        if let Change::Deleted(o) = change {
            let gone = (o.kind(), o.ns_name());
            for waiting in self.awaiting.values_mut() {
                waiting.remove(&gone);
            }
        }
        let keys: Vec<String> = match (kind, change) {
            (Kind::Deployment, Change::Added(o) | Change::Modified { new: o, .. }) => vec![o.ns_name()],
            (Kind::ReplicaSet, Change::Added(o) | Change::Deleted(o)) => match o.as_ref() {
                Object::ReplicaSet(rs) => Self::deploy_keys_for_rs(rs, cx),
                _ => vec![],
            },
            (Kind::ReplicaSet, Change::Modified { old, new }) => match (old.as_ref(), new.as_ref()) {
                (Object::ReplicaSet(o), Object::ReplicaSet(n)) => {
                    let mut k = Self::deploy_keys_for_rs(n, cx);
                    k.extend(Self::deploy_keys_for_rs(o, cx));
                    k.sort();
                    k.dedup();
                    k
                }
                _ => vec![],
            },
            _ => vec![],
        };
        for key in keys {
            self.sync(&key, cx);
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(key) = self.timers.remove(&token) {
            self.sync(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(op) = self.pending.remove(&tag) else { return };
        let key = match &op {
            Op::CreateRs { deploy, .. } | Op::Scale { deploy, .. } | Op::Other { deploy } => deploy.clone(),
        };
        let error = match result {
            Ok(ApiResponse::Error(s)) => Some(s.clone()),
            Ok(_) => None,
            Err(_) => Some(crate::api::Status::bad_request("connection lost")),
        };
        let about = cx.get(Kind::Deployment, &key);
        if let (Ok(ApiResponse::Object(o)), None) = (result, &error) {
            if matches!(o.kind(), Kind::ReplicaSet | Kind::Deployment) {
                self.awaiting.entry(key.clone()).or_default().insert((o.kind(), o.ns_name()), o.resource_version());
            }
        }
        match (&op, result, &error) {
            (Op::CreateRs { replicas, .. }, Ok(ApiResponse::Object(rs)), None) => {
                if let Some(d) = &about {
                    if *replicas > 0 {
                        let msg = format!("Scaled up replica set {} from 0 to {replicas}", rs.name());
                        cx.event(d, "Normal", "ScalingReplicaSet", &msg);
                    }
                }
                self.after_create(&key, rs, cx);
            }
            (Op::CreateRs { .. }, _, Some(s)) if s.reason == Reason::AlreadyExists => {
                // A ReplicaSet of that name with another template: bump collisionCount for a new hash.
                if let Some(obj) = &about {
                    if let Object::Deployment(d) = obj.as_ref() {
                        let mut d = d.clone();
                        let status = d.status.get_or_insert_with(Default::default);
                        status.collision_count = Some(status.collision_count.unwrap_or(0).saturating_add(1));
                        let tag = self.tag(Op::Other { deploy: key.clone() });
                        cx.update_status(Object::Deployment(d), tag);
                    }
                }
            }
            (Op::Scale { from, to, .. }, Ok(ApiResponse::Object(rs)), None) if from != to => {
                if let Some(d) = &about {
                    let dir = if to > from { "up" } else { "down" };
                    let msg = format!("Scaled {dir} replica set {} from {from} to {to}", rs.name());
                    cx.event(d, "Normal", "ScalingReplicaSet", &msg);
                }
            }
            _ => {}
        }
        if let Some(n) = self.in_flight.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                self.in_flight.remove(&key);
                if error.is_some() {
                    self.requeue(&key, 1_000, cx);
                } else {
                    self.sync(&key, cx);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_template_hashes_use_only_the_ten_encoded_digits_and_change_with_the_collision_count() {
        let t = serde_json::json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "nginx", "image": "nginx"}]}});
        let h = pod_template_hash(&t, None);
        assert!(!h.is_empty() && h.len() <= 10 && h.bytes().all(|b| b"456789bcdf".contains(&b)), "{h}");
        assert_ne!(h, pod_template_hash(&t, Some(1)));
        assert_eq!(h, pod_template_hash(&t, None));
    }

    fn deployment(replicas: i32, surge: Option<IntOrString>, unavailable: Option<IntOrString>) -> Deployment {
        let mut d = Deployment::default();
        let spec = d.spec.get_or_insert_with(Default::default);
        spec.replicas = Some(replicas);
        spec.strategy = Some(k8s_openapi::api::apps::v1::DeploymentStrategy {
            type_: Some("RollingUpdate".into()),
            rolling_update: Some(k8s_openapi::api::apps::v1::RollingUpdateDeployment {
                max_surge: surge,
                max_unavailable: unavailable,
            }),
        });
        d
    }

    #[test]
    fn surge_rounds_up_unavailable_rounds_down_and_both_zero_allows_one_unavailable() {
        let pct = |s: &str| Some(IntOrString::String(s.into()));
        assert_eq!(fenceposts(&deployment(3, pct("25%"), pct("25%"))), (1, 0));
        assert_eq!(fenceposts(&deployment(4, pct("25%"), pct("25%"))), (1, 1));
        assert_eq!(fenceposts(&deployment(10, pct("25%"), pct("25%"))), (3, 2));
        assert_eq!(fenceposts(&deployment(3, Some(IntOrString::Int(0)), Some(IntOrString::Int(0)))), (0, 1));
    }

    #[test]
    fn absurd_sizes_and_percentages_resolve_without_overflow() {
        let d = deployment(i32::MAX, Some(IntOrString::String("9999999999%".into())), Some(IntOrString::Int(i32::MAX)));
        let (surge, unavailable) = fenceposts(&d);
        assert!(surge >= 0 && unavailable >= 0);
        assert!(bounded(i32::MAX).checked_add(surge).is_some());
        let d = deployment(-5, None, None);
        assert_eq!(fenceposts(&d), (0, 0));
    }
}
