//! Node lifecycle through the controller manager: heartbeats (a fake kubelet renewing its Lease), NotReady
//! after the grace period, taints, taint-based eviction and its cancellation, and the endpoints of a
//! Service over ready and unready pods.

use std::cell::Cell;
use std::rc::Rc;

use kubeglass::api::{lookup, ApiRequest, ApiResponse, Credentials, Object, PatchBody, Verb};
use kubeglass::client::Api;
use kubeglass::cluster::Cluster;
use serde_json::{json, Value};

use crate::{apply, kubectl};

/// A stand-in for a node's kubelet: posts Ready node status once, then renews its Lease every 10 s.
struct FakeKubelet {
    stop: Rc<Cell<bool>>,
    last_renew_ms: Rc<Cell<u64>>,
}

impl FakeKubelet {
    /// Stops renewing (the program exits at its next wake-up); returns when the Lease was last renewed.
    fn stop(&self) -> u64 {
        self.stop.set(true);
        self.last_renew_ms.get()
    }
}

async fn get(api: &Api, resource: &str, ns: Option<&str>, name: &str) -> Option<Value> {
    let req = ApiRequest::new(Credentials::Anonymous, Verb::Get, lookup(resource)?).namespace(ns).name(name);
    match api.call(req).await {
        Ok(ApiResponse::Object(o)) => Some(o.to_json()),
        _ => None,
    }
}

async fn write(api: &Api, verb: Verb, resource: &str, sub: Option<&str>, obj: Value) -> bool {
    let Some(info) = lookup(resource) else { return false };
    let Ok(obj) = Object::from_json_as(info.kind, obj) else { return false };
    let mut req = ApiRequest::new(Credentials::Anonymous, verb, info).namespace(obj.namespace());
    if verb != Verb::Create {
        req = req.name(obj.name());
    }
    if let Some(sub) = sub {
        req = req.subresource(sub);
    }
    matches!(api.call(req.body(obj)).await, Ok(ApiResponse::Object(_)))
}

/// What the kubelet posts: Ready=True and no pressure, heartbeats now; `NodeReady` when Ready flips back.
async fn post_ready_status(api: &Api, node: &str) {
    let Some(mut n) = get(api, "nodes", None, node).await else { return };
    let now = api.now().rfc3339();
    let was_ready = n["status"]["conditions"]
        .as_array()
        .is_some_and(|cs| cs.iter().any(|c| c["type"] == "Ready" && c["status"] == "True"));
    let cond = |t: &str, s: &str, reason: &str, message: &str| {
        json!({"type": t, "status": s, "reason": reason, "message": message,
               "lastHeartbeatTime": now, "lastTransitionTime": now})
    };
    n["status"]["conditions"] = json!([
        cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]);
    write(api, Verb::Update, "nodes", Some("status"), n.clone()).await;
    if !was_ready {
        let event = json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": format!("{node}.ready{}", api.now().ms()), "namespace": "default"},
            "involvedObject": {"apiVersion": "v1", "kind": "Node", "name": node, "uid": n["metadata"]["uid"]},
            "reason": "NodeReady", "message": format!("Node {node} status is now: NodeReady"), "type": "Normal",
            "source": {"component": "kubelet", "host": node}, "count": 1,
            "firstTimestamp": now, "lastTimestamp": now,
        });
        write(api, Verb::Create, "events", None, event).await;
    }
}

/// Creates or renews `kube-node-lease/<node>`.
async fn renew_lease(api: &Api, node: &str) -> bool {
    let now = kubeglass::sim::SimTime(api.now().ms()).rfc3339().replace('Z', ".000000Z");
    match get(api, "leases", Some("kube-node-lease"), node).await {
        Some(mut lease) => {
            lease["spec"]["renewTime"] = json!(now);
            write(api, Verb::Update, "leases", None, lease).await
        }
        None => {
            let lease = json!({
                "apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node, "leaseDurationSeconds": 40, "renewTime": now},
            });
            write(api, Verb::Create, "leases", None, lease).await
        }
    }
}

