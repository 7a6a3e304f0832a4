//! kube-scheduler through the apiserver: binding, every filter plugin's verdict and FitError message
//! (with the preemption part), PodScheduled=False, scores and the decision record ("why is this pod here /
//! why Pending"), percentageOfNodesToScore, priority and preemption end to end, and the cache staying
//! consistent with the apiserver through deletions and failed bindings.

use kubeglass::cluster::Cluster;

use kubeglass::scheduler::decision::Verdict;

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

// ---- the plugins' verdicts and messages ----

const TAINT: &str = "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }";

/// A pod with labels, extra spec lines (indented two spaces) and a cpu request.
fn labelled_pod(name: &str, labels: &str, extra_spec: &str, cpu: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\nspec:\n{extra_spec}  containers:\n  - name: c\n    image: nginx:1.27\n    resources:\n      requests:\n        cpu: \"{cpu}\"\n"
    )
}

fn node_of(c: &mut Cluster, pod: &str) -> String {
    kubectl(c, &format!("get pod {pod} -o jsonpath={{.spec.nodeName}}")).0
}

fn condition_message(c: &mut Cluster, pod: &str) -> String {
    kubectl(c, &format!("get pod {pod} -o 'jsonpath={{.status.conditions[?(@.type==\"PodScheduled\")].message}}'")).0
}

fn pinned(node: &str) -> String {
    format!("  nodeName: {node}\n")
}

#[test]
fn node_ports_keep_a_host_port_to_one_pod_per_node() {
    let mut c = Cluster::new_default(1);
    let ports = "  hostNetwork: false\n";
    for name in ["a", "b", "c"] {
        let spec = format!("{ports}  containers:\n  - name: c\n    image: nginx:1.27\n    ports: [{{containerPort: 80, hostPort: 8080}}]\n");
        apply(&mut c, &format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n{spec}"));
    }
    c.advance_ms(3_000);
    let mut nodes = vec![node_of(&mut c, "a"), node_of(&mut c, "b")];
    nodes.sort();
    assert_eq!(nodes, ["node01", "node02"]);
    assert_eq!(node_of(&mut c, "c"), "");
    assert_eq!(
        condition_message(&mut c, "c"),
        format!("0/3 nodes are available: {TAINT}, 2 node(s) didn't have free ports for the requested pod ports. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.")
    );
}

#[test]
fn hard_topology_spread_keeps_the_skew_and_names_nodes_without_the_key() {
    let mut c = Cluster::new_default(1);
    for name in ["w1", "w2"] {
        apply(&mut c, &labelled_pod(name, "app: web", &pinned("node01"), "100m"));
    }
    let spread = "  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n";
    apply(&mut c, &labelled_pod("s1", "app: web", spread, "100m"));
    c.advance_ms(2_000);
    // node01 has 2 matching pods, node02 none and the control plane none: only node02 keeps the skew at 1.
    assert_eq!(node_of(&mut c, "s1"), "node02");
    kubectl(&mut c, "cordon node02");
    apply(&mut c, &labelled_pod("s2", "app: web", spread, "100m"));
    c.advance_ms(2_000);
    assert_eq!(
        condition_message(&mut c, "s2"),
        format!("0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, {TAINT}, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")
    );
    kubectl(&mut c, "uncordon node02");
    kubectl(&mut c, "label node node01 rack=r1");
    let by_rack = "  nodeSelector: {kubernetes.io/hostname: node02}\n  topologySpreadConstraints:\n  - {maxSkew: 1, topologyKey: rack, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}\n";
    apply(&mut c, &labelled_pod("s3", "app: web", by_rack, "100m"));
    c.advance_ms(2_000);
    assert_eq!(
        condition_message(&mut c, "s3"),
        format!("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod topology spread constraints (missing required label), {TAINT}. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
    );
}

#[test]
fn pod_affinity_and_anti_affinity_both_ways() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &labelled_pod("db", "app: db", &pinned("node01"), "100m"));
    let anti_db = "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}\n";
    let near_db = "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: db}}}\n";
    apply(&mut c, &labelled_pod("away", "app: x", anti_db, "100m"));
    apply(&mut c, &labelled_pod("near", "app: x", near_db, "100m"));
    c.advance_ms(2_000);
    assert_eq!(node_of(&mut c, "away"), "node02");
    assert_eq!(node_of(&mut c, "near"), "node01");

    let to_node01 = "  nodeSelector: {kubernetes.io/hostname: node01}\n";
    apply(&mut c, &labelled_pod("away2", "app: x", &format!("{to_node01}{anti_db}"), "100m"));
    let near_cache = "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: cache}}}\n";
    apply(&mut c, &labelled_pod("lonely", "app: x", near_cache, "100m"));
    // The first pod of a group with affinity to its own kind may go anywhere.
    let own_kind = "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: cache}}}\n";
    apply(&mut c, &labelled_pod("first-cache", "app: cache", own_kind, "100m"));
    c.advance_ms(2_000);
    assert_eq!(
        condition_message(&mut c, "away2"),
        format!("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't match pod anti-affinity rules, {TAINT}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")
    );
    let first = node_of(&mut c, "first-cache");
    assert!(first == "node01" || first == "node02", "{first}");
    // "lonely" was tried before first-cache existed; it waits for an assigned pod to arrive, then follows it.
    c.advance_ms(12_000);
    assert_eq!(node_of(&mut c, "lonely"), first);

    // An existing pod's anti-affinity keeps pods it selects off its node.
    let keep_web_away = "  nodeName: node02\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}\n";
    apply(&mut c, &labelled_pod("guard", "app: guard", keep_web_away, "100m"));
    c.advance_ms(1_000);
    apply(&mut c, &labelled_pod("web", "app: web", "  nodeSelector: {kubernetes.io/hostname: node02}\n", "100m"));
    c.advance_ms(2_000);
    assert_eq!(
        condition_message(&mut c, "web"),
        format!("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) didn't satisfy existing pods anti-affinity rules, {TAINT}. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.")
    );
}

