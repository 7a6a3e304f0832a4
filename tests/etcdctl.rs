//! etcdctl and etcdutl on the control-plane node: straight to the etcd members, real output formats, and a
//! backup restored over a changed cluster.

use kubeglass::cluster::{Cluster, ClusterConfig};
use kubeglass::etcd::member::member_id;
use kubeglass::scenario;

use crate::{apply, kubectl};

const CONFIGMAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: added-later}\ndata: {k: v}\n";

fn sh(c: &mut Cluster, line: &str) -> (String, Option<i32>) {
    let r = c.shell("controlplane", line, 120_000);
    (r.output, r.exit)
}

fn etcd_cluster(members: u8) -> Cluster {
    Cluster::new(ClusterConfig { etcd_members: members, ..ClusterConfig::default() }, 3)
}

#[test]
fn member_list_prints_one_line_per_member_in_etcdctls_simple_format() {
    let mut c = Cluster::new_default(1);
    let line = "ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt \
                --cert=/etc/kubernetes/pki/etcd/server.crt --key=/etc/kubernetes/pki/etcd/server.key member list";
    let (out, code) = sh(&mut c, line);
    assert_eq!(code, Some(0), "{out}");
    let id = format!("{:x}", member_id(0));
    assert_eq!(
        out,
        format!("{id}, started, controlplane, https://192.168.56.10:2380, https://192.168.56.10:2379, false\n")
    );
}

#[test]
fn member_list_as_a_table_has_tablewriters_borders_and_upper_case_headers() {
    let mut c = etcd_cluster(3);
    let (out, code) = sh(&mut c, "etcdctl member list -w table");
    assert_eq!(code, Some(0), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    assert!(lines[1].contains("|        ID        | STATUS  |"), "{out}");
    assert!(lines[1].ends_with("| IS LEARNER |"), "{out}");
    assert!(
        out.contains("| controlplane-2 | https://192.168.56.10:2400 | https://192.168.56.10:2399 |      false |"),
        "{out}"
    );
}

#[test]
fn get_with_prefix_and_keys_only_lists_the_registry_keys() {
    let mut c = Cluster::new_default(1);
    let (out, code) = sh(&mut c, "etcdctl get /registry/namespaces --prefix --keys-only");
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(
        out,
        "/registry/namespaces/default\n\n/registry/namespaces/kube-node-lease\n\n/registry/namespaces/kube-public\n\n\
         /registry/namespaces/kube-system\n\n"
    );
}

#[test]
fn get_of_one_key_prints_the_key_then_the_stored_object_as_json_without_a_resource_version() {
    let mut c = Cluster::new_default(1);
    let (out, code) = sh(&mut c, "etcdctl get /registry/namespaces/default");
    assert_eq!(code, Some(0), "{out}");
    let (key, value) = out.split_once('\n').expect("two lines");
    assert_eq!(key, "/registry/namespaces/default");
    let json: serde_json::Value = serde_json::from_str(value.trim_end()).expect("JSON");
    assert_eq!(json["metadata"]["name"], "default");
    assert_eq!(json["kind"], "Namespace");
    assert!(json["metadata"].get("resourceVersion").is_none(), "{value}");
    assert_eq!(sh(&mut c, "etcdctl get /registry/namespaces/nothing"), (String::new(), Some(0)));
}

#[test]
fn get_at_an_older_revision_shows_the_object_before_it_changed_and_compacted_revisions_fail() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, CONFIGMAP);
    let key = "/registry/configmaps/default/added-later";
    let (out, _) = sh(&mut c, &format!("etcdctl get {key}"));
    let before: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    let rev = c.etcd_member(0).unwrap().store().revision();
    apply(&mut c, &CONFIGMAP.replace("k: v", "k: changed"));
    let (out, code) = sh(&mut c, &format!("etcdctl get {key} --rev={rev}"));
    assert_eq!(code, Some(0), "{out}");
    let then: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    assert_eq!(then["data"]["k"], "v");
    assert_eq!(then, before);
    let (out, code) = sh(&mut c, &format!("etcdctl get {key} --rev=999999"));
    assert_eq!((out.as_str(), code), ("Error: etcdserver: mvcc: required revision is a future revision\n", Some(1)));
}

#[test]
fn endpoint_status_reports_version_leader_and_raft_figures() {
    let mut c = Cluster::new_default(1);
    let (out, code) = sh(&mut c, "etcdctl endpoint status");
    assert_eq!(code, Some(0), "{out}");
    let fields: Vec<&str> = out.trim_end().split(", ").collect();
    assert_eq!(fields.len(), 16, "{out}");
    assert_eq!(fields[0], "127.0.0.1:2379");
    assert_eq!(fields[1], format!("{:x}", member_id(0)));
    assert_eq!(&fields[2..4], ["3.6.4", "3.6.0"]);
    assert_eq!(&fields[6..10], ["0%", "2.1 GB", "true", "false"]);
    assert_eq!(&fields[13..], ["", "", "false"]);
    let (table, _) = sh(&mut c, "etcdctl endpoint status -w table");
    assert!(table.contains("|    ENDPOINT    |        ID        | VERSION | STORAGE VERSION | DB SIZE |"), "{table}");
    assert!(table.contains("| 127.0.0.1:2379 | "), "{table}");
}

