//! DefaultTolerationSeconds: pods tolerate not-ready and unreachable nodes for 300 s unless they already
//! tolerate them. Counterpart: `plugin/pkg/admission/defaulttolerationseconds`.

use crate::api::api::core::v1::{Pod, Toleration};

/// The flags' defaults: `--default-not-ready-toleration-seconds`, `--default-unreachable-toleration-seconds`.
pub const TOLERATION_SECONDS: i64 = 300;

/// Adds the two NoExecute tolerations a pod lacks.
pub fn admit(pod: &mut Pod) {
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
    for key in ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"] {
        let tolerated = tolerations.iter().any(|t| {
            let key_ok = t.key.as_deref() == Some(key)
                || (t.key.as_deref().unwrap_or("").is_empty() && t.operator.as_deref() == Some("Exists"));
            let effect_ok = t.effect.as_deref().is_none_or(|e| e.is_empty() || e == "NoExecute");
            key_ok && effect_ok
        });
        if !tolerated {
            tolerations.push(Toleration {
                key: Some(key.to_string()),
                operator: Some("Exists".to_string()),
                effect: Some("NoExecute".to_string()),
                toleration_seconds: Some(TOLERATION_SECONDS),
                value: None,
            });
        }
    }
}
