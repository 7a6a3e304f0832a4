//! The EndpointSlice controller (`endpointslice-controller`): for each Service with a selector, the
//! EndpointSlices (`generateName: <service>-`, labels `kubernetes.io/service-name` and
//! `endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io`, addressType IPv4, owned by the
//! Service) listing every selected pod that has an IP: its address, conditions ready / serving /
//! terminating, nodeName, targetRef and zone (from the node's `topology.kubernetes.io/zone` label), with the
//! ports resolved from each service port's targetPort (named ports looked up in the pod's containers).
//! Pods whose ports resolve differently go to different slices; a service without endpoints keeps one
//! empty placeholder slice. When the Service is deleted its slices are deleted here explicitly — the real
//! controller leaves that to the garbage collector through the owner reference, which this branch does
//! not run yet (both together are harmless: the second delete finds nothing).
//!
//! Watches: Services, Pods, Nodes, EndpointSlices. Writes: EndpointSlices.
//! Counterpart: `pkg/controller/endpointslice/endpointslice_controller.go` and `staging/src/k8s.io/endpointslice`.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::api::api::core::v1::{ObjectReference, Pod, Service, ServicePort};
use crate::api::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice};
use crate::api::{ApiResponse, Kind, Object, ObjectMeta};
use crate::client::informer::Change;
use crate::client::ClientError;

use super::{Controller, Cx};

pub const LABEL_SERVICE_NAME: &str = "kubernetes.io/service-name";
pub const LABEL_MANAGED_BY: &str = "endpointslice.kubernetes.io/managed-by";
pub const MANAGED_BY: &str = "endpointslice-controller.k8s.io";
pub const LABEL_HEADLESS: &str = "service.kubernetes.io/headless";
const LABEL_ZONE: &str = "topology.kubernetes.io/zone";
/// Retry a failed write after this long.
/// How long a failed write waits before its service is reconciled again.
pub const RETRY_MS: u64 = 1_000;

/// A resolved port: name, number, protocol, appProtocol.
pub type PortKey = (String, i32, String, Option<String>);

pub fn service_of(obj: &Object) -> Option<&Service> {
    match obj {
        Object::Service(s) => Some(s),
        _ => None,
    }
}

/// The selector of a Service whose endpoints a controller manages (None: no selector, or ExternalName).
pub fn managed_selector(svc: &Service) -> Option<&BTreeMap<String, String>> {
    let spec = svc.spec.as_ref()?;
    if spec.type_.as_deref() == Some("ExternalName") {
        return None;
    }
    spec.selector.as_ref().filter(|s| !s.is_empty())
}

pub fn selector_matches(selector: &BTreeMap<String, String>, labels: Option<&BTreeMap<String, String>>) -> bool {
    selector.iter().all(|(k, v)| labels.and_then(|l| l.get(k)) == Some(v))
}

pub fn pod_ip(pod: &Pod) -> Option<&str> {
    pod.status.as_ref()?.pod_ip.as_deref().filter(|ip| !ip.is_empty())
}

