//! The kubelet and containerd: pods run, complete, crash-loop, fail to pull and terminate; the node's
//! Lease; static pods and their mirror pods; a stopped kubelet leaves its containers running.

use kubeglass::cluster::Cluster;
use kubeglass::node::runtime::ContainerState;

use crate::{apply, kubectl};

fn pod(name: &str, image: &str, extra_spec: &str, extra_container: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n{extra_spec}  containers:\n  - name: {name}\n    image: {image}\n{extra_container}"
    )
}

fn get(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

/// The `get pods` row of one pod, without the header.
fn row(c: &mut Cluster, name: &str) -> String {
    get(c, &format!("get pod {name}")).lines().nth(1).unwrap_or_default().to_string()
}

fn lease_renew_time(c: &mut Cluster, node: &str) -> String {
    get(c, &format!("get lease -n kube-node-lease {node} -o jsonpath={{.spec.renewTime}}"))
}

#[test]
fn the_install_is_usable_within_seconds_with_every_node_registered_by_its_own_kubelet() {
    let mut c = Cluster::new_default(1);
    assert!(c.now().ms() < 5_000, "install took {}", c.now());
    let nodes = get(&mut c, "get nodes");
    for n in
        ["controlplane   Ready    control-plane", "node01         Ready    <none>", "node02         Ready    <none>"]
    {
        assert!(nodes.contains(n), "{nodes}");
    }
    let cidr = get(&mut c, "get node node02 -o jsonpath={.spec.podCIDR}");
    assert_eq!(cidr, "10.244.2.0/24");
}

#[test]
fn a_pod_goes_from_pending_through_container_creating_to_running_with_an_ip_in_its_nodes_cidr() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("web", "nginx:1.27", "", ""));
    let mut seen = Vec::new();
    for _ in 0..40 {
        let r = row(&mut c, "web");
        let status = r.split_whitespace().nth(2).unwrap_or("").to_string();
        if seen.last() != Some(&status) {
            seen.push(status);
        }
        c.advance_ms(100);
    }
    assert!(seen.contains(&"ContainerCreating".to_string()), "{seen:?}");
    assert_eq!(seen.last().map(String::as_str), Some("Running"), "{seen:?}");
    assert!(row(&mut c, "web").contains("1/1"));
    let node = get(&mut c, "get pod web -o jsonpath={.spec.nodeName}");
    let index = if node == "node01" { 1 } else { 2 };
    let ip = get(&mut c, "get pod web -o jsonpath={.status.podIP}");
    assert!(ip.starts_with(&format!("10.244.{index}.")), "{ip} on {node}");
    let id = get(&mut c, "get pod web -o jsonpath={.status.containerStatuses[0].containerID}");
    assert_eq!(id.len(), "containerd://".len() + 64, "{id}");
    let describe = get(&mut c, "describe pod web");
    for text in [
        "Pulling image \"nginx:1.27\"",
        "Successfully pulled image \"nginx:1.27\" in ",
        "including waiting). Image size: ",
        "Created container: web",
        "Started container web",
        "kubelet",
    ] {
        assert!(describe.contains(text), "missing {text:?} in\n{describe}");
    }
}

#[test]
fn a_second_pod_with_the_same_image_on_the_same_node_finds_it_already_present() {
    let mut c = Cluster::new_default(1);
    let pinned = "  nodeName: node01\n";
    apply(&mut c, &pod("one", "nginx:1.27", pinned, ""));
    c.advance_ms(5_000);
    apply(&mut c, &pod("two", "nginx:1.27", pinned, ""));
    c.advance_ms(2_000);
    let describe = get(&mut c, "describe pod two");
    assert!(describe.contains("Container image \"nginx:1.27\" already present on machine"), "{describe}");
}