#[test]
fn pod_affinity_to_pods_that_do_not_exist_is_unresolvable() {
    let mut c = Cluster::new_default(1);
    let near_cache = "  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - {topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: cache}}}\n";
    apply(&mut c, &labelled_pod("lonely", "app: x", near_cache, "100m"));
    c.advance_ms(2_000);
    assert_eq!(
        condition_message(&mut c, "lonely"),
        format!("0/3 nodes are available: {TAINT}, 2 node(s) didn't match pod affinity rules. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
    );
}

#[test]
fn claims_must_exist_and_be_bound_and_a_bound_volume_picks_the_node() {
    let mut c = Cluster::new_default(1);
    let mounts =
        |claim: &str| format!("  volumes:\n  - name: data\n    persistentVolumeClaim: {{claimName: {claim}}}\n");
    apply(&mut c, &labelled_pod("no-claim", "app: x", &mounts("missing"), "100m"));
    apply(&mut c, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: pending}\nspec:\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n");
    apply(&mut c, &labelled_pod("unbound", "app: x", &mounts("pending"), "100m"));
    c.advance_ms(2_000);
    let not_helpful = "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.";
    assert_eq!(
        condition_message(&mut c, "no-claim"),
        format!("0/3 nodes are available: persistentvolumeclaim \"missing\" not found. {not_helpful}")
    );
    assert_eq!(
        condition_message(&mut c, "unbound"),
        format!("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. {not_helpful}")
    );

    let pv = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: local-pv}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /data}\n  claimRef: {namespace: default, name: bound}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node02]}]\n";
    let (out, code) = apply(&mut c, pv);
    assert_eq!(code, Some(0), "{out}");
    let pvc = "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: bound\nspec:\n  accessModes: [ReadWriteOnce]\n  volumeName: local-pv\n  resources: {requests: {storage: 1Gi}}\n";
    let (out, code) = apply(&mut c, pvc);
    assert_eq!(code, Some(0), "{out}");
    apply(&mut c, &labelled_pod("on-volume", "app: x", &mounts("bound"), "100m"));
    apply(
        &mut c,
        &labelled_pod(
            "off-volume",
            "app: x",
            &format!("  nodeSelector: {{kubernetes.io/hostname: node01}}\n{}", mounts("bound")),
            "100m",
        ),
    );
    c.advance_ms(2_000);
    assert_eq!(node_of(&mut c, "on-volume"), "node02", "{}", condition_message(&mut c, "on-volume"));
    assert_eq!(
        condition_message(&mut c, "off-volume"),
        format!("0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, {TAINT}, 1 node(s) had volume node affinity conflict. {not_helpful}")
    );
}

