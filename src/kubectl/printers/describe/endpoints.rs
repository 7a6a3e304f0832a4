//! `kubectl describe endpoints` (`EndpointsDescriber` in kubectl's `pkg/describe/describe.go`): each
//! subset's ready and not-ready addresses and its ports.

use k8s_openapi::api::core::v1 as core;

use super::{annotations_block, events_block, labels_block, name, namespace, Related, Writer};
use crate::sim::SimTime;

pub(super) fn describe_endpoints(w: &mut Writer, ep: &core::Endpoints, related: &Related, now: SimTime) {
    let meta = &ep.metadata;
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Namespace:\t{}\n", namespace(meta)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, "Subsets:\n");
    let ips = |addresses: Option<&Vec<core::EndpointAddress>>| {
        let joined = addresses.into_iter().flatten().map(|a| a.ip.as_str()).collect::<Vec<_>>().join(",");
        if joined.is_empty() {
            "<none>".to_string()
        } else {
            joined
        }
    };
    for subset in ep.subsets.iter().flatten() {
        w.write(1, &format!("Addresses:\t{}\n", ips(subset.addresses.as_ref())));
        w.write(1, &format!("NotReadyAddresses:\t{}\n", ips(subset.not_ready_addresses.as_ref())));
        let ports = subset.ports.as_deref().unwrap_or(&[]);
        if !ports.is_empty() {
            w.write(1, "Ports:\n");
            w.write(2, "Name\tPort\tProtocol\n");
            w.write(2, "----\t----\t--------\n");
            for port in ports {
                let name = port.name.as_deref().filter(|n| !n.is_empty()).unwrap_or("<unset>");
                w.write(2, &format!("{name}\t{}\t{}\n", port.port, port.protocol.as_deref().unwrap_or("")));
            }
        }
        w.write(0, "\n");
    }
    events_block(w, &related.events, now);
}