#[test]
fn pulling_again_an_image_the_node_has_only_fetches_its_manifest() {
    let mut c = Cluster::new_default(1);
    let pinned = "  nodeName: node01\n";
    let always = "    imagePullPolicy: Always\n";
    apply(&mut c, &pod("one", "nginx:1.27", pinned, always));
    c.advance_ms(5_000);
    apply(&mut c, &pod("two", "nginx:1.27", pinned, always));
    c.advance_ms(2_000);
    let pulled = |c: &mut Cluster, pod: &str| {
        let events = get(
            c,
            &format!(
                "get events --field-selector involvedObject.name={pod},reason=Pulled -o jsonpath={{.items[0].message}}"
            ),
        );
        let ms = events.split(" in ").nth(1).and_then(|t| t.split(' ').next()).unwrap_or_default().to_string();
        (events, ms)
    };
    // The first pull downloads the layers (1–3 s); the second finds them and takes a registry round trip.
    let (first, first_ms) = pulled(&mut c, "one");
    assert!(first_ms.ends_with('s') && !first_ms.ends_with("ms"), "{first}");
    let (second, second_ms) = pulled(&mut c, "two");
    let ms: u64 = second_ms.trim_end_matches("ms").parse().unwrap_or(0);
    assert!(second_ms.ends_with("ms") && (200..=600).contains(&ms), "{second}");
    assert!(row(&mut c, "two").contains("Running"), "{}", row(&mut c, "two"));
}

#[test]
fn a_sleep_that_ends_with_restart_policy_never_completes_and_succeeds() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("nap", "busybox:1.36", "  restartPolicy: Never\n", "    command: [sleep, \"5\"]\n"));
    c.advance_ms(5_000);
    assert!(row(&mut c, "nap").contains("Running"), "{}", row(&mut c, "nap"));
    c.advance_ms(5_000);
    assert!(row(&mut c, "nap").contains("0/1     Completed"), "{}", row(&mut c, "nap"));
    assert_eq!(get(&mut c, "get pod nap -o jsonpath={.status.phase}"), "Succeeded");
    let reason = get(&mut c, "get pod nap -o jsonpath={.status.containerStatuses[0].state.terminated.reason}");
    assert_eq!(reason, "Completed");
}

#[test]
fn a_container_that_exits_with_restart_policy_never_fails_with_its_exit_code() {
    let mut c = Cluster::new_default(1);
    let cmd = "    command: [sh, -c, \"echo boom; exit 3\"]\n";
    apply(&mut c, &pod("boom", "busybox:1.36", "  restartPolicy: Never\n", cmd));
    c.advance_ms(8_000);
    assert!(row(&mut c, "boom").contains("0/1     Error"), "{}", row(&mut c, "boom"));
    assert_eq!(get(&mut c, "get pod boom -o jsonpath={.status.phase}"), "Failed");
    assert_eq!(get(&mut c, "get pod boom -o jsonpath={.status.containerStatuses[0].state.terminated.exitCode}"), "3");
}

#[test]
fn a_crashing_container_with_restart_policy_always_goes_into_crash_loop_back_off_with_growing_restarts() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("crash", "busybox:1.36", "", "    command: [sh, -c, \"exit 1\"]\n"));
    c.advance_ms(8_000);
    let restarts = |c: &mut Cluster| {
        get(c, "get pod crash -o jsonpath={.status.containerStatuses[0].restartCount}").parse::<u32>().unwrap_or(0)
    };
    let first = restarts(&mut c);
    assert!(row(&mut c, "crash").contains("CrashLoopBackOff"), "{}", row(&mut c, "crash"));
    c.advance_ms(60_000);
    let later = restarts(&mut c);
    assert!(later > first && later >= 3, "{first} then {later}");
    // 10 s, 20 s, 40 s, …: after a minute more there are only a few more restarts, not dozens.
    assert!(later <= 6, "{later}");
    let describe = get(&mut c, "describe pod crash");
    assert!(describe.contains("Back-off restarting failed container crash in pod crash_default("), "{describe}");
    let message = get(&mut c, "get pod crash -o jsonpath={.status.containerStatuses[0].state.waiting.message}");
    assert!(message.starts_with("back-off ") && message.contains("restarting failed container=crash"), "{message}");
    assert_eq!(get(&mut c, "get pod crash -o jsonpath={.status.phase}"), "Running");
}

#[test]
fn a_tag_that_does_not_exist_fails_with_err_image_pull_then_image_pull_back_off() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("bad", "nginx:doesnotexist", "", ""));
    let mut seen = Vec::new();
    for _ in 0..80 {
        let status = row(&mut c, "bad").split_whitespace().nth(2).unwrap_or("").to_string();
        if seen.last() != Some(&status) {
            seen.push(status);
        }
        c.advance_ms(500);
    }
    assert!(seen.contains(&"ErrImagePull".to_string()), "{seen:?}");
    assert!(seen.contains(&"ImagePullBackOff".to_string()), "{seen:?}");
    let describe = get(&mut c, "describe pod bad");
    for text in [
        "Failed to pull image \"nginx:doesnotexist\": rpc error: code = NotFound desc = failed to pull and unpack image \"docker.io/library/nginx:doesnotexist\"",
        "Error: ErrImagePull",
        "Back-off pulling image \"nginx:doesnotexist\"",
        "Error: ImagePullBackOff",
    ] {
        assert!(describe.contains(text), "missing {text:?} in\n{describe}");
    }
}