#[test]
fn a_claim_waiting_for_its_first_consumer_needs_a_matching_volume() {
    let mut c = Cluster::new_default(1);
    let class = "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n";
    let (out, code) = apply(&mut c, class);
    assert_eq!(code, Some(0), "{out}");
    apply(&mut c, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: later}\nspec:\n  storageClassName: local\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 5Gi}}\n");
    apply(
        &mut c,
        &labelled_pod(
            "waits",
            "app: x",
            "  volumes:\n  - name: data\n    persistentVolumeClaim: {claimName: later}\n",
            "100m",
        ),
    );
    c.advance_ms(2_000);
    assert_eq!(
        condition_message(&mut c, "waits"),
        format!("0/3 nodes are available: {TAINT}, 2 node(s) didn't find available persistent volumes to bind. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
    );
    // A big enough local volume on node01 makes node01 the one place the pod fits.
    let pv = "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: disk}\nspec:\n  storageClassName: local\n  capacity: {storage: 10Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /disk}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node01]}]\n";
    apply(&mut c, pv);
    c.advance_ms(3_000);
    assert_eq!(node_of(&mut c, "waits"), "node01");
}

// ---- scores and the decision record ----

#[test]
fn scores_prefer_the_emptier_node_and_the_record_shows_every_plugin_weighted() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &labelled_pod("heavy", "app: h", &pinned("node01"), "1200m"));
    c.advance_ms(1_000);
    apply(&mut c, &labelled_pod("light", "app: l", "", "200m"));
    c.advance_ms(1_000);
    assert_eq!(node_of(&mut c, "light"), "node02");
    let s = c.scheduler().unwrap();
    let d = s.decision("default/light").unwrap();
    assert_eq!(d.chosen.as_deref(), Some("node02"));
    assert_eq!((d.nodes_total, d.feasible_wanted, d.feasible), (3, 3, 2));
    let best = &d.scored[0];
    assert_eq!(&*best.node, "node02");
    let plugins: Vec<(&str, i64)> = best.scores.iter().map(|p| (p.plugin, p.weight)).collect();
    // Best-effort pods skip BalancedAllocation; this one requests cpu, so every default score runs except
    // NodeAffinity (no preferred terms), PodTopologySpread (no Service or controller) and InterPodAffinity.
    assert_eq!(
        plugins,
        [("TaintToleration", 3), ("NodeResourcesFit", 1), ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1)]
    );
    assert_eq!(d.skipped_scores, ["NodeAffinity", "PodTopologySpread", "InterPodAffinity"]);
    for n in &d.scored {
        assert_eq!(n.total, n.scores.iter().map(|p| p.score * p.weight).sum::<i64>());
    }
    let fit =
        |node: &str| d.score_of(node).unwrap().scores.iter().find(|p| p.plugin == "NodeResourcesFit").unwrap().score;
    assert!(fit("node02") > fit("node01"), "{d:#?}");
    // Every filter passed on the chosen node; the control plane failed on its taint and ran nothing after.
    let verdicts = d.verdicts("node02").unwrap();
    assert!(verdicts.iter().all(|(_, v)| matches!(v, Verdict::Passed | Verdict::Skipped)), "{verdicts:?}");
    let cp = d.verdicts("controlplane").unwrap();
    assert!(matches!(&cp[2], ("TaintToleration", Verdict::Failed(_))));
    assert_eq!(cp[3], ("NodeAffinity", Verdict::NotRun));
}

