//! The kubelet's volume manager, for PersistentVolumeClaims: before a pod's sandbox starts, each claim its
//! volumes name is read from the API (a GET, as the desired-state populator does) and must be Bound; until
//! then the pod stays `ContainerCreating` and the kubelet records `FailedMount` with the real text,
//! `Unable to attach or mount volumes: unmounted volumes=[www], unattached volumes=[], failed to process
//! volumes=[www]: error processing PVC default/www-web-0: PVC is not bound`, and tries again after the pod
//! worker's backoff. Other volume kinds (emptyDir, configMap, secret, hostPath…) count as mounted at once.
//! Counterpart: `pkg/kubelet/volumemanager` (`volume_manager.go` `WaitForAttachAndMount`,
//! `populator/desired_state_of_world_populator.go` `getPVCExtractPV`).

use crate::api::api::core::v1::Pod;
use crate::api::{ApiResponse, Object};
use crate::client::ClientError;

/// What the kubelet knows of a pod's claims while it waits for them.
#[derive(Debug, Clone, Default)]
pub struct Mounts {
    /// Every claim was Bound at the last look: the pod may start.
    pub ready: bool,
    /// Claim reads in flight.
    pub asked: usize,
    /// (volume, error) of this round.
    pub errors: Vec<(String, String)>,
}

/// The pod's volumes backed by a claim: (volume name, claim name).
pub fn claims_of(pod: &Pod) -> Vec<(String, String)> {
    pod.spec
        .as_ref()
        .and_then(|s| s.volumes.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|v| v.persistent_volume_claim.as_ref().map(|c| (v.name.clone(), c.claim_name.clone())))
        .collect()
}

/// Why the claim cannot be mounted yet (`getPVCExtractPV`), or None when it is Bound.
pub fn claim_error(result: &Result<ApiResponse, ClientError>, namespace: &str, claim: &str) -> Option<String> {
    let why = match result {
        Ok(ApiResponse::Object(o)) => match o.as_ref() {
            Object::PersistentVolumeClaim(pvc) => {
                let bound = pvc.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Bound");
                let named = pvc.spec.as_ref().and_then(|s| s.volume_name.as_deref()).is_some_and(|v| !v.is_empty());
                if bound && named {
                    return None;
                }
                if pvc.metadata.deletion_timestamp.is_some() {
                    "can't start pod because PVC is being deleted".to_string()
                } else {
                    "PVC is not bound".to_string()
                }
            }
            _ => "PVC is not bound".to_string(),
        },
        Ok(ApiResponse::Error(s)) => format!("failed to fetch PVC from API server: {}", s.message),
        Ok(_) | Err(_) => "failed to fetch PVC from API server: the server is unreachable".to_string(),
    };
    Some(format!("error processing PVC {namespace}/{claim}: {why}"))
}

/// The `FailedMount` message for the volumes that could not be processed.
pub fn failed_mount_message(errors: &[(String, String)]) -> String {
    let volumes: Vec<&str> = errors.iter().map(|(v, _)| v.as_str()).collect();
    let volumes = volumes.join(" ");
    let reasons: Vec<&str> = errors.iter().map(|(_, e)| e.as_str()).collect();
    format!(
        "Unable to attach or mount volumes: unmounted volumes=[{volumes}], unattached volumes=[], failed to process volumes=[{volumes}]: {}",
        reasons.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Status;
    use std::sync::Arc;

    #[test]
    fn only_a_bound_claim_with_a_volume_can_be_mounted() {
        let claim = |phase: &str, volume: &str| {
            let pvc = serde_yaml::from_str(&format!(
                "metadata: {{name: www-web-0}}\nspec: {{volumeName: \"{volume}\"}}\nstatus: {{phase: {phase}}}\n"
            ))
            .expect("pvc");
            Ok(ApiResponse::Object(Arc::new(Object::PersistentVolumeClaim(pvc))))
        };
        assert_eq!(claim_error(&claim("Bound", "pv1"), "default", "www-web-0"), None);
        assert_eq!(
            claim_error(&claim("Pending", ""), "default", "www-web-0").as_deref(),
            Some("error processing PVC default/www-web-0: PVC is not bound")
        );
        let missing = Ok(ApiResponse::Error(Status::not_found("persistentvolumeclaims", "data")));
        assert_eq!(
            claim_error(&missing, "default", "data").as_deref(),
            Some("error processing PVC default/data: failed to fetch PVC from API server: persistentvolumeclaims \"data\" not found")
        );
        let errors = vec![("www".to_string(), "error processing PVC default/www-web-0: PVC is not bound".to_string())];
        assert_eq!(
            failed_mount_message(&errors),
            "Unable to attach or mount volumes: unmounted volumes=[www], unattached volumes=[], failed to process volumes=[www]: error processing PVC default/www-web-0: PVC is not bound"
        );
    }
}