#[test]
fn deleting_a_pod_stops_its_containers_and_then_removes_it() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("web", "nginx:1.27", "  nodeName: node01\n", ""));
    c.advance_ms(5_000);
    // --wait=false: kubectl returns once the apiserver has the deletion, not when the pod is gone.
    let (out, exit) = kubectl(&mut c, "delete pod web --wait=false");
    assert_eq!((out.as_str(), exit), ("pod \"web\" deleted from default namespace\n", Some(0)));
    let (_, exit) = kubectl(&mut c, "get pod web");
    let gone_at_once = exit != Some(0);
    c.advance_ms(2_000);
    let (out, exit) = kubectl(&mut c, "get pod web");
    assert_eq!(exit, Some(1), "{out}");
    assert!(!gone_at_once, "the pod should wait for its containers");
    let containerd = c.containerd("node01").expect("containerd on node01");
    assert!(containerd.containers().all(|k| k.name != "web"));
    assert!(containerd.sandboxes().all(|s| s.name != "web"));
}

#[test]
fn a_container_that_ignores_sigterm_keeps_its_pod_terminating_for_the_grace_period() {
    let mut c = Cluster::new_default(1);
    let spec = "  nodeName: node01\n  terminationGracePeriodSeconds: 5\n";
    apply(&mut c, &pod("sleeper", "busybox:1.36", spec, "    command: [sleep, \"3600\"]\n"));
    c.advance_ms(5_000);
    kubectl(&mut c, "delete pod sleeper --wait=false");
    c.advance_ms(2_000);
    assert!(row(&mut c, "sleeper").contains("Terminating"), "{}", row(&mut c, "sleeper"));
    let describe = get(&mut c, "describe pod sleeper");
    assert!(describe.contains("Stopping container sleeper"), "{describe}");
    c.advance_ms(5_000);
    assert_eq!(kubectl(&mut c, "get pod sleeper").1, Some(1));
}

#[test]
fn kubectl_delete_waits_until_the_pod_is_gone() {
    let mut c = Cluster::new_default(1);
    let spec = "  nodeName: node01\n  terminationGracePeriodSeconds: 5\n";
    apply(&mut c, &pod("sleeper", "busybox:1.36", spec, "    command: [sleep, \"3600\"]\n"));
    c.advance_ms(5_000);
    // `sleep` ignores SIGTERM: the kubelet kills it when the 5 s grace period is over, and only then is the
    // pod removed and kubectl done (a GET, a list of that name and a watch until it is DELETED).
    let started = c.now().ms();
    let r = c.kubectl("delete pod sleeper", None, 120_000);
    assert_eq!((r.output.as_str(), r.exit), ("pod \"sleeper\" deleted from default namespace\n", Some(0)));
    let waited = c.now().ms() - started;
    assert!((5_000..8_000).contains(&waited), "kubectl waited {waited} ms");
    assert_eq!(kubectl(&mut c, "get pod sleeper").1, Some(1), "gone when kubectl returns");
    let flow: Vec<String> = kubeglass::view::steps::data_flow(c.kernel(), r.chain)
        .iter()
        .filter(|s| s.from == "kubectl")
        .map(|s| s.label.clone())
        .collect();
    assert_eq!(flow, ["delete pods", "get pods", "list pods", "watch pods", "close watch"], "{flow:?}");
}

#[test]
fn the_nodes_lease_is_renewed_every_ten_seconds() {
    let mut c = Cluster::new_default(1);
    let mut times = Vec::new();
    for _ in 0..4 {
        times.push(lease_renew_time(&mut c, "node01"));
        c.advance_ms(10_000);
    }
    times.dedup();
    assert_eq!(times.len(), 4, "{times:?}");
    let holder = get(
        &mut c,
        "get lease -n kube-node-lease node01 -o jsonpath={.spec.holderIdentity}/{.spec.leaseDurationSeconds}",
    );
    assert_eq!(holder, "node01/40");
}

