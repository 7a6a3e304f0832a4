//! ServiceAccount: pods run as the `default` service account unless they name another.
//! Counterpart: `plugin/pkg/admission/serviceaccount`.

use crate::api::api::core::v1::Pod;

/// Sets `spec.serviceAccountName` to `default` when it is empty.
pub fn admit(pod: &mut Pod) {
    if let Some(spec) = pod.spec.as_mut() {
        if spec.service_account_name.as_deref().is_none_or(str::is_empty) {
            spec.service_account_name = Some("default".to_string());
        }
    }
}
