//! The node shell end to end: systemctl and journalctl on the nodes' units, crictl against containerd (not
//! through the apiserver), the node filesystem and the kubelet's file source, and `crash`.

use kubeglass::api::{Kind, Object};
use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn sh(c: &mut Cluster, node: &str, line: &str) -> (String, Option<i32>) {
    let r = c.shell(node, line, 120_000);
    (r.output, r.exit)
}

fn running(c: &Cluster, component: &str) -> bool {
    c.view().components.iter().any(|x| x.name == component && x.running)
}

/// A mirror pod's `kubernetes.io/config.hash` (its static pod's UID), if the API has the mirror pod.
fn mirror_hash(c: &Cluster, name: &str) -> Option<String> {
    let cache = c.apiserver()?.cache();
    match cache.get(Kind::Pod, Some("kube-system"), name).as_deref() {
        Some(Object::Pod(p)) => p.metadata.annotations.as_ref()?.get("kubernetes.io/config.hash").cloned(),
        _ => None,
    }
}

#[test]
fn systemctl_stops_and_starts_the_kubelet_and_the_journal_says_so() {
    let mut c = Cluster::new_default(1);
    assert_eq!(sh(&mut c, "node01", "systemctl is-active kubelet"), ("active\n".into(), Some(0)));
    assert_eq!(sh(&mut c, "node01", "systemctl stop kubelet"), (String::new(), Some(0)));
    assert!(!running(&c, "node01/kubelet"));
    let renewals = c.kubelet("node01").map(|k| k.lease_renewals()).unwrap_or_default();
    c.advance_ms(30_000);
    assert_eq!(c.kubelet("node01").map(|k| k.lease_renewals()), Some(renewals), "a stopped kubelet renews nothing");
    let (status, code) = sh(&mut c, "node01", "systemctl status kubelet");
    assert_eq!(code, Some(3));
    assert!(status.starts_with("○ kubelet.service - kubelet: The Kubernetes Node Agent\n"), "{status}");
    assert!(status.contains("     Active: inactive (dead) since Mon 2025-09-01 00:00:03 UTC; 30s ago\n"), "{status}");
    assert_eq!(sh(&mut c, "node01", "systemctl start kubelet.service"), (String::new(), Some(0)));
    assert!(running(&c, "node01/kubelet"));
    c.advance_ms(15_000);
    assert!(c.kubelet("node01").is_some_and(|k| k.lease_renewals() > renewals));
    let (journal, _) = sh(&mut c, "node01", "journalctl -u kubelet --no-pager | grep systemd");
    let lines: Vec<&str> = journal.lines().map(|l| l.split("systemd[1]: ").nth(1).unwrap_or("")).collect();
    assert_eq!(
        lines,
        [
            "Started kubelet.service - kubelet: The Kubernetes Node Agent.",
            "Stopping kubelet.service - kubelet: The Kubernetes Node Agent...",
            "kubelet.service: Deactivated successfully.",
            "Stopped kubelet.service - kubelet: The Kubernetes Node Agent.",
            "Started kubelet.service - kubelet: The Kubernetes Node Agent.",
        ]
    );
    // A restarted kubelet logs under a new process id.
    let (tail, _) = sh(&mut c, "node01", "journalctl -u kubelet -n 1");
    let (status, _) = sh(&mut c, "node01", "systemctl status kubelet");
    let pid = status.lines().find_map(|l| l.trim().strip_prefix("Main PID: ")).and_then(|p| p.split(' ').next());
    assert!(pid.is_some_and(|p| tail.contains(&format!("kubelet[{p}]"))), "{status}\n{tail}");
}

