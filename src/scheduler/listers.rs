//! What the plugins look up besides nodes and pods, read from the scheduler's informers: claims, volumes
//! and storage classes, namespace labels, PodDisruptionBudgets, and the selectors of the Services,
//! ReplicaSets and StatefulSets a pod belongs to (the default spread). Counterpart: the listers of the
//! scheduler's shared informer factory and `pkg/scheduler/framework/plugins/helper` (DefaultSelector).

use std::collections::BTreeMap;

use crate::api::selector::{LabelSelector, Requirement};
use crate::api::Object;
use crate::client::informer::Informer;

use super::podinfo::PodInfo;

/// Namespace → Service name → the Service's (non-empty) selector.
pub type ServiceSelectors = BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>;

#[derive(Clone, Copy)]
pub struct Listers<'a> {
    pub pvcs: &'a Informer,
    pub pvs: &'a Informer,
    pub classes: &'a Informer,
    pub namespaces: &'a Informer,
    pub replicasets: &'a Informer,
    pub statefulsets: &'a Informer,
    pub pdbs: &'a Informer,
    pub services: &'a ServiceSelectors,
}

impl Listers<'_> {
    pub fn namespace_labels(&self, namespace: &str) -> Option<BTreeMap<String, String>> {
        self.namespaces.get(namespace).and_then(|o| o.meta().labels.clone())
    }

    /// The namespaces whose labels `selector` matches.
    pub fn namespaces_matching(&self, selector: &LabelSelector) -> Vec<String> {
        self.namespaces
            .objects()
            .filter(|o| selector.matches(o.meta().labels.as_ref()))
            .map(|o| o.name().to_string())
            .collect()
    }

    /// The selector the default spread constraints use: the selectors of the pod's Services merged, plus the
    /// selector of its controlling ReplicaSet or StatefulSet. None when that selects nothing in particular.
    pub fn default_selector(&self, pod: &PodInfo) -> Option<LabelSelector> {
        let labels = pod.labels();
        let mut set: BTreeMap<String, String> = BTreeMap::new();
        for selector in self.services.get(&pod.namespace).into_iter().flat_map(|m| m.values()) {
            if selector.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v)) {
                set.extend(selector.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        let mut requirements: Vec<Requirement> = set.into_iter().map(|(k, v)| Requirement::Equals(k, v)).collect();
        let owner = pod.pod().metadata.owner_references.iter().flatten().find(|o| o.controller == Some(true));
        if let Some(owner) = owner {
            let informer = match (owner.api_version.as_str(), owner.kind.as_str()) {
                ("apps/v1", "ReplicaSet") => Some(self.replicasets),
                ("apps/v1", "StatefulSet") => Some(self.statefulsets),
                _ => None,
            };
            let key = format!("{}/{}", pod.namespace, owner.name);
            let selector = informer.and_then(|i| i.get(&key)).and_then(|o| match o.as_ref() {
                Object::ReplicaSet(rs) => rs.spec.as_ref().map(|s| s.selector.clone()),
                Object::StatefulSet(ss) => ss.spec.as_ref().map(|s| s.selector.clone()),
                _ => None,
            });
            if let Some(sel) = selector.and_then(|s| LabelSelector::from_api(&s).ok()) {
                requirements.extend(sel.requirements);
            }
        }
        (!requirements.is_empty()).then_some(LabelSelector { requirements })
    }
}
