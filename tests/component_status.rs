//! `kubectl get componentstatuses`: the apiserver probes kube-scheduler's and kube-controller-manager's
//! `/healthz` over loopback and its etcd backend on every read, so a stopped component shows Unhealthy with
//! the dial error, and the deprecation warning comes first.

use kubeglass::cluster::Cluster;

use crate::kubectl;

#[test]
fn component_statuses_are_probed_on_each_read_and_a_stopped_scheduler_is_unhealthy() {
    let mut c = Cluster::new_default(4);
    let (out, code) = kubectl(&mut c, "get cs");
    assert_eq!(code, Some(0));
    // The rows come in the order the probes answered (the real apiserver's order varies too).
    let mut lines: Vec<&str> = out.lines().collect();
    lines[2..].sort();
    assert_eq!(
        lines,
        [
            "Warning: v1 ComponentStatus is deprecated in v1.19+",
            "NAME                 STATUS    MESSAGE   ERROR",
            "controller-manager   Healthy   ok        ",
            "etcd-0               Healthy   ok        ",
            "scheduler            Healthy   ok        ",
        ]
    );
    c.stop("kube-scheduler").unwrap();
    let (out, _) = kubectl(&mut c, "get componentstatus scheduler --no-headers");
    assert_eq!(
        out,
        "Warning: v1 ComponentStatus is deprecated in v1.19+\nscheduler   Unhealthy   Get \"https://127.0.0.1:10259/healthz\": dial tcp 127.0.0.1:10259: connect: connection refused   \n"
    );
    c.start("kube-scheduler").unwrap();
    c.advance_ms(2_000);
    let (out, _) = kubectl(&mut c, "get cs scheduler -o jsonpath={.conditions[0].status}");
    assert!(out.ends_with("True"), "{out}");
    // Not a stored kind: nothing to watch, and a name that is no server is not found.
    let (out, code) = kubectl(&mut c, "get cs nope");
    assert_eq!((out.as_str(), code), ("Warning: v1 ComponentStatus is deprecated in v1.19+\nError from server (NotFound): componentstatuses \"nope\" not found\n", Some(1)));
}
