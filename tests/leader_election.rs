//! Leader election as kubeadm runs the control plane (`--leader-elect=true`): kube-scheduler and
//! kube-controller-manager hold Leases in kube-system, renew them every 2 s, exit when they cannot renew
//! within 10 s, and a new process waits for the old holder's 15 s lease to run out. After an apiserver
//! outage the restarted controller-manager counts grace periods from its own start, so no node goes
//! NotReady and nothing loses its endpoints.

use kubeglass::cluster::Cluster;

use crate::kubectl;

fn holder(c: &mut Cluster, lease: &str) -> String {
    kubectl(c, &format!("get lease -n kube-system {lease} -o jsonpath={{.spec.holderIdentity}}")).0
}

fn spec_field(c: &mut Cluster, lease: &str, field: &str) -> String {
    kubectl(c, &format!("get lease -n kube-system {lease} -o jsonpath={{.spec.{field}}}")).0
}

fn is_identity(s: &str) -> bool {
    let Some(uuid) = s.strip_prefix("controlplane_") else { return false };
    uuid.len() == 36 && uuid.chars().all(|c| c.is_ascii_hexdigit() || c == '-') && uuid.as_bytes()[14] == b'4'
}

fn became_leader(c: &mut Cluster, lease: &str) -> Vec<String> {
    let (events, _) = kubectl(c, "get events -n kube-system --field-selector reason=LeaderElection");
    events
        .lines()
        .filter(|l| l.contains(&format!(" lease/{lease} ")) && l.ends_with(" became leader"))
        .filter_map(|l| l.split_whitespace().rev().nth(2).map(str::to_string))
        .collect()
}

#[test]
fn the_scheduler_and_the_controller_manager_hold_their_leases_and_renew_them_every_two_seconds() {
    let mut c = Cluster::new_default(21);
    c.advance_ms(5_000);
    let (leases, _) = kubectl(&mut c, "get leases -n kube-system");
    let rows: Vec<Vec<&str>> = leases.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(rows[0], ["NAME", "HOLDER", "AGE"], "{leases}");
    for lease in ["kube-controller-manager", "kube-scheduler"] {
        let row = rows.iter().find(|r| r[0] == lease).unwrap_or_else(|| panic!("{lease}: {leases}"));
        assert!(is_identity(row[1]), "{leases}");
        assert_eq!(became_leader(&mut c, lease), [row[1]], "one LeaderElection event, by the holder");
        assert_eq!(spec_field(&mut c, lease, "leaseDurationSeconds"), "15");
        assert_eq!(spec_field(&mut c, lease, "leaseTransitions"), "0");
    }
    let (describe, _) = kubectl(&mut c, "describe lease -n kube-system kube-scheduler");
    assert!(describe.contains("\n  Lease Duration Seconds:  15\n"), "{describe}");
    assert!(describe.contains("\n  Holder Identity:         controlplane_"), "{describe}");
    assert!(describe.contains("  Normal  LeaderElection  "), "the election's event is the Lease's: {describe}");

    let first = spec_field(&mut c, "kube-scheduler", "renewTime");
    c.advance_ms(2_100);
    let second = spec_field(&mut c, "kube-scheduler", "renewTime");
    assert_ne!(first, second, "renewed within one retry period");
    assert_eq!(spec_field(&mut c, "kube-scheduler", "acquireTime").len(), "2025-09-01T00:00:02.000000Z".len());
}

#[test]
fn a_stopped_scheduler_stops_renewing_and_the_started_one_waits_for_the_lease_to_expire() {
    let mut c = Cluster::new_default(22);
    c.advance_ms(3_000);
    let old = holder(&mut c, "kube-scheduler");
    c.stop("kube-scheduler").unwrap();
    let renewed = spec_field(&mut c, "kube-scheduler", "renewTime");
    c.advance_ms(10_000);
    assert_eq!(spec_field(&mut c, "kube-scheduler", "renewTime"), renewed, "nobody renews a stopped holder's lease");
    c.start("kube-scheduler").unwrap();
    assert_eq!(kubectl(&mut c, "run p --image=nginx:1.27").1, Some(0));
    // The new process observed the old record when it started: 15 s must pass on its clock before it may
    // take the lease over.
    c.advance_ms(12_000);
    assert_eq!(holder(&mut c, "kube-scheduler"), old);
    let (pod, _) = kubectl(&mut c, "get pod p -o wide");
    assert!(pod.contains(" Pending ") && pod.contains("<none>"), "no leader, no scheduling: {pod}");
    c.advance_ms(10_000);
    let new = holder(&mut c, "kube-scheduler");
    assert!(is_identity(&new) && new != old, "{new} took over from {old}");
    assert_eq!(spec_field(&mut c, "kube-scheduler", "leaseTransitions"), "1");
    assert_eq!(became_leader(&mut c, "kube-scheduler"), [old, new]);
    let (pod, _) = kubectl(&mut c, "get pod p");
    assert!(pod.contains(" Running "), "{pod}");
}

