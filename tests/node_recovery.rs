//! The node side of recovery, with the real kubelet and containerd: the kubelet reconciles its Node and its
//! pods' statuses against what the apiserver holds (not against its own last write) and records the node
//! events a real kubelet records; a kubelet stopped and started re-lists the containers that kept running;
//! containerd stopped turns the node NotReady after the runtime status check's threshold and PLEG's; a node
//! powered off and on reboots (its containers are gone, its pods start again with their restart counts up).

use kubeglass::cluster::Cluster;
use kubeglass::node::runtime::ContainerState;

use crate::{apply, kubectl};

fn get(c: &mut Cluster, line: &str) -> String {
    kubectl(c, line).0
}

fn sh(c: &mut Cluster, node: &str, line: &str) -> (String, Option<i32>) {
    let r = c.shell(node, line, 120_000);
    (r.output, r.exit)
}

fn node_status(c: &mut Cluster, node: &str) -> String {
    let out = get(c, &format!("get node {node} --no-headers"));
    out.split_whitespace().nth(1).unwrap_or("").to_string()
}

fn ready_condition(c: &mut Cluster, node: &str) -> String {
    get(
        c,
        &format!(
            "get node {node} -o 'jsonpath={{range .status.conditions[?(@.type==\"Ready\")]}}{{.status}}/{{.reason}}/{{.message}}{{end}}'"
        ),
    )
}

/// The `get pods` row of one pod, without the header.
fn row(c: &mut Cluster, name: &str) -> String {
    get(c, &format!("get pod {name}")).lines().nth(1).unwrap_or_default().to_string()
}

fn pod_ready(c: &mut Cluster, name: &str) -> String {
    get(c, &format!("get pod {name} -o 'jsonpath={{.status.conditions[?(@.type==\"Ready\")].status}}'"))
}

/// Rows of `kubectl get events` about `object` (`node/node01`) with this reason: (type, count-free message).
fn events_about(c: &mut Cluster, object: &str, reason: &str) -> Vec<String> {
    let out = get(c, "get events");
    out.lines()
        .filter(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            cells.len() > 4 && cells[2] == reason && cells[3] == object
        })
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            format!("{} {}", cells[1], cells[4..].join(" "))
        })
        .collect()
}

/// How many times the recorder counted the kubelet's events of this reason about node `node`.
fn node_event_count(c: &mut Cluster, node: &str, reason: &str) -> i64 {
    let out = get(
        c,
        &format!(
            "get events --field-selector involvedObject.kind=Node,involvedObject.name={node},reason={reason} -o 'jsonpath={{range .items[*]}}{{.count}} {{end}}'"
        ),
    );
    out.split_whitespace().filter_map(|n| n.parse::<i64>().ok()).sum()
}

fn web_pod_and_service(c: &mut Cluster, node: &str) {
    apply(
        c,
        &format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels: {{app: web}}\nspec:\n  nodeName: {node}\n  containers:\n  - name: nginx\n    image: nginx:1.27\n    ports:\n    - {{containerPort: 80}}\n"
        ),
    );
    apply(
        c,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n  ports:\n  - {port: 80}\n",
    );
}

/// The ready addresses of Service `web`'s EndpointSlice.
fn ready_endpoints(c: &mut Cluster) -> String {
    get(
        c,
        "get endpointslices -l kubernetes.io/service-name=web -o 'jsonpath={range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]} {end}'",
    )
}

fn pod_ip(c: &mut Cluster, name: &str) -> String {
    get(c, &format!("get pod {name} -o jsonpath={{.status.podIP}}"))
}

fn advance_to(c: &mut Cluster, ms: u64) {
    let now = c.now().ms();
    if ms > now {
        c.advance_ms(ms - now);
    }
}

#[test]
fn every_kubelet_records_its_start_events_on_its_node() {
    let mut c = Cluster::new_default(1);
    // The first events are written before kubeadm made the default namespace: the recorder tries again.
    c.advance_ms(11_000);
    for node in ["controlplane", "node01", "node02"] {
        let object = format!("node/{node}");
        assert_eq!(events_about(&mut c, &object, "Starting"), ["Normal Starting kubelet."]);
        for reason in ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"] {
            let want = format!("Normal Node {node} status is now: {reason}");
            assert_eq!(events_about(&mut c, &object, reason), [want]);
        }
        assert_eq!(
            events_about(&mut c, &object, "NodeAllocatableEnforced"),
            ["Normal Updated Node Allocatable limit across pods"]
        );
        // Registered Ready: no transition of its own Ready status yet.
        assert!(events_about(&mut c, &object, "NodeReady").is_empty());
    }
    let (json, _) = kubectl(
        &mut c,
        "get events --field-selector involvedObject.name=node01,reason=Starting -o 'jsonpath={.items[0].involvedObject.kind}/{.items[0].involvedObject.uid}/{.items[0].metadata.namespace}/{.items[0].source.component}/{.items[0].source.host}'",
    );
    // The kubelet's nodeRef has the node's name as its UID; events about cluster-scoped objects go to default.
    assert_eq!(json, "Node/node01/default/kubelet/node01");
}

