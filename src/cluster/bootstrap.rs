//! Installing the cluster at time zero, as kubeadm and the add-ons would: a `kubeadm` program on the
//! client host creates the namespaces, RBAC defaults, Services, CoreDNS and kube-proxy, registers each
//! Node with its status (what each kubelet does when it starts), and creates the control plane's mirror
//! pods — all through the apiserver, so the install is itself a trace of requests.

use serde_json::{json, Value};

use crate::api::manifest::parse_documents;
use crate::api::{lookup_kind, ApiRequest, ApiResponse, Credentials, Object, Verb};
use crate::client::Api;

use super::{Cluster, NodeConfig};

const MANIFESTS: &str = include_str!("bootstrap.yaml");

/// The kubelet version every node reports.
pub const KUBELET_VERSION: &str = "v1.34.1";

/// How long the install may take in simulated time before the cluster is handed over anyway.
const INSTALL_LIMIT_MS: u64 = 60_000;
/// And how much longer per node (each registers its Node and posts its status).
const INSTALL_LIMIT_MS_PER_NODE: u64 = 100;

pub fn install(cluster: &mut Cluster) {
    let mut docs: Vec<Value> = parse_documents(MANIFESTS, "bootstrap.yaml")
        .map(|d| d.into_iter().map(|d| d.value).collect())
        .unwrap_or_default();
    let nodes: Vec<NodeConfig> = cluster.config.all_nodes().cloned().collect();
    let control_plane = cluster.config.control_plane.name.clone();
    let total = nodes.len();
    for (i, n) in nodes.iter().enumerate() {
        docs.push(node_object(n, i, total, n.name == control_plane));
    }
    for component in ["etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"] {
        docs.push(mirror_pod(component, &control_plane));
    }
    let pid = cluster.spawn(Some("kubernetes-admin"), move |api| Box::pin(create_all(api, docs)));
    cluster.run_until_exit(pid, INSTALL_LIMIT_MS + INSTALL_LIMIT_MS_PER_NODE * nodes.len() as u64);
}

/// Creates each object in order (namespaces first), then sets the status of those that carry one.
async fn create_all(api: Api, docs: Vec<Value>) -> i32 {
    let mut failures = 0;
    for mut doc in docs {
        let status = doc.as_object_mut().and_then(|m| m.remove("status"));
        let (Some(info), Some(ns)) = (
            lookup_kind(doc["apiVersion"].as_str().unwrap_or(""), doc["kind"].as_str().unwrap_or("")),
            Some(doc["metadata"]["namespace"].as_str().map(str::to_string)),
        ) else {
            failures += 1;
            continue;
        };
        let name = doc["metadata"]["name"].as_str().unwrap_or("").to_string();
        let mut req = ApiRequest::new(Credentials::Anonymous, Verb::Create, info).namespace(ns.as_deref());
        req.raw_body = Some(doc);
        let created = match api.call(req).await {
            Ok(ApiResponse::Object(o)) => o,
            _ => {
                failures += 1;
                continue;
            }
        };
        if let Some(status) = status {
            let mut json = created.to_json();
            json["status"] = status;
            let Ok(obj) = Object::from_json_as(info.kind, json) else { continue };
            let req = ApiRequest::new(Credentials::Anonymous, Verb::Update, info)
                .namespace(ns.as_deref())
                .name(&name)
                .subresource("status")
                .body(obj);
            if !matches!(api.call(req).await, Ok(ApiResponse::Object(_))) {
                failures += 1;
            }
        }
    }
    i32::from(failures > 0)
}

/// The `/24` pod range kube-controller-manager's allocator gives node `index` of `total`: from kubeadm's
/// usual `--cluster-cidr=10.244.0.0/16` (room for 256 nodes), or from `10.128.0.0/9` for bigger clusters
/// (a /16 cannot hold more /24 ranges; the wider range stays clear of the 10.96.0.0/12 Service range).
pub fn pod_cidr(index: usize, total: usize) -> String {
    if total <= 256 {
        format!("10.244.{index}.0/24")
    } else {
        format!("10.{}.{}.0/24", 128 + index / 256, index % 256)
    }
}