#[test]
fn crictl_reads_containerd_with_the_apiserver_down_and_fails_with_containerd_stopped() {
    let mut c = Cluster::new_default(2);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: logger}\nspec:\n  nodeName: node02\n  containers:\n  - name: app\n    image: busybox:1.36\n    command: [sh, -c, 'echo hello from the pod; sleep 3600']\n",
    );
    c.advance_ms(10_000);
    c.stop("kube-apiserver").unwrap();
    let (out, code) = kubectl(&mut c, "get pods");
    assert_eq!(code, Some(1), "{out}");
    let (ps, code) = sh(&mut c, "node02", "crictl ps --name app");
    assert_eq!(code, Some(0));
    assert!(
        ps.lines().nth(1).is_some_and(|l| l.contains(" Running ") && l.ends_with(" logger              default")),
        "{ps}"
    );
    assert_eq!(
        sh(&mut c, "node02", "crictl logs $(crictl ps -q --name app)"),
        ("hello from the pod\n".into(), Some(0))
    );
    let (pods, _) = sh(&mut c, "node02", "ls /var/log/pods");
    assert!(pods.lines().any(|l| l.starts_with("default_logger_")), "{pods}");
    let (log, _) = sh(&mut c, "node02", "cat /var/log/containers/$(ls /var/log/containers | grep logger)");
    assert!(log.ends_with(" stdout F hello from the pod\n"), "{log}");
    let (links, _) = sh(&mut c, "node02", "ls -l /var/log/containers | grep logger");
    assert!(
        links.starts_with("lrwxrwxrwx 1 root root ") && links.contains(" -> /var/log/pods/default_logger_"),
        "{links}"
    );

    c.start("kube-apiserver").unwrap();
    assert_eq!(sh(&mut c, "node02", "systemctl stop containerd"), (String::new(), Some(0)));
    let (err, code) = sh(&mut c, "node02", "crictl ps");
    assert_eq!(code, Some(1));
    assert!(
        err.starts_with("FATA[0000] validate service connection: validate CRI v1 runtime API for endpoint \"unix:///run/containerd/containerd.sock\": rpc error: code = Unavailable"),
        "{err}"
    );
    // NotReady once 30 s passed since the runtime's last successful status check, at the next status update.
    c.advance_ms(41_000);
    let (nodes, _) = kubectl(&mut c, "get node node02");
    assert!(nodes.contains("node02   NotReady"), "{nodes}");
    // The logs stay on disk while containerd is down.
    assert!(sh(&mut c, "node02", "ls /var/log/pods").0.contains("default_logger_"));
    sh(&mut c, "node02", "systemctl start containerd");
    c.advance_ms(16_000);
    let (nodes, _) = kubectl(&mut c, "get node node02");
    assert!(nodes.contains("node02   Ready"), "{nodes}");
    let (journal, _) = sh(&mut c, "node02", "journalctl -u kubelet | grep -c 'container runtime is down'");
    assert!(journal.trim().parse::<u32>().is_ok_and(|n| n >= 1), "{journal}");
}

#[test]
fn moving_a_manifest_out_stops_its_component_and_moving_it_back_starts_the_same_pod() {
    let mut c = Cluster::new_default(3);
    let name = "kube-controller-manager-controlplane";
    let hash = mirror_hash(&c, name).expect("the mirror pod exists after install");
    let (out, code) = sh(&mut c, "controlplane", "mv /etc/kubernetes/manifests/kube-controller-manager.yaml /root/");
    assert_eq!((out.as_str(), code), ("", Some(0)));
    c.advance_ms(2_000);
    assert!(!running(&c, "kube-controller-manager"));
    assert_eq!(mirror_hash(&c, name), None, "the mirror pod is deleted with its static pod");
    assert_eq!(sh(&mut c, "controlplane", "ls /root").0, "kube-controller-manager.yaml\n");
    sh(&mut c, "controlplane", "mv /root/kube-controller-manager.yaml /etc/kubernetes/manifests");
    c.advance_ms(3_000);
    assert!(running(&c, "kube-controller-manager"));
    assert_eq!(mirror_hash(&c, name), Some(hash), "the same file gives the same static pod UID");
}

#[test]
fn a_stopped_kubelet_acts_on_manifest_changes_only_when_it_starts() {
    let mut c = Cluster::new_default(4);
    sh(&mut c, "controlplane", "systemctl stop kubelet");
    sh(&mut c, "controlplane", "mv /etc/kubernetes/manifests/kube-scheduler.yaml /tmp");
    c.advance_ms(25_000);
    assert!(running(&c, "kube-scheduler"), "no kubelet runs to stop the scheduler's container");
    sh(&mut c, "controlplane", "systemctl start kubelet");
    c.advance_ms(2_000);
    assert!(!running(&c, "kube-scheduler"), "the kubelet reads its manifests when it starts");
    let (ps, _) = sh(&mut c, "controlplane", "crictl ps");
    assert!(!ps.contains("kube-scheduler") && ps.contains("kube-apiserver"), "{ps}");
}