#[test]
fn endpoint_status_with_cluster_asks_every_member_and_one_leads() {
    let mut c = etcd_cluster(3);
    let (out, code) = sh(&mut c, "etcdctl endpoint status --cluster");
    assert_eq!(code, Some(0), "{out}");
    let rows: Vec<&str> = out.lines().collect();
    assert_eq!(rows.len(), 3, "{out}");
    assert_eq!(rows.iter().filter(|r| r.split(", ").nth(8) == Some("true")).count(), 1, "{out}");
    assert!(rows[1].starts_with("https://192.168.56.10:2389, "), "{out}");
}

#[test]
fn endpoint_health_commits_a_proposal_and_fails_once_etcd_is_stopped() {
    let mut c = Cluster::new_default(1);
    let (out, code) = sh(&mut c, "etcdctl endpoint health");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("127.0.0.1:2379 is healthy: successfully committed proposal: took = "), "{out}");
    c.stop("etcd").unwrap();
    let (out, code) = sh(&mut c, "etcdctl endpoint health");
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(
        out,
        "127.0.0.1:2379 is unhealthy: failed to commit proposal: context deadline exceeded\nError: unhealthy cluster\n"
    );
}

#[test]
fn del_removes_an_object_behind_the_apiservers_back_and_its_watch_cache_follows() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, CONFIGMAP);
    let (out, code) = sh(&mut c, "etcdctl del /registry/configmaps/default/added-later");
    assert_eq!((out.as_str(), code), ("1\n", Some(0)));
    let (out, code) = kubectl(&mut c, "get configmap added-later");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("NotFound"), "{out}");
}

#[test]
fn restoring_a_snapshot_while_etcd_runs_is_refused_because_the_data_dir_is_in_use() {
    let mut c = Cluster::new_default(1);
    assert_eq!(sh(&mut c, "etcdctl snapshot save /opt/snap.db").1, Some(0));
    let (out, code) = sh(&mut c, "etcdutl snapshot restore /opt/snap.db --data-dir /var/lib/etcd");
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(out, "Error: data-dir \"/var/lib/etcd\" not empty or could not be read\n");
    let (out, code) = sh(&mut c, "etcdutl snapshot restore /opt/missing.db --data-dir /var/lib/etcd-backup");
    assert_eq!((out.as_str(), code), ("Error: stat /opt/missing.db: no such file or directory\n", Some(1)));
}

/// Saves a snapshot, adds a ConfigMap, then restores the snapshot into etcd's data directory with etcd stopped.
fn restore_over_a_change(c: &mut Cluster, restore_flags: &str) {
    let (out, code) = sh(c, "ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379 snapshot save /opt/snap.db");
    assert_eq!((out.as_str(), code), ("Snapshot saved at /opt/snap.db\nServer version 3.6.4\n", Some(0)));
    assert_eq!(apply(c, CONFIGMAP).1, Some(0));
    assert_eq!(kubectl(c, "get configmap added-later").1, Some(0));
    c.stop("etcd").unwrap();
    let (out, code) = sh(c, &format!("etcdutl snapshot restore /opt/snap.db --data-dir /var/lib/etcd {restore_flags}"));
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("\trestored snapshot\t{\"path\": \"/opt/snap.db\""), "{out}");
    c.start("etcd").unwrap();
    c.advance_ms(2_000);
}

#[test]
fn a_restored_snapshot_rolls_etcd_back_and_a_restarted_apiserver_shows_the_old_state() {
    let mut c = Cluster::new_default(1);
    restore_over_a_change(&mut c, "");
    let (out, _) = sh(&mut c, "etcdctl get /registry/configmaps/default/added-later");
    assert_eq!(out, "", "etcd itself is rolled back");
    // Revisions went backwards: the apiserver's watch waits for revisions it has already seen, so lists,
    // served from its watch cache, still show the newer state — which is why a restore needs the apiserver
    // restarted. A get reads etcd and sees the rollback.
    let (out, code) = kubectl(&mut c, "get configmaps");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("added-later"), "a running apiserver still lists from its cache: {out}");
    let (out, code) = kubectl(&mut c, "get configmap added-later");
    assert_eq!(code, Some(1), "{out}");
    c.stop("kube-apiserver").unwrap();
    c.start("kube-apiserver").unwrap();
    let (out, code) = kubectl(&mut c, "get configmaps");
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("added-later"), "{out}");
    let (out, code) = kubectl(&mut c, "get namespaces");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("kube-system"), "{out}");
    assert_eq!(apply(&mut c, CONFIGMAP), ("configmap/added-later created\n".to_string(), Some(0)));
}