#[test]
fn a_ready_unknown_written_over_a_running_kubelet_is_corrected_at_its_next_status_update() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(20_000);
    let transition = "get node node01 -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].lastTransitionTime}'";
    let first = get(&mut c, transition);
    // What the node lifecycle controller writes when it stops hearing from a kubelet.
    let unknown = |t: &str| {
        format!(
            "{{\"type\":\"{t}\",\"status\":\"Unknown\",\"reason\":\"NodeStatusUnknown\",\"message\":\"Kubelet stopped posting node status.\"}}"
        )
    };
    let patch = format!(
        "{{\"status\":{{\"conditions\":[{},{},{},{}]}}}}",
        unknown("MemoryPressure"),
        unknown("DiskPressure"),
        unknown("PIDPressure"),
        unknown("Ready")
    );
    let (out, code) = kubectl(&mut c, &format!("patch node node01 --subresource status --type merge -p '{patch}'"));
    assert_eq!((out.as_str(), code), ("node/node01 patched\n", Some(0)));
    assert_eq!(node_status(&mut c, "node01"), "NotReady");
    // The kubelet's next update (every 10 s) compares with the Node the apiserver holds, not with its own
    // last write, and patches it back.
    c.advance_ms(10_500);
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    assert_eq!(ready_condition(&mut c, "node01"), "True/KubeletReady/kubelet is posting ready status");
    assert_eq!(events_about(&mut c, "node/node01", "NodeReady"), ["Normal Node node01 status is now: NodeReady"]);
    // Each pressure condition went from Unknown to False again: its event once more (the correlator counts).
    for reason in ["NodeHasSufficientMemory", "NodeHasNoDiskPressure", "NodeHasSufficientPID"] {
        assert_eq!(node_event_count(&mut c, "node01", reason), 2, "{reason}");
    }
    // Nothing changed on node02: its events were counted once.
    assert_eq!(node_event_count(&mut c, "node02", "NodeHasSufficientMemory"), 1);
    let since = get(&mut c, transition);
    assert!(!since.is_empty() && since > first, "Ready changed again: {first} then {since}");
}

#[test]
fn pod_ready_conditions_set_false_by_another_writer_come_back_and_the_pod_rejoins_its_endpoints() {
    let mut c = Cluster::new_default(1);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    let ip = pod_ip(&mut c, "web");
    assert_eq!(ready_endpoints(&mut c), format!("{ip} "));
    let since = get(&mut c, "get pod web -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].lastTransitionTime}'");
    // What the node lifecycle controller's MarkPodsNotReady writes (a strategic merge on the condition type).
    let (out, code) = kubectl(
        &mut c,
        "patch pod web --subresource status -p '{\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}}'",
    );
    assert_eq!((out.as_str(), code), ("pod/web patched\n", Some(0)));
    c.advance_ms(1_000);
    assert_eq!(pod_ready(&mut c, "web"), "False");
    assert_eq!(ready_endpoints(&mut c), "");
    // The status manager's sync (every 10 s) finds the apiserver's copy differs from its own and sends its
    // status again, with the Ready condition's original transition time.
    c.advance_ms(10_000);
    assert_eq!(pod_ready(&mut c, "web"), "True");
    assert_eq!(
        get(&mut c, "get pod web -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].lastTransitionTime}'"),
        since
    );
    c.advance_ms(1_000);
    assert_eq!(ready_endpoints(&mut c), format!("{ip} "));
    assert!(row(&mut c, "web").contains("1/1     Running   0"), "{}", row(&mut c, "web"));
}

