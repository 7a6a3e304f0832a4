//! The ResourceQuota controller: keeps each quota's `status.hard` (its `spec.hard`) and `status.used` (what
//! the objects of its namespace use of each of those resources, through the same evaluators as the
//! ResourceQuota admission plugin: pods with their cpu/memory requests and limits, `count/<resource>`,
//! services, claims and their storage, scopes). Watches: ResourceQuotas and the namespaced kinds it counts.
//! Writes: ResourceQuota status. Counterpart: `pkg/controller/resourcequota/resource_quota_controller.go`
//! (`syncResourceQuota`), `pkg/quota/v1/evaluator/core`.
//!
//! The real controller recomputes a quota when it changes, when counted objects are deleted or pods finish
//! (its replenishment), and every 5 minutes, while the admission plugin adds each admitted create to
//! `status.used` itself; here any change to a counted object in a namespace that has quotas marks the
//! namespace, and marked namespaces are recomputed together 100 ms later, which gives the same numbers
//! without writes from admission. Pods are indexed by namespace, so a recount never walks every pod.
//! Pods whose deletion grace period has run out no longer count, as in the real pod evaluator.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::api::core::v1::{ResourceQuota, ResourceQuotaStatus};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as ApiQuantity;

use crate::api::quantity::Quantity;
use crate::api::{ApiResponse, Kind, Object};
use crate::apiserver::admission::resource_quota::{add_usage, kind_usage, Usage};
use crate::client::informer::Change;
use crate::client::ClientError;
use crate::sim::SimTime;

use super::book::Book;
use super::replicaset::sim_time;
use super::{Controller, Cx};

/// The kinds whose objects a quota can count (`count/<resource>` and the named evaluators): what it watches.
const COUNTED: &[Kind] = &[
    Kind::Pod,
    Kind::Service,
    Kind::PersistentVolumeClaim,
    Kind::ConfigMap,
    Kind::Secret,
    Kind::ServiceAccount,
    Kind::ReplicaSet,
    Kind::Deployment,
    Kind::StatefulSet,
    Kind::DaemonSet,
    Kind::Job,
    Kind::CronJob,
    Kind::HorizontalPodAutoscaler,
    Kind::ResourceQuota,
];

/// How long changes gather before the marked namespaces are recounted.
const COALESCE_MS: u64 = 100;
/// `--resource-quota-sync-period`.
const FULL_RESYNC_MS: u64 = 300_000;
const RECOUNT: u64 = 1;
const FULL_RESYNC: u64 = 2;

#[derive(Debug, Default)]
pub struct ResourceQuotaController {
    dirty: BTreeSet<String>,
    recount_scheduled: bool,
    /// Whether the periodic full resync timer runs (set once, on the first sync).
    resync_started: bool,
    /// Status writes in flight, by namespace.
    book: Book<String>,
}

/// Whether a pod still counts: not past the end of its deletion grace period (`QuotaV1Pod`).
fn pod_counts(obj: &Object, now: SimTime) -> bool {
    let Object::Pod(pod) = obj else { return true };
    match (sim_time(pod.metadata.deletion_timestamp.as_ref()), pod.metadata.deletion_grace_period_seconds) {
        (Some(at), Some(grace)) => now <= at.plus_ms(grace.max(0) as u64 * 1000),
        _ => true,
    }
}

/// The status a quota should have, given the objects of its namespace by kind.
pub fn quota_status(quota: &ResourceQuota, objects: &BTreeMap<Kind, Vec<Arc<Object>>>) -> ResourceQuotaStatus {
    let hard = quota.spec.as_ref().and_then(|s| s.hard.clone()).unwrap_or_default();
    let mut used = Usage::new();
    for kind in COUNTED {
        let list = objects.get(kind).map(Vec::as_slice).unwrap_or(&[]);
        if let Some(u) = kind_usage(quota, *kind, list.iter().map(|o| o.as_ref())) {
            used = add_usage(&used, &u);
        }
    }
    let canonical = |q: &ApiQuantity| ApiQuantity(Quantity::parse_or_zero(&q.0).to_string());
    ResourceQuotaStatus {
        hard: Some(hard.iter().map(|(k, v)| (k.clone(), canonical(v))).collect()),
        used: Some(
            used.into_iter()
                .filter(|(k, _)| hard.contains_key(k))
                .map(|(k, v)| (k, ApiQuantity(v.to_string())))
                .collect(),
        ),
    }
}

impl ResourceQuotaController {
    fn mark(&mut self, ns: &str, cx: &mut Cx) {
        if cx.cached_in(Kind::ResourceQuota, ns).is_empty() {
            return;
        }
        self.dirty.insert(ns.to_string());
        if !self.recount_scheduled {
            self.recount_scheduled = true;
            cx.timer(COALESCE_MS, RECOUNT);
        }
    }

    fn objects_in(&self, ns: &str, cx: &Cx) -> BTreeMap<Kind, Vec<Arc<Object>>> {
        let mut out = BTreeMap::new();
        for kind in COUNTED {
            let list = cx.cached_in(*kind, ns);
            out.insert(*kind, list.into_iter().filter(|o| pod_counts(o, cx.now)).collect());
        }
        out
    }