#[test]
fn prefer_no_schedule_taints_and_preferred_node_affinity_weigh_in() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "taint node node01 noisy=yes:PreferNoSchedule");
    apply(&mut c, &labelled_pod("quiet", "app: q", "", "100m"));
    c.advance_ms(1_000);
    assert_eq!(node_of(&mut c, "quiet"), "node02");
    let d = c.scheduler().unwrap().decision("default/quiet").unwrap().clone();
    let taint =
        |node: &str| d.score_of(node).unwrap().scores.iter().find(|p| p.plugin == "TaintToleration").copied().unwrap();
    assert_eq!((taint("node01").raw, taint("node01").score), (1, 0));
    assert_eq!((taint("node02").raw, taint("node02").score), (0, 100));

    kubectl(&mut c, "label node node01 disk=ssd");
    let prefers_ssd = "  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 80\n        preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}\n";
    apply(&mut c, &labelled_pod("fast", "app: f", prefers_ssd, "100m"));
    c.advance_ms(1_000);
    let d = c.scheduler().unwrap().decision("default/fast").unwrap().clone();
    let affinity =
        |node: &str| d.score_of(node).unwrap().scores.iter().find(|p| p.plugin == "NodeAffinity").copied().unwrap();
    assert_eq!((affinity("node01").raw, affinity("node01").score, affinity("node01").weight), (80, 100, 2));
    assert_eq!(affinity("node02").score, 0);
    // node01 gets 100 × 2 for the preference, node02 100 × 3 for having no PreferNoSchedule taint.
    assert_eq!(node_of(&mut c, "fast"), "node02");
}

#[test]
fn deployment_pods_spread_over_nodes_by_the_system_default_constraints() {
    let mut c = Cluster::new_default(1);
    let (out, code) = kubectl(&mut c, "create deployment web --image=nginx:1.27 --replicas=4");
    assert_eq!(code, Some(0), "{out}");
    c.advance_ms(5_000);
    let (out, _) = kubectl(&mut c, "get pods -l app=web -o wide --no-headers");
    let on = |n: &str| out.lines().filter(|l| l.split_whitespace().nth(6) == Some(n)).count();
    assert_eq!((on("node01"), on("node02")), (2, 2), "{out}");
    let s = c.scheduler().unwrap();
    let key = format!("default/{}", out.lines().last().unwrap().split_whitespace().next().unwrap());
    let d = s.decision(&key).unwrap();
    assert!(!d.skipped_scores.contains(&"PodTopologySpread"), "{d:#?}");
}

// ---- percentageOfNodesToScore ----

#[test]
fn big_clusters_filter_only_until_enough_nodes_fit_and_start_where_the_last_walk_ended() {
    let mut c = Cluster::new(kubeglass::workload::cluster_config(110), 1);
    c.advance_ms(2_000);
    apply(&mut c, &labelled_pod("one", "app: x", "", "100m"));
    c.advance_ms(1_000);
    apply(&mut c, &labelled_pod("two", "app: x", "", "100m"));
    c.advance_ms(1_000);
    let s = c.scheduler().unwrap();
    let one = s.decision("default/one").unwrap();
    let two = s.decision("default/two").unwrap();
    // 111 nodes: 50% (50 − 111/125) is 55 nodes, raised to the minimum of 100.
    assert_eq!((one.nodes_total, one.feasible_wanted, one.feasible), (111, 100, 100));
    let evaluated = one.feasible + one.refused.iter().map(|r| r.nodes.len()).sum::<usize>();
    assert!(evaluated < 111);
    assert_eq!(two.start_index, (one.start_index + evaluated) % 111);
    assert_eq!(one.scored.len(), 100);
}

// ---- priority and preemption ----

const HIGH: &str = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n";
const HIGH_NEVER: &str =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: polite}\nvalue: 1000\npreemptionPolicy: Never\n";

/// Fills node01 and node02 with one 1500m pod each (priority 0).
fn fill_workers(c: &mut Cluster) {
    for (name, node) in [("low1", "node01"), ("low2", "node02")] {
        let spec = format!("  nodeSelector: {{kubernetes.io/hostname: {node}}}\n");
        apply(c, &labelled_pod(name, "app: low", &spec, "1500m"));
    }
    c.advance_ms(20_000);
    assert_eq!(kubectl(c, "get pods -l app=low -o jsonpath={.items[*].status.phase}").0, "Running Running");
}