#[test]
fn a_kubelet_stopped_past_the_grace_period_and_started_again_finds_its_containers_and_cancels_the_eviction() {
    let mut c = Cluster::new_default(1);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    let ip = pod_ip(&mut c, "web");
    let cid = |c: &Cluster| {
        c.containerd("node01")
            .and_then(|d| d.containers().find(|k| k.name == "nginx").map(|k| (k.id.clone(), k.state)))
            .expect("the nginx container")
    };
    let before = cid(&c);
    assert_eq!(before.1, ContainerState::Running);
    let (out, code) = sh(&mut c, "node01", "systemctl stop kubelet");
    assert_eq!((out.as_str(), code), ("", Some(0)));
    let stopped = c.now().ms();
    advance_to(&mut c, stopped + 60_000);
    assert_eq!(node_status(&mut c, "node01"), "NotReady");
    assert_eq!(pod_ready(&mut c, "web"), "False");
    assert_eq!(ready_endpoints(&mut c), "");
    assert_eq!(cid(&c), before, "containerd keeps running the container");
    advance_to(&mut c, stopped + 120_000);
    let (out, code) = sh(&mut c, "node01", "systemctl start kubelet");
    assert_eq!((out.as_str(), code), ("", Some(0)));
    c.advance_ms(12_000);
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    assert_eq!(get(&mut c, "get node node01 -o 'jsonpath={.spec.taints}'"), "");
    assert_eq!(pod_ready(&mut c, "web"), "True");
    assert_eq!(ready_endpoints(&mut c), format!("{ip} "));
    assert!(row(&mut c, "web").contains("1/1     Running   0"), "{}", row(&mut c, "web"));
    assert_eq!(cid(&c), before, "the restarted kubelet re-lists the container instead of starting another");
    assert_eq!(c.containerd("node01").map(|d| d.containers().filter(|k| k.name == "nginx").count()), Some(1));
    assert_eq!(
        events_about(&mut c, "pod/web", "TaintManagerEviction"),
        ["Normal Cancelling deletion of Pod default/web"]
    );
    assert_eq!(events_about(&mut c, "node/node01", "NodeReady"), ["Normal Node node01 status is now: NodeReady"]);
    assert_eq!(node_event_count(&mut c, "node01", "Starting"), 2, "a Starting event per kubelet process");
    assert!(events_about(&mut c, "node/node01", "NodeRebooted").is_empty(), "the machine did not reboot");
    c.advance_ms(400_000);
    assert_eq!(get(&mut c, "get pod web -o 'jsonpath={.metadata.deletionTimestamp}'"), "");
    assert!(events_about(&mut c, "pod/web", "TaintManagerEviction").iter().all(|e| !e.contains("Marking")));
}

#[test]
fn a_stopped_containerd_turns_the_node_not_ready_after_the_runtime_check_threshold_then_pleg_after_three_minutes() {
    let mut c = Cluster::new_default(1);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    let (out, code) = sh(&mut c, "node01", "systemctl stop containerd");
    assert_eq!((out.as_str(), code), ("", Some(0)));
    let stopped = c.now().ms();
    let (out, code) = sh(&mut c, "node01", "crictl ps");
    assert_eq!(code, Some(1));
    assert!(out.contains("connect: no such file or directory"), "{out}");
    // The runtime status check runs every 5 s; the runtime counts as down 30 s after its last success.
    advance_to(&mut c, stopped + 25_000);
    assert_eq!(ready_condition(&mut c, "node01"), "True/KubeletReady/kubelet is posting ready status");
    advance_to(&mut c, stopped + 41_000);
    assert_eq!(ready_condition(&mut c, "node01"), "False/KubeletNotReady/container runtime is down");
    assert_eq!(events_about(&mut c, "node/node01", "NodeNotReady"), ["Normal Node node01 status is now: NodeNotReady"]);
    assert_eq!(
        get(&mut c, "get node node01 -o jsonpath={.status.nodeInfo.containerRuntimeVersion}"),
        "containerd://Unknown"
    );
    // The pod's containers keep running under their shims; the apiserver still has its last status.
    assert!(row(&mut c, "web").contains("1/1     Running   0"), "{}", row(&mut c, "web"));
    // PLEG's relist fails too: past its 3-minute threshold the node says so.
    advance_to(&mut c, stopped + 175_000);
    assert_eq!(ready_condition(&mut c, "node01"), "False/KubeletNotReady/container runtime is down");
    advance_to(&mut c, stopped + 195_000);
    let message = ready_condition(&mut c, "node01");
    let rest = message
        .strip_prefix(
            "False/KubeletNotReady/[container runtime is down, PLEG is not healthy: pleg was last seen active 3m",
        )
        .unwrap_or_else(|| panic!("{message}"));
    assert!(rest.ends_with("s ago; threshold is 3m0s]"), "{message}");
    let r = c.shell("node01", "journalctl -u kubelet", 60_000);
    assert!(r.output.contains("\"Skipping pod synchronization\" err=\"[container runtime is down, PLEG is not healthy: pleg was last seen active 3m"), "{}", r.output);
    assert!(r.output.contains("\"Node became not ready\" node=\"node01\""), "{}", r.output);
    // containerd back: within a runtime check and a status update the node is Ready, nothing restarted.
    sh(&mut c, "node01", "systemctl start containerd");
    c.advance_ms(16_000);
    assert_eq!(ready_condition(&mut c, "node01"), "True/KubeletReady/kubelet is posting ready status");
    assert_eq!(events_about(&mut c, "node/node01", "NodeReady"), ["Normal Node node01 status is now: NodeReady"]);
    assert!(row(&mut c, "web").contains("1/1     Running   0"), "{}", row(&mut c, "web"));
    let (out, code) = sh(&mut c, "node01", "crictl ps");
    assert_eq!(code, Some(0));
    assert!(out.contains("nginx"), "{out}");
}