/// The default cluster with the real kubelets of the workers stopped: these tests play the kubelet themselves
/// (a fake one renewing the Lease, pod statuses set by hand).
fn cluster_with_fake_kubelets() -> Cluster {
    let mut c = Cluster::new_default(1);
    for node in ["node01", "node02"] {
        c.stop(&format!("{node}/kubelet")).unwrap();
    }
    c
}

fn fake_kubelet(c: &mut Cluster, node: &str) -> FakeKubelet {
    let kubelet = FakeKubelet { stop: Rc::new(Cell::new(false)), last_renew_ms: Rc::new(Cell::new(0)) };
    let (stop, last) = (kubelet.stop.clone(), kubelet.last_renew_ms.clone());
    let node = node.to_string();
    c.spawn(Some("kubernetes-admin"), move |api| {
        Box::pin(async move {
            post_ready_status(&api, &node).await;
            while !stop.get() {
                if renew_lease(&api, &node).await {
                    last.set(api.now().ms());
                }
                api.sleep(10_000).await;
            }
            0
        })
    });
    c.advance_ms(100);
    kubelet
}

/// Runs a small client program to its end.
fn run(c: &mut Cluster, program: impl FnOnce(Api) -> std::pin::Pin<Box<dyn std::future::Future<Output = i32>>>) {
    let spawned = c.spawn(Some("kubernetes-admin"), program);
    c.run_until_exit(spawned, 10_000);
}

/// Sets a pod's status as its kubelet would: Running, an IP, and Ready as asked.
fn set_pod_status(c: &mut Cluster, name: &str, ip: &str, ready: bool) {
    let (name, ip) = (name.to_string(), ip.to_string());
    run(c, move |api| {
        Box::pin(async move {
            let Some(mut pod) = get(&api, "pods", Some("default"), &name).await else { return 1 };
            let now = api.now().rfc3339();
            let r = if ready { "True" } else { "False" };
            let containers: Vec<Value> = pod["spec"]["containers"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|ct| {
                    json!({"name": ct["name"], "image": ct["image"], "imageID": "", "ready": ready, "restartCount": 0,
                           "started": true, "state": {"running": {"startedAt": now}}})
                })
                .collect();
            pod["status"] = json!({
                "phase": "Running", "hostIP": "192.168.56.12", "podIP": ip, "podIPs": [{"ip": ip}], "startTime": now,
                "qosClass": "BestEffort",
                "conditions": [
                    {"type": "PodReadyToStartContainers", "status": "True", "lastTransitionTime": now},
                    {"type": "Initialized", "status": "True", "lastTransitionTime": now},
                    {"type": "Ready", "status": r, "lastTransitionTime": now},
                    {"type": "ContainersReady", "status": r, "lastTransitionTime": now},
                    {"type": "PodScheduled", "status": "True", "lastTransitionTime": now},
                ],
                "containerStatuses": containers,
            });
            i32::from(!write(&api, Verb::Update, "pods", Some("status"), pod).await)
        })
    });
}

/// Adds a label to a node (a merge patch, as `kubectl label` sends).
fn label_node(c: &mut Cluster, node: &str, key: &str, value: &str) {
    let (node, patch) = (node.to_string(), json!({"metadata": {"labels": {key: value}}}));
    run(c, move |api| {
        Box::pin(async move {
            let Some(info) = lookup("nodes") else { return 1 };
            let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Patch, info).name(&node);
            req.patch = Some(PatchBody::Merge(patch));
            i32::from(!matches!(api.call(req).await, Ok(ApiResponse::Object(_))))
        })
    });
}

fn pod_on(name: &str, node: &str, labels: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  labels: {{{labels}}}\nspec:\n  nodeName: {node}\n{extra}  containers:\n  - name: nginx\n    image: nginx:1.27\n    ports:\n    - {{name: http, containerPort: 8080}}\n"
    )
}

/// Advances the clock to `ms` after the simulation's start.
fn advance_to(c: &mut Cluster, ms: u64) {
    let now = c.now().ms();
    if ms > now {
        c.advance_ms(ms - now);
    }
}

fn node_status(c: &mut Cluster, node: &str) -> String {
    let (out, _) = kubectl(c, &format!("get node {node} --no-headers"));
    out.split_whitespace().nth(1).unwrap_or("").to_string()
}

