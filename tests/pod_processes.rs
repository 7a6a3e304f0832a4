//! One truth for the components that run in ordinary pods: each node's kube-proxy is the process of its
//! DaemonSet pod's container, CoreDNS and metrics-server the processes of their Deployments' containers.
//! `stop`, `start` and `crash` act on them as an operator or the machine would, and the diagram, `crictl`
//! and `kubectl` agree: a stopped kube-proxy is frozen in its running container (`kill -STOP`), a stopped
//! add-on is scaled to zero, a crash is the process exiting and the kubelet restarting its container.

use kubeglass::cluster::{Cluster, ClusterConfig};

use crate::{apply, kubectl};

fn sh(c: &mut Cluster, node: &str, line: &str) -> String {
    c.shell(node, line, 10_000).output
}

/// node01's kube-proxy pod as `kubectl get pods -o wide` lists it: (name, ready, status, restarts).
fn proxy_pod(c: &mut Cluster, node: &str) -> Vec<String> {
    let (out, _) = kubectl(
        c,
        &format!("get pods -n kube-system -l k8s-app=kube-proxy --field-selector spec.nodeName={node} --no-headers"),
    );
    out.split_whitespace().take(4).map(str::to_string).collect()
}

/// A pod and, in front of it, a Service created while a kube-proxy is stopped or restarting.
const SVC: &str = "apiVersion: v1
kind: Pod
metadata: {name: web, labels: {app: web}}
spec:
  nodeName: node02
  containers: [{name: nginx, image: 'nginx:1.27'}]
---
apiVersion: v1
kind: Service
metadata: {name: late}
spec:
  selector: {app: web}
  ports: [{port: 80}]
";

fn programmed(c: &Cluster, node: &str) -> bool {
    c.iptables_save(node, Some("nat")).unwrap().contains("\"default/late cluster IP\"")
}

#[test]
fn a_stopped_kube_proxy_is_frozen_in_its_running_container_and_start_lets_it_go_on() {
    let mut c = Cluster::new_default(61);
    c.advance_ms(20_000);
    let pod = proxy_pod(&mut c, "node01");
    assert_eq!(pod[1..], ["1/1", "Running", "0"], "{pod:?}");
    assert!(c.is_running("node01/kube-proxy"));
    c.stop("node01/kube-proxy").unwrap();
    assert!(!c.is_running("node01/kube-proxy"));
    assert!(!c.is_started("node01/kube-proxy").unwrap());
    // The container and the pod run on: only the process is stopped.
    assert_eq!(sh(&mut c, "node01", "crictl ps --name kube-proxy -q | wc -l"), "1\n");
    apply(&mut c, SVC);
    c.advance_ms(30_000);
    assert_eq!(proxy_pod(&mut c, "node01")[1..], ["1/1", "Running", "0"]);
    assert!(!programmed(&c, "node01") && programmed(&c, "node02"));
    c.start("node01/kube-proxy").unwrap();
    c.advance_ms(2_000);
    assert!(programmed(&c, "node01"));
    // Nothing restarted: the same container, no restart counted.
    assert_eq!(sh(&mut c, "node01", "crictl ps -a --name kube-proxy -q | wc -l"), "1\n");
    assert_eq!(proxy_pod(&mut c, "node01")[3], "0");
}

