//! The kubelet and containerd: pods run, complete, crash-loop, fail to pull and terminate; the node's
//! Lease and status; static pods and their mirror pods; a stopped kubelet leaves containers running.

use kubeglass::cluster::Cluster;

use crate::{apply, kubectl};

fn pod(name: &str, image: &str, extra_spec: &str, extra_container: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{extra_spec}  containers:\n  - name: {name}\n    image: {image}\n{extra_container}"
    )
}

fn get(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

#[test]
fn debug_dump() {
    let mut c = Cluster::new_default(1);
    println!("t={}", c.now());
    println!("{}", get(&mut c, "get nodes"));
    println!("{}", get(&mut c, "get pods -A -o wide"));
    apply(&mut c, &pod("web", "nginx:1.27", "", ""));
    for _ in 0..8 {
        c.advance_ms(500);
        println!("{} {}", c.now(), get(&mut c, "get pod web -o wide"));
    }
    println!("{}", get(&mut c, "describe pod web"));
    println!("{}", get(&mut c, "get lease -n kube-node-lease node01 -o yaml"));
    println!("{}", get(&mut c, "describe node node01"));
    panic!("dump");
}