    fn recount(&mut self, ns: &str, cx: &mut Cx) {
        let quotas = cx.cached_in(Kind::ResourceQuota, ns);
        if quotas.is_empty() {
            return;
        }
        let objects = self.objects_in(ns, cx);
        for obj in quotas {
            let Object::ResourceQuota(quota) = obj.as_ref() else { continue };
            if quota.metadata.deletion_timestamp.is_some() {
                continue;
            }
            let status = quota_status(quota, &objects);
            if quota.status.as_ref() != Some(&status) {
                let mut updated = quota.clone();
                updated.status = Some(status);
                let tag = self.book.tag(ns.to_string());
                cx.update_status(Object::ResourceQuota(updated), tag);
            }
        }
    }

    /// Queues a count of every namespace that has a quota.
    fn mark_all(&mut self, cx: &mut Cx) {
        let namespaces: BTreeSet<String> =
            cx.list(Kind::ResourceQuota).iter().map(|q| q.namespace().unwrap_or("").to_string()).collect();
        for ns in namespaces {
            self.mark(&ns, cx);
        }
    }
}

impl Controller for ResourceQuotaController {
    fn name(&self) -> &'static str {
        "resourcequota-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        COUNTED
    }

    fn on_start(&mut self) {
        *self = ResourceQuotaController::default();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        self.mark_all(cx);
        if !self.resync_started {
            self.resync_started = true;
            cx.timer(FULL_RESYNC_MS, FULL_RESYNC);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        let o = match change {
            Change::Added(o) | Change::Modified { new: o, .. } | Change::Deleted(o) => o,
            Change::Resynced => return,
        };
        // Its own status writes come back as changes: only spec changes and new quotas need a count.
        if let (Kind::ResourceQuota, Change::Modified { old, new }) = (kind, change) {
            if let (Object::ResourceQuota(a), Object::ResourceQuota(b)) = (old.as_ref(), new.as_ref()) {
                if a.spec == b.spec && b.status.is_some() {
                    return;
                }
            }
        }
        let ns = o.namespace().unwrap_or("").to_string();
        self.mark(&ns, cx);
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        match token {
            RECOUNT => {
                self.recount_scheduled = false;
                let namespaces = std::mem::take(&mut self.dirty);
                for ns in namespaces {
                    self.recount(&ns, cx);
                }
            }
            FULL_RESYNC => {
                cx.timer(FULL_RESYNC_MS, FULL_RESYNC);
                self.mark_all(cx);
            }
            _ => {}
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        let Some(ns) = self.book.answered(tag) else { return };
        // A conflict with a spec change or a lost connection: count that namespace again.
        if !matches!(result, Ok(ApiResponse::Object(_))) {
            self.mark(&ns, cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(kind: Kind, yaml: &str) -> Arc<Object> {
        let value: serde_json::Value = serde_yaml::from_str(yaml).expect("yaml");
        Arc::new(Object::from_json_as(kind, value).expect("object"))
    }

    #[test]
    fn used_counts_every_hard_resource_and_only_those() {
        let quota = match obj(
            Kind::ResourceQuota,
            "metadata: {name: q, namespace: dev}\nspec: {hard: {pods: \"10\", requests.cpu: \"2\", limits.memory: 2Gi, count/deployments.apps: \"5\", services: \"4\"}}\n",
        )
        .as_ref()
        {
            Object::ResourceQuota(q) => q.clone(),
            _ => unreachable!(),
        };
        let pod = |name: &str, cpu: &str, mem: &str, phase: &str| {
            obj(Kind::Pod, &format!("metadata: {{name: {name}, namespace: dev}}\nspec: {{containers: [{{name: a, image: a, resources: {{requests: {{cpu: {cpu}}}, limits: {{memory: {mem}}}}}}}]}}\nstatus: {{phase: {phase}}}\n"))
        };
        let mut objects = BTreeMap::new();
        objects.insert(
            Kind::Pod,
            vec![
                pod("a", "500m", "512Mi", "Running"),
                pod("b", "250m", "256Mi", "Pending"),
                pod("done", "1", "1Gi", "Succeeded"),
            ],
        );
        objects.insert(Kind::Deployment, vec![obj(Kind::Deployment, "metadata: {name: web, namespace: dev}\n")]);
        let status = quota_status(&quota, &objects);
        let used: BTreeMap<String, String> = status.used.unwrap().into_iter().map(|(k, v)| (k, v.0)).collect();
        let want: BTreeMap<String, String> = [
            ("count/deployments.apps", "1"),
            ("limits.memory", "768Mi"),
            ("pods", "2"),
            ("requests.cpu", "750m"),
            ("services", "0"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(used, want);
        assert_eq!(status.hard.unwrap()["limits.memory"].0, "2Gi");
    }

    #[test]
    fn a_pod_past_its_grace_period_no_longer_counts() {
        let p = obj(
            Kind::Pod,
            "metadata: {name: a, namespace: dev, deletionTimestamp: \"2025-09-01T00:00:30Z\", deletionGracePeriodSeconds: 30}\n",
        );
        assert!(pod_counts(&p, SimTime::ZERO.plus_ms(59_000)));
        assert!(!pod_counts(&p, SimTime::ZERO.plus_ms(61_000)));
    }
}