#[test]
fn a_crashed_kube_proxy_exits_with_its_container_and_comes_back_when_the_kubelet_restarts_it() {
    let mut c = Cluster::new_default(62);
    c.advance_ms(20_000);
    let id = c.kernel().id("node01/kube-proxy").unwrap();
    let starts = c.kernel().slot(id).incarnation;
    c.crash("node01/kube-proxy").unwrap();
    assert!(!c.is_running("node01/kube-proxy"));
    // Started by hand it cannot be: its container is not running, and the kubelet starts it.
    let err = c.start("node01/kube-proxy").unwrap_err();
    assert!(err.contains("node01/kube-proxy is not running: its container"), "{err}");
    // The kubelet restarts an exited container at once the first time: a new process in a new container.
    c.advance_ms(2_000);
    assert!(c.is_running("node01/kube-proxy"));
    assert_eq!(c.kernel().slot(id).incarnation, starts + 1);
    assert_eq!(proxy_pod(&mut c, "node01")[1..], ["1/1", "Running", "1"]);
    // The second time it waits out the 10 s back-off, and nothing syncs node01's rules meanwhile.
    c.crash("node01/kube-proxy").unwrap();
    apply(&mut c, SVC);
    c.advance_ms(5_000);
    assert!(!c.is_running("node01/kube-proxy"));
    let (events, _) = kubectl(&mut c, "get events -n kube-system --field-selector reason=BackOff --no-headers");
    assert!(events.contains("Back-off restarting failed container kube-proxy"), "{events}");
    assert_eq!(proxy_pod(&mut c, "node01")[1..], ["0/1", "CrashLoopBackOff", "1"]);
    assert!(!programmed(&c, "node01") && programmed(&c, "node02"));
    c.advance_ms(6_000);
    assert!(c.is_running("node01/kube-proxy"));
    assert!(programmed(&c, "node01"), "the new process listed and synced");
    assert_eq!(proxy_pod(&mut c, "node01")[1..], ["1/1", "Running", "2"]);
    assert_eq!(sh(&mut c, "node01", "crictl ps -a --name kube-proxy -q | wc -l"), "3\n");
}

#[test]
fn a_deleted_kube_proxy_pod_takes_its_process_with_it_and_the_daemonsets_new_pod_brings_a_new_one() {
    let mut c = Cluster::new_default(63);
    c.advance_ms(20_000);
    let id = c.kernel().id("node02/kube-proxy").unwrap();
    let starts = c.kernel().slot(id).incarnation;
    let old = proxy_pod(&mut c, "node02")[0].clone();
    let (out, code) = kubectl(&mut c, &format!("delete pod -n kube-system {old}"));
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(5_000);
    let new = proxy_pod(&mut c, "node02");
    assert_ne!(new[0], old);
    assert_eq!(new[1..], ["1/1", "Running", "0"]);
    // The process ended with the old pod's container, and the new pod's container started a new one.
    assert!(c.is_running("node02/kube-proxy"));
    assert_eq!(c.kernel().slot(id).incarnation, starts + 1);
}

#[test]
fn after_a_reboot_kube_proxy_starts_with_its_container_not_with_the_machine() {
    let mut c = Cluster::new_default(64);
    c.advance_ms(20_000);
    c.stop("node01").unwrap();
    c.advance_ms(10_000);
    c.start("node01").unwrap();
    assert!(c.is_running("node01/kubelet") && c.is_running("node01/containerd"));
    assert!(!c.is_running("node01/kube-proxy"), "no container runs it yet");
    c.advance_ms(30_000);
    assert!(c.is_running("node01/kube-proxy"));
    assert_eq!(proxy_pod(&mut c, "node01")[1..], ["1/1", "Running", "1"]);
}

fn coredns_replicas(c: &mut Cluster) -> String {
    kubectl(c, "get deploy coredns -n kube-system --no-headers").0.split_whitespace().nth(1).unwrap_or("").to_string()
}

