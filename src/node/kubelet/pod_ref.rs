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
/// enough to skip posting the same status twice and to never move a pod out of a terminal phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Posted {
    fingerprint: u64,
    pub(super) terminal: bool,
}

impl Posted {
    pub(super) fn of(status: &Value) -> Posted {
        // FNV-1a over the compact JSON text (serde_json writes a Value's keys in a fixed order).
        let text = serde_json::to_string(status).unwrap_or_default();
        let fingerprint =
            text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3));
        Posted { fingerprint, terminal: matches!(status["phase"].as_str(), Some("Succeeded" | "Failed")) }
    }
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
}