#[test]
fn a_high_priority_pod_preempts_a_low_priority_one_and_lands_on_its_node() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, HIGH);
    fill_workers(&mut c);
    apply(&mut c, &labelled_pod("vip", "app: vip", "  priorityClassName: high\n", "1500m"));
    // Right after the preempting attempt: the record names the node and the victim.
    let mut record = None;
    for _ in 0..100 {
        c.advance_ms(10);
        record = c.scheduler().unwrap().decision("default/vip").and_then(|d| d.preemption.clone());
        if record.is_some() {
            break;
        }
    }
    let record = record.expect("a preemption");
    let nominated = record.nominated.clone().unwrap_or_default();
    assert!(nominated == "node01" || nominated == "node02", "{record:?}");
    let victim = if nominated == "node01" { "low1" } else { "low2" };
    assert_eq!(record.victims, [format!("default/{victim}")]);
    c.advance_ms(100);
    assert_eq!(kubectl(&mut c, "get pod vip -o jsonpath={.spec.priority}").0, "1000");
    assert_eq!(kubectl(&mut c, "get pod vip -o jsonpath={.status.nominatedNodeName}").0, nominated);
    let (failed, _) = kubectl(
        &mut c,
        "get events --field-selector involvedObject.name=vip,reason=FailedScheduling -o jsonpath={.items[0].message}",
    );
    assert_eq!(failed, format!("0/3 nodes are available: {TAINT}, 2 Insufficient cpu."));
    let uid = kubectl(&mut c, "get pod vip -o jsonpath={.metadata.uid}").0;
    let (events, _) = kubectl(&mut c, &format!("get events --field-selector involvedObject.name={victim},reason=Preempted -o jsonpath={{.items[0].message}}"));
    assert_eq!(events, format!("Preempted by pod {uid} on node {nominated}"));
    c.advance_ms(40_000);
    assert_eq!(node_of(&mut c, "vip"), nominated);
    let (gone, code) = kubectl(&mut c, &format!("get pod {victim}"));
    assert_eq!(
        (gone.as_str(), code),
        (format!("Error from server (NotFound): pods \"{victim}\" not found\n").as_str(), Some(1))
    );
    // The other low-priority pod was left alone.
    let other = if victim == "low1" { "low2" } else { "low1" };
    assert_eq!(kubectl(&mut c, &format!("get pod {other} -o jsonpath={{.status.phase}}")).0, "Running");
}

#[test]
fn preemption_says_why_it_cannot_help() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, HIGH);
    apply(&mut c, HIGH_NEVER);
    fill_workers(&mut c);
    apply(&mut c, &labelled_pod("polite", "app: p", "  priorityClassName: polite\n", "1500m"));
    // Even with every lower-priority pod gone, 3 cpus do not fit on a 2-cpu node.
    apply(&mut c, &labelled_pod("huge", "app: h", "  priorityClassName: high\n", "3"));
    c.advance_ms(1_000);
    assert_eq!(
        condition_message(&mut c, "polite"),
        format!("0/3 nodes are available: {TAINT}, 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.")
    );
    assert_eq!(
        condition_message(&mut c, "huge"),
        format!("0/3 nodes are available: {TAINT}, 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 Insufficient cpu.")
    );
    assert_eq!(kubectl(&mut c, "get pods -l app=low --no-headers -o name").0, "pod/low1\npod/low2\n");
}

// ---- the cache ----

/// Every node's pods in the scheduler's cache are the pods the apiserver has bound there (not finished),
/// and the cache's sums are theirs.
fn assert_cache_matches_the_apiserver(c: &Cluster) {
    let s = c.scheduler().unwrap();
    let api = c.apiserver().unwrap();
    for info in s.cache().nodes() {
        let name = &*info.name;
        let mut stored: Vec<String> = api
            .cache()
            .pods_on(name)
            .iter()
            .filter(|p| !matches!(p.to_json()["status"]["phase"].as_str(), Some("Succeeded" | "Failed")))
            .map(|p| p.ns_name())
            .collect();
        stored.sort();
        let cached: Vec<String> = info.pods.keys().cloned().collect();
        assert_eq!(cached, stored, "node {name}");
        let cpu: i64 = info.pods.values().map(|p| p.requests.milli_cpu).sum();
        assert_eq!(info.requested.milli_cpu, cpu, "node {name}");
    }
    assert_eq!(s.cache().assumed_pods().count(), 0);
}

