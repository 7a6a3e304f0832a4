//! The Endpoints controller (`endpoint-controller`): for each Service with a selector, the legacy v1
//! Endpoints object of the same name, its subsets listing selected pods that have an IP — ready pods under
//! `addresses`, the others under `notReadyAddresses` — with the service ports resolved per pod (pods whose
//! ports resolve alike share a subset; addresses sorted by IP). Terminating pods are left out unless the
//! Service sets `publishNotReadyAddresses`. The Endpoints object carries the Service's labels (plus
//! `service.kubernetes.io/headless` for headless services) and no owner reference: when the Service goes
//! away this controller deletes it, as the real one does.
//!
//! Watches: Services, Pods, Endpoints. Writes: Endpoints.
//! Counterpart: `pkg/controller/endpoint/endpoints_controller.go`.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::api::core::v1::{EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Service};
use crate::api::{ApiResponse, Kind, Object, ObjectMeta};
use crate::client::informer::Change;
use crate::client::ClientError;

use super::endpointslice::{
    copied_labels, managed_selector, pod_ip, pod_is_ready, resolved_ports, selected_pods, service_of,
    should_be_in_endpoints, target_ref, touched_services, PortKey, Writes,
};
use super::{Controller, Cx};

#[derive(Debug, Default)]
pub struct EndpointsController {
    writes: Writes,
}

impl EndpointsController {
    fn subsets(cx: &Cx, svc: &Service) -> Option<Vec<EndpointSubset>> {
        let publish = svc.spec.as_ref().and_then(|s| s.publish_not_ready_addresses).unwrap_or(false);
        let mut groups: BTreeMap<Vec<PortKey>, (Vec<EndpointAddress>, Vec<EndpointAddress>)> = BTreeMap::new();
        for obj in selected_pods(cx, svc) {
            let Object::Pod(pod) = obj.as_ref() else { continue };
            if !should_be_in_endpoints(pod, publish) {
                continue;
            }
            let spec = pod.spec.as_ref();
            let hostname = spec.and_then(|s| {
                (s.hostname.is_some() && s.subdomain.as_deref() == svc.metadata.name.as_deref())
                    .then(|| s.hostname.clone())
                    .flatten()
            });
            let address = EndpointAddress {
                hostname,
                ip: pod_ip(pod).unwrap_or_default().to_string(),
                node_name: spec.and_then(|s| s.node_name.clone()).filter(|n| !n.is_empty()),
                target_ref: Some(target_ref(pod)),
            };
            let entry = groups.entry(resolved_ports(pod, svc)).or_default();
            if publish || pod_is_ready(pod) {
                entry.0.push(address);
            } else {
                entry.1.push(address);
            }
        }
        let subsets: Vec<EndpointSubset> = groups
            .into_iter()
            .map(|(ports, (mut ready, mut not_ready))| {
                ready.sort_by(|a, b| a.ip.cmp(&b.ip));
                not_ready.sort_by(|a, b| a.ip.cmp(&b.ip));
                let ports: Vec<EndpointPort> = ports
                    .into_iter()
                    .map(|(name, port, protocol, app_protocol)| EndpointPort {
                        name: (!name.is_empty()).then_some(name),
                        port,
                        protocol: Some(protocol),
                        app_protocol,
                    })
                    .collect();
                EndpointSubset {
                    addresses: (!ready.is_empty()).then_some(ready),
                    not_ready_addresses: (!not_ready.is_empty()).then_some(not_ready),
                    ports: (!ports.is_empty()).then_some(ports),
                }
            })
            .collect();
        (!subsets.is_empty()).then_some(subsets)
    }

    fn reconcile(&mut self, key: &str, cx: &mut Cx) {
        if self.writes.busy(key) {
            self.writes.dirty.insert(key.to_string());
            return;
        }
        self.writes.dirty.remove(key);
        let current = cx.get(Kind::Endpoints, key);
        let svc_obj = cx.get(Kind::Service, key);
        let Some(svc) = svc_obj.as_deref().and_then(service_of).filter(|s| managed_selector(s).is_some()) else {
            // Only Endpoints of a deleted Service are removed; a Service without a selector keeps its own.
            if let (Some(ep), None) = (current, svc_obj) {
                let tag = self.writes.tag(key, false);
                cx.delete(&ep, None, None, tag);
            }
            return;
        };
        let subsets = Self::subsets(cx, svc);
        let labels = copied_labels(svc);
        let labels = (!labels.is_empty()).then_some(labels);
        match current.as_deref() {
            Some(Object::Endpoints(ep)) => {
                if ep.subsets != subsets || ep.metadata.labels != labels {
                    let mut updated = ep.clone();
                    updated.subsets = subsets;
                    updated.metadata.labels = labels;
                    let tag = self.writes.tag(key, false);
                    cx.update(Object::Endpoints(updated), tag);
                }
            }
            _ => {
                let ep = Endpoints {
                    metadata: ObjectMeta {
                        name: svc.metadata.name.clone(),
                        namespace: svc.metadata.namespace.clone(),
                        labels,
                        ..ObjectMeta::default()
                    },
                    subsets,
                };
                let tag = self.writes.tag(key, true);
                cx.create(Object::Endpoints(Box::new(ep)), tag);
            }
        }
    }
}

impl Controller for EndpointsController {
    fn name(&self) -> &'static str {
        "endpoint-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Service, Kind::Pod, Kind::Endpoints]
    }

    fn on_start(&mut self) {
        self.writes.clear();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        let mut keys: BTreeSet<String> = cx.list(Kind::Service).iter().map(|s| s.ns_name()).collect();
        keys.extend(cx.list(Kind::Endpoints).iter().map(|e| e.ns_name()));
        for key in keys {
            self.reconcile(&key, cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        let keys = touched_services(kind, change, cx).unwrap_or_else(|| match change {
            Change::Added(e) => self.writes.seen_dirty(&e.ns_name()),
            Change::Deleted(e) | Change::Modified { new: e, .. } => BTreeSet::from([e.ns_name()]),
            Change::Resynced => BTreeSet::new(),
        });
        for key in keys {
            self.reconcile(&key, cx);
        }
    }

    fn on_answer(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) {
        if let Some(service) = self.writes.settle(tag, result, cx) {
            self.reconcile(&service, cx);
        }
    }

    fn on_timer(&mut self, token: u64, cx: &mut Cx) {
        if let Some(service) = self.writes.retry(token) {
            self.reconcile(&service, cx);
        }
    }
}
