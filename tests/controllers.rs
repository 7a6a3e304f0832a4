//! kube-controller-manager's loops through the apiserver.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

#[test]
fn every_namespace_gets_a_default_service_account_while_the_controller_manager_runs() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(1_000);
    for ns in ["default", "kube-system", "kube-public", "kube-node-lease"] {
        let (out, code) = kubectl(&mut c, &format!("get serviceaccount default -n {ns} -o name"));
        assert_eq!((out.as_str(), code), ("serviceaccount/default\n", Some(0)), "{ns}");
    }
    apply(&mut c, "apiVersion: v1\nkind: Namespace\nmetadata: {name: dev}\n");
    c.advance_ms(1_000);
    assert_eq!(kubectl(&mut c, "get sa -n dev -o name").0, "serviceaccount/default\n");
    kubectl(&mut c, "delete sa default -n dev");
    c.advance_ms(1_000);
    assert_eq!(kubectl(&mut c, "get sa -n dev -o name").0, "serviceaccount/default\n");
    c.stop("kube-controller-manager").unwrap();
    apply(&mut c, "apiVersion: v1\nkind: Namespace\nmetadata: {name: quiet}\n");
    c.advance_ms(5_000);
    assert_eq!(kubectl(&mut c, "get sa -n quiet").0, "No resources found in quiet namespace.\n");
    c.start("kube-controller-manager").unwrap();
    // Leader election: the new process waits out the stopped one's 15 s lease before its loops start.
    c.advance_ms(25_000);
    assert_eq!(kubectl(&mut c, "get sa -n quiet -o name").0, "serviceaccount/default\n");
}

fn pods_of(c: &mut Cluster, ns: &str, prefix: &str) -> Vec<(String, String)> {
    let (out, _) = kubectl(c, &format!("get pods -n {ns} -o wide --no-headers"));
    out.lines()
        .filter(|l| l.starts_with(prefix))
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            (cells[0].to_string(), cells[6].to_string())
        })
        .collect()
}

#[test]
fn the_kube_proxy_daemonset_puts_one_pod_on_every_node_through_the_scheduler() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(3_000);
    let pods = pods_of(&mut c, "kube-system", "kube-proxy-");
    let nodes: Vec<&str> = {
        let mut n: Vec<&str> = pods.iter().map(|(_, node)| node.as_str()).collect();
        n.sort();
        n
    };
    assert_eq!(nodes, ["controlplane", "node01", "node02"], "{pods:?}");
    assert!(pods.iter().all(|(name, _)| name.len() == "kube-proxy-".len() + 5), "{pods:?}");
    let (ds, _) = kubectl(&mut c, "get ds kube-proxy -n kube-system --no-headers");
    let cells: Vec<&str> = ds.split_whitespace().collect();
    assert_eq!(&cells[..3], ["kube-proxy", "3", "3"], "{ds}");
}

#[test]
fn with_the_scheduler_stopped_daemonset_pods_wait_unscheduled() {
    let mut c = Cluster::new_default(1);
    c.stop("kube-scheduler").unwrap();
    let ds = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n      labels: {app: agent}\n    spec:\n      nodeSelector: {kubernetes.io/hostname: node01}\n      containers:\n      - name: agent\n        image: nginx:1.27\n";
    apply(&mut c, ds);
    c.advance_ms(5_000);
    let pods = pods_of(&mut c, "default", "agent-");
    assert_eq!(pods.len(), 1, "only node01 matches: {pods:?}");
    assert_eq!(pods[0].1, "<none>", "nobody binds it: {pods:?}");
    c.start("kube-scheduler").unwrap();
    c.advance_ms(25_000);
    assert_eq!(pods_of(&mut c, "default", "agent-")[0].1, "node01");
}

#[test]
fn a_deleted_namespace_terminates_empties_and_disappears_only_with_the_controller_manager() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: shop}\n");
    c.advance_ms(500);
    c.stop("kube-controller-manager").unwrap();
    assert_eq!(kubectl(&mut c, "delete namespace shop").0, "namespace \"shop\" deleted\n");
    c.advance_ms(10_000);
    let (out, _) = kubectl(&mut c, "get ns shop --no-headers");
    assert!(out.starts_with("shop   Terminating"), "stuck without the namespace controller: {out}");
    let (refused, _) = apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b, namespace: shop}\n");
    assert!(
        refused.contains("unable to create new content in namespace shop because it is being terminated"),
        "{refused}"
    );
    c.start("kube-controller-manager").unwrap();
    c.advance_ms(30_000);
    assert_eq!(kubectl(&mut c, "get ns shop").0, "Error from server (NotFound): namespaces \"shop\" not found\n");
    assert_eq!(kubectl(&mut c, "get cm -n shop").0, "No resources found in shop namespace.\n");
}