pub fn pod_is_ready(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// ShouldPodBeInEndpoints: an IP, not finished, and (unless asked to include them) not terminating.
pub fn should_be_in_endpoints(pod: &Pod, include_terminating: bool) -> bool {
    if pod_ip(pod).is_none() {
        return false;
    }
    if !include_terminating && pod.metadata.deletion_timestamp.is_some() {
        return false;
    }
    !matches!(pod.status.as_ref().and_then(|s| s.phase.as_deref()), Some("Succeeded" | "Failed"))
}

/// FindPort: a numeric targetPort is used as is; a named one is looked up in the pod's container ports.
pub fn resolve_port(pod: &Pod, port: &ServicePort) -> Option<i32> {
    let protocol = port.protocol.as_deref().unwrap_or("TCP");
    match &port.target_port {
        None => Some(port.port),
        Some(IntOrString::Int(n)) => Some(*n),
        Some(IntOrString::String(name)) => match name.parse::<i32>() {
            Ok(n) => Some(n),
            Err(_) => pod.spec.as_ref()?.containers.iter().flat_map(|c| c.ports.iter().flatten()).find_map(|p| {
                (p.name.as_deref() == Some(name.as_str()) && p.protocol.as_deref().unwrap_or("TCP") == protocol)
                    .then_some(p.container_port)
            }),
        },
    }
}

/// The service's ports as they resolve for one pod (ports that do not resolve are left out).
pub fn resolved_ports(pod: &Pod, svc: &Service) -> Vec<PortKey> {
    let ports = svc.spec.as_ref().and_then(|s| s.ports.clone()).unwrap_or_default();
    ports
        .iter()
        .filter_map(|p| {
            resolve_port(pod, p).map(|n| {
                (
                    p.name.clone().unwrap_or_default(),
                    n,
                    p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                    p.app_protocol.clone(),
                )
            })
        })
        .collect()
}

/// The pods a service selects, by name.
pub fn selected_pods(cx: &Cx, svc: &Service) -> Vec<Arc<Object>> {
    let Some(selector) = managed_selector(svc) else { return Vec::new() };
    let ns = svc.metadata.namespace.as_deref().unwrap_or("");
    cx.cached_in(Kind::Pod, ns).into_iter().filter(|o| selector_matches(selector, o.meta().labels.as_ref())).collect()
}

/// `ns/name` of the services in the pod's namespace whose selector matches the pod's labels.
/// The services a Service or Pod change concerns (None for other kinds, which each loop handles itself).
pub fn touched_services(kind: Kind, change: &Change, cx: &Cx) -> Option<BTreeSet<String>> {
    Some(match (kind, change) {
        (Kind::Service, Change::Added(o) | Change::Modified { new: o, .. } | Change::Deleted(o)) => {
            BTreeSet::from([o.ns_name()])
        }
        (Kind::Pod, Change::Added(p) | Change::Deleted(p)) => services_for(cx, &[p]),
        (Kind::Pod, Change::Modified { old, new }) => services_for(cx, &[old, new]),
        (Kind::Service | Kind::Pod, Change::Resynced) => BTreeSet::new(),
        _ => return None,
    })
}

pub fn services_for(cx: &Cx, pods: &[&Object]) -> BTreeSet<String> {
    let namespaces: BTreeSet<&str> = pods.iter().map(|p| p.namespace().unwrap_or("")).collect();
    let mut out = BTreeSet::new();
    for ns in namespaces {
        for svc in cx.cached_in(Kind::Service, ns) {
            let Some(s) = service_of(&svc) else { continue };
            let Some(selector) = managed_selector(s) else { continue };
            if pods
                .iter()
                .any(|p| p.namespace() == svc.namespace() && selector_matches(selector, p.meta().labels.as_ref()))
            {
                out.insert(svc.ns_name());
            }
        }
    }
    out
}

pub fn target_ref(pod: &Pod) -> ObjectReference {
    ObjectReference {
        kind: Some("Pod".into()),
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
        uid: pod.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}

/// The labels a service's endpoint objects carry: the service's own, plus the headless marker.
pub fn copied_labels(svc: &Service) -> BTreeMap<String, String> {
    let mut labels = svc.metadata.labels.clone().unwrap_or_default();
    if svc.spec.as_ref().and_then(|s| s.cluster_ip.as_deref()) == Some("None") {
        labels.insert(LABEL_HEADLESS.into(), String::new());
    } else {
        labels.remove(LABEL_HEADLESS);
    }
    labels
}

/// Writes in flight per service, so a service is not reconciled against a cache that lags its own writes.
#[derive(Debug, Default)]
pub struct Writes {
    next_tag: u64,
    /// tag → (service key, whether the write is a create).
    tags: BTreeMap<u64, (String, bool)>,
    /// Objects created but not yet seen by the informer: object key → service key.
    unseen: BTreeMap<String, String>,
    /// Services to reconcile once their writes are settled.
    pub dirty: BTreeSet<String>,
    /// Retry timers: token → service key.
    retries: BTreeMap<u64, String>,
}

impl Writes {
    pub fn clear(&mut self) {
        self.tags.clear();
        self.unseen.clear();
        self.dirty.clear();
        self.retries.clear();
    }

    pub fn tag(&mut self, service: &str, create: bool) -> u64 {
        self.next_tag += 1;
        self.tags.insert(self.next_tag, (service.to_string(), create));
        self.next_tag
    }

    pub fn busy(&self, service: &str) -> bool {
        self.tags.values().any(|(s, _)| s == service) || self.unseen.values().any(|s| s == service)
    }

    /// The informer saw `key`; returns the service that may now be reconciled.
    pub fn seen(&mut self, key: &str) -> Option<String> {
        self.unseen.remove(key)
    }

    /// The informer saw an object this loop created: the service to reconcile if it was waiting for it.
    pub fn seen_dirty(&mut self, key: &str) -> BTreeSet<String> {
        self.seen(key).filter(|k| self.dirty.contains(k)).into_iter().collect()
    }

    /// The answer to a write: the service it was for, and whether it failed (retry later). A create's
    /// object stays "unseen" until the informer has it (`cached`: it already does).
    pub fn answered(
        &mut self,
        tag: u64,
        result: &Result<ApiResponse, ClientError>,
        cached: bool,
    ) -> (Option<String>, bool) {
        let Some((service, create)) = self.tags.remove(&tag) else { return (None, false) };
        match result {
            Ok(ApiResponse::Object(o)) => {
                if create && !cached {
                    self.unseen.insert(o.ns_name(), service.clone());
                }
                (Some(service), false)
            }
            Ok(ApiResponse::Error(status)) if status.code == 404 => (Some(service), false),
            Ok(ApiResponse::Error(_)) | Err(_) => (Some(service), true),
            Ok(_) => (Some(service), false),
        }
    }

    pub fn retry_token(&mut self, service: &str) -> u64 {
        self.next_tag += 1;
        self.retries.insert(self.next_tag, service.to_string());
        self.next_tag
    }

    pub fn retry(&mut self, token: u64) -> Option<String> {
        self.retries.remove(&token)
    }

    /// Handles the answer to one of the loop's writes: a failed write retries its service after
    /// [`RETRY_MS`]; otherwise returns the service to reconcile now, if its writes have settled.
    pub fn settle(&mut self, tag: u64, result: &Result<ApiResponse, ClientError>, cx: &mut Cx) -> Option<String> {
        let cached = match result {
            Ok(ApiResponse::Object(o)) => cx.get(o.kind(), &o.ns_name()).is_some(),
            _ => false,
        };
        let (service, retry) = self.answered(tag, result, cached);
        let service = service?;
        if retry {
            let token = self.retry_token(&service);
            cx.timer(RETRY_MS, token);
            return None;
        }
        self.dirty.contains(&service).then_some(service)
    }
}

#[derive(Debug, Default)]
pub struct EndpointSliceController {
    writes: Writes,
}

fn slice_of(obj: &Object) -> Option<&EndpointSlice> {
    match obj {
        Object::EndpointSlice(s) => Some(s),
        _ => None,
    }
}

fn managed_service(obj: &Object) -> Option<String> {
    let labels = obj.meta().labels.as_ref()?;
    if labels.get(LABEL_MANAGED_BY).map(String::as_str) != Some(MANAGED_BY) {
        return None;
    }
    Some(format!("{}/{}", obj.namespace().unwrap_or(""), labels.get(LABEL_SERVICE_NAME)?))
}

impl EndpointSliceController {
    /// The slices a service should have: (ports, endpoints) per group of pods whose ports resolve alike.
    fn desired(&self, cx: &Cx, svc: &Service) -> Vec<(Option<Vec<EndpointPort>>, Vec<Endpoint>)> {
        let publish = svc.spec.as_ref().and_then(|s| s.publish_not_ready_addresses).unwrap_or(false);
        let mut groups: BTreeMap<Vec<PortKey>, Vec<Endpoint>> = BTreeMap::new();
        for obj in selected_pods(cx, svc) {
            let Object::Pod(pod) = obj.as_ref() else { continue };
            if !should_be_in_endpoints(pod, true) {
                continue;
            }
            let ip = pod_ip(pod).unwrap_or_default().to_string();
            let serving = publish || pod_is_ready(pod);
            let terminating = pod.metadata.deletion_timestamp.is_some();
            let ready = publish || (serving && !terminating);
            let node_name = pod.spec.as_ref().and_then(|s| s.node_name.clone()).filter(|n| !n.is_empty());
            let zone = node_name
                .as_deref()
                .and_then(|n| cx.get(Kind::Node, n))
                .and_then(|n| n.meta().labels.as_ref().and_then(|l| l.get(LABEL_ZONE).cloned()))
                .filter(|z| !z.is_empty());
            let hostname = pod.spec.as_ref().and_then(|s| {
                (s.hostname.is_some() && s.subdomain.as_deref() == svc.metadata.name.as_deref())
                    .then(|| s.hostname.clone())
                    .flatten()
            });
            let endpoint = Endpoint {
                addresses: vec![ip],
                conditions: Some(EndpointConditions {
                    ready: Some(ready),
                    serving: Some(serving),
                    terminating: Some(terminating),
                }),
                hostname,
                node_name,
                target_ref: Some(target_ref(pod)),
                zone,
                ..Endpoint::default()
            };
            groups.entry(resolved_ports(pod, svc)).or_default().push(endpoint);
        }
        let mut out: Vec<(Option<Vec<EndpointPort>>, Vec<Endpoint>)> = groups
            .into_iter()
            .map(|(ports, mut endpoints)| {
                endpoints.sort_by(|a, b| a.addresses.cmp(&b.addresses));
                let ports = ports
                    .into_iter()
                    .map(|(name, port, protocol, app_protocol)| EndpointPort {
                        name: Some(name),
                        port: Some(port),
                        protocol: Some(protocol),
                        app_protocol,
                    })
                    .collect();
                (Some(ports), endpoints)
            })
            .collect();
        if out.is_empty() {
            out.push((None, Vec::new()));
        }
        out
    }

    fn labels(svc: &Service) -> BTreeMap<String, String> {
        let mut labels = copied_labels(svc);
        labels.insert(LABEL_SERVICE_NAME.into(), svc.metadata.name.clone().unwrap_or_default());
        labels.insert(LABEL_MANAGED_BY.into(), MANAGED_BY.into());
        labels
    }

    fn existing(cx: &Cx, key: &str) -> Vec<Arc<Object>> {
        cx.list(Kind::EndpointSlice).into_iter().filter(|s| managed_service(s).as_deref() == Some(key)).collect()
    }

    fn reconcile(&mut self, key: &str, cx: &mut Cx) {
        if self.writes.busy(key) {
            self.writes.dirty.insert(key.to_string());
            return;
        }
        self.writes.dirty.remove(key);
        let existing = Self::existing(cx, key);
        let svc_obj = cx.get(Kind::Service, key);
        let Some(svc) = svc_obj.as_deref().and_then(service_of).filter(|s| managed_selector(s).is_some()) else {
            for slice in existing {
                let tag = self.writes.tag(key, false);
                cx.delete(&slice, None, None, tag);
            }
            return;
        };
        let labels = Self::labels(svc);
        let mut unused: Vec<&EndpointSlice> = existing.iter().filter_map(|o| slice_of(o)).collect();
        let mut todo = Vec::new();
        for (ports, endpoints) in self.desired(cx, svc) {
            match unused.iter().position(|s| s.ports == ports) {
                Some(i) => {
                    let s = unused.remove(i);
                    if s.endpoints != endpoints || s.metadata.labels.as_ref() != Some(&labels) {
                        let mut updated = s.clone();
                        updated.endpoints = endpoints;
                        updated.metadata.labels = Some(labels.clone());
                        let tag = self.writes.tag(key, false);
                        cx.update(Object::EndpointSlice(Box::new(updated)), tag);
                    }
                }
                None => todo.push((ports, endpoints)),
            }
        }
        for (ports, endpoints) in todo {
            if !unused.is_empty() {
                let mut updated = unused.remove(0).clone();
                updated.ports = ports;
                updated.endpoints = endpoints;
                updated.metadata.labels = Some(labels.clone());
                let tag = self.writes.tag(key, false);
                cx.update(Object::EndpointSlice(Box::new(updated)), tag);
                continue;
            }
            let name = svc.metadata.name.clone().unwrap_or_default();
            let owner = OwnerReference {
                api_version: "v1".into(),
                kind: "Service".into(),
                name: name.clone(),
                uid: svc.metadata.uid.clone().unwrap_or_default(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            };
            let slice = EndpointSlice {
                metadata: ObjectMeta {
                    generate_name: Some(format!("{name}-")),
                    namespace: svc.metadata.namespace.clone(),
                    labels: Some(labels.clone()),
                    owner_references: Some(vec![owner]),
                    ..ObjectMeta::default()
                },
                address_type: "IPv4".into(),
                endpoints,
                ports,
            };
            let tag = self.writes.tag(key, true);
            cx.create(Object::EndpointSlice(Box::new(slice)), tag);
        }
        for s in unused {
            let tag = self.writes.tag(key, false);
            cx.delete(&Object::EndpointSlice(Box::new(s.clone())), None, None, tag);
        }
    }
}

impl Controller for EndpointSliceController {
    fn name(&self) -> &'static str {
        "endpointslice-controller"
    }

    fn kinds(&self) -> &'static [Kind] {
        &[Kind::Service, Kind::Pod, Kind::Node, Kind::EndpointSlice]
    }

    fn on_start(&mut self) {
        self.writes.clear();
    }

    fn on_synced(&mut self, cx: &mut Cx) {
        let mut keys: BTreeSet<String> = cx.list(Kind::Service).iter().map(|s| s.ns_name()).collect();
        keys.extend(cx.list(Kind::EndpointSlice).iter().filter_map(|s| managed_service(s)));
        for key in keys {
            self.reconcile(&key, cx);
        }
    }

    fn on_change(&mut self, kind: Kind, change: &Change, cx: &mut Cx) {
        let keys = touched_services(kind, change, cx).unwrap_or_else(|| match change {
            Change::Added(s) => self.writes.seen_dirty(&s.ns_name()),
            Change::Deleted(s) | Change::Modified { new: s, .. } => managed_service(s).into_iter().collect(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::api::core::v1::{Container, ContainerPort, PodSpec, ServiceSpec};

    fn pod_with_port(name: &str, number: i32) -> Pod {
        Pod {
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: "c".into(),
                    ports: Some(vec![ContainerPort {
                        name: Some(name.into()),
                        container_port: number,
                        ..Default::default()
                    }]),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn port(target: Option<IntOrString>) -> ServicePort {
        ServicePort { name: Some("web".into()), port: 80, target_port: target, ..Default::default() }
    }

    #[test]
    fn target_ports_resolve_by_number_by_name_or_not_at_all() {
        let pod = pod_with_port("http", 8080);
        assert_eq!(resolve_port(&pod, &port(None)), Some(80));
        assert_eq!(resolve_port(&pod, &port(Some(IntOrString::Int(9000)))), Some(9000));
        assert_eq!(resolve_port(&pod, &port(Some(IntOrString::String("http".into())))), Some(8080));
        assert_eq!(resolve_port(&pod, &port(Some(IntOrString::String("metrics".into())))), None);
        let mut udp = port(Some(IntOrString::String("http".into())));
        udp.protocol = Some("UDP".into());
        assert_eq!(resolve_port(&pod, &udp), None);
    }

    #[test]
    fn only_pods_with_an_ip_that_are_not_finished_are_endpoints() {
        let mut pod = pod_with_port("http", 8080);
        assert!(!should_be_in_endpoints(&pod, true));
        pod.status = Some(crate::api::api::core::v1::PodStatus {
            pod_ip: Some("10.244.1.5".into()),
            phase: Some("Running".into()),
            ..Default::default()
        });
        assert!(should_be_in_endpoints(&pod, true));
        pod.metadata.deletion_timestamp = Some(crate::apiserver::registry::k8s_time(crate::sim::SimTime(0)));
        assert!(should_be_in_endpoints(&pod, true));
        assert!(!should_be_in_endpoints(&pod, false));
        pod.metadata.deletion_timestamp = None;
        pod.status.as_mut().unwrap().phase = Some("Succeeded".into());
        assert!(!should_be_in_endpoints(&pod, true));
    }

    #[test]
    fn headless_services_mark_their_endpoint_objects() {
        let svc = Service {
            metadata: ObjectMeta { labels: Some(BTreeMap::from([("a".into(), "b".into())])), ..Default::default() },
            spec: Some(ServiceSpec { cluster_ip: Some("None".into()), ..Default::default() }),
            ..Default::default()
        };
        let labels = copied_labels(&svc);
        assert_eq!(labels.get(LABEL_HEADLESS).map(String::as_str), Some(""));
        assert_eq!(labels.get("a").map(String::as_str), Some("b"));
    }
}
