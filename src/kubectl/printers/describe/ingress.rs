//! `kubectl describe ingress` (`IngressDescriber.describeIngressV1` in kubectl's `pkg/describe/describe.go`):
//! address, class, default backend, TLS, then each rule's host and paths with the backend service's ready
//! endpoints (from its EndpointSlices, for the service port the path names), annotations and events.

use std::collections::BTreeSet;

use k8s_openapi::api::discovery::v1 as discovery;
use k8s_openapi::api::networking::v1 as networking;

use crate::api::Object;
use crate::sim::SimTime;

use super::{annotations_block, events_block, labels_block, name, namespace, slice_endpoints, Related, Writer};

pub(super) fn describe_ingress(w: &mut Writer, ing: &networking::Ingress, related: &Related, now: SimTime) {
    let meta = &ing.metadata;
    let spec = ing.spec.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    w.write(0, &format!("Address:\t{}\n", address(ing)));
    w.write(0, &format!("Ingress Class:\t{}\n", spec.ingress_class_name.as_deref().unwrap_or("<none>")));
    let default_backend = match &spec.default_backend {
        Some(b) => backend(b, related),
        None => "<default>".to_string(),
    };
    w.write(0, &format!("Default backend:\t{default_backend}\n"));
    let tls = spec.tls.clone().unwrap_or_default();
    if !tls.is_empty() {
        w.write(0, "TLS:\n");
        for t in &tls {
            let hosts = t.hosts.clone().unwrap_or_default().join(",");
            match t.secret_name.as_deref().filter(|s| !s.is_empty()) {
                Some(secret) => w.write(1, &format!("{secret} terminates {hosts}\n")),
                None => w.write(1, &format!("SNI routes {hosts}\n")),
            }
        }
    }
    w.write(0, "Rules:\n  Host\tPath\tBackends\n");
    w.write(1, "----\t----\t--------\n");
    let mut count = 0;
    for rule in spec.rules.iter().flatten() {
        let Some(http) = &rule.http else { continue };
        count += 1;
        let host = rule.host.as_deref().filter(|h| !h.is_empty()).unwrap_or("*");
        w.write(1, &format!("{host}\t\n"));
        for path in &http.paths {
            w.write(2, &format!("\t{} \t{}\n", path.path.as_deref().unwrap_or(""), backend(&path.backend, related)));
        }
    }
    if count == 0 {
        w.write(1, &format!("*\t*\t{default_backend}\n"));
    }
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    events_block(w, &related.events, now);
}

/// The load balancer's addresses: IPs, else hostnames, sorted and joined (`ingressLoadBalancerStatusStringerV1`
/// wide).
fn address(ing: &networking::Ingress) -> String {
    let entries = ing.status.as_ref().and_then(|s| s.load_balancer.as_ref()).and_then(|lb| lb.ingress.clone());
    let set: BTreeSet<String> = entries
        .into_iter()
        .flatten()
        .filter_map(|e| e.ip.filter(|ip| !ip.is_empty()).or(e.hostname.filter(|h| !h.is_empty())))
        .collect();
    set.into_iter().collect::<Vec<_>>().join(",")
}

/// `describeBackendV1`: `service:port (endpoints)`, or the resource backend.
fn backend(b: &networking::IngressBackend, related: &Related) -> String {
    if let Some(svc) = &b.service {
        let port = svc.port.clone().unwrap_or_default();
        let shown = match port.number.filter(|n| *n != 0) {
            Some(n) => format!("{}:{n}", svc.name),
            None => format!("{}:{}", svc.name, port.name.as_deref().unwrap_or("")),
        };
        let service = match related.backends.get(&svc.name) {
            Some(Ok(o)) => match o.as_ref() {
                Object::Service(s) => s.clone(),
                _ => return shown,
            },
            Some(Err(e)) => return format!("{shown} (<error: {e}>)"),
            None => return shown,
        };
        let mut port_name = "";
        for sp in service.spec.iter().flat_map(|s| s.ports.iter().flatten()) {
            let by_number = port.number.is_some_and(|n| n != 0 && n == sp.port);
            let by_name = port.name.as_deref().is_some_and(|n| !n.is_empty() && Some(n) == sp.name.as_deref());
            if by_number || by_name {
                port_name = sp.name.as_deref().unwrap_or("");
            }
        }
        let slices: Vec<&discovery::EndpointSlice> = related
            .endpoint_slices
            .iter()
            .filter_map(|o| match o.as_ref() {
                Object::EndpointSlice(s)
                    if s.metadata.labels.as_ref().and_then(|l| l.get("kubernetes.io/service-name"))
                        == Some(&svc.name) =>
                {
                    Some(&**s)
                }
                _ => None,
            })
            .collect();
        return format!("{shown} ({})", slice_endpoints(&slices, port_name));
    }
    if let Some(r) = &b.resource {
        let group = r.api_group.as_deref().unwrap_or("<none>");
        return format!("APIGroup: {group}, Kind: {}, Name: {}", r.kind, r.name);
    }
    String::new()
}
