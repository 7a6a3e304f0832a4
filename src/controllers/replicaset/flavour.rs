//! The two kinds the replica loop keeps. ReplicationControllers (core/v1) are ReplicaSets with a plain
//! label-map selector; the real replication manager (`pkg/controller/replication`) runs the ReplicaSet
//! controller's code on them through a conversion layer (`conversion.go`), and so does this one: each
//! ReplicationController is seen as the ReplicaSet it converts to ([`crate::api::replication`]), and the
//! status the loop computes is written back as the ReplicationController's.

use std::borrow::Cow;

use k8s_openapi::api::apps::v1::{ReplicaSet, ReplicaSetStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::api::{replication, Kind, Object};

/// Which kind a replica loop keeps.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Flavour {
    #[default]
    ReplicaSet,
    ReplicationController,
}

impl Flavour {
    pub fn kind(self) -> Kind {
        match self {
            Flavour::ReplicaSet => Kind::ReplicaSet,
            Flavour::ReplicationController => Kind::ReplicationController,
        }
    }

    /// The kinds the loop watches.
    pub fn watched(self) -> &'static [Kind] {
        match self {
            Flavour::ReplicaSet => &[Kind::ReplicaSet, Kind::Pod],
            Flavour::ReplicationController => &[Kind::ReplicationController, Kind::Pod],
        }
    }

    pub fn api_version(self) -> &'static str {
        match self {
            Flavour::ReplicaSet => "apps/v1",
            Flavour::ReplicationController => "v1",
        }
    }

    pub fn kind_name(self) -> &'static str {
        self.kind().name()
    }

    /// The component its Events name (`replicaset-controller`, `replication-controller`).
    pub fn component(self) -> &'static str {
        match self {
            Flavour::ReplicaSet => "replicaset-controller",
            Flavour::ReplicationController => "replication-controller",
        }
    }

    /// The object as the ReplicaSet the loop works on (`None` for another kind).
    pub fn view(self, obj: &Object) -> Option<Cow<'_, ReplicaSet>> {
        match (self, obj) {
            (Flavour::ReplicaSet, Object::ReplicaSet(rs)) => Some(Cow::Borrowed(rs)),
            (Flavour::ReplicationController, Object::ReplicationController(rc)) => {
                Some(Cow::Owned(replication::as_replica_set(rc)))
            }
            _ => None,
        }
    }

    /// The label selector of `obj` (without converting the rest of it: pod events ask for every controller's).
    pub fn selector(self, obj: &Object) -> Option<Cow<'_, LabelSelector>> {
        match (self, obj) {
            (Flavour::ReplicaSet, Object::ReplicaSet(rs)) => rs.spec.as_ref().map(|s| Cow::Borrowed(&s.selector)),
            (Flavour::ReplicationController, Object::ReplicationController(rc)) => {
                Some(Cow::Owned(replication::selector(rc)))
            }
            _ => None,
        }
    }

    /// `obj` with the status the loop computed.
    pub fn with_status(self, obj: &Object, status: ReplicaSetStatus) -> Object {
        match obj {
            Object::ReplicationController(rc) => {
                let mut updated = rc.clone();
                updated.status = replication::rc_status(&status);
                Object::ReplicationController(updated)
            }
            Object::ReplicaSet(rs) => {
                let mut updated = rs.clone();
                updated.status = Some(status);
                Object::ReplicaSet(updated)
            }
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replication_controller_is_seen_as_the_replica_set_it_converts_to() {
        let rc: k8s_openapi::api::core::v1::ReplicationController = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web", "namespace": "default", "uid": "u1"},
            "spec": {"replicas": 3, "selector": {"app": "web"}, "template": {"metadata": {"labels": {"app": "web"}}}},
            "status": {"replicas": 2, "readyReplicas": 1}
        }))
        .unwrap();
        let obj = Object::ReplicationController(Box::new(rc));
        let rs = Flavour::ReplicationController.view(&obj).unwrap();
        let spec = rs.spec.as_ref().unwrap();
        assert_eq!(spec.replicas, Some(3));
        assert_eq!(spec.selector.match_labels.as_ref().unwrap()["app"], "web");
        assert_eq!(rs.status.as_ref().unwrap().ready_replicas, Some(1));
        assert!(Flavour::ReplicaSet.view(&obj).is_none());

        let status = ReplicaSetStatus { replicas: 3, ready_replicas: Some(3), ..Default::default() };
        let Object::ReplicationController(back) = Flavour::ReplicationController.with_status(&obj, status) else {
            panic!("the kind is kept")
        };
        assert_eq!(back.status.as_ref().unwrap().ready_replicas, Some(3));
        assert_eq!(back.spec.as_ref().unwrap().selector.as_ref().unwrap()["app"], "web");
    }
}
