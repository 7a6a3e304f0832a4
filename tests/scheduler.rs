//! kube-scheduler through the apiserver: binding, the FitError message, PodScheduled=False, and the
//! filters' verdicts kept for "why is this pod here / why Pending".

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn pod(name: &str, extra_spec: &str, cpu: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{extra_spec}  containers:\n  - name: c\n    image: nginx:1.27\n    resources:\n      requests:\n        cpu: \"{cpu}\"\n"
    )
}

#[test]
fn a_pod_that_fits_is_bound_to_a_worker_and_marked_scheduled() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("a", "", "500m"));
    c.advance_ms(1_000);
    let (out, _) = kubectl(
        &mut c,
        "get pod a -o 'jsonpath={.spec.nodeName}/PodScheduled={.status.conditions[?(@.type==\"PodScheduled\")].status}'",
    );
    assert!(out == "node01/PodScheduled=True" || out == "node02/PodScheduled=True", "{out}");
}

#[test]
fn a_pod_no_node_fits_gets_the_real_fit_error_as_condition_and_event() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("big", "", "3"));
    c.advance_ms(2_000);
    let expected = "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.";
    let (out, _) =
        kubectl(&mut c, "get pod big -o 'jsonpath={.status.conditions[0].reason}: {.status.conditions[0].message}'");
    assert_eq!(out, format!("Unschedulable: {expected}"));
    let (events, _) = kubectl(&mut c, "get events");
    let line = events.lines().find(|l| l.contains(" pod/big ")).unwrap_or_default();
    let cells: Vec<&str> = line.split_whitespace().take(4).collect();
    assert_eq!(cells[1..], ["Warning", "FailedScheduling", "pod/big"], "{events}");
    assert!(line.ends_with(&format!("   {expected}")), "{events}");
}

#[test]
fn node_selectors_and_tolerations_steer_pods() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("cp", "  tolerations:\n  - {key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}\n  nodeSelector:\n    node-role.kubernetes.io/control-plane: \"\"\n", "100m"));
    apply(&mut c, &pod("nowhere", "  nodeSelector:\n    disktype: ssd\n", "100m"));
    c.advance_ms(2_000);
    assert_eq!(kubectl(&mut c, "get pod cp -o jsonpath={.spec.nodeName}").0, "controlplane");
    let (msg, _) = kubectl(&mut c, "get pod nowhere -o jsonpath={.status.conditions[0].message}");
    assert!(msg.starts_with("0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector."), "{msg}");
}

#[test]
fn pods_spread_until_the_nodes_are_full() {
    let mut c = Cluster::new_default(1);
    for i in 0..4 {
        apply(&mut c, &pod(&format!("p{i}"), "", "900m"));
    }
    apply(&mut c, &pod("p4", "", "900m"));
    c.advance_ms(3_000);
    let (out, _) = kubectl(&mut c, "get pods -o wide --no-headers");
    let on = |n: &str| out.lines().filter(|l| l.split_whitespace().nth(6) == Some(n)).count();
    assert_eq!((on("node01"), on("node02")), (2, 2), "{out}");
    assert!(out.lines().any(|l| l.starts_with("p4 ") && l.contains("<none>")), "{out}");
}

#[test]
fn kubectl_events_lists_the_schedulers_events_oldest_first() {
    let mut c = Cluster::new_default(1);
    assert_eq!(
        kubectl(&mut c, "events -n kube-public"),
        ("No events found in kube-public namespace.\n".into(), Some(0))
    );
    apply(&mut c, &pod("a", "", "100m"));
    c.advance_ms(1_000);
    apply(&mut c, &pod("big", "", "3"));
    c.advance_ms(1_000);
    let (out, code) = kubectl(&mut c, "events");
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("LAST SEEN   TYPE      REASON"), "{out}");
    // The node controller's RegisteredNode events come first; the scheduler's follow in order.
    let pods: Vec<&str> =
        lines.iter().copied().filter(|l| l.contains("Scheduled") || l.contains("FailedScheduling")).collect();
    assert!(pods[0].contains("Normal    Scheduled") && pods[0].contains("Pod/a"), "{out}");
    assert!(pods[1].contains("Warning   FailedScheduling") && pods[1].contains("Pod/big"), "{out}");
    let (warnings, _) = kubectl(&mut c, "events --types=Warning --for pod/big");
    assert_eq!(warnings.lines().count(), 2, "{warnings}");
}

#[test]
fn the_events_k8s_io_api_serves_the_same_events_converted() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("a", "", "100m"));
    c.advance_ms(1_000);
    let (out, code) = kubectl(&mut c, "get events.events.k8s.io -o 'jsonpath={range.items[?(@.reason==\"Scheduled\")]}{.regarding.name}:{.note}{end}'");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("a:Successfully assigned default/a to node0"), "{out}");
    let event = "apiVersion: events.k8s.io/v1\nkind: Event\nmetadata: {name: manual.1}\neventTime: \"2025-09-01T00:00:01.000000Z\"\nreportingController: example.com/test\nreportingInstance: test-1\naction: Testing\nreason: Manual\ntype: Normal\nnote: written through events.k8s.io\nregarding: {kind: Pod, name: a, namespace: default}\n";
    assert_eq!(apply(&mut c, event), ("event.events.k8s.io/manual.1 created\n".into(), Some(0)));
    let (core, _) = kubectl(&mut c, "get events --field-selector reason=Manual -o jsonpath={.items[0].message}");
    assert_eq!(core, "written through events.k8s.io");
}