#[test]
fn a_node_powered_off_and_on_reboots_its_containers_are_gone_and_its_pods_start_again_with_one_more_restart() {
    let mut c = Cluster::new_default(1);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    let old_ip = pod_ip(&mut c, "web");
    let boot_before = get(&mut c, "get node node01 -o jsonpath={.status.nodeInfo.bootID}");
    assert_eq!(boot_before.len(), 36, "a UUID: {boot_before}");
    c.stop("node01").expect("power off");
    let off = c.now().ms();
    // The grace period counts from the last Lease renewal, up to 10 s before the power went.
    advance_to(&mut c, off + 38_000);
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    advance_to(&mut c, off + 61_000);
    assert_eq!(node_status(&mut c, "node01"), "NotReady");
    assert_eq!(
        get(&mut c, "get node node01 -o 'jsonpath={.spec.taints[*].key}'"),
        "node.kubernetes.io/unreachable node.kubernetes.io/unreachable"
    );
    advance_to(&mut c, off + 120_000);
    c.start("node01").expect("power on");
    // The machine rebooted: containerd knows its old containers as exited (their tasks died with the
    // machine) and its sandboxes as not ready.
    let d = c.containerd("node01").expect("containerd");
    assert!(d.containers().all(|k| k.state == ContainerState::Exited && k.exit_code == 255));
    assert!(d.sandboxes().all(|s| !s.ready));
    c.advance_ms(15_000);
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    assert!(row(&mut c, "web").contains("1/1     Running   1 "), "{}", row(&mut c, "web"));
    assert_eq!(
        events_about(&mut c, "pod/web", "SandboxChanged"),
        ["Normal Pod sandbox changed, it will be killed and re-created."]
    );
    let rebooted = events_about(&mut c, "node/node01", "NodeRebooted");
    assert_eq!(rebooted.len(), 1, "{rebooted:?}");
    let boot = get(&mut c, "get node node01 -o jsonpath={.status.nodeInfo.bootID}");
    assert_eq!(rebooted[0], format!("Warning Node node01 has been rebooted, boot id: {boot}"));
    assert_ne!(boot, boot_before);
    // describe shows the node's events from both sources (the controllers name the node by its UID, the
    // kubelet by its name).
    let describe = get(&mut c, "describe node node01");
    let events = describe.split("Events:").nth(1).unwrap_or_default().to_string();
    for (reason, from) in [("NodeRebooted", "kubelet"), ("NodeReady", "kubelet"), ("RegisteredNode", "node-controller")]
    {
        assert!(
            events.lines().any(|l| l.split_whitespace().nth(1) == Some(reason) && l.contains(&format!("  {from}  "))),
            "{reason}: {events}"
        );
    }
    let last = get(
        &mut c,
        "get pod web -o 'jsonpath={.status.containerStatuses[0].lastState.terminated.exitCode}/{.status.containerStatuses[0].lastState.terminated.reason}'",
    );
    assert_eq!(last, "255/Unknown");
    let ip = pod_ip(&mut c, "web");
    assert!(!ip.is_empty() && ip != old_ip, "a new sandbox, a new address: {old_ip} then {ip}");
    assert_eq!(ready_endpoints(&mut c), format!("{ip} "));
    assert_eq!(
        events_about(&mut c, "pod/web", "TaintManagerEviction"),
        ["Normal Cancelling deletion of Pod default/web"]
    );
    let (out, _) = sh(&mut c, "node01", "crictl ps -a --name nginx");
    assert_eq!(out.lines().filter(|l| l.contains("Running")).count(), 1, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains("Exited")).count(), 1, "{out}");
}