fn events(c: &mut Cluster) -> String {
    kubectl(c, "get events").0
}

/// A row of `kubectl get events` with these cells (whitespace-separated), message last.
fn has_event(events: &str, type_: &str, reason: &str, object: &str, message: &str) -> bool {
    events.lines().any(|l| {
        let cells: Vec<&str> = l.split_whitespace().collect();
        cells.len() > 4 && cells[1] == type_ && cells[2] == reason && cells[3] == object && l.ends_with(message)
    })
}

/// What kubectl prints first for every request to v1 Endpoints since v1.33 (the reference, §8).
const ENDPOINTS_WARNING: &str =
    "Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n";

#[test]
fn a_node_whose_kubelet_renews_its_lease_stays_ready() {
    let mut c = Cluster::new_default(1);
    let _kubelet = fake_kubelet(&mut c, "node02");
    c.advance_ms(180_000);
    assert_eq!(node_status(&mut c, "node02"), "Ready");
    assert_eq!(kubectl(&mut c, "get node node02 -o 'jsonpath={.spec.taints}'").0, "");
    assert_eq!(kubectl(&mut c, "get lease node02 -n kube-node-lease -o name").0, "lease.coordination.k8s.io/node02\n");
}

#[test]
fn the_default_cluster_whose_kubelets_run_stays_ready() {
    let mut c = Cluster::new_default(1);
    c.advance_ms(600_000);
    let (out, _) = kubectl(&mut c, "get nodes --no-headers");
    let statuses: Vec<&str> = out.lines().map(|l| l.split_whitespace().nth(1).unwrap_or("")).collect();
    assert_eq!(statuses, ["Ready", "Ready", "Ready"], "{out}");
    let ev = events(&mut c);
    for node in ["controlplane", "node01", "node02"] {
        let message = format!("Node {node} event: Registered Node {node} in Controller");
        assert!(has_event(&ev, "Normal", "RegisteredNode", &format!("node/{node}"), &message), "{ev}");
    }
    assert!(!ev.contains("NodeNotReady"), "{ev}");
}

#[test]
fn a_silent_kubelet_makes_its_node_not_ready_after_50s_then_its_pods_are_evicted_after_300s_more() {
    let mut c = cluster_with_fake_kubelets();
    let kubelet = fake_kubelet(&mut c, "node02");
    apply(&mut c, &pod_on("web", "node02", "app: web", ""));
    set_pod_status(&mut c, "web", "10.244.2.5", true);
    c.advance_ms(31_000);
    let last = kubelet.stop();

    advance_to(&mut c, last + 45_000);
    assert_eq!(node_status(&mut c, "node02"), "Ready");
    advance_to(&mut c, last + 55_000);
    assert_eq!(node_status(&mut c, "node02"), "NotReady");

    let (conds, _) = kubectl(
        &mut c,
        "get node node02 -o 'jsonpath={range .status.conditions[*]}{.type}={.status}/{.reason}/{.message};{end}'",
    );
    for t in ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"] {
        let want = format!("{t}=Unknown/NodeStatusUnknown/Kubelet stopped posting node status.;");
        assert!(conds.contains(&want), "{conds}");
    }
    let (taints, _) =
        kubectl(&mut c, "get node node02 -o 'jsonpath={range .spec.taints[*]}{.key}:{.effect}:{.timeAdded};{end}'");
    let taints: Vec<&str> = taints.split(';').filter(|t| !t.is_empty()).collect();
    assert_eq!(taints.len(), 2, "{taints:?}");
    assert!(taints[0].starts_with("node.kubernetes.io/unreachable:NoSchedule:2025-09-01T"), "{taints:?}");
    assert!(taints[1].starts_with("node.kubernetes.io/unreachable:NoExecute:2025-09-01T"), "{taints:?}");
    let ev = events(&mut c);
    assert!(has_event(&ev, "Normal", "NodeNotReady", "node/node02", "Node node02 status is now: NodeNotReady"), "{ev}");
    assert!(has_event(&ev, "Warning", "NodeNotReady", "pod/web", "Node is not ready"), "{ev}");
    assert_eq!(
        kubectl(&mut c, "get pod web -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].status}'").0,
        "False"
    );
    let (pods, _) = kubectl(&mut c, "get pods --no-headers");
    assert!(pods.starts_with("web   1/1   Running   0 "), "{pods}");

    // The NoExecute taint was added between 50 s and 55 s after the last renewal; 300 s later the pod goes.
    advance_to(&mut c, last + 345_000);
    assert!(!events(&mut c).contains("TaintManagerEviction"));
    advance_to(&mut c, last + 356_000);
    let ev = events(&mut c);
    assert!(
        has_event(&ev, "Normal", "TaintManagerEviction", "pod/web", "Marking for deletion Pod default/web"),
        "{ev}"
    );
    let (cond, _) = kubectl(
        &mut c,
        "get pod web -o 'jsonpath={range .status.conditions[?(@.type==\"DisruptionTarget\")]}{.status}/{.reason}/{.message}{end}'",
    );
    assert_eq!(cond, "True/DeletionByTaintManager/Taint manager: deleting due to NoExecute taint");
    // With no kubelet to finish the deletion, the pod stays Terminating.
    c.advance_ms(600_000);
    let (pods, _) = kubectl(&mut c, "get pods --no-headers");
    assert!(pods.starts_with("web   1/1   Terminating   0 "), "{pods}");
}