#[test]
fn a_crashed_apiserver_is_restarted_by_the_kubelet_without_the_api_while_a_stopped_one_stays_down() {
    let mut c = Cluster::new_default(5);
    c.crash("kube-apiserver").unwrap();
    c.advance_ms(3_000);
    assert!(running(&c, "kube-apiserver"));
    let (out, code) = kubectl(&mut c, "get pod -n kube-system kube-apiserver-controlplane");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("kube-apiserver-controlplane   1/1     Running   1 ("), "{out}");
    let (ps, _) = sh(&mut c, "controlplane", "crictl ps -a --name kube-apiserver");
    let states: Vec<&str> =
        ps.lines().skip(1).filter_map(|l| l.split_whitespace().find(|w| *w == "Running" || *w == "Exited")).collect();
    assert_eq!(states, ["Running", "Exited"], "{ps}");
    let (inspect, _) =
        sh(&mut c, "controlplane", "crictl inspect $(crictl ps -a -q --name kube-apiserver --state exited)");
    let v: serde_json::Value = serde_json::from_str(&inspect).unwrap_or_default();
    assert_eq!(
        (v["status"]["exitCode"].as_i64(), v["status"]["reason"].as_str()),
        (Some(137), Some("Error")),
        "{inspect}"
    );

    c.stop("kube-apiserver").unwrap();
    c.advance_ms(60_000);
    assert!(!running(&c, "kube-apiserver"));
    let (out, _) = kubectl(&mut c, "get pods");
    assert!(out.contains("was refused"), "{out}");
    c.start("kube-apiserver").unwrap();
    c.advance_ms(2_000);
    assert_eq!(kubectl(&mut c, "get pods -A").1, Some(0));
}

#[test]
fn systemd_restarts_a_crashed_kubelet_after_restart_sec_unless_it_is_stopped() {
    let mut c = Cluster::new_default(6);
    c.crash("node01/kubelet").unwrap();
    assert_eq!(sh(&mut c, "node01", "systemctl is-active kubelet"), ("activating\n".into(), Some(3)));
    c.advance_ms(5_000);
    assert!(!running(&c, "node01/kubelet"));
    c.advance_ms(6_000);
    assert!(running(&c, "node01/kubelet"), "RestartSec=10 has passed");
    let (journal, _) = sh(&mut c, "node01", "journalctl -u kubelet | grep 'restart counter'");
    assert!(
        journal.ends_with("systemd[1]: kubelet.service: Scheduled restart job, restart counter is at 1.\n"),
        "{journal}"
    );

    c.crash("node02/kubelet").unwrap();
    sh(&mut c, "node02", "systemctl stop kubelet");
    c.advance_ms(15_000);
    assert!(!running(&c, "node02/kubelet"), "a stop cancels systemd's restart job");
}

#[test]
fn the_kubelet_and_containerd_journals_tell_what_happened_to_a_pod() {
    let mut c = Cluster::new_default(7);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: broken}\nspec:\n  nodeName: node01\n  containers:\n  - {name: app, image: 'nginx:doesnotexist'}\n",
    );
    c.advance_ms(5_000);
    let (kubelet, _) = sh(&mut c, "node01", "journalctl -u kubelet");
    assert!(kubelet.contains("\"SyncLoop ADD\" source=\"api\" pods=[\"default/broken\"]"), "{kubelet}");
    assert!(
        kubelet.contains("\"Error syncing pod, skipping\" err=\"failed to \\\"StartContainer\\\" for \\\"app\\\" with ErrImagePull: "),
        "{kubelet}"
    );
    let (containerd, _) = sh(&mut c, "node01", "journalctl -u containerd");
    assert!(containerd.contains("level=error msg=\"PullImage \\\"nginx:doesnotexist\\\" failed\""), "{containerd}");

    c.stop("kube-apiserver").unwrap();
    c.advance_ms(12_000);
    let (errors, _) = sh(&mut c, "node01", "journalctl -u kubelet -n 5 | grep 'Failed to update lease'");
    assert!(
        errors.contains("err=\"Put \\\"https://192.168.56.10:6443/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node01?timeout=10s\\\": dial tcp 192.168.56.10:6443: connect: connection refused\""),
        "{errors}"
    );
}

