//! Which EndpointSlices belong to which Service, kept from an EndpointSlice informer's changes: a slice
//! belongs to the Service named by its `kubernetes.io/service-name` label in its namespace. kube-proxy and
//! CoreDNS both need "the slices of this Service" without scanning every slice (the endpointslice cache).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::Object;
use crate::client::informer::Change;

/// The label naming a slice's Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// Slice keys (`ns/name`) by Service key (`ns/name`), and back.
#[derive(Debug, Clone, Default)]
pub struct SliceIndex {
    by_service: BTreeMap<String, BTreeSet<String>>,
    service_of: BTreeMap<String, String>,
}

/// `ns/service` of a slice, from its label.
pub fn owning_service(obj: &Object) -> Option<String> {
    let Object::EndpointSlice(s) = obj else { return None };
    let name = s.metadata.labels.as_ref()?.get(SERVICE_NAME_LABEL)?;
    Some(format!("{}/{name}", s.metadata.namespace.as_deref().unwrap_or("default")))
}

impl SliceIndex {
    /// Replaces the index with the slices of a fresh list.
    pub fn rebuild<'a>(&mut self, slices: impl Iterator<Item = &'a Arc<Object>>) {
        *self = SliceIndex::default();
        for s in slices {
            self.insert(s);
        }
    }

    fn insert(&mut self, slice: &Object) -> Option<String> {
        let service = owning_service(slice)?;
        let key = slice.ns_name();
        self.by_service.entry(service.clone()).or_default().insert(key.clone());
        self.service_of.insert(key, service.clone());
        Some(service)
    }

    fn remove(&mut self, key: &str) -> Option<String> {
        let service = self.service_of.remove(key)?;
        if let Some(set) = self.by_service.get_mut(&service) {
            set.remove(key);
            if set.is_empty() {
                self.by_service.remove(&service);
            }
        }
        Some(service)
    }

    /// Applies one informer change; returns the Services whose slices changed.
    pub fn apply(&mut self, change: &Change) -> Vec<String> {
        match change {
            Change::Added(s) => self.insert(s).into_iter().collect(),
            Change::Modified { new, .. } => {
                let before = self.remove(&new.ns_name());
                let after = self.insert(new);
                let mut touched: Vec<String> = before.into_iter().chain(after).collect();
                touched.dedup();
                touched
            }
            Change::Deleted(s) => self.remove(&s.ns_name()).into_iter().collect(),
            Change::Resynced => Vec::new(),
        }
    }

    /// The slice keys of a Service.
    pub fn of(&self, service: &str) -> impl Iterator<Item = &String> {
        self.by_service.get(service).into_iter().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::discovery::v1::EndpointSlice;
    use crate::api::ObjectMeta;

    fn slice(name: &str, service: &str) -> Arc<Object> {
        Arc::new(Object::EndpointSlice(Box::new(EndpointSlice {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                labels: Some([(SERVICE_NAME_LABEL.to_string(), service.to_string())].into()),
                ..ObjectMeta::default()
            },
            address_type: "IPv4".into(),
            endpoints: Vec::new(),
            ports: None,
        })))
    }

    #[test]
    fn slices_are_found_by_their_service_and_moves_touch_both_services() {
        let mut idx = SliceIndex::default();
        assert_eq!(idx.apply(&Change::Added(slice("web-abc", "web"))), ["default/web"]);
        idx.apply(&Change::Added(slice("web-def", "web")));
        assert_eq!(idx.of("default/web").count(), 2);
        let moved = Change::Modified { old: slice("web-def", "web"), new: slice("web-def", "api") };
        assert_eq!(idx.apply(&moved), ["default/web", "default/api"]);
        assert_eq!(idx.of("default/api").collect::<Vec<_>>(), ["default/web-def"]);
        assert_eq!(idx.apply(&Change::Deleted(slice("web-abc", "web"))), ["default/web"]);
        assert_eq!(idx.of("default/web").count(), 0);
        idx.rebuild([slice("x-1", "x")].iter());
        assert_eq!(idx.of("default/api").count(), 0);
        assert_eq!(idx.of("default/x").count(), 1);
    }
}