#[test]
fn a_restore_with_a_revision_bump_and_mark_compacted_makes_the_running_apiserver_relist_by_itself() {
    let mut c = Cluster::new_default(1);
    restore_over_a_change(&mut c, "--bump-revision 1000000000 --mark-compacted");
    let (out, code) = kubectl(&mut c, "get configmaps");
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("added-later"), "the relisted cache no longer has it: {out}");
    assert_eq!(apply(&mut c, CONFIGMAP), ("configmap/added-later created\n".to_string(), Some(0)));
    let (out, _) = kubectl(&mut c, "get configmap added-later -o yaml");
    let rv: u64 = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("resourceVersion: "))
        .and_then(|v| v.trim_matches('"').parse().ok())
        .unwrap_or(0);
    assert!(rv > 1_000_000_000, "revisions continue after the bump: {out}");
}

#[test]
fn a_revision_bump_without_mark_compacted_is_refused_as_etcdutl_does() {
    let mut c = Cluster::new_default(1);
    sh(&mut c, "etcdctl snapshot save snap.db");
    let (out, code) = sh(&mut c, "etcdutl snapshot restore snap.db --bump-revision 10 --data-dir /tmp/x");
    assert_eq!((out.as_str(), code), ("Error: --mark-compacted required if --revision-bump > 0\n", Some(128)));
}

#[test]
fn etcdctl_is_installed_on_the_control_plane_only() {
    let mut c = Cluster::new_default(1);
    let r = c.shell("node01", "etcdctl member list", 1_000);
    assert_eq!((r.output.as_str(), r.exit), ("bash: etcdctl: command not found\n", Some(127)));
    assert_eq!(c.shell("controlplane", "etcdctl member list", 1_000).exit, Some(0));
}

#[test]
fn a_scenario_runs_etcdctl_on_the_control_plane_with_on_and_run_steps() {
    let text =
        "apiVersion: kubeglass.dev/v1alpha1\nkind: Scenario\nmetadata: {name: backup}\nspec:\n  seed: 1\n  steps:\n  \
                - on: controlplane\n    run: ETCDCTL_API=3 etcdctl snapshot save /opt/backup.db\n    expect:\n      \
                contains: [Snapshot saved at /opt/backup.db]\n";
    let s = scenario::parse(text, "backup.yaml").expect("a valid scenario");
    let report = scenario::runner::run(&s);
    assert!(report.passed(), "{}", report.transcript(true));
    assert!(report.transcript(true).contains("controlplane$ ETCDCTL_API=3 etcdctl snapshot save /opt/backup.db"));
}

/// The revision a fresh ConfigMap write lands at, then a change after it: returns (key, first revision).
fn two_revisions(c: &mut Cluster) -> (String, u64) {
    apply(c, CONFIGMAP);
    let key = "/registry/configmaps/default/added-later".to_string();
    let rev = c.etcd_member(0).unwrap().store().get(&key).unwrap().mod_revision;
    apply(c, &CONFIGMAP.replace("k: v", "k: changed"));
    (key, rev)
}

#[test]
fn compact_drops_the_history_before_a_revision_and_later_reads_of_it_fail() {
    let mut c = Cluster::new_default(1);
    let (key, rev) = two_revisions(&mut c);
    let (out, code) = sh(&mut c, &format!("etcdctl get {key} --rev={rev}"));
    assert_eq!(code, Some(0), "{out}");
    // cobra's prefix matching, which etcdctl turns on, makes `compact` the `compaction` command.
    let (out, code) = sh(&mut c, &format!("ETCDCTL_API=3 etcdctl compact {}", rev + 1));
    assert_eq!((out.as_str(), code), (format!("compacted revision {}\n", rev + 1).as_str(), Some(0)));
    let (out, code) = sh(&mut c, &format!("etcdctl get {key} --rev={rev}"));
    assert_eq!((out.as_str(), code), ("Error: etcdserver: mvcc: required revision has been compacted\n", Some(1)));
    let (out, code) = sh(&mut c, &format!("etcdctl compaction {rev}"));
    assert_eq!((out.as_str(), code), ("Error: etcdserver: mvcc: required revision has been compacted\n", Some(1)));
    let (out, code) = sh(&mut c, "etcdctl compaction 99999999");
    assert_eq!((out.as_str(), code), ("Error: etcdserver: mvcc: required revision is a future revision\n", Some(1)));
    let (out, code) = sh(&mut c, &format!("etcdctl watch {key} --rev={rev}"));
    assert_eq!(code, Some(5), "{out}");
    assert_eq!(
        out,
        "watch was canceled (etcdserver: mvcc: required revision has been compacted)\nError: watch is canceled by the server\n"
    );
}