/// Node `index`'s InternalIP: 192.168.56.10 for the control plane, then upwards through 192.168.0.0/16.
pub fn node_ip(index: usize) -> String {
    let n = 56 * 256 + 10 + index;
    format!("192.168.{}.{}", n / 256, n % 256)
}

fn node_object(n: &NodeConfig, index: usize, total: usize, control_plane: bool) -> Value {
    let mut labels = json!({
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": n.name,
        "kubernetes.io/os": "linux",
    });
    if control_plane {
        labels["node-role.kubernetes.io/control-plane"] = json!("");
        labels["node.kubernetes.io/exclude-from-external-load-balancers"] = json!("");
    }
    for (k, v) in &n.labels {
        labels[k] = json!(v);
    }
    let mut taints: Vec<Value> = n.taints.iter().map(|(k, v, e)| json!({"key": k, "value": v, "effect": e})).collect();
    if control_plane && taints.is_empty() {
        taints.push(json!({"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}));
    }
    let capacity =
        json!({"cpu": n.cpu, "memory": n.memory, "pods": n.pods, "ephemeral-storage": "20Gi", "hugepages-2Mi": "0"});
    let condition = |t: &str, s: &str, reason: &str, message: &str| {
        json!({"type": t, "status": s, "reason": reason, "message": message,
               "lastHeartbeatTime": "2025-09-01T00:00:00Z", "lastTransitionTime": "2025-09-01T00:00:00Z"})
    };
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": n.name, "labels": labels, "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"podCIDR": pod_cidr(index, total), "podCIDRs": [pod_cidr(index, total)], "taints": if taints.is_empty() { Value::Null } else { json!(taints) }},
        "status": {
            "capacity": capacity,
            "allocatable": capacity,
            "addresses": [{"type": "InternalIP", "address": node_ip(index)}, {"type": "Hostname", "address": n.name}],
            "conditions": [
                condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "nodeInfo": {
                "architecture": "amd64", "bootID": "", "containerRuntimeVersion": "containerd://1.7.27",
                "kernelVersion": "5.15.0-139-generic", "kubeProxyVersion": KUBELET_VERSION, "kubeletVersion": KUBELET_VERSION,
                "machineID": "", "operatingSystem": "linux", "osImage": "Ubuntu 22.04.5 LTS", "systemUUID": ""
            }
        }
    })
}

/// The mirror pod the control-plane kubelet posts for a static pod manifest (`<name>-<node>`).
fn mirror_pod(component: &str, node: &str) -> Value {
    let (image, command) = match component {
        "etcd" => ("registry.k8s.io/etcd:3.6.4-0", "etcd"),
        other => ("", other),
    };
    let image =
        if image.is_empty() { format!("registry.k8s.io/{component}:{KUBELET_VERSION}") } else { image.to_string() };
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": format!("{component}-{node}"),
            "namespace": "kube-system",
            "labels": {"component": component, "tier": "control-plane"},
            "annotations": {"kubernetes.io/config.source": "file", "kubernetes.io/config.mirror": "mirror", "kubernetes.io/config.seen": "2025-09-01T00:00:00Z"}
        },
        "spec": {
            "nodeName": node,
            "hostNetwork": true,
            "priorityClassName": "system-node-critical",
            "tolerations": [{"operator": "Exists", "effect": "NoExecute"}],
            "containers": [{"name": component, "image": image, "command": [command]}]
        },
        "status": {
            "phase": "Running",
            "hostIP": "192.168.56.10",
            "podIP": "192.168.56.10",
            "podIPs": [{"ip": "192.168.56.10"}],
            "startTime": "2025-09-01T00:00:00Z",
            "qosClass": "Burstable",
            "conditions": [
                {"type": "PodReadyToStartContainers", "status": "True"},
                {"type": "Initialized", "status": "True"},
                {"type": "Ready", "status": "True"},
                {"type": "ContainersReady", "status": "True"},
                {"type": "PodScheduled", "status": "True"}
            ],
            "containerStatuses": [{
                "name": component, "image": image, "imageID": "", "ready": true, "restartCount": 0, "started": true,
                "state": {"running": {"startedAt": "2025-09-01T00:00:00Z"}}
            }]
        }
    })
}