#[test]
fn the_cache_follows_bindings_and_deletions() {
    let mut c = Cluster::new_default(1);
    for i in 0..6 {
        apply(&mut c, &labelled_pod(&format!("p{i}"), "app: x", "", "300m"));
    }
    c.advance_ms(5_000);
    assert_cache_matches_the_apiserver(&c);
    let before = c.scheduler().unwrap().cache().pod_count();
    kubectl(&mut c, "delete pod p0 p1 p2");
    c.advance_ms(40_000);
    assert_cache_matches_the_apiserver(&c);
    assert_eq!(c.scheduler().unwrap().cache().pod_count(), before - 3);
    // Freed room is used again: two pods of 1300m need both workers' cpu back.
    for name in ["big1", "big2"] {
        apply(&mut c, &labelled_pod(name, "app: y", "", "1300m"));
    }
    c.advance_ms(5_000);
    assert_ne!(node_of(&mut c, "big1"), "");
    assert_ne!(node_of(&mut c, "big2"), "");
    assert_cache_matches_the_apiserver(&c);
}

#[test]
fn a_failed_binding_is_forgotten_and_the_pod_is_scheduled_again() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(2_000);
    let sent = c.scheduler().unwrap().stats().bindings_sent;
    // kubectl is not waited for: the binding may be sent before kubectl has its answer.
    c.start_kubectl("apply -f -", Some(labelled_pod("p", "app: x", "", "500m")));
    // Run until the scheduler has sent its binding, then take the apiserver away before it arrives.
    while c.scheduler().unwrap().stats().bindings_sent == sent {
        assert!(c.step());
    }
    assert!(c.scheduler().unwrap().cache().is_assumed("default/p"));
    // A crash ends the apiserver at once (stopping it through its manifest would let the binding land).
    c.crash("kube-apiserver").unwrap();
    c.advance_ms(100);
    let s = c.scheduler().unwrap();
    assert!(s.cache().pod("default/p").is_none(), "the assumed pod is forgotten");
    // The kubelet restarts the apiserver's container.
    c.advance_ms(15_000);
    let node = node_of(&mut c, "p");
    assert!(node == "node01" || node == "node02", "{node}");
    assert_cache_matches_the_apiserver(&c);
    let stats = c.scheduler().unwrap().stats();
    assert!(stats.bindings_sent > stats.bound, "{stats:?}");
}

#[test]
fn pods_without_a_class_get_the_global_default_and_a_written_priority_must_match_the_class() {
    let mut c = Cluster::new_default(1);
    let everyday = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: everyday}\nvalue: 100\nglobalDefault: true\n";
    assert_eq!(apply(&mut c, everyday).1, Some(0));
    apply(&mut c, HIGH);
    apply(&mut c, &labelled_pod("plain", "app: x", "", "100m"));
    assert_eq!(
        kubectl(
            &mut c,
            "get pod plain -o jsonpath={.spec.priorityClassName}/{.spec.priority}/{.spec.preemptionPolicy}"
        )
        .0,
        "everyday/100/PreemptLowerPriority"
    );
    let (out, code) =
        apply(&mut c, &labelled_pod("bad", "app: x", "  priorityClassName: high\n  priority: 5\n", "100m"));
    assert_eq!(code, Some(1));
    assert!(
        out.contains("pods \"bad\" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name"),
        "{out}"
    );
}

/// The ImageLocality score for one image of `size` bytes held by `holders` of `total` nodes, by the
/// plugin's formula (spread-scaled size, clamped to 23–1000 MiB per container, scaled to 0–100).
fn image_locality(size: i64, holders: i64, total: i64) -> i64 {
    const MB: i64 = 1024 * 1024;
    let sum = ((size as f64) * (holders as f64 / total as f64)) as i64;
    let sum = sum.clamp(23 * MB, 1000 * MB);
    100 * (sum - 23 * MB) / (1000 * MB - 23 * MB)
}