#[test]
fn a_node_powered_off_past_the_toleration_has_its_pods_evicted_and_the_rebooted_kubelet_finishes_deleting_them() {
    let mut c = Cluster::new_default(1);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    c.stop("node01").expect("power off");
    let off = c.now().ms();
    // The NoExecute taint came 50-55 s after the last renewal (0-10 s before the power went); 300 s later the
    // pod is evicted.
    advance_to(&mut c, off + 335_000);
    assert!(events_about(&mut c, "pod/web", "TaintManagerEviction").is_empty());
    advance_to(&mut c, off + 360_000);
    assert_eq!(
        events_about(&mut c, "pod/web", "TaintManagerEviction"),
        ["Normal Marking for deletion Pod default/web"]
    );
    assert!(row(&mut c, "web").contains("Terminating"), "{}", row(&mut c, "web"));
    c.start("node01").expect("power on");
    c.advance_ms(15_000);
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    assert_eq!(get(&mut c, "get pod web").trim(), "Error from server (NotFound): pods \"web\" not found");
    let d = c.containerd("node01").expect("containerd");
    assert!(d.containers().all(|k| k.name != "nginx"), "the deleted pod's sandbox and containers are removed");
}

#[test]
fn the_control_plane_node_powered_off_and_on_runs_its_static_pods_again_with_one_more_restart() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(10_000);
    c.stop("controlplane").expect("power off");
    // Every process of the machine ended with it, the control plane's components too.
    let down: Vec<String> = c.view().components.iter().filter(|x| !x.running).map(|x| x.name.clone()).collect();
    for name in ["kube-apiserver", "kube-scheduler", "kube-controller-manager", "etcd-0", "controlplane/kubelet"] {
        assert!(down.iter().any(|d| d == name), "{name} still runs: {down:?}");
    }
    let (out, _) = kubectl(&mut c, "get nodes");
    assert_eq!(
        out,
        "The connection to the server 192.168.56.10:6443 was refused - did you specify the right host or port?\n"
    );
    c.advance_ms(60_000);
    c.start("controlplane").expect("power on");
    c.advance_ms(60_000);
    let (pods, _) = kubectl(&mut c, "get pods -n kube-system --no-headers");
    for name in ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"] {
        let line = pods.lines().find(|l| l.starts_with(&format!("{name}-controlplane "))).unwrap_or_default();
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cells.get(1..4), Some(&["1/1", "Running", "1"][..]), "{pods}");
    }
    assert_eq!(node_status(&mut c, "controlplane"), "Ready");
    let (out, _) = sh(&mut c, "controlplane", "crictl ps -a --name kube-apiserver");
    assert_eq!(out.lines().filter(|l| l.contains(" Exited ")).count(), 1, "{out}");
    assert_eq!(out.lines().filter(|l| l.contains(" Running ")).count(), 1, "{out}");
}

#[test]
fn after_an_apiserver_outage_every_node_and_pod_is_ready_again_within_a_status_update_or_two() {
    let mut c = Cluster::new_default(1);
    kubectl(&mut c, "create deployment web --image=nginx:1.27 --replicas=3");
    kubectl(&mut c, "expose deployment web --port=80");
    c.advance_ms(30_000);
    c.stop("kube-apiserver").expect("stop");
    c.advance_ms(120_000);
    c.start("kube-apiserver").expect("start");
    // Whatever the node lifecycle controller wrote meanwhile, each kubelet's next status update and status
    // manager sync put the apiserver's copies right.
    c.advance_ms(20_000);
    let (nodes, _) = kubectl(&mut c, "get nodes --no-headers");
    let statuses: Vec<&str> = nodes.lines().map(|l| l.split_whitespace().nth(1).unwrap_or("")).collect();
    assert_eq!(statuses, ["Ready", "Ready", "Ready"], "{nodes}");
    let deploy = get(&mut c, "get deploy web --no-headers");
    assert_eq!(deploy.split_whitespace().take(4).collect::<Vec<_>>(), ["web", "3/3", "3", "3"], "{deploy}");
    let ready = get(
        &mut c,
        "get endpointslices -l kubernetes.io/service-name=web -o 'jsonpath={range .items[*].endpoints[?(@.conditions.ready==true)]}{.addresses[0]} {end}'",
    );
    assert_eq!(ready.split_whitespace().count(), 3, "{ready}");
}

