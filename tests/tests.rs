//! The one integration test binary: the cluster end to end, kubectl output, determinism.

mod admission;
mod apiserver_path;
mod attach;
mod autoscaling;
mod certificates;
mod check;
mod cloud;
mod cluster_objects;
mod component_status;
mod config_auth;
mod controllers;
mod create_verbs;
mod custom_resources;
mod debug;
mod delete_verbs;
mod determinism;
mod drain;
mod edit_verbs;
mod etcd_unreachable;
mod etcdctl;
mod get_multi;
mod health;
mod jobs;
mod kube_proxy;
mod kubelet;
mod leader_election;
mod logs_exec;
mod node_recovery;
mod node_shell;
mod nodelifecycle;
mod patch_wait;
mod pod_network;
mod pod_processes;
mod probes;
mod quota;
mod replication;
mod reviews;
mod rollout;
mod scenarios;
mod scheduler;
mod serve;
mod statefulset;
mod top;
mod view;
mod volumes;
mod watch;
mod watch_explain;

use kubeglass::cluster::Cluster;

/// Runs one kubectl line in `cluster` and returns (output, exit code).
pub fn kubectl(cluster: &mut Cluster, line: &str) -> (String, Option<i32>) {
    let r = cluster.kubectl(line, None, 120_000);
    (r.output, r.exit)
}

pub fn apply(cluster: &mut Cluster, manifest: &str) -> (String, Option<i32>) {
    let r = cluster.kubectl("apply -f -", Some(manifest.to_string()), 120_000);
    (r.output, r.exit)
}