#[test]
fn a_pod_prefers_the_node_that_already_has_its_image() {
    use kubeglass::node::runtime::image_info;
    let mut c = Cluster::new_default(1);
    // ImageLocality matches names exactly as nodes report them: containerd reports
    // `docker.io/library/redis:7.4`, so the pod names the image that way (a bare `redis:7.4` would not match,
    // as in a real cluster). The largest of a few images, so that a third of it is above the 23 MiB floor.
    let image = ["docker.io/library/redis:7.4", "docker.io/library/postgres:17", "docker.io/library/mysql:8.4"]
        .into_iter()
        .max_by_key(|i| image_info(i).size)
        .unwrap_or_default();
    let size = image_info(image).size as i64;
    assert!(image_locality(size, 1, 3) > 0, "{image} is {size} bytes");
    let pod = |name: &str, spec: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{spec}  containers:\n  - name: c\n    image: {image}\n")
    };
    apply(&mut c, &pod("puller", &pinned("node02")));
    c.advance_ms(5_000);
    kubectl(&mut c, "delete pod puller --grace-period=0 --force");
    // The kubelet's image cache refreshes every 30 s; the next node status carries it.
    c.advance_ms(45_000);
    let names = |c: &mut Cluster, node: &str| {
        kubectl(c, &format!("get node {node} -o jsonpath='{{.status.images[*].names}}'")).0
    };
    let on_two = names(&mut c, "node02");
    assert!(on_two.contains(&format!("\"{image}\"")), "{on_two}");
    assert!(on_two.contains(&format!("\"{}@sha256:", image.split(':').next().unwrap_or(""))), "{on_two}");
    assert!(!names(&mut c, "node01").contains(image));

    apply(&mut c, &pod("again", ""));
    c.advance_ms(2_000);
    assert_eq!(node_of(&mut c, "again"), "node02");
    let d = c.scheduler().unwrap().decision("default/again").unwrap().clone();
    let locality =
        |node: &str| d.score_of(node).unwrap().scores.iter().find(|p| p.plugin == "ImageLocality").unwrap().score;
    assert_eq!((locality("node01"), locality("node02")), (0, image_locality(size, 1, 3)), "{d:#?}");
    for n in &d.scored {
        let others: i64 = n.scores.iter().filter(|p| p.plugin != "ImageLocality").map(|p| p.score * p.weight).sum();
        assert_eq!(others, d.scored[0].total - locality(&d.scored[0].node), "everything else is equal: {d:#?}");
    }
}

fn jsonpath(c: &mut Cluster, what: &str, path: &str) -> String {
    kubectl(c, &format!("get {what} -o 'jsonpath={path}'")).0
}

#[test]
fn prebind_names_the_claim_in_the_chosen_volume_and_binds_the_pod_only_once_the_claim_is_bound() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n");
    for (name, size) in [("small", "2Gi"), ("large", "8Gi")] {
        apply(&mut c, &format!("apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}}}\nspec:\n  storageClassName: local\n  capacity: {{storage: {size}}}\n  accessModes: [ReadWriteOnce]\n  hostPath: {{path: /{name}}}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{{key: kubernetes.io/hostname, operator: In, values: [node02]}}]\n"));
    }
    apply(&mut c, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  storageClassName: local\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n");
    c.advance_ms(20_000);
    // Waiting for its first consumer, the PV controller leaves the claim alone.
    assert_eq!(jsonpath(&mut c, "pvc data", "{.status.phase}"), "Pending");
    assert!(kubectl(&mut c, "describe pvc data").0.contains("waiting for first consumer to be created before binding"));

    // Without the PV controller, PreBind's write lands but the claim is not bound: the pod waits unbound.
    c.stop("kube-controller-manager").unwrap();
    let mounts = "  volumes:\n  - name: data\n    persistentVolumeClaim: {claimName: data}\n";
    apply(&mut c, &labelled_pod("db", "app: db", mounts, "100m"));
    c.advance_ms(5_000);
    assert_eq!(jsonpath(&mut c, "pv small", "{.spec.claimRef.name}"), "data", "the smallest volume that fits");
    assert_eq!(jsonpath(&mut c, "pv small", "{.metadata.annotations.pv\\.kubernetes\\.io/bound-by-controller}"), "yes");
    assert_eq!(jsonpath(&mut c, "pv large", "{.spec.claimRef.name}"), "");
    assert_eq!(node_of(&mut c, "db"), "", "not bound before its claim is");
    let d = c.scheduler().unwrap().decision("default/db").unwrap().clone();
    assert_eq!((d.chosen.as_deref(), d.prebind.clone()), (Some("node02"), vec!["default/data → small".to_string()]));

    c.start("kube-controller-manager").unwrap();
    c.advance_ms(25_000);
    assert_eq!(jsonpath(&mut c, "pvc data", "{.status.phase} {.spec.volumeName}"), "Bound small");
    assert_eq!(node_of(&mut c, "db"), "node02");
    let events = kubectl(&mut c, "get events --field-selector involvedObject.name=db").0;
    assert!(events.contains("Successfully assigned default/db to node02"), "{events}");
}