#[test]
fn a_stopped_kubelet_stops_renewing_its_lease_while_its_containers_keep_running() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("web", "nginx:1.27", "  nodeName: node01\n", ""));
    c.advance_ms(5_000);
    assert!(row(&mut c, "web").contains("Running"));
    c.stop("node01/kubelet").expect("stop");
    let before = lease_renew_time(&mut c, "node01");
    c.advance_ms(30_000);
    assert_eq!(lease_renew_time(&mut c, "node01"), before);
    assert_ne!(lease_renew_time(&mut c, "node02"), before);
    let containerd = c.containerd("node01").expect("containerd");
    assert!(containerd.containers().any(|k| k.name == "web" && k.state == ContainerState::Running));
    // Started again, the kubelet finds the running container instead of starting another.
    c.start("node01/kubelet").expect("start");
    c.advance_ms(12_000);
    assert_ne!(lease_renew_time(&mut c, "node01"), before);
    assert!(row(&mut c, "web").contains("1/1     Running   0"), "{}", row(&mut c, "web"));
    let containerd = c.containerd("node01").expect("containerd");
    assert_eq!(containerd.containers().filter(|k| k.name == "web").count(), 1);
}

#[test]
fn a_stopped_containerd_makes_the_node_not_ready_with_the_runtime_down() {
    let mut c = Cluster::new_default(1);
    c.stop("node02/containerd").expect("stop");
    // The runtime counts as down 30 s after its last successful status check (every 5 s); the next status
    // update (every 10 s) reports it.
    c.advance_ms(20_000);
    let ready = get(&mut c, "get node node02 -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].status}'");
    assert_eq!(ready, "True");
    c.advance_ms(21_000);
    let ready = get(&mut c, "get node node02 -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].status} {.status.conditions[?(@.type==\"Ready\")].message}'");
    assert_eq!(ready, "False container runtime is down");
    c.start("node02/containerd").expect("start");
    c.advance_ms(16_000);
    let ready = get(&mut c, "get node node02 -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].status}'");
    assert_eq!(ready, "True");
}

#[test]
fn a_deleted_mirror_pod_comes_back_with_a_new_uid_and_its_container_untouched() {
    let mut c = Cluster::new_default(1);
    let uid = get(&mut c, "get pod -n kube-system kube-scheduler-controlplane -o jsonpath={.metadata.uid}");
    let annotations =
        get(&mut c, "get pod -n kube-system kube-scheduler-controlplane -o jsonpath={.metadata.annotations}");
    for key in [
        "kubernetes.io/config.mirror",
        "kubernetes.io/config.hash",
        "kubernetes.io/config.source",
        "kubernetes.io/config.seen",
    ] {
        assert!(annotations.contains(key), "{annotations}");
    }
    kubectl(&mut c, "delete pod -n kube-system kube-scheduler-controlplane");
    c.advance_ms(3_000);
    let row = get(&mut c, "get pod -n kube-system kube-scheduler-controlplane");
    assert!(row.contains("1/1     Running   0"), "{row}");
    let new_uid = get(&mut c, "get pod -n kube-system kube-scheduler-controlplane -o jsonpath={.metadata.uid}");
    assert!(!new_uid.is_empty() && new_uid != uid);
    let containerd = c.containerd("controlplane").expect("containerd");
    assert_eq!(containerd.containers().filter(|k| k.name == "kube-scheduler").count(), 1);
}

#[test]
fn node_status_is_posted_on_change_and_at_least_every_five_minutes_not_every_ten_seconds() {
    let mut c = Cluster::new_default(1);
    let line = "get node node01 -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].lastHeartbeatTime}'";
    let first = get(&mut c, line);
    c.advance_ms(60_000);
    assert_eq!(get(&mut c, line), first, "an unchanged status is not posted every 10 s");
    c.advance_ms(250_000);
    let later = get(&mut c, line);
    assert!(!later.is_empty() && later != first, "{first} then {later}");
}

#[test]
fn kubelet_events_appear_in_the_order_they_happened() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("web", "nginx:1.27", "  nodeName: node02\n", ""));
    c.advance_ms(5_000);
    let events = get(&mut c, "get events");
    let at = |s: &str| events.find(s).unwrap_or(usize::MAX);
    assert!(at("Pulling") < at("Pulled") && at("Pulled") < at("Created") && at("Created") < at("Started"), "{events}");
}