#[test]
fn a_kubelet_that_comes_back_within_300s_cancels_the_eviction_and_clears_the_taints() {
    let mut c = cluster_with_fake_kubelets();
    let kubelet = fake_kubelet(&mut c, "node02");
    apply(&mut c, &pod_on("web", "node02", "app: web", ""));
    set_pod_status(&mut c, "web", "10.244.2.5", true);
    c.advance_ms(20_000);
    let last = kubelet.stop();
    advance_to(&mut c, last + 60_000);
    assert_eq!(node_status(&mut c, "node02"), "NotReady");
    c.advance_ms(120_000);
    let _back = fake_kubelet(&mut c, "node02");
    c.advance_ms(1_000);
    assert_eq!(node_status(&mut c, "node02"), "Ready");
    assert_eq!(kubectl(&mut c, "get node node02 -o 'jsonpath={.spec.taints}'").0, "");
    let ev = events(&mut c);
    assert!(
        has_event(&ev, "Normal", "TaintManagerEviction", "pod/web", "Cancelling deletion of Pod default/web"),
        "{ev}"
    );
    assert!(has_event(&ev, "Normal", "NodeReady", "node/node02", "Node node02 status is now: NodeReady"), "{ev}");
    c.advance_ms(400_000);
    assert_eq!(node_status(&mut c, "node02"), "Ready");
    assert_eq!(kubectl(&mut c, "get pod web -o 'jsonpath={.metadata.deletionTimestamp}'").0, "");
    assert!(!events(&mut c).contains("Marking for deletion"));
}

#[test]
fn pods_that_do_not_tolerate_the_unreachable_taint_are_evicted_at_once_and_tolerating_forever_keeps_them() {
    let mut c = cluster_with_fake_kubelets();
    let kubelet = fake_kubelet(&mut c, "node02");
    let zero = "  tolerations:\n  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 0}\n";
    let forever = "  tolerations:\n  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute}\n";
    apply(&mut c, &pod_on("quick", "node02", "app: quick", zero));
    apply(&mut c, &pod_on("stays", "node02", "app: stays", forever));
    set_pod_status(&mut c, "quick", "10.244.2.6", true);
    set_pod_status(&mut c, "stays", "10.244.2.7", true);
    c.advance_ms(10_000);
    let last = kubelet.stop();
    advance_to(&mut c, last + 57_000);
    let ev = events(&mut c);
    assert!(
        has_event(&ev, "Normal", "TaintManagerEviction", "pod/quick", "Marking for deletion Pod default/quick"),
        "{ev}"
    );
    c.advance_ms(900_000);
    assert!(!events(&mut c).contains("Marking for deletion Pod default/stays"));
    assert_eq!(kubectl(&mut c, "get pod stays -o 'jsonpath={.metadata.deletionTimestamp}'").0, "");
}