#[test]
fn watch_streams_puts_and_deletes_as_etcdctl_prints_them_until_interrupted() {
    let mut c = Cluster::new_default(1);
    let (key, rev) = two_revisions(&mut c);
    let (out, code) = sh(&mut c, &format!("etcdctl watch {key} --rev={rev}"));
    assert_eq!(code, Some(130), "runs until interrupted: {out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 6, "{out}");
    assert_eq!((lines[0], lines[1], lines[3], lines[4]), ("PUT", key.as_str(), "PUT", key.as_str()));
    let first: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    let second: serde_json::Value = serde_json::from_str(lines[5]).unwrap();
    assert_eq!((first["data"]["k"].as_str(), second["data"]["k"].as_str()), (Some("v"), Some("changed")));
    // Other writes (the leaders' Lease renewals) take revisions in between: read the key's own.
    let changed = c.etcd_member(0).unwrap().store().get(&key).unwrap().mod_revision;
    let (out, code) = sh(&mut c, &format!("etcdctl watch /registry/configmaps/ --prefix --rev={changed}"));
    assert_eq!(code, Some(130), "{out}");
    assert!(out.starts_with(&format!("PUT\n{key}\n")), "{out}");
    sh(&mut c, &format!("etcdctl del {key}"));
    let (out, _) = sh(&mut c, &format!("etcdctl watch {key} --prev-kv --rev={}", changed + 1));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.first(), Some(&"DELETE"), "{out}");
    assert_eq!((lines[1], lines.get(3), lines.get(4)), (key.as_str(), Some(&key.as_str()), Some(&"")), "{out}");
}

/// DB SIZE, IN USE and the raft index from `endpoint status` as numbers: (db size, in use, raft index).
fn status_figures(c: &mut Cluster) -> (String, String, u64) {
    let (out, code) = sh(c, "etcdctl endpoint status");
    assert_eq!(code, Some(0), "{out}");
    let f: Vec<&str> = out.trim_end().split(", ").collect();
    (f[4].to_string(), f[5].to_string(), f[11].parse().unwrap())
}

#[test]
fn endpoint_status_shows_the_db_size_and_raft_index_grow_and_defrag_give_back_compacted_space() {
    let mut c = Cluster::new_default(1);
    let (_, _, index_before) = status_figures(&mut c);
    for i in 0..40 {
        apply(&mut c, &CONFIGMAP.replace("added-later", &format!("cm-{i}")));
    }
    let (size, in_use, index) = status_figures(&mut c);
    assert!(index > index_before + 40, "{index_before} -> {index}");
    assert_eq!(size, in_use, "nothing freed yet");
    let rev = c.etcd_member(0).unwrap().store().revision();
    assert_eq!(sh(&mut c, &format!("etcdctl compact {rev}")).1, Some(0));
    let (size_after, in_use_after, _) = status_figures(&mut c);
    assert_eq!(size_after, size, "compaction frees pages but the file keeps its size");
    assert_ne!(in_use_after, in_use);
    let (out, code) = sh(&mut c, "etcdctl defrag");
    assert_eq!(code, Some(0), "{out}");
    assert!(out.starts_with("Finished defragmenting etcd member[127.0.0.1:2379]. took "), "{out}");
    let (size_defrag, in_use_defrag, _) = status_figures(&mut c);
    assert_eq!(size_defrag, in_use_defrag, "{out}");
    let (out, code) = sh(&mut c, "etcdctl defrag --endpoints=127.0.0.1:2389");
    assert_eq!(code, Some(1), "{out}");
    assert!(out.starts_with("Failed to defragment etcd member[127.0.0.1:2389]. took "), "{out}");
    assert!(out.ends_with(". (context deadline exceeded)\n"), "{out}");
}

/// kube-apiserver compacts etcd every 5 minutes to the revision it saw at the previous round: once two rounds
/// have passed, a revision from before the first one can no longer be read.
#[test]
fn the_apiservers_compaction_every_five_minutes_makes_old_revisions_unreadable() {
    let mut c = Cluster::new_default(1);
    let (key, rev) = two_revisions(&mut c);
    c.advance_ms(300_000);
    let (out, code) = sh(&mut c, &format!("etcdctl get {key} --rev={rev}"));
    assert_eq!(code, Some(0), "the first round only notes the revision: {out}");
    c.advance_ms(300_000);
    let (out, code) = sh(&mut c, &format!("etcdctl get {key} --rev={rev}"));
    assert_eq!((out.as_str(), code), ("Error: etcdserver: mvcc: required revision has been compacted\n", Some(1)));
}
