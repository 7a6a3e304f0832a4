//! `kubectl describe` for what places pods on nodes by rule: DaemonSets (`DaemonSetDescriber`: no namespace
//! line, the node counts from its status, its pods' phases, the pod template) and PriorityClasses
//! (`PriorityClassDescriber`), as kubectl's `pkg/describe/describe.go` writes them.

use k8s_openapi::api::{apps::v1 as apps, scheduling::v1 as scheduling};

use super::super::util::{format_labels, selector_string};
use super::{
    annotations_block, events_block, labels_block, name, pod_template_block, pods_status_line, Related, Writer,
};
use crate::sim::SimTime;

pub(super) fn describe_daemon_set(w: &mut Writer, ds: &apps::DaemonSet, related: &Related, now: SimTime) {
    let meta = &ds.metadata;
    let spec = ds.spec.clone().unwrap_or_default();
    let status = ds.status.clone().unwrap_or_default();
    w.write(0, &format!("Name:\t{}\n", name(meta)));
    w.write(0, &format!("Selector:\t{}\n", selector_string(Some(&spec.selector)).unwrap_or_default()));
    let node_selector = spec.template.spec.as_ref().and_then(|s| s.node_selector.as_ref());
    w.write(0, &format!("Node-Selector:\t{}\n", format_labels(node_selector)));
    labels_block(w, "", "Labels", meta.labels.as_ref());
    annotations_block(w, "Annotations", meta.annotations.as_ref());
    w.write(0, &format!("Desired Number of Nodes Scheduled: {}\n", status.desired_number_scheduled));
    w.write(0, &format!("Current Number of Nodes Scheduled: {}\n", status.current_number_scheduled));
    w.write(
        0,
        &format!("Number of Nodes Scheduled with Up-to-date Pods: {}\n", status.updated_number_scheduled.unwrap_or(0)),
    );
    w.write(0, &format!("Number of Nodes Scheduled with Available Pods: {}\n", status.number_available.unwrap_or(0)));
    w.write(0, &format!("Number of Nodes Misscheduled: {}\n", status.number_misscheduled));
    pods_status_line(w, related, meta);
    pod_template_block(w, Some(&spec.template));
    events_block(w, &related.events, now);
}

pub(super) fn describe_priority_class(w: &mut Writer, pc: &scheduling::PriorityClass, related: &Related, now: SimTime) {
    w.write(0, &format!("Name:\t{}\n", name(&pc.metadata)));
    w.write(0, &format!("Value:\t{}\n", pc.value));
    w.write(0, &format!("GlobalDefault:\t{}\n", pc.global_default.unwrap_or(false)));
    w.write(0, &format!("PreemptionPolicy:\t{}\n", pc.preemption_policy.as_deref().unwrap_or("")));
    w.write(0, &format!("Description:\t{}\n", pc.description.as_deref().unwrap_or("")));
    annotations_block(w, "Annotations", pc.metadata.annotations.as_ref());
    events_block(w, &related.events, now);
}