#[test]
fn endpoints_and_endpoint_slices_list_pods_with_an_ip_split_by_readiness() {
    let mut c = cluster_with_fake_kubelets();
    label_node(&mut c, "node01", "topology.kubernetes.io/zone", "zone-a");
    apply(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  labels: {tier: front}\nspec:\n  selector: {app: web}\n  ports:\n  - {name: http, port: 80, targetPort: http}\n",
    );
    apply(&mut c, &pod_on("web-a", "node01", "app: web", ""));
    apply(&mut c, &pod_on("web-b", "node02", "app: web", ""));
    apply(&mut c, &pod_on("web-c", "node02", "app: web", ""));
    apply(&mut c, &pod_on("other", "node02", "app: other", ""));
    set_pod_status(&mut c, "web-a", "10.244.1.5", true);
    set_pod_status(&mut c, "web-b", "10.244.2.7", false);
    set_pod_status(&mut c, "other", "10.244.2.9", true);
    c.advance_ms(1_000);

    let (out, code) = kubectl(&mut c, "get endpoints web");
    assert_eq!(code, Some(0));
    let out = out.strip_prefix(ENDPOINTS_WARNING).unwrap_or_else(|| panic!("no deprecation warning first: {out}"));
    let lines: Vec<Vec<&str>> = out.lines().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(lines[0], ["NAME", "ENDPOINTS", "AGE"], "{out}");
    assert_eq!(lines[1][..2], ["web", "10.244.1.5:8080"], "{out}");
    let (subsets, _) = kubectl(
        &mut c,
        "get endpoints web -o 'jsonpath={.subsets[0].addresses[*].ip}|{.subsets[0].notReadyAddresses[*].ip}|{.subsets[0].ports[0].name}:{.subsets[0].ports[0].port}/{.subsets[0].ports[0].protocol}|{.subsets[0].addresses[0].targetRef.name}|{.metadata.labels.tier}'",
    );
    assert_eq!(subsets, format!("{ENDPOINTS_WARNING}10.244.1.5|10.244.2.7|http:8080/TCP|web-a|front"));

    let (slices, _) = kubectl(&mut c, "get endpointslices -l kubernetes.io/service-name=web --no-headers");
    let cells: Vec<&str> = slices.split_whitespace().collect();
    assert!(cells[0].starts_with("web-") && cells[0].len() == 9, "{slices}");
    assert_eq!(cells[1..4], ["IPv4", "8080", "10.244.1.5,10.244.2.7"], "{slices}");
    let name = cells[0].to_string();
    let (json, _) = kubectl(&mut c, &format!("get endpointslice {name} -o json"));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["metadata"]["generateName"], "web-");
    assert_eq!(v["metadata"]["labels"]["endpointslice.kubernetes.io/managed-by"], "endpointslice-controller.k8s.io");
    assert_eq!(v["metadata"]["labels"]["kubernetes.io/service-name"], "web");
    assert_eq!(v["metadata"]["ownerReferences"][0]["kind"], "Service");
    assert_eq!(v["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(v["ports"], json!([{"name": "http", "port": 8080, "protocol": "TCP"}]));
    let a = &v["endpoints"][0];
    assert_eq!(a["addresses"], json!(["10.244.1.5"]));
    assert_eq!(a["conditions"], json!({"ready": true, "serving": true, "terminating": false}));
    assert_eq!((a["nodeName"].as_str(), a["zone"].as_str()), (Some("node01"), Some("zone-a")));
    assert_eq!(a["targetRef"]["kind"], "Pod");
    assert_eq!(a["targetRef"]["name"], "web-a");
    let b = &v["endpoints"][1];
    assert_eq!(b["conditions"], json!({"ready": false, "serving": false, "terminating": false}));
    assert_eq!(b["nodeName"], "node02");

    // web-b becomes ready, web-c gets an IP: both show up.
    set_pod_status(&mut c, "web-b", "10.244.2.7", true);
    set_pod_status(&mut c, "web-c", "10.244.2.8", false);
    c.advance_ms(1_000);
    let (out, _) = kubectl(&mut c, "get endpoints web --no-headers");
    assert_eq!(
        out.lines().nth(1).and_then(|l| l.split_whitespace().nth(1)),
        Some("10.244.1.5:8080,10.244.2.7:8080"),
        "{out}"
    );
    let (ips, _) = kubectl(&mut c, "get endpoints web -o 'jsonpath={.subsets[0].notReadyAddresses[*].ip}'");
    assert_eq!(ips, format!("{ENDPOINTS_WARNING}10.244.2.8"));

    // Deleting the service takes its Endpoints and EndpointSlices with it.
    kubectl(&mut c, "delete service web");
    c.advance_ms(1_000);
    assert_eq!(
        kubectl(&mut c, "get endpoints web").0,
        format!("{ENDPOINTS_WARNING}Error from server (NotFound): endpoints \"web\" not found\n")
    );
    let (out, _) = kubectl(&mut c, "get endpointslices -l kubernetes.io/service-name=web");
    assert_eq!(out, "No resources found in default namespace.\n");
}

#[test]
fn a_service_selecting_no_pods_has_an_empty_endpoints_and_a_placeholder_slice() {
    let mut c = Cluster::new_default(1);
    apply(
        &mut c,
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: lonely\nspec:\n  selector: {app: lonely}\n  ports:\n  - {port: 80}\n",
    );
    c.advance_ms(1_000);
    let (out, _) = kubectl(&mut c, "get endpoints lonely --no-headers");
    assert_eq!(out.lines().nth(1).and_then(|l| l.split_whitespace().nth(1)), Some("<none>"), "{out}");
    let (out, _) = kubectl(&mut c, "get endpointslices -l kubernetes.io/service-name=lonely --no-headers");
    let cells: Vec<&str> = out.split_whitespace().collect();
    assert_eq!(cells[1..4], ["IPv4", "<unset>", "<unset>"], "{out}");
}

#[test]
fn a_kubelet_stopped_before_its_first_lease_renewal_still_makes_its_node_not_ready() {
    let mut c = Cluster::new_default(1);
    // Right after the install the kubelet has registered its Node and posted Ready, but not yet made its Lease.
    c.stop("node02/kubelet").unwrap();
    let (out, _) = kubectl(&mut c, "get lease node02 -n kube-node-lease");
    assert_eq!(out, "Error from server (NotFound): leases.coordination.k8s.io \"node02\" not found\n");
    let start = c.now().ms();
    advance_to(&mut c, start + 30_000);
    assert_eq!(node_status(&mut c, "node02"), "Ready");
    advance_to(&mut c, start + 60_000);
    assert_eq!(node_status(&mut c, "node02"), "NotReady");
    assert_eq!(node_status(&mut c, "node01"), "Ready");
    let message = kubectl(&mut c, "get node node02 -o 'jsonpath={.status.conditions[?(@.type==\"Ready\")].message}'").0;
    assert_eq!(message, "Kubelet stopped posting node status.");
    let ev = events(&mut c);
    assert!(has_event(&ev, "Normal", "NodeNotReady", "node/node02", "Node node02 status is now: NodeNotReady"), "{ev}");
}

#[test]
fn a_node_no_kubelet_ever_posted_for_turns_unknown_after_the_startup_grace_period() {
    let mut c = Cluster::new_default(1);
    let (out, code) = apply(&mut c, "apiVersion: v1\nkind: Node\nmetadata:\n  name: ghost\n");
    assert_eq!((out.as_str(), code), ("node/ghost created\n", Some(0)));
    let start = c.now().ms();
    advance_to(&mut c, start + 50_000);
    assert_eq!(kubectl(&mut c, "get node ghost -o 'jsonpath={.status.conditions}'").0, "");
    advance_to(&mut c, start + 70_000);
    let ready = |c: &mut Cluster, field: &str| {
        kubectl(c, &format!("get node ghost -o 'jsonpath={{.status.conditions[?(@.type==\"Ready\")].{field}}}'")).0
    };
    assert_eq!(ready(&mut c, "status"), "Unknown");
    assert_eq!(ready(&mut c, "reason"), "NodeStatusNeverUpdated");
    assert_eq!(ready(&mut c, "message"), "Kubelet never posted node status.");
    assert_eq!(
        kubectl(&mut c, "get node ghost -o 'jsonpath={.spec.taints[*].key}'").0,
        "node.kubernetes.io/unreachable node.kubernetes.io/unreachable"
    );
}