#[test]
fn nothing_on_a_powered_off_machine_starts_until_it_is_powered_on_and_stopping_its_services_is_not_a_power_off() {
    let mut c = Cluster::new_default(1);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    c.stop("node01").expect("power off");
    assert!(c.is_powered_off("node01"));
    for part in ["node01/kubelet", "node01/containerd", "node01/kube-proxy"] {
        assert_eq!(c.start(part), Err("node01 is powered off: power it on first (start node01)".to_string()));
        assert_eq!(c.crash(part), Err("node01 is powered off: power it on first (start node01)".to_string()));
        assert!(!c.is_running(part), "{part} stays down");
    }
    c.start("node01").expect("power on");
    assert!(!c.is_powered_off("node01"));
    // The machine rebooted: the containers that ran before died with it.
    assert!(c.containerd("node01").expect("containerd").containers().all(|k| k.state == ContainerState::Exited));

    // Stopping every service by hand leaves the machine on: its containers keep running under their shims,
    // and starting the machine's services again is no reboot.
    c.advance_ms(20_000);
    let running = |c: &Cluster| {
        c.containerd("node01").expect("containerd").containers().filter(|k| k.state == ContainerState::Running).count()
    };
    let before = running(&c);
    assert!(before > 0);
    for part in ["node01/kubelet", "node01/containerd", "node01/kube-proxy"] {
        c.stop(part).expect("systemctl stop");
    }
    assert!(!c.is_powered_off("node01"));
    c.start("node01").expect("start its services");
    assert_eq!(running(&c), before, "no reboot: the containers still run");
    c.advance_ms(15_000);
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    let boots = get(&mut c, "get events --field-selector reason=NodeRebooted -o name");
    assert_eq!(boots.lines().count(), 1, "one reboot only: {boots}");
}

#[test]
fn a_pod_whose_final_delete_met_an_apiserver_outage_is_deleted_once_the_apiserver_is_back() {
    let mut c = Cluster::new_default(3);
    web_pod_and_service(&mut c, "node01");
    c.advance_ms(8_000);
    assert!(row(&mut c, "web").contains("Running"), "{}", row(&mut c, "web"));
    assert_eq!(kubectl(&mut c, "delete pod web --wait=false").1, Some(0));
    // The kubelet stops nginx at once and sends the pod's final delete while the apiserver is gone.
    c.stop("kube-apiserver").expect("stop");
    c.advance_ms(20_000);
    c.start("kube-apiserver").expect("start");
    // The status manager's next sync sends it again.
    c.advance_ms(15_000);
    let (out, code) = kubectl(&mut c, "get pod web");
    assert_eq!((out.as_str(), code), ("Error from server (NotFound): pods \"web\" not found\n", Some(1)));
}

#[test]
fn a_static_pod_whose_old_container_outlived_a_reboot_starts_again_when_its_manifest_is_back() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(20_000);
    // etcd's manifest moved out while containerd is down: the kubelet cannot kill its container, and the
    // machine then reboots, so containerd comes back knowing etcd's sandbox while the manifest is gone and
    // the apiserver cannot list pods (no etcd).
    c.stop("controlplane/containerd").unwrap();
    c.advance_ms(5_000);
    c.stop("etcd").unwrap();
    c.advance_ms(10_000);
    c.stop("controlplane").unwrap();
    c.start("controlplane").unwrap();
    c.advance_ms(30_000);
    c.start("etcd").unwrap();
    let (out, _) = sh(&mut c, "controlplane", "crictl ps --name etcd");
    assert!(out.lines().nth(1).is_some_and(|l| l.contains(" Running ") && l.contains("etcd-controlplane")), "{out}");
    let (journal, _) = sh(&mut c, "controlplane", "journalctl -u kubelet --no-pager");
    let after_reboot = journal.rsplit("Started kubelet.service").next().unwrap_or_default();
    assert!(
        after_reboot.contains(r#""SyncLoop ADD" source="file" pods=["kube-system/etcd-controlplane"]"#),
        "{journal}"
    );
    c.advance_ms(kubeglass::apiserver::etcd_client::RECONNECT_MAX_MS);
    assert_eq!(node_status(&mut c, "controlplane"), "Ready");
}