#[test]
fn stopping_coredns_scales_its_deployment_to_zero_and_starting_it_scales_it_back() {
    let mut c = Cluster::new_default(65);
    c.advance_ms(20_000);
    assert_eq!(coredns_replicas(&mut c), "2/2");
    c.stop("coredns").unwrap();
    // The step ends once its pods have ended: the process ran in them.
    assert!(!c.is_running("coredns"));
    assert!(!c.is_started("coredns").unwrap());
    assert_eq!(coredns_replicas(&mut c), "0/0");
    c.advance_ms(2_000);
    let (pods, _) = kubectl(&mut c, "get pods -n kube-system -l k8s-app=kube-dns");
    assert_eq!(pods, "No resources found in kube-system namespace.\n");
    assert!(!c.view().components.iter().any(|v| v.name == "coredns" && v.running));
    let r = c.curl("node01", &["kubernetes.default"]);
    assert_eq!(r.output, "curl: (6) Could not resolve host: kubernetes.default\n");
    // The admin's request is in the request log, as any kubectl's.
    let (out, _) = kubectl(&mut c, "get deploy coredns -n kube-system -o jsonpath={.spec.replicas}");
    assert_eq!(out, "0");
    c.start("coredns").unwrap();
    assert!(c.is_running("coredns"));
    c.advance_ms(5_000);
    assert_eq!(coredns_replicas(&mut c), "2/2");
    let r = c.curl("node01", &["-k", "https://kubernetes.default"]);
    assert!(!r.output.contains("Could not resolve"), "{}", r.output);
}

#[test]
fn a_crashed_coredns_exits_in_every_replica_and_comes_back_with_the_restarted_containers() {
    let mut c = Cluster::new_default(66);
    c.advance_ms(20_000);
    c.crash("coredns").unwrap();
    assert!(!c.is_running("coredns"));
    c.advance_ms(15_000);
    assert!(c.is_running("coredns"));
    let (pods, _) = kubectl(&mut c, "get pods -n kube-system -l k8s-app=kube-dns --no-headers");
    let restarts: Vec<&str> = pods.lines().map(|l| l.split_whitespace().nth(3).unwrap_or("")).collect();
    assert_eq!(restarts, ["1", "1"], "{pods}");
}

#[test]
fn coredns_runs_on_while_one_of_its_replicas_machines_is_off() {
    let mut c = Cluster::new_default(67);
    c.advance_ms(20_000);
    let (pods, _) = kubectl(&mut c, "get pods -n kube-system -l k8s-app=kube-dns -o wide --no-headers");
    let nodes: Vec<&str> = pods.lines().map(|l| l.split_whitespace().nth(6).unwrap_or("")).collect();
    let worker = nodes.iter().find(|n| **n != "controlplane").copied().unwrap_or("node01").to_string();
    c.stop(&worker).unwrap();
    let others = nodes.iter().filter(|n| **n != worker).count();
    assert_eq!(c.is_running("coredns"), others > 0, "{pods}");
}

#[test]
fn stopping_metrics_server_scales_it_to_zero_with_its_pod() {
    let mut c = Cluster::new(ClusterConfig { metrics_server: true, ..ClusterConfig::default() }, 68);
    c.advance_ms(20_000);
    c.stop("metrics-server").unwrap();
    assert!(!c.is_running("metrics-server"));
    c.advance_ms(2_000);
    let (pods, _) = kubectl(&mut c, "get pods -n kube-system -l k8s-app=metrics-server");
    assert_eq!(pods, "No resources found in kube-system namespace.\n");
    c.start("metrics-server").unwrap();
    assert!(c.is_running("metrics-server"));
    let running: usize = ["controlplane", "node01", "node02"]
        .iter()
        .map(|n| sh(&mut c, n, "crictl ps --name metrics-server -q | wc -l").trim().parse::<usize>().unwrap())
        .sum();
    assert_eq!(running, 1);
}

#[test]
fn stopping_coredns_while_the_apiserver_is_down_fails_as_kubectl_does_and_leaves_it_started() {
    let mut c = Cluster::new_default(69);
    c.advance_ms(20_000);
    c.stop("kube-apiserver").unwrap();
    let err = c.stop("coredns").unwrap_err();
    assert!(err.contains("The connection to the server 192.168.56.10:6443 was refused"), "{err}");
    assert!(c.is_started("coredns").unwrap(), "a refused scale changed nothing");
    assert!(c.is_running("coredns"));
    c.start("kube-apiserver").unwrap();
    c.advance_ms(5_000);
    assert_eq!(coredns_replicas(&mut c), "2/2");
}