#[test]
fn repeated_kubelet_events_are_counted_on_one_event_as_the_recorder_does() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("crash", "busybox:1.36", "", "    command: [sh, -c, \"exit 1\"]\n"));
    c.advance_ms(45_000);
    let describe = get(&mut c, "describe pod crash");
    assert!(
        describe.contains("Started    14s (x4 over 44s)  kubelet            Started container crash"),
        "{describe}"
    );
}

#[test]
fn a_readiness_probe_delay_keeps_a_running_pod_unready_until_it_passes() {
    let mut c = Cluster::new_default(1);
    let probe = "    readinessProbe:\n      httpGet: {path: /, port: 80}\n      initialDelaySeconds: 10\n";
    apply(&mut c, &pod("slow", "nginx:1.27", "  nodeName: node01\n", probe));
    c.advance_ms(5_000);
    assert!(row(&mut c, "slow").contains("0/1     Running"), "{}", row(&mut c, "slow"));
    c.advance_ms(10_000);
    assert!(row(&mut c, "slow").contains("1/1     Running"), "{}", row(&mut c, "slow"));
}

/// Seconds in a Go duration as the Pulled event prints it (`1.234s`, `850ms`).
fn go_seconds(d: &str) -> f64 {
    match d.strip_suffix("ms") {
        Some(ms) => ms.parse::<f64>().unwrap_or(f64::NAN) / 1000.0,
        None => d.trim_end_matches('s').parse::<f64>().unwrap_or(f64::NAN),
    }
}

/// The pull time and the time including waiting from a pod's `Pulled` event.
fn pulled(c: &mut Cluster, pod: &str) -> (f64, f64) {
    let msg = get(
        c,
        &format!(
            "get events --field-selector involvedObject.name={pod},reason=Pulled -o jsonpath={{.items[0].message}}"
        ),
    );
    let after = msg.split_once("\" in ").map(|(_, r)| r).unwrap_or_default();
    let (took, rest) = after.split_once(" (").unwrap_or_default();
    let waited = rest.split_once(" including waiting").map(|(w, _)| w).unwrap_or_default();
    (go_seconds(took), go_seconds(waited))
}

#[test]
fn pod_workers_run_side_by_side_but_image_pulls_take_turns() {
    let mut c = Cluster::new_default(1);
    apply(&mut c, &pod("first", "redis:7.4", "  nodeName: node02\n", ""));
    apply(&mut c, &pod("second", "httpd:2.4", "  nodeName: node02\n", ""));
    c.advance_ms(15_000);
    assert!(get(&mut c, "get pods").lines().filter(|l| l.contains("Running")).count() >= 2);
    let (a_took, a_waited) = pulled(&mut c, "first");
    let (b_took, b_waited) = pulled(&mut c, "second");
    assert!(a_took > 0.9 && (a_waited - a_took).abs() < 0.05, "the first pull waits for nothing: {a_took} {a_waited}");
    // serializeImagePulls: the second pull starts when the first ends.
    assert!(b_waited > b_took + 0.9, "{b_took} {b_waited}");
    assert!((b_waited - (a_took + b_took)).abs() < 0.1, "{a_took} + {b_took} vs {b_waited}");
    // Meanwhile the second pod's worker did not wait for the first pod: its sandbox came before the first pull
    // ended.
    let r = c.shell("node02", "journalctl -u containerd", 60_000);
    let at = |needle: &str| r.output.find(needle).unwrap_or(usize::MAX);
    assert!(
        at("RunPodSandbox for &PodSandboxMetadata{Name:second")
            < at("PullImage \"docker.io/library/redis:7.4\" returns"),
        "{}",
        r.output
    );
}

#[test]
fn the_node_reports_its_kubelet_version_and_leaves_the_deprecated_kube_proxy_version_empty() {
    let mut c = Cluster::new_default(1);
    assert!(get(&mut c, "get node node01 -o jsonpath={.status.nodeInfo.kubeletVersion}").starts_with("v1.34."));
    let json = get(&mut c, "get node node01 -o json");
    assert!(json.contains("\"kubeProxyVersion\": \"\","), "{json}");
    let describe = get(&mut c, "describe node node01");
    assert!(describe.lines().any(|l| l.trim_end() == "  Kube-Proxy Version:"), "{describe}");
}