#[test]
fn prebind_selects_the_node_for_a_provisioned_claim_and_the_volume_follows_the_pod() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local-path}\nprovisioner: rancher.io/local-path\nvolumeBindingMode: WaitForFirstConsumer\n");
    apply(&mut c, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: cache}\nspec:\n  storageClassName: local-path\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n");
    c.advance_ms(3_000);
    assert_eq!(jsonpath(&mut c, "pvc cache", "{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}"), "");
    let spec = "  nodeSelector: {kubernetes.io/hostname: node01}\n  volumes:\n  - name: data\n    persistentVolumeClaim: {claimName: cache}\n";
    apply(&mut c, &labelled_pod("app", "app: a", spec, "100m"));
    c.advance_ms(10_000);
    assert_eq!(
        jsonpath(&mut c, "pvc cache", "{.metadata.annotations.volume\\.kubernetes\\.io/selected-node}"),
        "node01"
    );
    let volume = jsonpath(&mut c, "pvc cache", "{.spec.volumeName}");
    assert!(volume.starts_with("pvc-"), "{volume}");
    let affinity = jsonpath(
        &mut c,
        &format!("pv {volume}"),
        "{.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]}",
    );
    assert_eq!(affinity, "node01");
    assert_eq!(node_of(&mut c, "app"), "node01");
    let d = c.scheduler().unwrap().decision("default/app").unwrap().clone();
    assert_eq!(d.prebind, ["default/cache: provisioned on node01"]);
}

#[test]
fn a_prebind_whose_claim_is_not_bound_within_the_bind_timeout_fails_and_the_pod_is_tried_again() {
    let mut c = Cluster::new_default(2);
    apply(&mut c, "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n");
    apply(&mut c, "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: disk}\nspec:\n  storageClassName: local\n  capacity: {storage: 2Gi}\n  accessModes: [ReadWriteOnce]\n  hostPath: {path: /disk}\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions: [{key: kubernetes.io/hostname, operator: In, values: [node01]}]\n");
    apply(&mut c, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  storageClassName: local\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n");
    c.advance_ms(5_000);
    // Nothing binds the claim while the PV controller is down: PreBind waits bindTimeoutSeconds (600 s).
    c.stop("kube-controller-manager").unwrap();
    let mounts = "  volumes:\n  - name: data\n    persistentVolumeClaim: {claimName: data}\n";
    apply(&mut c, &labelled_pod("db", "app: db", mounts, "100m"));
    c.advance_ms(590_000);
    let events = || "get events --field-selector involvedObject.name=db,reason=FailedScheduling";
    assert_eq!(kubectl(&mut c, events()).0, "No resources found in default namespace.\n");
    c.advance_ms(15_000);
    let failed = kubectl(&mut c, events()).0;
    assert!(
        failed.contains("running PreBind plugin \"VolumeBinding\": binding volumes: context deadline exceeded"),
        "{failed}"
    );
    assert_eq!(node_of(&mut c, "db"), "");
    // Tried again after its backoff, it finds the volume it had named and binds once the controller is back.
    c.start("kube-controller-manager").unwrap();
    c.advance_ms(20_000);
    assert_eq!(jsonpath(&mut c, "pvc data", "{.status.phase} {.spec.volumeName}"), "Bound disk");
    assert_eq!(node_of(&mut c, "db"), "node01");
}
