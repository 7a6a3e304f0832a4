//! What the UI is given: components with their state, nodes with their pods, messages in flight, etcd
//! members with their revisions.

use kubeglass::cluster::{Cluster, ClusterConfig};

#[test]
fn the_view_shows_nodes_pods_and_stopped_components() {
    let mut c = Cluster::new_default(1);
    let v = c.view();
    let names: Vec<&str> = v.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["controlplane", "node01", "node02"]);
    assert_eq!(v.nodes[0].roles, "control-plane");
    assert_eq!(v.nodes[0].taints, ["node-role.kubernetes.io/control-plane:NoSchedule"]);
    let cp_pods: Vec<&str> = v.nodes[0].pods.iter().map(|p| p.name.as_str()).collect();
    assert!(cp_pods.contains(&"etcd-controlplane") && cp_pods.contains(&"kube-scheduler-controlplane"), "{cp_pods:?}");
    c.stop("kube-scheduler").unwrap();
    let v = c.view();
    let sched = v.components.iter().find(|x| x.name == "kube-scheduler").unwrap();
    assert!(!sched.running);
}

#[test]
fn messages_in_flight_carry_their_send_and_delivery_times() {
    let mut c = Cluster::new_default(1);
    let (_pid, _chain) = c.spawn(None, |api| {
        Box::pin(async move {
            let req = kubeglass::api::ApiRequest::new(
                kubeglass::api::Credentials::Anonymous,
                kubeglass::api::Verb::List,
                kubeglass::api::lookup("pods").unwrap(),
            );
            let _ = api.call(req).await;
            0
        })
    });
    let v = c.view();
    let m =
        v.in_flight.iter().find(|m| m.from == "kubectl" && m.to == "kube-apiserver").expect("the request is in flight");
    assert_eq!(m.label, "list pods");
    assert_eq!(m.class, "request");
    assert!(m.deliver_ms > m.sent_ms && m.deliver_ms - m.sent_ms <= kubeglass::sim::LATENCY_MS_MAX);
}

#[test]
fn a_stopped_etcd_member_lags_behind_and_catches_up_when_started() {
    let mut c = Cluster::new(ClusterConfig { etcd_members: 3, ..ClusterConfig::default() }, 9);
    c.stop("etcd-2").unwrap();
    crate::apply(&mut c, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n");
    c.advance_ms(500);
    let v = c.view();
    assert_eq!(v.etcd.len(), 3);
    assert_eq!(v.etcd[0].role, "leader");
    assert!(!v.etcd[2].running);
    assert!(v.etcd[2].revision < v.etcd[0].revision, "{:?}", v.etcd);
    c.start("etcd-2").unwrap();
    c.advance_ms(2_000);
    let v = c.view();
    assert_eq!(v.etcd[2].revision, v.etcd[0].revision, "{:?}", v.etcd);
}
