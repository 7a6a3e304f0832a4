//! ReplicationControllers (core/v1) seen as the ReplicaSets they are an older form of: the map selector as
//! `matchLabels`, the same spec and status fields. Kubernetes converts this way in the replication manager
//! (`pkg/controller/replication/conversion.go`); kubeglass's replica loop and `kubectl describe rc` use it.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::{ReplicaSet, ReplicaSetSpec, ReplicaSetStatus};
use k8s_openapi::api::core::v1::{ReplicationController, ReplicationControllerStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// The RC's selector as a label selector; a missing or empty one selects nothing.
pub fn selector(rc: &ReplicationController) -> LabelSelector {
    let labels: Option<BTreeMap<String, String>> =
        rc.spec.as_ref().and_then(|s| s.selector.clone()).filter(|s| !s.is_empty());
    LabelSelector { match_labels: labels, match_expressions: None }
}

/// `convertRCtoRS`.
pub fn as_replica_set(rc: &ReplicationController) -> ReplicaSet {
    let spec = rc.spec.clone().unwrap_or_default();
    ReplicaSet {
        metadata: rc.metadata.clone(),
        spec: Some(ReplicaSetSpec {
            replicas: spec.replicas,
            min_ready_seconds: spec.min_ready_seconds,
            selector: selector(rc),
            template: spec.template,
        }),
        status: rc.status.as_ref().and_then(recast),
    }
}

/// A ReplicaSet status as the RC's.
pub fn rc_status(status: &ReplicaSetStatus) -> Option<ReplicationControllerStatus> {
    recast(status)
}

/// The status in the other kind's type: the two statuses have the same fields and JSON names (a
/// ReplicaSet's `terminatingReplicas` has no counterpart).
fn recast<A: serde::Serialize, B: serde::de::DeserializeOwned>(status: &A) -> Option<B> {
    serde_json::to_value(status).ok().and_then(|v| serde_json::from_value(v).ok())
}