#[test]
fn after_an_apiserver_outage_the_leaders_restart_and_no_node_or_endpoint_is_lost() {
    let mut c = Cluster::new_default(7);
    assert_eq!(kubectl(&mut c, "create deployment web --image=nginx:1.27 --replicas=3").1, Some(0));
    assert_eq!(kubectl(&mut c, "expose deployment web --port=80").1, Some(0));
    c.advance_ms(30_000);
    let before = (holder(&mut c, "kube-scheduler"), holder(&mut c, "kube-controller-manager"));
    c.stop("kube-apiserver").unwrap();
    c.advance_ms(120_000);
    c.start("kube-apiserver").unwrap();
    for _ in 0..3 {
        c.advance_ms(5_000);
        let (nodes, _) = kubectl(&mut c, "get nodes --no-headers");
        assert_eq!(nodes.lines().filter(|l| l.split_whitespace().nth(1) == Some("Ready")).count(), 3, "{nodes}");
        let (deploy, _) = kubectl(&mut c, "get deploy web --no-headers");
        assert_eq!(deploy.split_whitespace().take(4).collect::<Vec<_>>(), ["web", "3/3", "3", "3"], "{deploy}");
        let (endpoints, _) = kubectl(&mut c, "get endpoints web --no-headers");
        assert_eq!(endpoints.matches(":80").count(), 3, "{endpoints}");
    }
    c.advance_ms(55_000);
    let (nodes, _) = kubectl(&mut c, "get nodes --no-headers");
    assert!(!nodes.contains("NotReady"), "{nodes}");
    // Both leaders lost their leases during the outage and exited; the processes that came back took over.
    let after = (holder(&mut c, "kube-scheduler"), holder(&mut c, "kube-controller-manager"));
    assert!(after.0 != before.0 && after.1 != before.1, "{before:?} -> {after:?}");
    assert_eq!(became_leader(&mut c, "kube-controller-manager"), [before.1, after.1]);
    assert_eq!(spec_field(&mut c, "kube-controller-manager", "leaseTransitions"), "1");
    let (ps, _) = {
        let r = c.shell("controlplane", "crictl ps -a --name kube-scheduler -q | wc -l", 10_000);
        (r.output, r.exit)
    };
    assert_eq!(ps, "2\n", "the kubelet restarted the exited container");
    // RESTARTS went up, as on a real control-plane node after an apiserver outage, and the exited
    // container's log says why, in client-go's and the components' own words.
    for (pod, lost) in [
        ("kube-scheduler", "       1 server.go:337] \"Leaderelection lost\""),
        ("kube-controller-manager", "controllermanager.go:368] \"leaderelection lost\""),
    ] {
        let (row, _) = kubectl(&mut c, &format!("get pod -n kube-system {pod}-controlplane --no-headers"));
        assert_eq!(row.split_whitespace().nth(3), Some("1"), "{row}");
        let (log, code) = kubectl(&mut c, &format!("logs -n kube-system {pod}-controlplane --previous"));
        assert_eq!(code, Some(0), "{log}");
        let lines: Vec<&str> = log.lines().collect();
        let n = lines.len();
        assert!(n >= 4, "{log}");
        assert!(
            lines[0]
                .ends_with(&format!("leaderelection.go:257] attempting to acquire leader lease kube-system/{pod}...")),
            "{log}"
        );
        assert!(
            log.contains(&format!("leaderelection.go:271] successfully acquired lease kube-system/{pod}\n")),
            "{log}"
        );
        let refused = format!(
            "leaderelection.go:441] Failed to update lock optimistically: Put \"https://192.168.56.10:6443/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/{pod}?timeout=5s\": dial tcp 192.168.56.10:6443: connect: connection refused, falling back to slow path"
        );
        assert!(log.contains(&refused), "{log}");
        assert!(
            lines[n - 2].ends_with(&format!(
                "leaderelection.go:297] failed to renew lease kube-system/{pod}: context deadline exceeded"
            )),
            "{log}"
        );
        assert!(lines[n - 2].starts_with('I') && lines[n - 1].starts_with('E'), "{log}");
        assert!(lines[n - 1].ends_with(lost), "{log}");
        // The running container's log starts with the new process's own attempt.
        let (now, _) = kubectl(&mut c, &format!("logs -n kube-system {pod}-controlplane"));
        assert!(
            now.lines()
                .next()
                .is_some_and(|l| l.ends_with(&format!("attempting to acquire leader lease kube-system/{pod}..."))),
            "{now}"
        );
        assert!(
            now.lines().last().is_some_and(|l| l.ends_with(&format!("successfully acquired lease kube-system/{pod}"))),
            "{now}"
        );
    }
}

#[test]
fn the_apiserver_keeps_an_identity_lease_named_after_its_host_and_a_restart_takes_it_over() {
    let mut c = Cluster::new_default(23);
    c.advance_ms(1_000);
    let name = "apiserver-ivtlveyukuyrha5ia44unn7io4";
    let (leases, _) =
        kubectl(&mut c, "get leases -n kube-system -l apiserver.kubernetes.io/identity=kube-apiserver -o name");
    assert_eq!(leases, format!("lease.coordination.k8s.io/{name}\n"));
    let labels = kubectl(&mut c, &format!("get lease -n kube-system {name} -o jsonpath={{.metadata.labels}}")).0;
    assert_eq!(
        labels,
        r#"{"apiserver.kubernetes.io/identity":"kube-apiserver","kubernetes.io/hostname":"controlplane"}"#
    );
    assert_eq!(spec_field(&mut c, name, "leaseDurationSeconds"), "3600");
    let first = holder(&mut c, name);
    let uuid = first.strip_prefix(&format!("{name}_")).unwrap_or_default();
    assert_eq!(uuid.len(), 36, "{first}");
    let renewed = spec_field(&mut c, name, "renewTime");
    c.advance_ms(10_000);
    assert_ne!(spec_field(&mut c, name, "renewTime"), renewed, "renewed every 10 s");

    c.crash("kube-apiserver").unwrap();
    c.advance_ms(15_000);
    let second = holder(&mut c, name);
    assert!(second.starts_with(&format!("{name}_")) && second != first, "{first} -> {second}");
}