#[test]
fn the_shell_finds_programs_as_bash_does_and_kubectl_needs_a_kubeconfig() {
    let mut c = Cluster::new_default(8);
    assert_eq!(sh(&mut c, "node01", "kubeadm-please"), ("bash: kubeadm-please: command not found\n".into(), Some(127)));
    assert_eq!(
        sh(&mut c, "node01", "echo 'unterminated"),
        ("bash: unexpected EOF while looking for matching `''\n".into(), Some(2))
    );
    assert_eq!(
        sh(&mut c, "controlplane", "systemctl status kube-apiserver"),
        ("Unit kube-apiserver.service could not be found.\n".into(), Some(4))
    );
    let (nodes, code) = sh(&mut c, "controlplane", "kubectl get nodes | grep -c Ready");
    assert_eq!((nodes.as_str(), code), ("3\n", Some(0)));
    assert_eq!(
        sh(&mut c, "node01", "kubectl get nodes"),
        (
            "The connection to the server localhost:8080 was refused - did you specify the right host or port?\n"
                .into(),
            Some(1)
        )
    );
    let (ls, _) = sh(&mut c, "node01", "ls /etc/kubernetes /etc/cni/net.d");
    assert_eq!(ls, "/etc/cni/net.d:\n10-containerd-net.conflist\n\n/etc/kubernetes:\nkubelet.conf  manifests  pki\n");
    let (cat, _) = sh(&mut c, "node01", "cat /etc/cni/net.d/10-containerd-net.conflist | grep subnet");
    assert!(cat.contains("\"subnet\": \"10.244.1.0/24\""), "{cat}");
    assert_eq!(c.shell("node09", "ls", 1_000).exit, Some(1));
}

#[test]
fn etcd_is_restored_the_kubeadm_way_by_moving_its_manifest_out_and_back() {
    let mut c = Cluster::new_default(9);
    apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: before-backup}\n");
    let (out, _) = sh(&mut c, "controlplane", "ETCDCTL_API=3 etcdctl snapshot save /opt/snap.db");
    assert!(out.starts_with("Snapshot saved at /opt/snap.db\n"), "{out}");
    apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: after-backup}\n");
    let (_, code) = sh(
        &mut c,
        "controlplane",
        "mv /etc/kubernetes/manifests/etcd.yaml /etc/kubernetes/manifests/kube-apiserver.yaml /tmp/",
    );
    assert_eq!(code, Some(0));
    c.advance_ms(2_000);
    assert!(!running(&c, "etcd-0") && !running(&c, "kube-apiserver"));
    let (out, code) = sh(&mut c, "controlplane", "etcdutl snapshot restore /opt/snap.db --data-dir /var/lib/etcd");
    assert_eq!(code, Some(0), "etcd's data directory is free once etcd is stopped: {out}");
    sh(&mut c, "controlplane", "mv /tmp/etcd.yaml /tmp/kube-apiserver.yaml /etc/kubernetes/manifests/");
    c.advance_ms(5_000);
    assert!(running(&c, "etcd-0") && running(&c, "kube-apiserver"));
    let (out, code) = kubectl(&mut c, "get configmaps");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("before-backup") && !out.contains("after-backup"), "{out}");
}

#[test]
fn the_shell_runs_kube_proxys_iptables_save_and_curl_on_its_node() {
    let mut c = Cluster::new_default(10);
    c.advance_ms(5_000);
    let (count, code) = sh(&mut c, "node01", "iptables-save -t nat | grep -c KUBE-SVC-NPX46M4PTMTKRN6Y");
    assert_eq!(code, Some(0));
    assert!(count.trim().parse::<u32>().is_ok_and(|n| n > 0), "the kubernetes Service's chain: {count}");
    let (out, code) = sh(&mut c, "node01", "curl -sk https://10.96.0.1/version | grep -c '\"kind\": \"Status\"'");
    assert_eq!((out.as_str(), code), ("1\n", Some(0)));
    assert_eq!(
        sh(&mut c, "node02", "curl http://nope.invalid"),
        ("curl: (6) Could not resolve host: nope.invalid\n".into(), Some(6))
    );
}

