//! The pod a kubelet pod worker works on, and what it last posted as the pod's status, kept small: with
//! 150,000 pods a copy of every pod and of every posted status in each worker would double what the
//! cluster holds.

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::api::api::core::v1::Pod;
use crate::api::Object;

/// A pod shared with the informer that delivered it (or owned, for a static pod read from its manifest).
#[derive(Debug, Clone)]
pub(super) struct PodRef(Arc<Object>);

impl PodRef {
    /// The informer's own object, when it is a pod.
    pub(super) fn shared(o: &Arc<Object>) -> Option<PodRef> {
        matches!(o.as_ref(), Object::Pod(_)).then(|| PodRef(Arc::clone(o)))
    }

    pub(super) fn owned(pod: Pod) -> PodRef {
        PodRef(Arc::new(Object::Pod(Box::new(pod))))
    }
}

impl Deref for PodRef {
    type Target = Pod;

    fn deref(&self) -> &Pod {
        match self.0.as_ref() {
            Object::Pod(p) => p,
            // Never built from anything else; an empty pod rather than a panic all the same.
            _ => {
                static EMPTY: OnceLock<Pod> = OnceLock::new();
                EMPTY.get_or_init(Pod::default)
            }
        }
    }
}

/// A status the kubelet posted, remembered as a fingerprint of its JSON and whether its phase was terminal:
/// enough to skip posting the same status twice and to never move a pod out of a terminal phase. Also a
/// fingerprint of what the status manager compares with the apiserver's copy ([`reconcile_key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Posted {
    fingerprint: u64,
    pub(super) terminal: bool,
    pub(super) reconcile: u64,
}

impl Posted {
    pub(super) fn of(status: &Value) -> Posted {
        // serde_json writes a Value's keys in a fixed order.
        let fingerprint = fnv(&serde_json::to_string(status).unwrap_or_default());
        let terminal = matches!(status["phase"].as_str(), Some("Succeeded" | "Failed"));
        Posted { fingerprint, terminal, reconcile: reconcile_key(status) }
    }
}

/// FNV-1a over a text.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
}

/// The pod conditions the kubelet owns (`kubetypes.PodConditionByKubelet`); others' conditions
/// (`DisruptionTarget`, readiness gates) are not the kubelet's to correct.
const KUBELET_CONDITIONS: [&str; 5] =
    ["PodScheduled", "PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"];

/// A fingerprint of what the status manager's `isPodStatusByKubeletEqual` compares in a pod status: the
/// phase, the pod IP, the kubelet's conditions by status, reason and message, and each container's state,
/// readiness and restart count. The same for the status posted and for the apiserver's copy of it, whatever
/// the apiserver added (qosClass, defaults).
pub(super) fn reconcile_key(status: &Value) -> u64 {
    let s = |v: &Value| match v {
        Value::Null => String::new(),
        Value::String(t) => t.clone(),
        other => other.to_string(),
    };
    let mut parts = vec![s(&status["phase"]), s(&status["podIP"])];
    let mut conditions: Vec<String> = status["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["type"].as_str().is_some_and(|t| KUBELET_CONDITIONS.contains(&t)))
        .map(|c| format!("{}={}/{}/{}", s(&c["type"]), s(&c["status"]), s(&c["reason"]), s(&c["message"])))
        .collect();
    conditions.sort();
    parts.extend(conditions);
    for list in ["initContainerStatuses", "containerStatuses"] {
        for c in status[list].as_array().into_iter().flatten() {
            let state = c["state"].as_object().and_then(|m| m.keys().next().cloned()).unwrap_or_default();
            parts.push(format!(
                "{}:{}:{}:{}:{state}:{}",
                s(&c["name"]),
                s(&c["ready"]),
                s(&c["started"]),
                s(&c["restartCount"]),
                s(&c["state"]["waiting"]["reason"])
            ));
        }
    }
    fnv(&parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_shared_pod_is_the_informers_object_not_a_copy() {
        let o = Arc::new(crate::workload::pod("default", "web", Some("node01")));
        let p = PodRef::shared(&o).expect("a pod");
        assert!(Arc::ptr_eq(&p.0, &o));
        assert_eq!(p.metadata.name.as_deref(), Some("web"));
        let not_a_pod = Arc::new(Object::Namespace(Default::default()));
        assert!(PodRef::shared(&not_a_pod).is_none());
    }

    #[test]
    fn posted_statuses_compare_by_content_and_know_terminal_phases() {
        let running = json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]});
        assert_eq!(Posted::of(&running), Posted::of(&running.clone()));
        assert_ne!(Posted::of(&running), Posted::of(&json!({"phase": "Running"})));
        assert!(!Posted::of(&running).terminal);
        assert!(Posted::of(&json!({"phase": "Succeeded"})).terminal);
        assert!(Posted::of(&json!({"phase": "Failed"})).terminal);
    }

    #[test]
    fn the_reconcile_key_sees_the_kubelets_conditions_and_not_what_others_add() {
        let posted = json!({"phase": "Running", "podIP": "10.244.1.5", "conditions": [
            {"type": "Ready", "status": "True", "lastTransitionTime": "2025-09-01T00:00:05Z"}],
            "containerStatuses": [{"name": "app", "ready": true, "started": true, "restartCount": 0,
                                   "state": {"running": {"startedAt": "2025-09-01T00:00:04Z"}}}]});
        let mut held = posted.clone();
        held["qosClass"] = json!("BestEffort");
        held["conditions"] = json!([{"type": "DisruptionTarget", "status": "True"},
            {"type": "Ready", "status": "True", "lastTransitionTime": "2025-09-01T00:00:05Z"}]);
        assert_eq!(reconcile_key(&held), reconcile_key(&posted));
        held["conditions"][1]["status"] = json!("False");
        assert_ne!(reconcile_key(&held), reconcile_key(&posted));
    }
}
