//! Ephemeral containers (`kubectl debug`) seen as the containers they run as: the fields an
//! `EphemeralContainer` shares with a `Container` (`EphemeralContainerCommon`), which is how the kubelet
//! starts them and how `kubectl describe` prints them.

use crate::api::api::core::v1::{Container, PodSpec};

/// The pod spec's ephemeral containers as containers (`targetContainerName` left out).
pub fn as_containers(spec: Option<&PodSpec>) -> Vec<Container> {
    spec.and_then(|s| s.ephemeral_containers.as_ref())
        .into_iter()
        .flatten()
        .filter_map(|e| serde_json::to_value(e).ok().and_then(|v| serde_json::from_value(v).ok()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::core::v1::EphemeralContainer;

    #[test]
    fn the_shared_fields_carry_over() {
        let spec = PodSpec {
            ephemeral_containers: Some(vec![EphemeralContainer {
                name: "dbg".into(),
                image: Some("busybox".into()),
                stdin: Some(true),
                target_container_name: Some("app".into()),
                ..EphemeralContainer::default()
            }]),
            ..PodSpec::default()
        };
        let c = as_containers(Some(&spec));
        assert_eq!((c[0].name.as_str(), c[0].image.as_deref(), c[0].stdin), ("dbg", Some("busybox"), Some(true)));
        assert!(as_containers(None).is_empty());
    }
}