/// One Ubuntu release everywhere: what the kubelet reports (`get nodes -o wide`), the node's files and
/// programs, systemd's layout and containerd's own journal all name the same versions.
#[test]
fn every_place_on_a_node_names_the_same_os_release() {
    use kubeglass::node::os;
    let mut c = Cluster::new_default(1);
    c.advance_ms(5_000);
    let field = |text: &str, key: &str| {
        text.lines().find_map(|l| l.strip_prefix(key)).map(|v| v.trim_matches('"').to_string()).unwrap_or_default()
    };
    let (release, _) = sh(&mut c, "node01", "cat /etc/os-release");
    let pretty = field(&release, "PRETTY_NAME=");
    assert_eq!(pretty, os::OS_IMAGE);
    assert!(field(&release, "VERSION=").starts_with(pretty.trim_start_matches("Ubuntu ")), "{release}");
    let (kernel, code) = sh(&mut c, "node01", "uname -r");
    assert_eq!((kernel.trim(), code), (os::KERNEL_RELEASE, Some(0)));
    let (journal, _) = sh(&mut c, "node01", "journalctl -u containerd | grep 'starting containerd'");
    let containerd = journal.split("version=").nth(1).map(str::trim).unwrap_or_default().to_string();
    assert_eq!(containerd, os::CONTAINERD_VERSION, "{journal}");

    let (wide, _) = kubectl(&mut c, "get node node01 -o wide");
    let row = wide.lines().nth(1).unwrap_or_default();
    for want in [pretty.as_str(), kernel.trim(), &format!("containerd://{containerd}")] {
        assert!(row.contains(want), "{want} in {wide}");
    }

    let (curl, code) = sh(&mut c, "node01", "curl --version");
    assert_eq!(code, Some(0));
    assert!(curl.starts_with(&format!("curl {} (x86_64-pc-linux-gnu)", os::CURL_VERSION)), "{curl}");
    assert!(curl.contains(&format!("security patched: {}-2ubuntu", os::CURL_VERSION)), "{curl}");
    let (rules, _) = sh(&mut c, "node01", "iptables-save -t nat | head -n 1");
    assert_eq!(
        rules,
        format!("# Generated by iptables-nft-save v{} (nf_tables) on Mon Sep  1 00:00:08 2025\n", os::IPTABLES_VERSION)
    );
    let (status, _) = sh(&mut c, "node01", "systemctl status containerd");
    assert!(status.contains(&format!("Loaded: loaded ({}/containerd.service; enabled; preset: enabled)", os::UNIT_DIR)));
    assert!(status.contains("systemd[1]: Started containerd.service - containerd container runtime."), "{status}");
}

#[test]
fn stopping_a_control_plane_component_moves_its_manifest_out_and_every_view_agrees_at_that_moment() {
    for component in ["kube-scheduler", "kube-controller-manager", "kube-apiserver", "etcd"] {
        let mut c = Cluster::new_default(3);
        let mirror = format!("{component}-controlplane");
        assert!(mirror_hash(&c, &mirror).is_some());
        c.stop(component).unwrap();
        assert!(!running(&c, if component == "etcd" { "etcd-0" } else { component }), "{component} has ended");
        let (ls, _) =
            sh(&mut c, "controlplane", &format!("ls /etc/kubernetes/manifests/ /etc/kubernetes/{component}.yaml"));
        assert!(ls.starts_with(&format!("/etc/kubernetes/{component}.yaml\n")), "{component}: {ls}");
        assert!(
            !ls.contains(&format!("manifests/:\n{component}.yaml")) && !ls.contains(&format!("  {component}.yaml")),
            "{ls}"
        );
        let (ps, _) = sh(&mut c, "controlplane", &format!("crictl ps --name {component} -q"));
        assert_eq!(ps, "", "{component}: no running container");
        let (journal, _) = sh(&mut c, "controlplane", &format!("journalctl -u kubelet | grep {mirror}"));
        assert!(
            journal.contains(&format!("\"SyncLoop REMOVE\" source=\"file\" pods=[\"kube-system/{mirror}\"]")),
            "{journal}"
        );
        if component != "kube-apiserver" && component != "etcd" {
            assert_eq!(mirror_hash(&c, &mirror), None, "{component}: the mirror pod is deleted");
            let (out, code) = kubectl(&mut c, &format!("get pod -n kube-system {mirror}"));
            assert_eq!(code, Some(1), "{out}");
        }

        c.start(component).unwrap();
        assert!(running(&c, if component == "etcd" { "etcd-0" } else { component }), "{component} runs again");
        let (ps, _) = sh(&mut c, "controlplane", &format!("crictl ps --name {component} -q | wc -l"));
        assert_eq!(ps, "1\n", "{component}");
        c.advance_ms(15_000);
        let (out, code) = kubectl(&mut c, &format!("get pod -n kube-system {mirror}"));
        assert_eq!(code, Some(0), "{component}: {out}");
        if component != "kube-apiserver" && component != "etcd" {
            assert!(out.contains(" 1/1     Running "), "{component}: {out}");
        }
    }
}
